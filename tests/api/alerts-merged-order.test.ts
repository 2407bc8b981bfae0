/**
 * Pages sorted by severity first are merged from index-ordered partitions
 * (server/db/alert-list.ts); this checks they are exactly the pages one plain sort gives.
 *
 * 700 alerts are seeded straight into the database with many ties: 9 distinct lastReceiveTimes,
 * 8 severities (one the alarm model does not know, which sorts last), 5 statuses, 3 environments.
 * Pages of 50 (merged) are compared with one page of 5,000 (past MERGE_MAX_ROWS, so sorted
 * plainly) and with the order computed here, for the web console's sorts, with filters and `q`,
 * under the default and a custom SEVERITY_MAP.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AlertListSchema, type AlertList } from '../../shared/queries.ts';
import { MERGE_MAX_ROWS } from '../../server/db/alert-list.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

const N = 700;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');

async function seed(url: string, severities: string[]) {
  await queryDb(
    url,
    `INSERT INTO alerts (id, resource, event, environment, severity, status, service, text, origin, type,
       create_time, timeout, customer, previous_severity, trend_indication, receive_time, last_receive_id,
       last_receive_time, update_time)
     SELECT 'id-' || lpad(((i * 7919) % 100000)::text, 5, '0'), 'host' || (i % 37), 'ev' || (i % 11),
       (ARRAY['Production','Development','Staging'])[1 + i % 3],
       ($2::text[])[1 + (i / 3) % cardinality($2::text[])],
       (ARRAY['open','ack','closed','shelved','expired'])[1 + (i / 5) % 5],
       CASE i % 6 WHEN 0 THEN '{}'::text[] WHEN 1 THEN ARRAY['svc' || (i % 4), 'svcx']
         ELSE ARRAY['svc' || (i % 4)] END, 'text ' || (i % 13), 'test', 'exceptionAlert', t, 0, NULL,
       'indeterminate', 'moreSevere', t, 'r-' || i, t, t
     FROM (SELECT i, to_timestamp($3::float8 / 1000 + (i % 9) * 60) AS t
           FROM generate_series(1, $1::int) AS i) s`,
    [N, severities, T0],
  );
  await queryDb(url, 'ANALYZE alerts');
}

type Ctx = AppContext & { rank: (s: string) => number; statusRank: (s: string) => number };

async function page(ctx: Ctx, qs: string): Promise<AlertList> {
  const res = await ctx.api.get(`/alerts?${qs}`);
  assert.is(res.status, 200, qs);
  return AlertListSchema.parse(await res.json());
}

/** Every page of 50 of `qs` concatenated equals one plain page, and the order computed here. */
async function samePages(
  ctx: Ctx,
  qs: string,
  expected?: (a: AlertList['alerts'][number], b: AlertList['alerts'][number]) => number,
) {
  const all = await page(ctx, `${qs}&page-size=5000`);
  assert.ok(all.total > 50 && all.total <= 5000, `${qs}: ${all.total} matches`);
  assert.ok(5000 > MERGE_MAX_ROWS);
  const merged: string[] = [];
  for (let p = 1; p <= Math.ceil(all.total / 50); p++) {
    const one = await page(ctx, `${qs}&page-size=50&page=${p}`);
    assert.is(one.total, all.total, `${qs} page ${p} total`);
    assert.equal(one.severityCounts, all.severityCounts);
    assert.equal(one.statusCounts, all.statusCounts);
    assert.is(one.pages, Math.ceil(all.total / 50));
    merged.push(...one.alerts.map((a) => a.id));
  }
  assert.equal(
    merged,
    all.alerts.map((a) => a.id),
    `${qs}: merged pages differ from the plain sort`,
  );
  if (expected) {
    const sorted = [...all.alerts].sort(expected).map((a) => a.id);
    assert.equal(
      all.alerts.map((a) => a.id),
      sorted,
      `${qs}: not in the expected order`,
    );
  }
}

