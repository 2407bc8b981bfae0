/**
 * The notification scheduler's sweep (server/db/notifications.ts `lockDueStates`), every
 * NOTIFY_SWEEP_INTERVAL on every instance: it finds due repeats and escalations and the states of
 * alerts that changed status or were deleted, marked by migration 0043's triggers, through partial
 * indexes. With nothing to do it must read nothing, however many alerts are firing; before, it
 * joined every state with its alert on every sweep.
 */
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate } from '../../server/db/migrate.ts';
import { deleteState, lockDueStates, lockStatesOf, updateState } from '../../server/db/notifications.ts';
import { createDb, type Db } from '../../server/db/pool.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';
import { explainAnalyzed, rowsRead } from '../helpers/plans.ts';
import { capturing, insertRouterAlerts } from '../helpers/receive-statements.ts';
import { sleep } from '../helpers/live.ts';

type Ctx = { db: { name: string; url: string }; client: pg.Client; pool: Db };
const test = suite<Ctx>('the notification sweep reads only what is due or changed', {} as Ctx);

const STATES = 20_000;

test.before(async (ctx) => {
  ctx.db = await createTestDatabase('notify_sweep');
  await migrate(ctx.db.url);
  ctx.client = new pg.Client({ connectionString: ctx.db.url });
  await ctx.client.connect();
  // No ANALYZE but the test's own: first the tables are planned from what they held when created.
  for (const table of ['alerts', 'notification_state'])
    await ctx.client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  await insertRouterAlerts(ctx.db.url, 1, STATES);
  // A rule firing for every alert, nothing due: what a storm leaves behind (the receipt writes no
  // copy of the alert; its deletion does, migration 0044).
  await ctx.client.query(`
    INSERT INTO notification_state (rule_id, alert_id, phase, severity, receivers, alert)
    SELECT 'rule', a.id, 'firing', a.severity, '{ops}', NULL FROM alerts a`);
  ctx.pool = await createDb(ctx.db.url, { size: 2 });
});
test.after(async (ctx) => {
  await ctx.pool?.end();
  await ctx.client?.end();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

/** The alerts whose states one sweep takes (committed, so the locks go at once). */
const sweep = async (pool: Db) =>
  (await pool.transaction((tx) => lockDueStates(tx, { limit: 200 }))).map((s) => s.alertId).sort();

const marked = async (client: pg.Client, alertId: string) =>
  (
    await client.query<{ changed: boolean }>('SELECT changed FROM notification_state WHERE alert_id = $1', [
      alertId,
    ])
  ).rows[0]?.changed;

async function checkSweepReads(ctx: Ctx, when: string) {
  const { db, seen } = capturing();
  await lockDueStates(db, { limit: 200 });
  // With what the sweep's transaction sets first.
  const plan = await explainAnalyzed(ctx.client, seen);
  const states = rowsRead(plan, 'notification_state');
  const alerts = rowsRead(plan, 'alerts');
  assert.ok(states.rows <= 10, `${when}: ${states.rows} states read: ${JSON.stringify(plan)}`);
  assert.ok(alerts.rows <= 10, `${when}: ${alerts.rows} alerts read: ${JSON.stringify(plan)}`);
}

test('with nothing due or changed, a sweep reads neither the states nor the alerts', async (ctx) => {
  await checkSweepReads(ctx, 'planned from the statistics of empty tables');
  await ctx.client.query('ANALYZE alerts');
  await ctx.client.query('ANALYZE notification_state');
  await checkSweepReads(ctx, 'after ANALYZE');
  // The migration marked the states it found; these were written after it, unmarked.
  assert.equal(await sweep(ctx.pool), []);
});

test("a status change or a deletion marks the alert's states; a duplicate that keeps the status does not", async (ctx) => {
  await ctx.client.query(`UPDATE alerts SET duplicate_count = duplicate_count + 1 WHERE id = 'alert-1'`);
  await ctx.client.query(`UPDATE alerts SET status = 'ack' WHERE id = 'alert-2'`);
  // alert-3 as the scheduler reads an alert that is there (db/notifications.ts `stateColumns`).
  const before = (await ctx.pool.transaction((tx) => lockStatesOf(tx, ['alert-3'])))[0]!.current;
  assert.ok(before);
  await ctx.client.query(`DELETE FROM alerts WHERE id = 'alert-3'`);
  await ctx.client.query(
    `UPDATE notification_state SET repeat_at = now() - interval '1 second' WHERE alert_id = 'alert-4'`,
  );
  assert.equal(
    [
      await marked(ctx.client, 'alert-1'),
      await marked(ctx.client, 'alert-2'),
      await marked(ctx.client, 'alert-3'),
    ],
    [false, true, true],
  );
  const found = await sweep(ctx.pool);
  assert.equal(found, ['alert-2', 'alert-3', 'alert-4']);
  // The deletion wrote the deleted alert's copy into its state, for the resolve: the alert as it
  // was (the states of the others have none).
  const states = await ctx.pool.transaction((tx) => lockDueStates(tx, { limit: 200 }));
  const deleted = states.find((s) => s.alertId === 'alert-3')!;
  assert.is(deleted.current, null);
  assert.ok(deleted.alert, 'the deleted alert has a copy');
  assert.equal(deleted.alert, before);
  assert.is(states.find((s) => s.alertId === 'alert-2')!.alert, null);

  // Handling a state clears its mark (the scheduler's writes, with the alert as it is now).
  const handled = states.find((s) => s.alertId === 'alert-2')!;
  await updateState(ctx.pool, {
    ...handled,
    alert: handled.current!,
    phase: 'acked',
    repeatInMs: null,
    escalateInMs: null,
  });
  await deleteState(ctx.pool, 'rule', 'alert-3');
  const due = states.find((s) => s.alertId === 'alert-4')!;
  await updateState(ctx.pool, { ...due, alert: due.current!, repeatInMs: 60_000, escalateInMs: null });
  assert.equal(await sweep(ctx.pool), []);
});

test('a change committed while the scheduler holds the state marks it again after the scheduler clears it', async (ctx) => {
  const scheduler = new pg.Client({ connectionString: ctx.db.url });
  const writer = new pg.Client({ connectionString: ctx.db.url });
  await scheduler.connect();
  await writer.connect();
  try {
    // Shelved: the state is marked, and the scheduler takes it up.
    await ctx.client.query(`UPDATE alerts SET status = 'shelved' WHERE id = 'alert-5'`);
    await scheduler.query('BEGIN');
    // The scheduler has locked the state and read the alert as it is (shelved).
    await scheduler.query(`SELECT 1 FROM notification_state WHERE alert_id = 'alert-5' FOR UPDATE`);
    // Meanwhile the alert is acknowledged: its trigger waits for the state's lock, though the state
    // is marked already (skipping marked states would lose this change).
    const acking = writer.query(`UPDATE alerts SET status = 'ack' WHERE id = 'alert-5'`);
    for (let i = 0; i < 100; i++) {
      const { rows } = await ctx.client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
      );
      if (rows[0]!.n > 0) break;
      await sleep(20);
    }
    // The scheduler handles what it read and clears the mark.
    await scheduler.query(`UPDATE notification_state SET changed = false WHERE alert_id = 'alert-5'`);
    await scheduler.query('COMMIT');
    await acking;
  } finally {
    await scheduler.end();
    await writer.end();
  }
  assert.is(await marked(ctx.client, 'alert-5'), true, 'the acknowledgement is not lost');
  assert.equal(await sweep(ctx.pool), ['alert-5']);
});

test.run();
