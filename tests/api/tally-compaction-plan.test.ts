/**
 * Tally compaction (server/db/alert-tally.ts) finds the tally rows of the keys its deltas name
 * through the key indexes (migration 0040), not by sorting or scanning the whole tally: with
 * 30,000 event keys (about what 100,000 alerts give), a fold of three deltas used to sort every
 * key, spilling to disk, every second. The plan is read with EXPLAIN; no timing is measured.
 */
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CommonQueryMethods } from 'slonik';
import * as tally from '../../server/db/alert-tally.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

const test = suite<AppContext>('tally compaction plan');
test.before(async (ctx) => {
  await startApp(ctx);
  // Keys written straight into the tallies (the counts do not matter here, only their number).
  await queryDb(
    ctx.db.url,
    `INSERT INTO alert_event_tally (customer, environment, service, severity, status, event, n)
     SELECT CASE WHEN k % 3 = 0 THEN 'acme' END, 'env' || k % 5, ARRAY['svc' || k % 50], 'major', 'open',
       'event' || k, 2
     FROM generate_series(1, 30000) k;
     INSERT INTO alert_tally (customer, environment, service, severity, status, n)
     SELECT CASE WHEN k % 3 = 0 THEN 'acme' END, 'env' || k, ARRAY['svc' || k % 50], 'major', 'open', 2
     FROM generate_series(1, 3000) k;
     ANALYZE alert_event_tally; ANALYZE alert_tally;`,
  );
});
test.after(stopApp);

test('a fold reads the tally rows of its keys through the key indexes', async (ctx) => {
  // The statements compaction runs, in order, kept instead of run (the last is the fold).
  const captured: { sql: string; values: readonly unknown[] }[] = [];
  const keep = (q: { sql: string; values: readonly unknown[] }) => {
    captured.push(q);
    return Promise.resolve(0);
  };
  const capture = {
    query: keep,
    oneFirst: keep,
    transaction: (run: (tx: unknown) => Promise<unknown>) => run(capture),
  } as unknown as CommonQueryMethods;
  await tally.compactTally(capture);
  const fold = captured.pop();
  assert.ok(fold);
  const numbered = (q: { sql: string }) => q.sql.replace(/\$slonik_(\d+)/g, '$$$1');
  const client = new pg.Client({ connectionString: ctx.db.url });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const q of captured) await client.query(numbered(q), [...q.values]);
    const r = await client.query(`EXPLAIN ${numbered(fold)}`, [...fold.values]);
    const plan = r.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n');
    assert.match(plan, /Index Scan using alert_event_tally_key_idx on alert_event_tally t/, plan);
    assert.match(plan, /Index Scan using alert_tally_key_idx on alert_tally t/, plan);
    assert.not.match(plan, /Seq Scan on alert_event_tally t|Seq Scan on alert_tally t/, plan);
  } finally {
    await client.query('ROLLBACK');
    await client.end();
  }
});

test('the fold through the indexes moves each delta into its own key, customer included', async (ctx) => {
  // event1 is stored without a customer (n 2): one delta adds to it, one starts acme's own row.
  // event3 is stored for acme (n 2): its delta brings it to 0, so its row goes.
  await queryDb(
    ctx.db.url,
    `INSERT INTO alert_event_tally_delta (customer, environment, service, severity, status, event, n) VALUES
       (NULL, 'env1', '{svc1}', 'major', 'open', 'event1', 1),
       ('acme', 'env1', '{svc1}', 'major', 'open', 'event1', 5),
       ('acme', 'env3', '{svc3}', 'major', 'open', 'event3', -2)`,
  );
  await tally.compactTally(ctx.running.deps.db);
  const rows = await queryDb<{ customer: string | null; event: string; n: string }>(
    ctx.db.url,
    `SELECT customer, event, sum(n)::text AS n FROM alert_event_tally WHERE event IN ('event1', 'event3')
     GROUP BY customer, event ORDER BY event, customer NULLS FIRST`,
  );
  assert.equal(
    rows.map((r) => [r.customer, r.event, r.n]),
    [
      [null, 'event1', '3'],
      ['acme', 'event1', '5'],
    ],
  );
  const left = await queryDb<{ n: string }>(
    ctx.db.url,
    'SELECT count(*)::text AS n FROM alert_event_tally_delta',
  );
  assert.is(left[0]!.n, '0');
});

test.run();
