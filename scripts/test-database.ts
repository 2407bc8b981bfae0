/**
 * The PostgreSQL server tests make their databases on (`npm test`, `npm run fuzz`): TEST_DATABASE_URL
 * or DATABASE_URL if set, else the local one if it answers, else an embedded one started here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const LOCAL = 'postgres://postgres@127.0.0.1:5432/postgres';

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** `label` names the embedded server's temporary folder. `stop` stops it if one was started. */
export async function testDatabase(label: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const given = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (given) return { url: given, stop: async () => {} };
  if (await canConnect(LOCAL)) return { url: LOCAL, stop: async () => {} };
  const { startEmbeddedPostgres } = await import('../server/db/embedded.ts');
  const { createLog } = await import('../server/log.ts');
  const dir = mkdtempSync(join(tmpdir(), `alertwall-${label}-pg-`));
  console.log(`no PostgreSQL at ${LOCAL}; starting an embedded one in ${dir}`);
  const embedded = await startEmbeddedPostgres(dir, createLog('silent'));
  return {
    url: embedded.url,
    stop: async () => {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
