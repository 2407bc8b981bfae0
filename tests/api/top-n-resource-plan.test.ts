/**
 * Top-N grouped by resource (server/db/top-n.ts, planner.ts `topByResource`) reads no table page
 * by sequential scan: its counts come from the event index (which holds resource and what the
 * counts read), and its pass 2 finds the top resources' alerts through the identity index, with
 * the environment bound to every stored environment. Without the setting the counts scan the
 * table. The plan is read with EXPLAIN ANALYZE; no timing is measured.
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
const test = suite<Ctx>('top-N by resource reads indexes', {} as Ctx);

test.before(async (ctx) => {
  ctx.db = await createTestDatabase('top_n_resource_plan');
  await migrate(ctx.db.url);
  // 20,000 alerts over 4,000 resources in 3 environments.
  await queryDb(
    ctx.db.url,
    `INSERT INTO alerts (id, resource, event, environment, severity, status, service, "group", text, tags,
       attributes, origin, type, create_time, timeout, previous_severity, trend_indication, receive_time,
       last_receive_id, last_receive_time, update_time, raw_data)
     SELECT 'alert-' || k, 'host' || k % 4000, 'event' || k % 7, 'env' || k % 3, 'major', 'open',
       ARRAY['svc' || k % 20], 'Misc', 'disk usage at ' || k, '{}', '{}', 'test', 'exceptionAlert',
       now() - k * interval '1 second', 86400, 'indeterminate', 'moreSevere', now(), 'receipt-' || k, now(),
       now(), repeat('raw ', 50)
     FROM generate_series(1, 20000) k`,
  );
  await queryDb(ctx.db.url, 'VACUUM ANALYZE alerts');
  ctx.client = new pg.Client({ connectionString: ctx.db.url });
  await ctx.client.connect();
});
test.after(async (ctx) => {
  await ctx.client?.end();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

test('count by resource: index scans with the setting, the table without it', async (ctx) => {
  const everything = parseAlertQuery(new URLSearchParams(), { defaultPageSize: 1000, defaultField: 'text' });
  const { db, seen } = capturing();
  await top.topN(db, { where: everything.where, customers: null }, 'count', resolveField('resource')!, 10);
  const [settings, statement] = seen;
  assert.ok(settings!.sql.includes('set_config'), settings!.sql);

  const planned = await explainAnalyzed(ctx.client, [settings!, statement!]);
  const read = rowsRead(planned, 'alerts');
  assert.not.ok(read.kinds.has('Seq Scan'), JSON.stringify(planned));
  assert.ok(read.kinds.has('Index Only Scan'), JSON.stringify(planned));

  const unset = rowsRead(await explainAnalyzed(ctx.client, [statement!]), 'alerts');
  assert.ok(unset.kinds.has('Seq Scan'), [...unset.kinds].join(', '));
});

test.run();
