/**
 * Substring terms on resource are found through its trigram index (migration 0059) with the exact
 * test kept on top (server/db/alert-query.ts `conditionSql`, case 'like'). This checks the answers
 * are the ones the exact test alone gives: every match, in order, with the counts, for needles
 * holding LIKE's own characters (`%`, `_`, `\`), upper case, unicode, one or two characters (no
 * trigram), and a long one; under `q`, `resource=~` and its negation.
 *
 * The reference is the previous SQL (strpos over lower(), no index) run here, and for ASCII
 * needles also a computation in JavaScript.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AlertListSchema, type AlertList } from '../../shared/queries.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const RESOURCES = [
  'host12',
  'HOST120',
  'host1200.example',
  'web_1',
  'web%1',
  'webX1',
  'a\\b',
  'a\\\\b',
  'İstanbul-1',
  'istanbul-2',
  'Straße-7',
  'STRASSE-8',
  'ÅNGSTRÖM-ö',
  'x'.repeat(600) + 'needle',
  '',
];

async function seed(url: string) {
  // 600 alerts: each resource many times, ties on time, text with and without 'disk'.
  await queryDb(
    url,
    `INSERT INTO alerts (id, resource, event, environment, severity, status, service, text, origin, type,
       create_time, timeout, customer, previous_severity, trend_indication, receive_time, last_receive_id,
       last_receive_time, update_time)
     SELECT 'id-' || lpad(((i * 7919) % 100000)::text, 5, '0'),
       ($1::text[])[1 + i % cardinality($1::text[])] || CASE WHEN i % 4 = 0 THEN '' ELSE '-' || (i % 9) END,
       'ev' || (i % 11), (ARRAY['Production','Development'])[1 + i % 2],
       (ARRAY['critical','major','minor','warning'])[1 + (i / 3) % 4],
       (ARRAY['open','ack','closed'])[1 + (i / 5) % 3],
       ARRAY['svc'], CASE i % 3 WHEN 0 THEN 'Disk usage high' WHEN 1 THEN 'cpu' ELSE 'diskette' END,
       'test', 'exceptionAlert', t, 0, NULL, 'indeterminate', 'moreSevere', t, 'r-' || i, t, t
     FROM (SELECT i, to_timestamp($2::float8 / 1000 + (i % 7) * 60) AS t FROM generate_series(1, 600) AS i) s`,
    [RESOURCES, T0],
  );
  await queryDb(url, 'ANALYZE alerts');
}

type Ctx = AppContext;
const t = suite<Ctx>('resource substring terms through the trigram index', {} as Ctx);

t.before(async (ctx) => {
  await startApp(ctx, { PLUGINS: '', TEST_LABEL: 'freetext' });
  await seed(ctx.db.url);
});
t.after(stopApp);

async function page(ctx: Ctx, qs: string): Promise<AlertList> {
  const res = await ctx.api.get(`/alerts?${qs}`);
  assert.is(res.status, 200, qs);
  return AlertListSchema.parse(await res.json());
}

/** The ids the exact test alone selects (no index can serve strpos), newest first as /alerts sorts. */
async function reference(ctx: Ctx, needle: string, negated: boolean, text?: string) {
  const rows = await queryDb<{ id: string }>(
    ctx.db.url,
    `SELECT a.id FROM alerts a
     WHERE (strpos(lower(a.resource), lower($1::text)) > 0) IS ${negated ? 'NOT TRUE' : 'TRUE'}
       AND ($2::text IS NULL OR strpos(lower(a.text), lower($2::text)) > 0)
     ORDER BY a.last_receive_time DESC, a.id ASC`,
    [needle, text ?? null],
  );
  return rows.map((r) => r.id);
}

/** Every match of `qs`, in order and by pages of 50, and its counts, as the reference gives them. */
async function same(ctx: Ctx, qs: string, expected: string[]) {
  const all = await page(ctx, `${qs}&page-size=5000`);
  assert.equal(
    all.alerts.map((a) => a.id),
    expected,
    qs,
  );
  assert.is(all.total, expected.length, `${qs} total`);
  const counted = Object.values(all.severityCounts).reduce((s, n) => s + n, 0);
  assert.is(counted, expected.length, `${qs} severity counts`);
  const paged: string[] = [];
  for (let p = 1; p <= Math.ceil(all.total / 50); p++)
    paged.push(...(await page(ctx, `${qs}&page-size=50&page=${p}`)).alerts.map((a) => a.id));
  assert.equal(paged, expected, `${qs} pages`);
}

const NEEDLES = [
  'host12',
  'HOST12',
  'web_1',
  'web%1',
  '_',
  '%',
  'a\\b',
  '\\',
  'st',
  'w',
  'istanbul',
  'İstanbul',
  'straße',
  'ö',
  'x'.repeat(300) + 'needle',
  'nothing-matches',
];

t('the index is there (the test would pass without it, proving nothing)', async (ctx) => {
  const rows = await queryDb<{ n: number }>(
    ctx.db.url,
    `SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'alerts_resource_trgm_idx'`,
  );
  assert.is(rows[0]!.n, 1);
});

t('resource=~ and its negation: the exact test’s matches, in order, with counts', async (ctx) => {
  let nonEmpty = 0;
  for (const needle of NEEDLES) {
    const expected = await reference(ctx, needle, false);
    if (expected.length > 0) nonEmpty++;
    await same(ctx, `resource=~${encodeURIComponent(needle)}`, expected);
    await same(ctx, `resource!=~${encodeURIComponent(needle)}`, await reference(ctx, needle, true));
  }
  assert.ok(nonEmpty >= NEEDLES.length - 1, 'every needle but one matches something');
});

t('q on resource and text, as the benchmark asks it', async (ctx) => {
  for (const needle of ['host12', 'web_1', 'İstanbul', 'a\\b']) {
    // Lucene escapes: a backslash is written twice.
    const term = needle.replace(/\\/g, '\\\\');
    const q = encodeURIComponent(`resource:${term} AND text:disk`);
    await same(ctx, `q=${q}`, await reference(ctx, needle, false, 'disk'));
  }
});

t('ASCII needles: the same matches as a computation here', async (ctx) => {
  const all = (await page(ctx, 'page-size=5000')).alerts;
  for (const needle of ['host12', 'web_1', 'web%1', 'a\\b', '_']) {
    const got = (await page(ctx, `resource=~${encodeURIComponent(needle)}&page-size=5000`)).alerts;
    assert.equal(
      got.map((a) => a.id),
      all.filter((a) => a.resource.toLowerCase().includes(needle.toLowerCase())).map((a) => a.id),
      needle,
    );
  }
});

t.run();
