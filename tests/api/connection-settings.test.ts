/**
 * What every pool connection sets (server/db/planner.ts `CONNECTION_SETTINGS`): no JIT compilation,
 * which PostgreSQL otherwise plans for any statement estimated above `jit_above_cost`.
 */
import pg from 'pg';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createDb, type Db } from '../../server/db/pool.ts';
import { serverUrl } from '../helpers/db.ts';

const test = suite<{ pool: Db }>('pool connection settings', {} as { pool: Db });
test.before(async (ctx) => {
  ctx.pool = await createDb(serverUrl, { size: 1 });
});
test.after(async (ctx) => {
  await ctx.pool?.end();
});

/** Estimated above the default `jit_above_cost` (100,000); EXPLAIN alone, nothing runs. */
const COSTLY = sql.unsafe`EXPLAIN SELECT count(*) FROM generate_series(1, 10000000) g`;

test('a costly statement is planned without JIT', async (ctx) => {
  const plan = (await ctx.pool.anyFirst(COSTLY)).map(String);
  assert.not.ok(
    plan.some((line) => line.startsWith('JIT:')),
    plan.join('\n'),
  );

  // The same statement on a connection left at the server's defaults, where JIT is built in.
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ on: boolean }>(
      "SELECT pg_jit_available() AND current_setting('jit')::bool AS on",
    );
    if (!rows[0]!.on) return;
    const plain = (await client.query<{ 'QUERY PLAN': string }>(COSTLY.sql)).rows.map((r) => r['QUERY PLAN']);
    assert.ok(
      plain.some((line) => line.startsWith('JIT:')),
      `without the setting: ${plain.join('\n')}`,
    );
  } finally {
    await client.end();
  }
});

test.run();
