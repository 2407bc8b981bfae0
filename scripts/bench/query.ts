/**
 * Query benchmark (issues #4 and #20): N alerts (default 100,000) over 5 environments, 50 services,
 * 7 severities and 5 statuses, with history (a `new` entry each, a severity change for every third);
 * then GET latency over loopback against a real server process, one request at a time (latency,
 * not throughput) for `--duration` seconds per endpoint.
 *
 * Usage: node scripts/bench/query.ts [--alerts 100000] [--duration 5] [--explain] [--keep]
 *          [--db NAME] [--only TEXT] [--housekeeping]
 *   --db NAME       reuse a database kept by an earlier `--keep` run (no seeding; same data)
 *   --only TEXT     only the endpoints whose title contains TEXT (and the console default, the
 *                   baseline of the ratios)
 *   --explain       print EXPLAIN (ANALYZE, BUFFERS) of the SQL behind each endpoint, built by the
 *                   server's own query functions
 *   --housekeeping  after the endpoints, time POST /management/housekeeping twice (the backlog of
 *                   closed and expired alerts past DELETE_EXPIRED_AFTER, then the steady state)
 * The server runs with HOUSEKEEPING_INTERVAL=0, so nothing is deleted behind the measurements.
 * The summary gives each endpoint's p50 as a ratio to the console default's in the same run and
 * whether it meets issue #42's target: top-N within 60 ms, every other endpoint within twice the
 * console default. docs/benchmarks.md gives the targets and current figures.
 */
import autocannon from 'autocannon';
import pg from 'pg';
import type { CommonQueryMethods } from 'slonik';
import * as list from '../../server/db/alert-list.ts';
import * as query from '../../server/db/alert-query.ts';
import * as tally from '../../server/db/alert-tally.ts';
import * as top from '../../server/db/top-n.ts';
import { createAlarmModel } from '../../server/domain/alarm-model.ts';
import { parseAlertQuery } from '../../server/domain/query/params.ts';
import { resolveField } from '../../server/domain/query/fields.ts';
import { loadConfig } from '../../server/config.ts';
import { createDb } from '../../server/db/pool.ts';
import { createTestDatabase, databaseUrl, dropTestDatabase } from '../../tests/helpers/db.ts';
import { startServerProcess } from '../../tests/helpers/process.ts';
import { seedAlerts } from './seed.ts';
import { flag, numberArg, textArg } from './args.ts';

const duration = numberArg('duration', 5);
const count = numberArg('alerts', 100_000);
const explain = flag('explain');
const keep = flag('keep');
const housekeeping = flag('housekeeping');
const reuse = textArg('db');
const only = textArg('only');

const CONSOLE = 'status=open&status=ack&sort-by=severity&sort-by=lastReceiveTime&page-size=50';
/** The baseline of every ratio: the console's default page, measured in the same run. */
const CONSOLE_TITLE = 'list: web UI default (open+ack, severity then time)';
/** Issue #42: top-N reports within 60 ms; every other endpoint within twice the console default. */
const TOP_N_MS = 60;
const CONSOLE_RATIO = 2;
const isTopN = (title: string) => title.startsWith('/alerts/top10');
const ENDPOINTS: [string, string][] = [
  ['list: first page of 50, default sort', '/alerts?page-size=50'],
  [CONSOLE_TITLE, `/alerts?${CONSOLE}`],
  ['list: web UI default, page 3', `/alerts?${CONSOLE}&page=3`],
  [
    'list: web UI sort by status (status, severity)',
    '/alerts?status=open&status=ack&sort-by=status&sort-by=severity&page-size=50',
  ],
  ['list: web UI default in one environment', `/alerts?${CONSOLE}&environment=Production`],
  ['/alerts/count', '/alerts/count'],
  [
    'two-term q',
    '/alerts?page-size=50&q=' + encodeURIComponent('environment:Production AND severity:critical'),
  ],
  [
    'two-term q on free-text fields (row by row)',
    '/alerts?page-size=50&q=' + encodeURIComponent('resource:host12 AND text:disk'),
  ],
  ['/environments', '/environments'],
  ['/services', '/services'],
  ['/alerts/top10/count', '/alerts/top10/count'],
  ['/alerts/top10/standing', '/alerts/top10/standing'],
  ['/alerts/top10/flapping', '/alerts/top10/flapping'],
  ['/alerts/top10/count grouped by resource', '/alerts/top10/count?group-by=resource'],
  ['/alerts/top10/count in one environment', '/alerts/top10/count?environment=Production'],
];

