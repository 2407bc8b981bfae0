/**
 * The receive path's batched statements (server/db/alert-receive.ts) find the stored alerts by
 * primary key or identity whatever the table's statistics say, and keep one text for any batch
 * size. The plans are read with EXPLAIN on a table of 3,000 open major alerts that has never been
 * analysed (a new deployment's first minutes, or a benchmark's): there the planner used to take
 * `alerts_status_severity_env_idx` for the updates' guard and scan every open major alert for each
 * row of a batch. No timing is measured: the chosen indexes are what is asserted.
 */
import pg from 'pg';
import * as assert from 'uvu/assert';
import * as receiveDb from '../../server/db/alert-receive.ts';
import {
  capturing,
  directDuplicate,
  expectedRouter,
  numbered,
  plainUpdate,
  routerDraft,
  routerAlertsSuite,
  type Captured,
} from '../helpers/receive-statements.ts';

const test = routerAlertsSuite('receive statement plans', 3000);

/**
 * The plans of a captured statement, as text: the plan for its values and the generic plan a
 * prepared statement is given after five executions.
 */
async function plans(url: string, q: Captured): Promise<string[]> {
  const text = numbered(q);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: string[] = [];
    for (const mode of ['force_custom_plan', 'force_generic_plan']) {
      await client.query(`SET plan_cache_mode = ${mode}`);
      await client.query({ name: `p_${mode}`, text: `EXPLAIN ${text}`, values: [...q.values] }).then((r) => {
        out.push(`${mode}:\n${r.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n')}`);
      });
    }
    return out;
  } finally {
    await client.end();
  }
}

/** Each plan reads alerts through `index` and never through a scan of the table or the status index. */
function assertReadsBy(all: string[], index: RegExp) {
  for (const p of all) {
    assert.match(p, index, p);
    assert.not.match(p, /alerts_status_severity_env_idx|alerts_severity_time_idx|Seq Scan on alerts/, p);
  }
}
const BY_ID = /Index Scan (using|on) alerts_pkey/;

test('a batch of plain duplicates finds each alert by primary key, one text for any batch size', async (ctx) => {
  const { db, seen } = capturing();
  for (const n of [1, 5, 20]) {
    const items = Array.from({ length: n }, (_, i) => ({
      expected: expectedRouter(i + 1),
      update: plainUpdate(i + 1),
    }));
    await receiveDb.updateDuplicates(db, items, 100);
  }
  assert.is(seen.length, 3);
  assert.is(new Set(seen.map((q) => q.sql)).size, 1, 'the same statement text for 1, 5 and 20 rows');
  assertReadsBy(await plans(ctx.db.url, seen[2]!), BY_ID);
});

test('a single guarded update finds its alert by primary key', async (ctx) => {
  const { db, seen } = capturing();
  await receiveDb.updateReceived(db, expectedRouter(7), plainUpdate(7), [], 100);
  assertReadsBy(await plans(ctx.db.url, seen[0]!), BY_ID);
});

test('the matching read finds candidates by identity, one text for any batch size', async (ctx) => {
  const { db, seen } = capturing();
  for (const n of [1, 5, 20]) {
    await receiveDb.findForReceive(
      db,
      Array.from({ length: n }, (_, i) => routerDraft(i + 1)),
      Date.now() - 60_000,
    );
  }
  assert.is(new Set(seen.map((q) => q.sql)).size, 1, 'the same statement text for 1, 5 and 20 drafts');
  assertReadsBy(await plans(ctx.db.url, seen[2]!), /Index Scan using alerts_identity_key on alerts a/);
});

// Every alert here has the same event: the event index (whose INCLUDE list holds the identity's
// other columns) looked as cheap as the identity index on a table never analysed, and its generic
// plan then read all 3,000 entries of `node_down` for each row (14 ms a statement in ingest.ts (e)).
test('plain duplicates written without a read find each alert by identity, one text for any batch size', async (ctx) => {
  const { db, seen } = capturing();
  for (const n of [1, 5, 20]) {
    await receiveDb.updateByIdentity(
      db,
      Array.from({ length: n }, (_, i) => directDuplicate(i + 1)),
      100,
    );
  }
  assert.is(new Set(seen.map((q) => q.sql)).size, 1, 'the same statement text for 1, 5 and 20 rows');
  const all = await plans(ctx.db.url, seen[2]!);
  assertReadsBy(all, /Index Scan using alerts_identity_key on alerts a/);
  for (const p of all) assert.not.match(p, /alerts_event_top_idx/, p);
});

/**
 * How many generic and custom plans PostgreSQL made for a captured statement executed 8 times on one
 * connection (each in a transaction rolled back, so an update changes nothing), the plan cache left
 * in charge.
 */
async function planCounts(url: string, q: Captured): Promise<{ generic: number; custom: number }> {
  const text = numbered(q);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let k = 0; k < 8; k++) {
      await client.query('BEGIN');
      await client.query({ name: 'counted', text, values: [...q.values] });
      await client.query('ROLLBACK');
    }
    const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>(
      `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'counted'`,
    );
    assert.is(rows.length, 1);
    return { generic: Number(rows[0]!.generic_plans), custom: Number(rows[0]!.custom_plans) };
  } finally {
    await client.end();
  }
}

// With `unnest` of their parameters (or `= ANY` of one) a batch of one looked cheaper as a custom
// plan every time, so these statements were planned afresh on each execution (about 1 ms for the
// read's 0.2 ms of work): receive_wanted and receive_ids (migration 0039) fix the estimate.
test('the matching read keeps a generic plan, planned once per connection', async (ctx) => {
  const { db, seen } = capturing();
  await receiveDb.findForReceive(db, [routerDraft(1)], Date.now() - 60_000);
  const n = await planCounts(ctx.db.url, seen[0]!);
  assert.ok(n.generic >= 3, `generic ${n.generic}, custom ${n.custom}`);
});

test('the batched update of plain duplicates keeps a generic plan', async (ctx) => {
  const { db, seen } = capturing();
  await receiveDb.updateDuplicates(db, [{ expected: expectedRouter(3), update: plainUpdate(3) }], 100);
  const n = await planCounts(ctx.db.url, seen[0]!);
  assert.ok(n.generic >= 3, `generic ${n.generic}, custom ${n.custom}`);
});

test('plain duplicates written without a read keep a generic plan', async (ctx) => {
  const { db, seen } = capturing();
  await receiveDb.updateByIdentity(db, [directDuplicate(4)], 100);
  const n = await planCounts(ctx.db.url, seen[0]!);
  assert.ok(n.generic >= 3, `generic ${n.generic}, custom ${n.custom}`);
});

test.run();
