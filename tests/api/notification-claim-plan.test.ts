/**
 * The notification worker's claim (server/db/notifications.ts `claim`) runs on connections that
 * keep their prepared statements, over a queue that swings from empty to a storm's backlog. A
 * generic plan made while the queue held a few rows read every row of the receiver, sorted them and
 * scanned the whole queue for the chosen ids; the claim must be planned for the rows it meets.
 */
import pg from 'pg';
import { sql, type DatabaseTransactionConnection } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { migrate } from '../../server/db/migrate.ts';
import { claim } from '../../server/db/notifications.ts';
import { createDb, type Db } from '../../server/db/pool.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';
import { explainAnalyzed, rowsRead, type PlanNode } from '../helpers/plans.ts';
import { capturing, numbered } from '../helpers/receive-statements.ts';

type Ctx = { db: { name: string; url: string }; pool: Db };
const test = suite<Ctx>('the notification claim is planned for the queue it meets', {} as Ctx);

test.before(async (ctx) => {
  ctx.db = await createTestDatabase('notify_claim');
  await migrate(ctx.db.url);
  // One connection, so every claim below runs on the same prepared statement.
  ctx.pool = await createDb(ctx.db.url, { size: 1 });
});
test.after(async (ctx) => {
  await ctx.pool?.end();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

const CLAIM = { receiverId: 'r1', owner: 'me', limit: 200, leaseMs: 30_000 };

/** Runs `work` in a transaction that is rolled back, so the queue stays as it is. */
async function rolledBack(pool: Db, work: (tx: DatabaseTransactionConnection) => Promise<void>) {
  const undo = new Error('rollback');
  try {
    await pool.transaction(async (tx) => {
      await work(tx);
      throw undo;
    });
  } catch (err) {
    if (err !== undo) throw err;
  }
}

const queue = (url: string, rows: number, due: string, receiver = 'r1') =>
  queryDb(
    url,
    `INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, due_at)
     SELECT '${receiver}', 'rule', 'a' || g, 'trigger', ${due} FROM generate_series(1, ${rows}) g`,
  );

test("claims made on a few rows, then on 19,000: never a generic plan, never a scan of the queue or of all the receiver's rows", async (ctx) => {
  await queue(ctx.db.url, 5, "now() - interval '1 second'");
  // Committed, as the worker's are (a transaction that throws costs slonik its connection, and the
  // statements prepared on it): the first takes the five rows, the others find them leased.
  for (let i = 0; i < 8; i++)
    assert.is((await ctx.pool.transaction((tx) => claim(tx, CLAIM))).length, i === 0 ? 5 : 0);
  // A storm: 19,000 rows of the rule waiting out its group wait.
  await queue(ctx.db.url, 19_000, "now() + (g - 200) * interval '1 millisecond'");

  const { db: capture, seen } = capturing();
  await claim(capture, CLAIM);
  const claimText = seen.at(-1)!;
  await rolledBack(ctx.pool, async (tx) => {
    assert.is((await claim(tx, CLAIM)).length, 200);
    const prepared = await tx.one(
      sql.type(z.object({ name: z.string(), generic: z.number(), custom: z.number() }))`
        SELECT name, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements
        WHERE statement = ${numbered(claimText)}`,
    );
    assert.is(prepared.generic, 0, 'a generic plan was used');
    assert.is(prepared.custom, 9);
    // The plan this transaction's next claim gets, with the queue as it is now, and what it reads:
    // the rule's first row and the next 200 in the index's order (each scan passing over the 200
    // this transaction leased), then the 200 by id, not every row of the receiver sorted.
    const [explained] = (await tx.oneFirst(
      sql.type(
        z.object({ 'QUERY PLAN': z.unknown() }),
      )`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${sql.identifier([prepared.name])}(${sql.join(
        claimText.values.map((v) => sql.literalValue(String(v))),
        sql.fragment`, `,
      )})`,
    )) as { Plan: PlanNode }[];
    const plan = JSON.stringify(explained);
    assert.not.ok(plan.includes('"Seq Scan"'), plan);
    const read = rowsRead(explained!.Plan, 'notification_queue');
    assert.ok(read.rows <= 5 * CLAIM.limit, `${read.rows} queue rows read: ${plan}`);
  });
});

test('a claim with nothing due reads none of the 19,000 rows waiting out their group wait', async (ctx) => {
  // Every drain of a receiver ends with a claim that finds nothing due.
  const waiting = { ...CLAIM, receiverId: 'r2' };
  await queue(ctx.db.url, 19_000, "now() + interval '1 hour' + g * interval '1 millisecond'", 'r2');
  await queryDb(ctx.db.url, 'ANALYZE notification_queue');
  assert.is((await ctx.pool.transaction((tx) => claim(tx, waiting))).length, 0);

  const { db: capture, seen } = capturing();
  await claim(capture, waiting);
  const client = new pg.Client({ connectionString: ctx.db.url });
  await client.connect();
  try {
    const plan = await explainAnalyzed(client, seen);
    const read = rowsRead(plan, 'notification_queue');
    assert.ok(read.rows <= 2, `${read.rows} queue rows read: ${JSON.stringify(plan)}`);
  } finally {
    await client.end();
  }
});

test.run();
