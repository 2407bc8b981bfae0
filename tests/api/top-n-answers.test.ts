import * as assert from 'uvu/assert';
import type { RequestOptions } from '../helpers/api.ts';
import { appSuite, type AppContext } from '../helpers/app.ts';
import { customerKeys, insertKeys, queryDb } from '../helpers/db.ts';
import { TOP_GROUP_BY } from '../../server/domain/search.ts';

/**
 * GET /alerts/topn/{count,standing} against answers computed here from the stored rows (api.md §5):
 * rows are alert × service pairs (× `severity` entries for standing), ranked by count (by
 * summed lifetime for standing) then by group value, NULL ranking as the empty text just after it.
 * The data has ties at the cut, NULL and empty group values, alerts with several services (one
 * listed twice), alerts with none, and two customers, so that any rewrite of the two-pass query
 * (server/db/top-n.ts) must give the same answers.
 */

const KEYS = { admin: 'top-admin-key-0123456789', acme: 'top-acme-key-0123456789' };
const as = (who: keyof typeof KEYS): RequestOptions => ({ headers: { Authorization: `Key ${KEYS[who]}` } });

interface Row {
  id: string;
  resource: string;
  event: string;
  environment: string;
  severity: string;
  status: string;
  service: string[];
  group: string;
  value: string | null;
  origin: string;
  type: string;
  customer: string | null;
  duplicate_count: number;
  life: number;
  entries: number;
  /** create_time as epoch ms. */
  created: number;
}

const top = appSuite<AppContext & { rows: Row[] }>('top-N answers', {
  TEST_LABEL: 'topn',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'topn-secret',
  CUSTOMER_VIEWS: 'True',
  ADMIN_USERS: 'admin@example.com',
  PLUGINS: 'remote_ip',
});
top.before(async (ctx) => {
  await insertKeys(ctx.db.url, customerKeys(KEYS));
  // 240 alerts: events e0..e11 with counts that tie in pairs, services from a list of lists,
  // values NULL / '' / text, customers NULL / acme / globex.
  const services = [['web'], ['db', 'web'], [], ['api', 'api'], ['Web'], ['db'], ['zeta', 'alpha', 'mid']];
  await queryDb(
    ctx.db.url,
    `INSERT INTO alerts (id, resource, event, environment, severity, status, service, "group", value, origin, type,
       customer, duplicate_count, create_time, receive_time, last_receive_id, last_receive_time, update_time,
       previous_severity, trend_indication)
     SELECT 'id-' || lpad(i::text, 4, '0'), (ARRAY['host-b', 'Host-a', 'host-a', 'h_1', 'h-1'])[1 + i % 5] || (i % 7),
       'e' || (i % 12) / 2 * 2 + (i % 24 >= 12)::int, (ARRAY['Production', 'Staging', 'QA'])[1 + i % 3],
       (ARRAY['critical', 'major', 'minor'])[1 + i % 3], (ARRAY['open', 'ack', 'closed'])[1 + i / 3 % 3],
       ($1::jsonb ->> (i % 7))::text[], 'g' || i % 4, (ARRAY[NULL, '', 'v1', 'v2'])[1 + i % 4],
       'o' || i % 2, 't' || i % 3, (ARRAY[NULL, 'acme', 'globex'])[1 + i / 2 % 3], i % 6,
       now() - (i % 9 + 1) * interval '1 hour', now(), 'r' || i, now() - (i % 5) * interval '1 minute', now(),
       'indeterminate', 'moreSevere'
     FROM generate_series(0, 239) AS i`,
    [JSON.stringify(services.map((s) => `{${s.join(',')}}`))],
  );
  await queryDb(
    ctx.db.url,
    `INSERT INTO alert_history (alert_id, id, event, severity, status, type, update_time)
     SELECT a.id, a.id || '-' || k, a.event, a.severity, a.status, CASE WHEN k = 0 THEN 'new' ELSE 'severity' END, now()
     FROM alerts a, generate_series(0, (substr(a.id, 4)::int % 3)) AS k`,
  );
  // History written by hand: the alerts' own counts of it (migration 0041), which the reports read.
  await queryDb(ctx.db.url, 'SELECT alert_history_recount(NULL)');
  const stored = await queryDb<Row>(
    ctx.db.url,
    `SELECT a.id, a.resource, a.event, a.environment, a.severity, a.status, a.service, a."group", a.value, a.origin,
       a.type, a.customer, a.duplicate_count,
       extract(epoch FROM a.last_receive_time - a.create_time)::float8 AS life,
       (extract(epoch FROM a.create_time) * 1000)::float8 AS created,
       (SELECT count(*)::int FROM alert_history h WHERE h.alert_id = a.id AND h.type = 'severity') AS entries
     FROM alerts a`,
  );
  ctx.rows = stored;
});

