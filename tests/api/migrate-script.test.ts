import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';

const root = new URL('../..', import.meta.url).pathname;
const runMigrate = (env: Record<string, string>) =>
  spawnSync(process.execPath, ['scripts/migrate.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
  });

test('npm run migrate applies every migration once, then has nothing to do', async () => {
  const db = await createTestDatabase('migrate_script');
  try {
    const first = runMigrate({ DATABASE_URL: db.url });
    assert.is(first.status, 0, first.stderr);
    assert.match(first.stdout, /^applied migrations 1, .*; the schema is at version \d+$/m);
    const tables = await queryDb<{ n: number }>(
      db.url,
      `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name IN ('alerts', 'forward_queue')`,
    );
    assert.is(tables[0]!.n, 2);
    const second = runMigrate({ DATABASE_URL: db.url });
    assert.is(second.status, 0, second.stderr);
    assert.match(second.stdout, /^nothing to apply; the schema is at version \d+$/m);
  } finally {
    await dropTestDatabase(db.name);
  }
});

test('a bad setting is named, with exit code 2', () => {
  const r = runMigrate({ DATABASE_URL: 'mysql://nope' });
  assert.is(r.status, 2);
  assert.match(r.stderr, /^migrate: invalid settings:\n\s+DATABASE_URL: /);
});

test.run();