const time = (a: { lastReceiveTime: string }) => Date.parse(a.lastReceiveTime);
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function tests(name: string, settings: Record<string, string>, severities: string[]) {
  const t = suite<Ctx>(name, {} as Ctx);
  t.before(async (ctx) => {
    await startApp(ctx, { PLUGINS: '', TEST_LABEL: 'merged', ...settings });
    const model = ctx.running.deps.model;
    // As the SQL always did: array_position (1-based) of the name in the model's order, and
    // names the model does not know the length of that list (so they tie with the last known one).
    const position = (names: string[], s: string) => {
      const i = names.indexOf(s);
      return i < 0 ? names.length : i + 1;
    };
    const severityOrder = Object.keys(model.severity).sort(
      (a, b) => model.severityRank(a) - model.severityRank(b),
    );
    const statuses = Object.keys(model.status).sort((a, b) =>
      (model.status[a] ?? '').localeCompare(model.status[b] ?? ''),
    );
    ctx.rank = (s) => position(severityOrder, s);
    ctx.statusRank = (s) => position(statuses, s);
    await seed(ctx.db.url, severities);
  });
  t.after(stopApp);

  t('web console default: open + ack, severity then newest', async (ctx) => {
    await samePages(
      ctx,
      'status=open&status=ack&sort-by=severity&sort-by=lastReceiveTime',
      (a, b) => ctx.rank(a.severity) - ctx.rank(b.severity) || time(b) - time(a) || byId(a, b),
    );
  });

  t('severity first over every alert, ascending and reversed, oldest first', async (ctx) => {
    await samePages(
      ctx,
      'sort-by=severity&sort-by=-lastReceiveTime',
      (a, b) => ctx.rank(a.severity) - ctx.rank(b.severity) || time(a) - time(b) || byId(a, b),
    );
    await samePages(
      ctx,
      'sort-by=-severity&sort-by=lastReceiveTime',
      (a, b) => ctx.rank(b.severity) - ctx.rank(a.severity) || time(b) - time(a) || byId(a, b),
    );
    await samePages(ctx, 'sort-by=severity&reverse=1');
    await samePages(
      ctx,
      'sort-by=severity',
      (a, b) => ctx.rank(a.severity) - ctx.rank(b.severity) || byId(a, b),
    );
  });

  t('status first: status then severity, status then newest', async (ctx) => {
    const st = ctx.statusRank;
    await samePages(
      ctx,
      'sort-by=status&sort-by=severity',
      (a, b) => st(a.status) - st(b.status) || ctx.rank(a.severity) - ctx.rank(b.severity) || byId(a, b),
    );
    await samePages(
      ctx,
      'status=open&status=ack&status=shelved&sort-by=status&sort-by=lastReceiveTime',
      (a, b) => st(a.status) - st(b.status) || time(b) - time(a) || byId(a, b),
    );
  });

  t('with filters, time bounds and q (merged or not, the same pages)', async (ctx) => {
    const base = 'status=open&status=ack&sort-by=severity&sort-by=lastReceiveTime';
    await samePages(ctx, `${base}&environment=Production&environment=Staging`);
    await samePages(ctx, `${base}&from-date=2026-11-20T10:02:00.000Z&to-date=2026-11-20T10:07:00.000Z`);
    await samePages(ctx, `sort-by=severity&sort-by=lastReceiveTime&environment!=Staging`);
    await samePages(ctx, `sort-by=severity&sort-by=lastReceiveTime&q=${encodeURIComponent('text:"text 1"')}`);
    await samePages(ctx, `sort-by=severity&sort-by=resource&status=open&status=closed`);
  });
  t('/environments, /services and top-N count what the alerts are', async (ctx) => {
    const all = (await page(ctx, 'page-size=5000')).alerts;
    const tally = (rows: typeof all) => {
      const c = {
        count: 0,
        severityCounts: {} as Record<string, number>,
        statusCounts: {} as Record<string, number>,
      };
      for (const a of rows) {
        c.count++;
        c.severityCounts[a.severity] = (c.severityCounts[a.severity] ?? 0) + 1;
        c.statusCounts[a.status] = (c.statusCounts[a.status] ?? 0) + 1;
      }
      return c;
    };
    const envs = [...new Set(all.map((a) => a.environment))].sort();
    const gotEnvs = (await (await ctx.api.get('/environments?status=open')).json()) as {
      environments: unknown[];
    };
    assert.equal(
      gotEnvs.environments,
      envs.map((e) => ({
        environment: e,
        ...tally(all.filter((a) => a.environment === e && a.status === 'open')),
      })),
    );
    const pairs = [...new Set(all.flatMap((a) => a.service.map((s) => JSON.stringify([a.environment, s]))))]
      .map((k) => JSON.parse(k) as [string, string])
      .sort((x, y) => x[0].localeCompare(y[0]) || x[1].localeCompare(y[1]));
    const gotServices = (await (await ctx.api.get('/services?severity=major&severity=zzz')).json()) as {
      services: unknown[];
    };
    assert.equal(
      gotServices.services,
      pairs.map(([e, s]) => ({
        environment: e,
        service: s,
        ...tally(
          all.filter(
            (a) => a.environment === e && a.service.includes(s) && ['major', 'zzz'].includes(a.severity),
          ),
        ),
      })),
    );
    const byEvent = new Map<string, number>();
    for (const a of all) byEvent.set(a.event, (byEvent.get(a.event) ?? 0) + a.service.length);
    const top = [...byEvent]
      .filter(([, n]) => n > 0)
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, 10);
    const gotTop = (await (await ctx.api.get('/alerts/top10/count')).json()) as {
      top10: { event: string; count: number; resources: unknown[]; services: string[] }[];
    };
    assert.equal(
      gotTop.top10.map((x) => [x.event, x.count, x.resources.length]),
      top.map(([e, n]) => [e, n, all.filter((a) => a.event === e && a.service.length > 0).length]),
    );
  });

  t.run();
}

tests('merged pages, default alarm model', {}, [
  'critical',
  'major',
  'minor',
  'warning',
  'informational',
  'normal',
  'security',
  'custom-unknown',
]);
tests(
  'merged pages, custom SEVERITY_MAP',
  {
    SEVERITY_MAP: "{'fatal': 1, 'error': 2, 'notice': 5, 'fine': 7, 'indeterminate': 6}",
    DEFAULT_NORMAL_SEVERITY: 'fine',
  },
  ['fine', 'fatal', 'notice', 'error', 'indeterminate', 'critical', 'zzz'],
);
