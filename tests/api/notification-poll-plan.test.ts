/**
 * The notification worker's poll (server/db/notifications.ts `dueReceivers`), every second on
 * every instance: it must read each receiver's next row through the `(receiver_id, due_at)` index,
 * not the whole queue, which in a storm holds every alert waiting out its rule's group wait.
 */
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { dueReceivers } from '../../server/db/notifications.ts';
import { migrate } from '../../server/db/migrate.ts';
import { createDb } from '../../server/db/pool.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';
import { capturing, numbered } from '../helpers/receive-statements.ts';

type Ctx = { db: { name: string; url: string }; client: pg.Client };
const test = suite<Ctx>('the notification poll reads the queue by index', {} as Ctx);

test.before(async (ctx) => {
  ctx.db = await createTestDatabase('notify_poll');
  await migrate(ctx.db.url);
  ctx.client = new pg.Client({ connectionString: ctx.db.url });
  await ctx.client.connect();
  // r1: 20,000 rows waiting out a group wait, the oldest 50 leased (being delivered); r2: leased
  // only; r3: one row due in a minute; r4: nothing queued.
  await ctx.client.query(`
    INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, due_at, owner, lease_until)
    SELECT 'r1', 'rule', 'a' || g, 'trigger', now() + (g - 100) * interval '1 millisecond',
      CASE WHEN g <= 50 THEN 'someone' END, CASE WHEN g <= 50 THEN now() + interval '30 seconds' END
    FROM generate_series(1, 20000) g`);
  await ctx.client.query(`
    INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, due_at, owner, lease_until)
    VALUES ('r2', 'rule', 'b1', 'trigger', now() - interval '1 second', 'someone', now() + interval '30 seconds'),
      ('r3', 'rule', 'c1', 'trigger', now() + interval '1 minute', NULL, NULL)`);
});
test.after(async (ctx) => {
  await ctx.client?.end();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

async function planOf(ctx: Ctx) {
  const { db, seen } = capturing();
  await dueReceivers(db, ['r1', 'r2', 'r3', 'r4']);
  const q = seen[0]!;
  const { rows } = await ctx.client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${numbered(q)}`, [
    ...q.values,
  ]);
  return JSON.stringify(rows[0]!['QUERY PLAN']);
}

test('answers each receiver with an unleased row, and when its next one comes due', async (ctx) => {
  const db = await createDb(ctx.db.url, { size: 1 });
  try {
    const due = await dueReceivers(db, ['r1', 'r2', 'r3', 'r4']);
    assert.equal(
      due.map((d) => d.receiverId),
      ['r1', 'r3'],
    );
    // What the grouped read over the whole queue answered.
    const { rows } = await ctx.client.query<{ receiver: string; first: Date }>(
      `SELECT receiver_id AS receiver, min(due_at) AS first FROM notification_queue
       WHERE lease_until IS NULL OR lease_until < now() GROUP BY receiver_id ORDER BY receiver_id`,
    );
    assert.equal(
      due.map((d) => [d.receiverId, d.dueAt]),
      rows.map((r) => [r.receiver, r.first.getTime()]),
    );
  } finally {
    await db.end();
  }
});

test('reads the queue through its index, analysed or not', async (ctx) => {
  for (const when of ['before ANALYZE', 'after ANALYZE']) {
    const plan = await planOf(ctx);
    assert.ok(plan.includes('notification_queue_due_idx'), `${when}: ${plan}`);
    assert.not.ok(plan.includes('"Seq Scan"'), `${when}: ${plan}`);
    await ctx.client.query('ANALYZE notification_queue');
  }
});

test('no receivers, no statement', async () => {
  const { db, seen } = capturing();
  assert.equal(await dueReceivers(db, []), []);
  assert.is(seen.length, 0);
});

test.run();
