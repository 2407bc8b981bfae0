/**
 * Pages sorted status first are merged from (status, severity) partitions walked in the alarm
 * model's order (server/db/alert-list.ts `listByRank`); this checks every page is the one a plain
 * sort gives and the order computed here from the answers' own fields.
 *
 * 900 alerts with awkward values: statuses the model does not know (which tie at the end, so
 * their rows interleave by the next keys), unicode and long values, many ties on
 * lastReceiveTime, severities the model does not know. Pages of 50 (merged) are compared with one
 * page of 5,000 (past MERGE_MAX_ROWS, so sorted plainly), ascending and descending, with filters;
 * the live view's path (no counted values: the stored values come from loose index scans) is
 * compared too.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AlertListSchema, type AlertList } from '../../shared/queries.ts';
import { listAlerts, MERGE_MAX_ROWS, rankedLead } from '../../server/db/alert-list.ts';
import { parseAlertQuery } from '../../server/domain/query/params.ts';
import { listViewPage } from '../../server/domain/search.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

const N = 900;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const STATUSES = ['open', 'ack', 'closed', 'shelved', 'zz-custom', 'Ärger', 'assign', 'blackout', 'a'];
const SEVERITIES = [
  'critical',
  'major',
  'minor',
  'warning',
  'normal',
  'security',
  'Ünknown',
  'x'.repeat(300),
];

async function seed(url: string) {
  await queryDb(
    url,
    `INSERT INTO alerts (id, resource, event, environment, severity, status, service, text, origin, type,
       create_time, timeout, customer, previous_severity, trend_indication, receive_time, last_receive_id,
       last_receive_time, update_time)
     SELECT 'id-' || lpad(((i * 7919) % 100000)::text, 5, '0'),
       CASE i % 5 WHEN 0 THEN 'hôte-' || (i % 17) WHEN 1 THEN repeat('r', 500) || i ELSE 'host' || (i % 37) END,
       'ev' || (i % 11), (ARRAY['Production','Development','Staging'])[1 + i % 3],
       ($2::text[])[1 + (i / 3) % cardinality($2::text[])],
       ($3::text[])[1 + (i / 5) % cardinality($3::text[])],
       ARRAY['svc' || (i % 4)], 'text ' || (i % 13), 'test', 'exceptionAlert', t, 0, NULL,
       'indeterminate', 'moreSevere', t, 'r-' || i, t, t
     FROM (SELECT i, to_timestamp($4::float8 / 1000 + (i % 7) * 60) AS t
           FROM generate_series(1, $1::int) AS i) s`,
    [N, SEVERITIES, STATUSES, T0],
  );
  await queryDb(url, 'ANALYZE alerts');
}

type Alert = AlertList['alerts'][number];
type Ctx = AppContext & { severityRank: (s: string) => number; statusRank: (s: string) => number };

async function page(ctx: Ctx, qs: string): Promise<AlertList> {
  const res = await ctx.api.get(`/alerts?${qs}`);
  assert.is(res.status, 200, qs);
  return AlertListSchema.parse(await res.json());
}

/** Every page of 50 of `qs` equals the plain sort's, which is the order `expected` gives. */
async function samePages(ctx: Ctx, qs: string, expected: (a: Alert, b: Alert) => number) {
  const all = await page(ctx, `${qs}&page-size=5000`);
  assert.ok(all.total > 50 && all.total <= 5000, `${qs}: ${all.total} matches`);
  assert.ok(5000 > MERGE_MAX_ROWS);
  assert.equal(
    all.alerts.map((a) => a.id),
    [...all.alerts].sort(expected).map((a) => a.id),
    `${qs}: not in the expected order`,
  );
  const merged: string[] = [];
  const viewed: string[] = [];
  for (let p = 1; p <= Math.ceil(all.total / 50); p++) {
    const one = await page(ctx, `${qs}&page-size=50&page=${p}`);
    assert.is(one.total, all.total, `${qs} page ${p} total`);
    merged.push(...one.alerts.map((a) => a.id));
    const view = await listViewPage(
      ctx.running.deps,
      new URLSearchParams(`${qs}&page-size=50&page=${p}`),
      { customers: null, baseUrl: '' } as never,
      all.total,
    );
    viewed.push(...view.alerts.map((a) => a.id));
  }
  const plain = all.alerts.map((a) => a.id);
  assert.equal(merged, plain, `${qs}: merged pages differ from the plain sort`);
  assert.equal(viewed, plain, `${qs}: live view pages differ from the plain sort`);
}

const time = (a: Alert) => Date.parse(a.lastReceiveTime);
const code = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

const t = suite<Ctx>('status-first pages', {} as Ctx);

