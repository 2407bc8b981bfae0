import { readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import pg from 'pg';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
/** Any fixed number: every instance takes the same lock, so only one migrates at a time. */
const MIGRATION_LOCK = 7_264_351_002;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

/** The migration files, in version order: migrations/NNNN_name.sql. */
export function listMigrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const text = readFileSync(new URL(file, MIGRATIONS_DIR), 'utf8');
      return {
        version: Number(file.slice(0, 4)),
        name: file.slice(5, -4),
        sql: text,
        checksum: createHash('sha256').update(text).digest('hex'),
      };
    });
}

/** A digest of every migration: databases built from the same files share it (tests key templates on it). */
export function migrationsDigest(): string {
  const h = createHash('sha256');
  for (const m of listMigrations()) h.update(`${m.version}:${m.checksum}\n`);
  return h.digest('hex').slice(0, 16);
}

/**
 * Applies pending migrations under a transaction-scoped advisory lock, so instances starting
 * together on an empty database take turns and all come up. Returns the versions applied.
 * Uses a plain pg client: migration files hold several statements, which only the simple
 * query protocol accepts. `before`: only the versions below it (a test of one migration run on a
 * database left at the version before it).
 */
export async function migrate(url: string, schema = 'public', before = Infinity): Promise<number[]> {
  const migrations = listMigrations().filter((m) => m.version < before);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    if (schema !== 'public') {
      const id = client.escapeIdentifier(schema);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${id}`);
      await client.query(`SET LOCAL search_path TO ${id}`);
    }
    await client.query(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const { rows } = await client.query<{ version: number; checksum: string }>(
      'SELECT version, checksum FROM schema_migrations',
    );
    const applied = new Map(rows.map((r) => [r.version, r.checksum]));
    const done: number[] = [];
    for (const m of migrations) {
      const seen = applied.get(m.version);
      if (seen !== undefined) {
        if (seen !== m.checksum) {
          throw new Error(
            `migration ${m.version}_${m.name} was changed after it was applied; add a new one instead`,
          );
        }
        continue;
      }
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        m.checksum,
      ]);
      done.push(m.version);
    }
    await client.query('COMMIT');
    return done;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}