/** Code point order, as the database's C.UTF-8 collation sorts (the test data is ASCII). */
const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function expected(rows: Row[], variant: 'count' | 'standing', by: keyof Row, n: number) {
  const groups = new Map<
    string | null,
    { count: number; life: number; alerts: Map<string, Row>; env: Set<string>; svc: Set<string> }
  >();
  for (const r of rows)
    for (const s of r.service) {
      const key = by === 'service' ? s : (r[by] as string | null);
      const weight = variant === 'count' ? 1 : r.entries;
      if (weight === 0) continue;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { count: 0, life: 0, alerts: new Map(), env: new Set(), svc: new Set() }));
      g.count += weight;
      g.life += weight * r.life;
      g.alerts.set(r.id, r);
      g.env.add(r.environment);
      g.svc.add(s);
    }
  const ranked = [...groups].sort(
    ([ka, a], [kb, b]) =>
      (variant === 'standing' ? b.life - a.life : 0) ||
      b.count - a.count ||
      byCode(ka ?? '', kb ?? '') ||
      Number(ka === null) - Number(kb === null),
  );
  return ranked.slice(0, n).map(([key, g]) => {
    const alerts = [...g.alerts.values()].sort(
      (x, y) => x.resource.localeCompare(y.resource) || x.id.localeCompare(y.id),
    );
    return {
      count: g.count,
      duplicateCount: alerts.reduce((sum, a) => sum + a.duplicate_count, 0),
      environments: [...g.env].sort(byCode),
      services: [...g.svc].sort(byCode),
      resources: alerts.map((a) => ({ id: a.id, resource: a.resource })),
      firstCreateTime: new Date(Math.floor(Math.min(...alerts.map((a) => a.created)))).toISOString(),
      [by]: key,
    };
  });
}

interface Entry {
  count: number;
  duplicateCount: number;
  environments: string[];
  services: string[];
  resources: { id: string; resource: string; href: string }[];
  [group: string]: unknown;
}

top(
  'count and standing, every group-by, cut inside ties, with filters and a customer restriction',
  async (ctx) => {
    const cases: { who: keyof typeof KEYS; filter: string; keep: (r: Row) => boolean }[] = [
      { who: 'admin', filter: '', keep: () => true },
      { who: 'admin', filter: 'status=open&status=ack', keep: (r) => r.status !== 'closed' },
      { who: 'admin', filter: 'environment=Production', keep: (r) => r.environment === 'Production' },
      { who: 'acme', filter: '', keep: (r) => r.customer === 'acme' },
      {
        who: 'acme',
        filter: 'severity=critical',
        keep: (r) => r.customer === 'acme' && r.severity === 'critical',
      },
    ];
    let compared = 0;
    for (const variant of ['count', 'standing'] as const)
      for (const c of cases)
        for (const by of TOP_GROUP_BY)
          for (const n of [1, 3, 5, 100]) {
            const path = `/alerts/topn/${variant}?group-by=${by}&topn=${n}${c.filter ? `&${c.filter}` : ''}`;
            const res = await ctx.api.get(path, as(c.who));
            assert.is(res.status, 200, path);
            const body = (await res.json()) as { top10: Entry[] };
            const got = body.top10.map(({ resources, ...e }) => ({
              ...e,
              resources: resources.map((x) => {
                assert.ok(x.href.endsWith(`/alert/${x.id}`), path);
                return { id: x.id, resource: x.resource };
              }),
            }));
            assert.equal(got, expected(ctx.rows.filter(c.keep), variant, by, n), path);
            compared++;
          }
    assert.is(compared, 2 * 5 * 11 * 4);
  },
);

top('the data has what the comparisons need: ties at the cut, NULL and empty values', async (ctx) => {
  const all = expected(ctx.rows, 'count', 'event', 100);
  assert.ok(
    all.some((e, i) => i > 0 && e.count === all[i - 1]!.count),
    'tied event counts',
  );
  const values = expected(ctx.rows, 'count', 'value', 100).map((e) => e.value);
  assert.ok(values.includes(null) && values.includes(''), 'NULL and empty values both group');
  const services = expected(ctx.rows, 'count', 'service', 100);
  assert.ok(
    services.some((e) => e.services[0] === 'api' && e.resources.length < e.count),
    'a service listed twice',
  );
});

top.run();