/** The SQL the server runs for each endpoint, captured from its own query functions. */
async function plans(url: string) {
  const config = loadConfig({}, { systemFile: null });
  const model = createAlarmModel(config);
  const orders = {
    severity: Object.keys(model.severity).sort((a, b) => model.severityRank(a) - model.severityRank(b)),
    status: Object.keys(model.status).sort((a, b) =>
      (model.status[a] ?? '').localeCompare(model.status[b] ?? ''),
    ),
  };
  const captured: { sql: string; values: readonly unknown[] }[] = [];
  const capture = {
    any: async (q: { sql: string; values: readonly unknown[] }) => {
      captured.push(q);
      return [];
    },
    // Settings a query function makes for its transaction (planner.ts `planWith`) apply to the plans.
    query: async (q: { sql: string; values: readonly unknown[] }) => {
      captured.push(q);
      return { rows: [] };
    },
    transaction: async (run: (tx: unknown) => Promise<unknown>) => run(capture),
  } as unknown as CommonQueryMethods;
  const parse = (qs: string, now?: number) =>
    parseAlertQuery(new URLSearchParams(qs), { defaultPageSize: 1000, defaultField: 'text', now });
  const pool = await createDb(url, { size: 1 });
  const sel = (qs: string, now?: number) =>
    query.resolveSelection(pool, { where: parse(qs, now).where, customers: null });
  const now = Date.now();
  // With the counts the endpoint reads first (from the tally where it can), as search.ts passes them.
  const page = async (qs: string) => {
    const p = parse(qs, now);
    const s = await sel(qs, now);
    return list.listAlerts(
      capture,
      s,
      { sort: p.sort, limit: 50, offset: 0, rawData: false },
      orders,
      await tally.countBySeverityAndStatus(pool, s),
    );
  };
  const titled: [string, () => Promise<unknown>][] = [
    ['list page (default sort)', () => page('page-size=50')],
    [
      'list counts (default list view), from the tally',
      async () => tally.countBySeverityAndStatus(capture, await sel('', now)),
    ],
    ['list page (web UI default)', () => page(CONSOLE)],
    [
      'list counts (web UI default), from the tally',
      async () => tally.countBySeverityAndStatus(capture, await sel(CONSOLE, now)),
    ],
    [
      'list counts (web UI default), scanned (before the tally, and its fallback)',
      async () => query.countBySeverityAndStatus(capture, await sel(CONSOLE, now)),
    ],
    ['/alerts/count, from the tally', async () => tally.countBySeverityAndStatus(capture, await sel(''))],
    ['/alerts/count, scanned', async () => query.countBySeverityAndStatus(capture, await sel(''))],
    ['two-term q page', () => page('q=environment:Production AND severity:critical')],
    [
      'two-term q counts (resolved to values: from the tally)',
      async () =>
        tally.countBySeverityAndStatus(
          capture,
          await sel('q=environment:Production AND severity:critical', now),
        ),
    ],
    ['free-text q page', () => page('q=resource:host12 AND text:disk')],
    [
      'list page (web UI sort by status)',
      () => page('status=open&status=ack&sort-by=status&sort-by=severity&page-size=50'),
    ],
    [
      'free-text q counts',
      async () => query.countBySeverityAndStatus(capture, await sel('q=resource:host12 AND text:disk', now)),
    ],
    ['/environments, from the tally', async () => tally.environmentCounts(capture, await sel(''))],
    ['/environments, scanned', async () => query.countByEnvironment(capture, await sel(''))],
    ['/environments (every environment), scanned', () => query.knownEnvironments(capture, null)],
    ['/services, from the tally', async () => tally.serviceCounts(capture, await sel(''))],
    ['/services, scanned', async () => query.countByService(capture, await sel(''))],
    [
      '/alerts/top10/count',
      async () => top.topN(capture, await sel(''), 'count', resolveField('event')!, 10),
    ],
    [
      '/alerts/top10/count grouped by resource',
      async () => top.topN(capture, await sel(''), 'count', resolveField('resource')!, 10),
    ],
    [
      '/alerts/top10/standing',
      async () => top.topN(capture, await sel(''), 'standing', resolveField('event')!, 10),
    ],
    [
      '/alerts/top10/flapping',
      async () => top.topN(capture, await sel(''), 'flapping', resolveField('event')!, 10),
    ],
  ];
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (const [title, run] of titled) {
      captured.length = 0;
      await run();
      // In a transaction, as the function's own, so that its planner settings hold for what follows.
      await c.query('BEGIN');
      for (const q of captured) {
        const text = q.sql.replace(/\$slonik_(\d+)/g, '$$$1');
        if (text.startsWith('SELECT set_config(')) {
          await c.query(text, [...q.values]);
          continue;
        }
        const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${text}`, [...q.values]);
        console.log(`\n### ${title}\n\`\`\`\n${r.rows.map((x) => x['QUERY PLAN']).join('\n')}\n\`\`\``);
      }
      await c.query('ROLLBACK');
    }
  } finally {
    await c.end();
    await pool.end();
  }
}

