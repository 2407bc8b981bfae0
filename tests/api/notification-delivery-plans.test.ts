/**
 * The statements a notification delivery runs once per message of up to 200 alerts
 * (server/db/notifications.ts `claim`, which reads each claimed row's alert as it is now, and
 * `addHistory`, the entries with their trim and the settled rows' removal) must find each alert and
 * its history by index, one probe per alert, whatever the tables' statistics say. Planned from statistics taken while the
 * tables were small (a fresh deployment's first storm), a join read every alert and every history
 * entry for each message.
 */
import pg from 'pg';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate } from '../../server/db/migrate.ts';
import { addHistory, claim } from '../../server/db/notifications.ts';
import { createDb } from '../../server/db/pool.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';
import { explainAnalyzed, rowsRead } from '../helpers/plans.ts';
import { capturing, insertRouterAlerts } from '../helpers/receive-statements.ts';

type Ctx = { db: { name: string; url: string }; client: pg.Client };
const test = suite<Ctx>('notification delivery reads alerts and history by index', {} as Ctx);

const ALERTS = 15_000;
const MESSAGE = 200;

test.before(async (ctx) => {
  ctx.db = await createTestDatabase('notify_delivery_plans');
  await migrate(ctx.db.url);
  // No ANALYZE but the test's own: the tables are planned from what they held when created.
  for (const table of ['alerts', 'alert_history'])
    await queryDb(ctx.db.url, `ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  await insertRouterAlerts(ctx.db.url, 1, ALERTS);
  // Two entries per alert, as a new alert and one change leave.
  await queryDb(
    ctx.db.url,
    `INSERT INTO alert_history (alert_id, id, event, severity, status, value, text, type, update_time)
     SELECT 'alert-' || k, 'entry-' || k || '-' || n, 'node_down', 'major', 'open', NULL, '', 'new', now()
     FROM generate_series(1, ${ALERTS}) k, generate_series(1, 2) n`,
  );
  // A message's rows, due: the claim reads their alerts.
  await queryDb(
    ctx.db.url,
    `INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, due_at)
     SELECT 'r', 'rule', id, 'trigger', now() - interval '1 second' FROM unnest($1::text[]) AS id`,
    [messageIds()],
  );
  ctx.client = new pg.Client({ connectionString: ctx.db.url });
  await ctx.client.connect();
});
test.after(async (ctx) => {
  await ctx.client?.end();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

/** A message's alerts: 200 spread over the table. */
const messageIds = () => Array.from({ length: MESSAGE }, (_, i) => `alert-${1 + i * 73}`);

const CLAIM = { receiverId: 'r', owner: 'me', limit: MESSAGE, leaseMs: 30_000 };

async function checkPlans(ctx: Ctx, when: string) {
  const { db, seen } = capturing();
  await claim(db, CLAIM);
  // Limit 2: each alert's older entry is trimmed, so the trim has rows to find and delete.
  await addHistory(
    db,
    messageIds().map((alertId, i) => ({ alertId, id: `delivery-${i}`, text: 'ops (webhook): trigger sent' })),
    2,
    { ids: [1, 2, 3], owner: 'me' },
  );
  // Each statement after the planner settings it is run with.
  const [claimSettings, claimed, historySettings, history] = seen;

  const claimPlan = await explainAnalyzed(ctx.client, [claimSettings!, claimed!]);
  const claimRead = rowsRead(claimPlan, 'alerts');
  assert.ok(!claimRead.kinds.has('Seq Scan'), `${when}, claim: ${JSON.stringify(claimPlan)}`);
  assert.ok(claimRead.rows <= MESSAGE, `${when}, claim: ${claimRead.rows} alerts read`);

  const historyPlan = await explainAnalyzed(ctx.client, [historySettings!, history!]);
  const alerts = rowsRead(historyPlan, 'alerts');
  const entries = rowsRead(historyPlan, 'alert_history');
  const plan = JSON.stringify(historyPlan);
  assert.ok(!alerts.kinds.has('Seq Scan'), `${when}, history: alerts scanned: ${plan}`);
  assert.ok(!entries.kinds.has('Seq Scan'), `${when}, history: entries scanned: ${plan}`);
  // Each alert's entries newest first from the index, not read from the table and sorted.
  assert.ok(!entries.kinds.has('Bitmap Heap Scan'), `${when}, history: entries sorted: ${plan}`);
  assert.ok(alerts.rows <= 2 * MESSAGE, `${when}, history: ${alerts.rows} alerts read`);
  // Per alert: its two entries looked at, the older one deleted.
  assert.ok(entries.rows <= 4 * MESSAGE, `${when}, history: ${entries.rows} entries read`);
}

test('planned from the statistics of empty tables: one probe per alert', async (ctx) => {
  await checkPlans(ctx, 'before ANALYZE');
});

test('and after ANALYZE', async (ctx) => {
  await ctx.client.query('ANALYZE alerts');
  await ctx.client.query('ANALYZE alert_history');
  await checkPlans(ctx, 'after ANALYZE');
});

test('the delivery statements do what they did: entries added, older ones trimmed, rows removed', async (ctx) => {
  const { rows: before } = await ctx.client.query<{ id: string }>(
    `SELECT id FROM alert_history WHERE alert_id = 'alert-74' ORDER BY seq`,
  );
  assert.is(before.length, 2);
  await ctx.client.query(
    `INSERT INTO notification_queue (id, receiver_id, rule_id, alert_id, kind, due_at, owner)
     VALUES (900001, 'r', 'rule', 'alert-74', 'trigger', now(), 'me'), (900002, 'r', 'rule', 'alert-74', 'trigger', now(), 'other')`,
  );
  const pool = await createDb(ctx.db.url, { size: 1 });
  try {
    // The message's rows, one of an alert that is gone: each claimed row with its alert as it is.
    await pool.query(sql.unsafe`
      INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, due_at)
      VALUES ('r2', 'rule', 'alert-74', 'trigger', now() - interval '1 second'),
        ('r2', 'rule', 'alert-missing', 'trigger', now() - interval '1 second')`);
    const claimed = await pool.transaction((tx) => claim(tx, { ...CLAIM, receiverId: 'r2' }));
    assert.equal(
      claimed.map((r) => [r.alertId, r.current?.id ?? null, r.current?.resource ?? null]),
      [
        ['alert-74', 'alert-74', 'router74'],
        ['alert-missing', null, null],
      ],
    );
    await addHistory(pool, [{ alertId: 'alert-74', id: 'delivery-x', text: 'sent' }], 2, {
      ids: [900001, 900002],
      owner: 'me',
    });
  } finally {
    await pool.end();
  }
  const { rows } = await ctx.client.query<{ id: string; type: string }>(
    `SELECT id, type FROM alert_history WHERE alert_id = 'alert-74' ORDER BY seq`,
  );
  // The newer of the two entries stays.
  assert.equal(rows, [
    { id: before[1]!.id, type: 'new' },
    { id: 'delivery-x', type: 'notification' },
  ]);
  // Only this worker's lease is settled.
  const { rows: queued } = await ctx.client.query<{ id: string }>(
    `SELECT id::text FROM notification_queue WHERE id IN (900001, 900002) ORDER BY id`,
  );
  assert.equal(queued, [{ id: '900002' }]);
});

test.run();
