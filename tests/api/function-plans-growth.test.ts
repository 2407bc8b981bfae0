/**
 * The plpgsql functions that look rows up by key keep one plan per statement and connection, and
 * after five calls it is a generic plan made with the statistics of that moment (migration 0046).
 * Made on tables of a few rows after an ANALYZE, such a plan was a sequential scan, kept as the
 * tables grew until the next ANALYZE (a new deployment's first storm, a forward queue filling while
 * its destination is down, or autovacuum off): each alert's status change read every notification
 * state, each forward delivery every queued row, and each history trim every alert and entry. Here
 * every function is planned on 5 alerts and then run at 20,005 alerts, 20,000 states, 20,000 queued
 * forwards and 20,005 history entries; the rows its scans read are counted from
 * `pg_stat_xact_user_tables`, which sees the function's own scans.
 */
import pg from 'pg';
import * as assert from 'uvu/assert';
import { queryDb } from '../helpers/db.ts';
import { readsOf, type TableReads } from '../helpers/plans.ts';
import { insertRouterAlerts, routerAlertsSuite } from '../helpers/receive-statements.ts';

const test = routerAlertsSuite('plpgsql functions planned on small tables', 5);

const TABLES = ['alerts', 'alert_history', 'notification_state', 'forward_queue'];
const GROWN = 20_005;

/** Runs `sql` in a transaction that is rolled back; per table, the rows its scans read and its sequential scans. */
async function counted(client: pg.Client, sql: string, values: unknown[] = []) {
  const { rows, reads } = await readsOf(client, TABLES, sql, values);
  const per = (pick: (r: TableReads) => number) =>
    Object.fromEntries(TABLES.map((t) => [t, pick(reads[t]!)]));
  return { rows, read: per((r) => r.rows), seqScans: per((r) => r.seqScans) };
}

const STATUS_CHANGE = `UPDATE alerts SET status = CASE status WHEN 'open' THEN 'ack' ELSE 'open' END WHERE id = $1`;
const DELETE_ALERT = `DELETE FROM alerts WHERE id = $1`;
const SETTLE = `SELECT DISTINCT destination FROM forward_settle($1::bigint[], 'holder') AS destination`;
const RECOUNT = `SELECT alert_history_recount($1::text[])`;

test('status changes, deletions, forward settles and recounts read by key at 20,005 alerts', async (ctx) => {
  const url = ctx.db.url;
  await queryDb(
    url,
    `ALTER TABLE alert_history SET (autovacuum_enabled = false);
     ALTER TABLE notification_state SET (autovacuum_enabled = false);
     ALTER TABLE forward_queue SET (autovacuum_enabled = false);
     INSERT INTO alert_history (alert_id, id, event, severity, status, text, type, update_time)
       SELECT id, 'entry-' || id, event, severity, status, '', 'new', now() FROM alerts;
     INSERT INTO notification_state (rule_id, alert_id, phase, severity, receivers)
       SELECT 'rule', id, 'firing', 'major', '{}' FROM alerts;
     INSERT INTO forward_queue (destination, kind, alert_id, loop, request_id, owner, head)
       SELECT 'http://peer', 'alert', id, '', 'request-' || id, 'holder', true FROM alerts;
     ANALYZE alerts; ANALYZE alert_history; ANALYZE notification_state; ANALYZE forward_queue;`,
  );
  const small = await queryDb<{ id: string }>(url, `SELECT id::text FROM forward_queue ORDER BY id`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Eight calls each, rolled back: the plans stay with the connection, generic after the fifth.
    for (let n = 0; n < 8; n++) {
      await counted(client, STATUS_CHANGE, ['alert-1']);
      await counted(client, DELETE_ALERT, ['alert-1']);
      await counted(client, SETTLE, [[small[0]!.id]]);
      await counted(client, RECOUNT, [['alert-1']]);
    }

    await insertRouterAlerts(url, 6, GROWN);
    await queryDb(
      url,
      `INSERT INTO alert_history (alert_id, id, event, severity, status, text, type, update_time)
         SELECT id, 'entry-' || id, event, severity, status, '', 'new', now() FROM alerts WHERE id <> ALL($1);
       INSERT INTO notification_state (rule_id, alert_id, phase, severity, receivers)
         SELECT 'rule', id, 'firing', 'major', '{}' FROM alerts WHERE id <> ALL($1);
       INSERT INTO forward_queue (destination, kind, alert_id, loop, request_id, owner, head)
         SELECT 'http://peer', 'alert', id, '', 'request-' || id || '-2', 'holder', id <> ALL($1) FROM alerts;`.replaceAll(
        '$1',
        `'{alert-1,alert-2,alert-3,alert-4,alert-5}'`,
      ),
    );

    const changed = await counted(client, STATUS_CHANGE, ['alert-3']);
    assert.ok(changed.read.notification_state! <= 5, `status change: ${JSON.stringify(changed.read)}`);

    const deleted = await counted(client, DELETE_ALERT, ['alert-4']);
    assert.ok(deleted.read.notification_state! <= 5, `deletion: ${JSON.stringify(deleted.read)}`);

    // Settling alert-2's row: the next row of its sequence is marked head, nothing else is read.
    const settled = await counted(client, SETTLE, [[small[1]!.id]]);
    assert.equal(settled.rows, [{ destination: 'http://peer' }]);
    assert.ok(settled.read.forward_queue! <= 10, `forward settle: ${JSON.stringify(settled.read)}`);

    const recounted = await counted(client, RECOUNT, [['alert-3']]);
    // The alert itself, and the index checks of its rewritten row: a handful, however many alerts.
    assert.ok(recounted.read.alerts! <= 20, `recount, alerts: ${JSON.stringify(recounted.read)}`);
    assert.ok(recounted.read.alert_history! <= 5, `recount, history: ${JSON.stringify(recounted.read)}`);

    // The full recount (seeds, migration 0041) reads both tables whole, sequentially, and the
    // setting is the session's own again afterwards: the next recount by key still reads by key.
    const all = await counted(client, 'SELECT alert_history_recount(NULL)');
    assert.ok(all.seqScans.alerts! >= 1 && all.seqScans.alert_history! >= 1, JSON.stringify(all.seqScans));
    assert.is(
      (await client.query<{ enable_seqscan: string }>('SHOW enable_seqscan')).rows[0]!.enable_seqscan,
      'on',
    );
    const again = await counted(client, RECOUNT, [['alert-3']]);
    assert.is(again.seqScans.alerts, 0, JSON.stringify(again.seqScans));
    assert.ok(again.read.alerts! <= 20, `recount again, alerts: ${JSON.stringify(again.read)}`);
  } finally {
    await client.end();
  }
});

test.run();