const db = reuse ? { name: reuse, url: databaseUrl(reuse) } : await createTestDatabase('bench_query');
const server = await startServerProcess(
  { DATABASE_URL: db.url, LOG_LEVEL: 'error', HOUSEKEEPING_INTERVAL: '0' },
  undefined,
  // V8 or profiling flags, e.g. BENCH_SERVER_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof'.
  (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean),
);
const base = `${server.url.replace(/\/$/, '')}/api`;
try {
  if (!reuse) {
    const t0 = Date.now();
    await seedAlerts(db.url, count, { timeout: 2592000, flapping: true });
    console.log(`seeded ${count} alerts in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  if (explain) await plans(db.url);
  const rows = [];
  for (const [title, path] of ENDPOINTS) {
    // The console default always runs: it is every ratio's baseline.
    if (only && !title.includes(only) && title !== CONSOLE_TITLE) continue;
    const check = await fetch(base + path);
    if (check.status !== 200) throw new Error(`${path}: ${check.status} ${await check.text()}`);
    await autocannon({ url: base + path, connections: 1, duration: 1 }); // warm-up
    const r = await autocannon({ url: base + path, connections: 1, duration });
    const row = {
      title,
      path,
      p50: r.latency.p50,
      p99: r.latency.p99,
      requests: r.requests.total,
      non2xx: r.non2xx,
    };
    console.log(JSON.stringify(row));
    rows.push(row);
  }
  // Each endpoint's p50 against the console default's from this run, and whether it meets its target.
  const base50 = rows.find((r) => r.title === CONSOLE_TITLE)?.p50;
  console.log('\n| endpoint | p50 ms | p99 ms | requests | non-2xx | p50 ÷ console | target | met |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    const ratio = base50 ? (r.p50 / base50).toFixed(1) + '×' : 'n/a';
    const target = isTopN(r.title) ? `≤ ${TOP_N_MS} ms` : `≤ ${CONSOLE_RATIO}× console`;
    const met = isTopN(r.title)
      ? r.p50 <= TOP_N_MS
      : base50 === undefined
        ? undefined
        : r.p50 <= CONSOLE_RATIO * base50;
    const mark = met === undefined ? 'n/a (console not run)' : met ? 'yes' : 'NO';
    console.log(
      `| ${r.title} (\`${r.path}\`) | ${r.p50} | ${r.p99} | ${r.requests} | ${r.non2xx} | ${ratio} | ${target} | ${mark} |`,
    );
  }
  if (housekeeping) {
    for (const run of ['backlog', 'steady state']) {
      const t0 = performance.now();
      const res = await fetch(`${base}/management/housekeeping`, { method: 'POST' });
      const body = (await res.json()) as { count?: number };
      const ms = performance.now() - t0;
      const left = await new pg.Client({ connectionString: db.url });
      await left.connect();
      const n = await left.query(
        'SELECT (SELECT count(*) FROM alerts) AS alerts, (SELECT count(*) FROM alert_history) AS history',
      );
      await left.end();
      console.log(
        `housekeeping (${run}): ${res.status} in ${(ms / 1000).toFixed(2)} s, count ${body.count}; ` +
          `left ${n.rows[0].alerts} alerts, ${n.rows[0].history} history entries`,
      );
    }
  }
} finally {
  await server.stop();
  if (keep || reuse) console.log(`kept database ${db.name}`);
  else await dropTestDatabase(db.name);
}
