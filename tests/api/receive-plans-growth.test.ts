/**
 * A connection keeps a statement's generic plan once made, until ANALYZE or DDL invalidates it. A
 * new deployment (or a benchmark) makes it in its first seconds, on a table of a few alerts, and
 * keeps it while the table grows to thousands before autovacuum first analyses it. The receive
 * path's statements must still find each alert by its key then: ingest.ts (e) once ran the
 * direct duplicates' update with a plan made on a handful of alerts, which read every alert of
 * the event through the event index for each row (14 ms a statement instead of 1).
 */
import pg from 'pg';
import * as assert from 'uvu/assert';
import * as receiveDb from '../../server/db/alert-receive.ts';
import {
  directDuplicate,
  capturing,
  expectedRouter,
  insertRouterAlerts,
  numbered,
  plainUpdate,
  routerDraft,
  routerAlertsSuite,
  type Captured,
} from '../helpers/receive-statements.ts';

const test = routerAlertsSuite('receive statement plans made on a small table', 5);

/** A statement value as an SQL literal (text, number, or an array of text). */
function literal(client: pg.Client, v: unknown): string {
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) {
    const items = v.map((x: string | null) => (x === null ? 'NULL' : `"${x.replace(/["\\]/g, '\\$&')}"`));
    return client.escapeLiteral(`{${items.join(',')}}`);
  }
  return client.escapeLiteral(String(v));
}

/**
 * The captured statement prepared on a connection of its own and planned generically while the
 * table holds 5 alerts; `plan()` later gives the plan that connection uses then.
 */
async function preparedSmall(url: string, q: Captured) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const text = numbered(q);
  // EXECUTE takes no bound parameters: its arguments are written out as literals.
  const explain = `EXPLAIN EXECUTE grown(${q.values.map((v) => literal(client, v)).join(', ')})`;
  await client.query(`SET plan_cache_mode = force_generic_plan`);
  await client.query(`PREPARE grown AS ${text}`);
  await client.query('BEGIN');
  await client.query(explain);
  await client.query('ROLLBACK');
  return {
    async plan() {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(explain);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    },
    end: () => client.end(),
  };
}

test('plans made on 5 alerts still find each alert by its key at 10,005', async (ctx) => {
  const { db, seen } = capturing();
  const five = Array.from({ length: 5 }, (_, i) => i + 1);
  await receiveDb.updateByIdentity(db, five.map(directDuplicate), 100);
  await receiveDb.findForReceive(db, five.map(routerDraft), Date.now() - 60_000);
  await receiveDb.updateDuplicates(
    db,
    five.map((k) => ({ expected: expectedRouter(k), update: plainUpdate(k) })),
    100,
  );
  const [byIdentity, read, byId] = await Promise.all(seen.map((q) => preparedSmall(ctx.db.url, q)));
  await insertRouterAlerts(ctx.db.url, 6, 10_005);
  try {
    const expectations: [Awaited<ReturnType<typeof preparedSmall>>, RegExp][] = [
      [byIdentity!, /Index Scan using alerts_identity_key on alerts a/],
      [read!, /Index Scan using alerts_identity_key on alerts a/],
      [byId!, /Index Scan (using|on) alerts_pkey/],
    ];
    for (const [prepared, index] of expectations) {
      const plan = await prepared.plan();
      assert.match(plan, index, plan);
      assert.not.match(plan, /alerts_event_top_idx|alerts_status_severity_env_idx|Seq Scan on alerts/, plan);
    }
  } finally {
    await Promise.all([byIdentity, read, byId].map((p) => p!.end()));
  }
});

test.run();
