/**
 * Applied migrations are frozen (server/db/migrations/README.md): each file's checksum, computed as
 * `migrate` computes it, must match its line in server/db/migrations/CHECKSUMS. A database that
 * applied a file refuses to start once the file changes, so an edit has to fail here first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listMigrations } from '../../server/db/migrate.ts';

const DIR = new URL('../../server/db/migrations/', import.meta.url);
/** What may sit beside the migrations; any other file would be silently skipped by `migrate`. */
const NOT_MIGRATIONS = new Set(['CHECKSUMS', 'README.md']);

const fileOf = (m: { version: number; name: string }) =>
  `${String(m.version).padStart(4, '0')}_${m.name}.sql`;

/** CHECKSUMS lines are `sha256sum` output: `<hex>  <file>` (so `sha256sum -c CHECKSUMS` checks them too). */
function manifest(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of readFileSync(new URL('CHECKSUMS', DIR), 'utf8').split('\n')) {
    if (!line) continue;
    const m = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    assert.ok(m, `CHECKSUMS: not "<sha256>  <file>": ${JSON.stringify(line)}`);
    assert.not.ok(entries.has(m[2]!), `CHECKSUMS names ${m[2]} twice`);
    entries.set(m[2]!, m[1]!);
  }
  return entries;
}

test('every migration file is unchanged from its CHECKSUMS line, and a new one has its line', () => {
  const entries = manifest();
  for (const m of listMigrations()) {
    const file = fileOf(m);
    const listed = entries.get(file);
    assert.ok(
      listed,
      `${file} is not in server/db/migrations/CHECKSUMS: add the line "${m.checksum}  ${file}"`,
    );
    assert.is(
      m.checksum,
      listed,
      `${file} differs from CHECKSUMS: an applied migration is never edited; undo the edit and add a new migration`,
    );
  }
});

test('every migration in CHECKSUMS still exists', () => {
  const present = new Set(listMigrations().map(fileOf));
  for (const file of manifest().keys())
    assert.ok(present.has(file), `${file} is in CHECKSUMS but gone: databases that applied it still have it`);
});

test('every file beside them is a migration NNNN_name.sql, one per version number', () => {
  for (const file of readdirSync(DIR)) {
    if (NOT_MIGRATIONS.has(file)) continue;
    assert.match(file, /^\d{4}_[a-z0-9_]+\.sql$/, `${file}: migrate reads only NNNN_lower_snake.sql`);
  }
  const versions = listMigrations().map((m) => m.version);
  assert.is(
    new Set(versions).size,
    versions.length,
    `a version number is used twice: ${versions.join(', ')}`,
  );
});

test.run();