t.before(async (ctx) => {
  await startApp(ctx, { PLUGINS: '', TEST_LABEL: 'statusorder' });
  const model = ctx.running.deps.model;
  // As the plain SQL: array_position (1-based) in the model's order; unknown names the list's length.
  const position = (names: string[], s: string) => {
    const i = names.indexOf(s);
    return i < 0 ? names.length : i + 1;
  };
  const severities = Object.keys(model.severity).sort(
    (a, b) => model.severityRank(a) - model.severityRank(b),
  );
  const statuses = Object.keys(model.status).sort((a, b) =>
    (model.status[a] ?? '').localeCompare(model.status[b] ?? ''),
  );
  ctx.severityRank = (s) => position(severities, s);
  ctx.statusRank = (s) => position(statuses, s);
  await seed(ctx.db.url);
});
t.after(stopApp);

t('the merged path is taken for status first, not past MERGE_MAX_ROWS', () => {
  const q = (qs: string) =>
    parseAlertQuery(new URLSearchParams(qs), { defaultPageSize: 50, defaultField: 'text' });
  const s = (qs: string) => ({ where: q(qs).where, customers: null });
  assert.is(
    rankedLead(s('sort-by=status&sort-by=severity'), q('sort-by=status&sort-by=severity').sort, 50)?.length,
    2,
  );
  assert.is(rankedLead(s('sort-by=status'), q('sort-by=status&sort-by=resource').sort, 50)?.length, 1);
  assert.is(rankedLead(s('sort-by=status'), q('sort-by=status').sort, MERGE_MAX_ROWS + 1), null);
  assert.is(rankedLead(s('sort-by=severity'), q('sort-by=severity').sort, 50), null);
});

t('status then severity (the console), both directions and reversed', async (ctx) => {
  const st = ctx.statusRank;
  const sv = ctx.severityRank;
  await samePages(
    ctx,
    'sort-by=status&sort-by=severity',
    (a, b) => st(a.status) - st(b.status) || sv(a.severity) - sv(b.severity) || code(a.id, b.id),
  );
  await samePages(
    ctx,
    'status=open&status=ack&status=zz-custom&status=Ärger&sort-by=status&sort-by=severity',
    (a, b) => st(a.status) - st(b.status) || sv(a.severity) - sv(b.severity) || code(a.id, b.id),
  );
  await samePages(
    ctx,
    'sort-by=-status&sort-by=severity',
    (a, b) => st(b.status) - st(a.status) || sv(a.severity) - sv(b.severity) || code(a.id, b.id),
  );
  await samePages(
    ctx,
    'sort-by=status&sort-by=-severity',
    (a, b) => st(a.status) - st(b.status) || sv(b.severity) - sv(a.severity) || code(a.id, b.id),
  );
  await samePages(
    ctx,
    'sort-by=status&sort-by=severity&reverse=1',
    (a, b) => st(b.status) - st(a.status) || sv(b.severity) - sv(a.severity) || code(a.id, b.id),
  );
});

t('status then other keys, with filters', async (ctx) => {
  const st = ctx.statusRank;
  await samePages(ctx, 'sort-by=status', (a, b) => st(a.status) - st(b.status) || code(a.id, b.id));
  await samePages(
    ctx,
    'sort-by=status&sort-by=lastReceiveTime',
    (a, b) => st(a.status) - st(b.status) || time(b) - time(a) || code(a.id, b.id),
  );
  await samePages(
    ctx,
    'sort-by=status&sort-by=resource&environment=Production&environment=Staging',
    (a, b) => st(a.status) - st(b.status) || code(a.resource, b.resource) || code(a.id, b.id),
  );
  await samePages(
    ctx,
    'sort-by=status&sort-by=severity&sort-by=-lastReceiveTime&severity=major&severity=Ünknown&severity=critical',
    (a, b) =>
      st(a.status) - st(b.status) ||
      ctx.severityRank(a.severity) - ctx.severityRank(b.severity) ||
      time(a) - time(b) ||
      code(a.id, b.id),
  );
});

t('no match: an empty page, as the plain query', async (ctx) => {
  const none = await page(ctx, 'sort-by=status&sort-by=severity&status=nothing');
  assert.is(none.total, 0);
  assert.equal(none.alerts, []);
  const sort = parseAlertQuery(new URLSearchParams('sort-by=status&sort-by=severity'), {
    defaultPageSize: 50,
    defaultField: 'text',
  }).sort;
  const nobody = { where: { kind: 'all' }, customers: ['nobody'] } as const;
  const orders = { severity: ['critical'], status: ['open'] };
  const first = { sort, limit: 50, offset: 0, rawData: false };
  // Counted (nothing matched: no partition is read) and not (the loose scans' partitions are empty).
  const db = ctx.running.deps.db;
  assert.equal(await listAlerts(db, nobody, first, orders, { severity: [], status: [], pairs: [] }), []);
  assert.equal(await listAlerts(db, nobody, first, orders), []);
});

t.run();
