/**
 * Top-N by event with counts no tally holds (server/db/top-n.ts, planner.ts `topByEvent`) reads the
 * event index, a third of the table's size, not the table: the planner prices each index page at
 * random_page_cost and, left at its default, prefers a sequential scan of the table. The plan is
 * read with EXPLAIN ANALYZE, with and without the setting; no timing is measured.
 */
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate } from '../../server/db/migrate.ts';
import * as top from '../../server/db/top-n.ts';
import { resolveField } from '../../server/domain/query/fields.ts';
import { parseAlertQuery } from '../../server/domain/query/params.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';
import { explainAnalyzed, rowsRead } from '../helpers/plans.ts';
import { capturing } from '../helpers/receive-statements.ts';

type Ctx = { db: { name: string; url: string }; client: pg.Client };
const test = suite<Ctx>('top-N by event reads the event index', {} as Ctx);

const ALERTS = 20_000;

test.before(async (ctx) => {
  ctx.db = await createTestDatabase('top_n_plan');
  await migrate(ctx.db.url);
  // 500 events; standing and flapping rank by counts the alert keeps (migration 0041).
  await queryDb(
    ctx.db.url,
    `INSERT INTO alerts (id, resource, event, environment, severity, status, service, "group", text, tags,
       attributes, origin, type, create_time, timeout, previous_severity, trend_indication, receive_time,
       last_receive_id, last_receive_time, update_time, severity_entries, flaps)
     SELECT 'alert-' || k, 'host' || k, 'event' || k % 500, 'env' || k % 3, 'major', 'open', ARRAY['svc' || k % 20],
       'Misc', 'disk usage at ' || k, '{}', '{}', 'test', 'exceptionAlert', now() - k * interval '1 second',
       86400, 'indeterminate', 'moreSevere', now(), 'receipt-' || k, now(), now(), 1 + k % 3, k % 2
     FROM generate_series(1, ${ALERTS}) k`,
  );
  // As autovacuum leaves it: statistics taken, pages marked all-visible (index-only scans possible).
  await queryDb(ctx.db.url, 'VACUUM ANALYZE alerts');
  ctx.client = new pg.Client({ connectionString: ctx.db.url });
  await ctx.client.connect();
});
test.after(async (ctx) => {
  await ctx.client?.end();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

test('standing by event over every alert: the event index with the setting, the table without', async (ctx) => {
  const everything = parseAlertQuery(new URLSearchParams(), { defaultPageSize: 1000, defaultField: 'text' });
  const { db, seen } = capturing();
  await top.topN(db, { where: everything.where, customers: null }, 'standing', resolveField('event')!, 10);
  const [settings, statement] = seen;
  assert.ok(settings!.sql.includes('set_config'), settings!.sql);

  const planned = await explainAnalyzed(ctx.client, [settings!, statement!]);
  const read = rowsRead(planned, 'alerts');
  assert.not.ok(read.kinds.has('Seq Scan'), JSON.stringify(planned));
  assert.ok(read.kinds.has('Index Only Scan'), JSON.stringify(planned));

  // Without it the planner reads the table: the setting is still needed.
  const unset = rowsRead(await explainAnalyzed(ctx.client, [statement!]), 'alerts');
  assert.ok(unset.kinds.has('Seq Scan'), [...unset.kinds].join(', '));
});

test.run();
