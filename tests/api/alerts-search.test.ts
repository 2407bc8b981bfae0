/**
 * Searching and reporting on alerts (docs/queries.md): filters, the Lucene-style `q`, sorting,
 * paging, response shapes, /alerts/count, /alerts/history, top-N and the derived resources.
 *
 * One suite seeds twelve alerts over three environments in `before`, on a database of its own, so
 * every count below is exact. The seed (resource: event, environment, severity, services …):
 *
 *   batch 1 (lastReceiveTime <= t1)
 *   web01.example.com  NodeDown      Production   critical       [web, frontend]   tags linux, dc1   region EU     value down, rawData
 *   web01xexample.com  NodeDown      Production   major          [web]             tags linux        region US     pri p3
 *   db01               DiskFull      Production   major          [database, storage] linux, dc2      region eu-west   received 3× (duplicateCount 2)
 *   db02               DiskFull      Development  minor          [database]        tags windows      region APAC   createTime 2024-01-01, owner=ops later
 *   mail01             QueueHigh     Development  warning        [mail]                               pri p1        acked
 *   batch 2 (lastReceiveTime > t1)
 *   cache01            CacheMiss     Staging      minor          [cache]           tags dc1          region EU, tier gold
 *   lb01               NodeDown      Staging      critical       [network]         tags dc2                        closed (PUT status)
 *   app01              HttpError     Production   informational  []                tags quick                      no service
 *   queue01            QueueHigh     Staging      warning        [mail]                               pri p2        received 2× (duplicateCount 1)
 *   myweb              HttpError     Development  major→critical→major [web]                                       three severity entries
 *   web03              SlowResponse  Production   minor          [web]             tags linux
 *   fw01               PortScan      Staging      security       [network]                           region us-east value scan, createTime 2020-01-01
 */
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import {
  AlertCountSchema,
  AlertListSchema,
  EnvironmentItemSchema,
  GroupItemSchema,
  HistoryListEntrySchema,
  ServiceItemSchema,
  TagItemSchema,
  TopEntrySchema,
  type AlertList,
  type TopEntry,
} from '../../shared/queries.ts';
import { getAlert, postAlert, put } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { type AppContext, appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

type Params = [string, string][];

interface SearchContext extends AppContext {
  /** The seeded alerts as GET /alert/:id shows them after seeding, by resource. */
  seed: Record<string, Alert>;
  /** A time between the two seed batches. */
  t1: string;
}

const SETTINGS = {
  TEST_LABEL: 'search',
  PLUGINS: 'remote_ip',
  ALLOWED_ENVIRONMENTS: 'Production,Development,Staging,QA,Lab',
};
const DATE_MESSAGE = 'dates must be ISO 8601 date format YYYY-MM-DDThh:mm:ss.sssZ';
const SQL_LEAK = /\bselect\b|syntax error at or near|\brelation\b/i;

/** Every resource, in the default order (lastReceiveTime, newest first). */
const NEWEST_FIRST = [
  'fw01',
  'web03',
  'myweb',
  'queue01',
  'app01',
  'lb01',
  'cache01',
  'mail01',
  'db02',
  'db01',
  'web01xexample.com',
  'web01.example.com',
];
const ALL = [...NEWEST_FIRST].sort();
const BATCH_1 = ['db01', 'db02', 'mail01', 'web01.example.com', 'web01xexample.com'];
const BATCH_2 = ['app01', 'cache01', 'fw01', 'lb01', 'myweb', 'queue01', 'web03'];
const PRODUCTION = ['app01', 'db01', 'web01.example.com', 'web01xexample.com', 'web03'];
const NOT_PRODUCTION = ALL.filter((r) => !PRODUCTION.includes(r));
const WEB_SERVICE = ['myweb', 'web01.example.com', 'web01xexample.com', 'web03'];
const ALL_SEVERITY_COUNTS = { security: 1, critical: 2, major: 3, minor: 3, warning: 2, informational: 1 };
const ALL_STATUS_COUNTS = { open: 10, ack: 1, closed: 1 };
const ALERT_KEYS = [
  'id',
  'href',
  'resource',
  'event',
  'environment',
  'severity',
  'correlate',
  'status',
  'service',
  'group',
  'value',
  'text',
  'tags',
  'attributes',
  'origin',
  'type',
  'createTime',
  'timeout',
  'rawData',
  'customer',
  'duplicateCount',
  'repeat',
  'previousSeverity',
  'trendIndication',
  'receiveTime',
  'lastReceiveId',
  'lastReceiveTime',
  'updateTime',
  'history',
].sort();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sorted = <T>(xs: readonly T[]) => [...xs].sort();
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
const label = (path: string, params: Params) => `${path} ${JSON.stringify(params)}`;

function url(path: string, params: Params = []): string {
  const s = new URLSearchParams(params).toString();
  return s ? `${path}?${s}` : path;
}

/** GET, asserting 200 and a JSON body. */
async function getOk(api: Api, path: string, params: Params = []): Promise<Record<string, unknown>> {
  const res = await api.get(url(path, params));
  const text = await res.text();
  assert.is(res.status, 200, `${label(path, params)} → ${res.status} ${text}`);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  return JSON.parse(text) as Record<string, unknown>;
}

async function list(api: Api, params: Params = []): Promise<AlertList> {
  return AlertListSchema.parse(await getOk(api, '/alerts', params));
}

/** Resources of every match (sorted), asserting the list and its total agree. */
async function matches(api: Api, params: Params): Promise<string[]> {
  const body = await list(api, params);
  assert.is(body.total, body.alerts.length, `${label('/alerts', params)}: total vs alerts`);
  return sorted(body.alerts.map((a) => a.resource));
}

async function expectMatches(api: Api, params: Params, expected: readonly string[]) {
  assert.equal(await matches(api, params), sorted(expected), label('/alerts', params));
}

/** An error answer: JSON `{status:'error', message, code}`, no SQL text. */
async function expectError(res: Response, status: number, message?: string | RegExp) {
  const text = await res.text();
  assert.is(res.status, status, `${res.url} → ${res.status} ${text}`);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = ErrorBodySchema.parse(JSON.parse(text));
  assert.is(body.code, status);
  if (typeof message === 'string') assert.is(body.message, message, res.url);
  else if (message) assert.match(body.message, message, res.url);
  assert.not.match([body.message, ...(body.errors ?? [])].join('\n'), SQL_LEAK, `SQL text in ${text}`);
  return body;
}

const getError = (api: Api, path: string, params: Params, status: number, message?: string | RegExp) =>
  api.get(url(path, params)).then((res) => expectError(res, status, message));

async function top(
  api: Api,
  path: string,
  params: Params = [],
): Promise<{ top10: TopEntry[]; total: number }> {
  const body = await getOk(api, path, params);
  assert.is(body.status, 'ok');
  const entries = (body.top10 as unknown[]).map((e) => TopEntrySchema.parse(e));
  assert.is(body.total, entries.length, `${label(path, params)}: total`);
  return { top10: entries, total: body.total as number };
}

/** A top-N entry keyed by its group-by value, with the id lists reduced to resources. */
function topSummary(entries: readonly TopEntry[], groupBy: string) {
  return Object.fromEntries(
    entries.map((e) => [
      String(e[groupBy]),
      {
        count: e.count,
        duplicateCount: e.duplicateCount,
        environments: sorted(e.environments),
        services: sorted(e.services),
        resources: sorted(e.resources.map((r) => r.resource)),
      },
    ]),
  );
}

// ---- seeding ------------------------------------------------------------------------------------

async function receive(api: Api, fields: Record<string, unknown>): Promise<Alert> {
  const r = await postAlert(api, fields);
  assert.ok(r.status === 201 || r.status === 200, `POST /alert ${r.status} ${JSON.stringify(r.body)}`);
  await sleep(5);
  return r.body.alert;
}

async function seedAlerts(ctx: SearchContext): Promise<void> {
  const { api } = ctx;
  const ok = async (p: Promise<{ status: number; body: unknown }>) => {
    const r = await p;
    assert.is(r.status, 200, JSON.stringify(r.body));
    await sleep(5);
  };

  // batch 1
  await receive(api, {
    resource: 'web01.example.com',
    event: 'NodeDown',
    environment: 'Production',
    severity: 'critical',
    service: ['web', 'frontend'],
    group: 'Network',
    tags: ['linux', 'dc1'],
    attributes: { region: 'EU' },
    text: 'Host is down hard',
    value: 'down',
    rawData: 'raw-A1',
  });
  await receive(api, {
    resource: 'web01xexample.com',
    event: 'NodeDown',
    environment: 'Production',
    severity: 'major',
    service: ['web'],
    group: 'Network',
    tags: ['linux'],
    attributes: { region: 'US', pri: 'p3' },
    text: 'Host unreachable',
  });
  const db01 = {
    resource: 'db01',
    event: 'DiskFull',
    environment: 'Production',
    severity: 'major',
    service: ['database', 'storage'],
    group: 'Storage',
    tags: ['linux', 'dc2'],
    attributes: { region: 'eu-west' },
    text: 'Disk full on /var',
  };
  for (let i = 0; i < 3; i++) await receive(api, db01);
  const db02 = await receive(api, {
    resource: 'db02',
    event: 'DiskFull',
    environment: 'Development',
    severity: 'minor',
    service: ['database'],
    group: 'Storage',
    tags: ['windows'],
    attributes: { region: 'APAC' },
    text: 'disk nearly full',
    createTime: '2024-01-01T00:00:00.000Z',
  });
  await ok(put(api, `/alert/${db02.id}/attributes`, { attributes: { owner: 'ops' } }));
  const mail01 = await receive(api, {
    resource: 'mail01',
    event: 'QueueHigh',
    environment: 'Development',
    severity: 'warning',
    service: ['mail'],
    group: 'Mail',
    attributes: { pri: 'p1' },
    text: 'Mail queue high',
  });
  await ok(put(api, `/alert/${mail01.id}/action`, { action: 'ack' }));

  await sleep(15);
  ctx.t1 = new Date().toISOString();
  await sleep(15);

  // batch 2
  await receive(api, {
    resource: 'cache01',
    event: 'CacheMiss',
    environment: 'Staging',
    severity: 'minor',
    service: ['cache'],
    group: 'Performance',
    tags: ['dc1'],
    attributes: { region: 'EU', tier: 'gold' },
    text: 'Cache miss ratio 90%',
  });
  const lb01 = await receive(api, {
    resource: 'lb01',
    event: 'NodeDown',
    environment: 'Staging',
    severity: 'critical',
    service: ['network'],
    group: 'Network',
    tags: ['dc2'],
    text: 'Load balancer down',
  });
  await ok(put(api, `/alert/${lb01.id}/status`, { status: 'closed' }));
  await receive(api, {
    resource: 'app01',
    event: 'HttpError',
    environment: 'Production',
    severity: 'informational',
    service: [],
    group: 'Web',
    tags: ['quick'],
    text: 'the quick brown fox',
  });
  const queue01 = {
    resource: 'queue01',
    event: 'QueueHigh',
    environment: 'Staging',
    severity: 'warning',
    service: ['mail'],
    group: 'Mail',
    attributes: { pri: 'p2' },
    text: 'queue backlog',
  };
  for (let i = 0; i < 2; i++) await receive(api, queue01);
  for (const severity of ['major', 'critical', 'major']) {
    await receive(api, {
      resource: 'myweb',
      event: 'HttpError',
      environment: 'Development',
      severity,
      service: ['web'],
      group: 'Web',
      text: 'HTTP 500 errors',
    });
  }
  await receive(api, {
    resource: 'web03',
    event: 'SlowResponse',
    environment: 'Production',
    severity: 'minor',
    service: ['web'],
    group: 'Web',
    tags: ['linux'],
    text: 'Web server slow',
  });
  await receive(api, {
    resource: 'fw01',
    event: 'PortScan',
    environment: 'Staging',
    severity: 'security',
    service: ['network'],
    group: 'Security',
    attributes: { region: 'us-east' },
    text: 'Port scan detected',
    value: 'scan',
    createTime: '2020-01-01T00:00:00.000Z',
  });

  const rows = await queryDb<{ id: string; resource: string }>(ctx.db.url, 'SELECT id, resource FROM alerts');
  ctx.seed = {};
  for (const r of rows) ctx.seed[r.resource] = await getAlert(api, r.id);
}

// ---- the seeded suite ---------------------------------------------------------------------------

const search = appSuite<SearchContext>('alert search on a known seed', SETTINGS);
search.before(seedAlerts);

search('the seed is as planned (the fixture the other tests rely on)', async ({ seed }) => {
  assert.equal(Object.keys(seed).sort(), ALL);
  const pick = (f: (a: Alert) => unknown) => Object.fromEntries(ALL.map((r) => [r, f(seed[r]!)]));
  assert.equal(
    pick((a) => a.severity),
    {
      app01: 'informational',
      cache01: 'minor',
      db01: 'major',
      db02: 'minor',
      fw01: 'security',
      lb01: 'critical',
      mail01: 'warning',
      myweb: 'major',
      queue01: 'warning',
      'web01.example.com': 'critical',
      'web01xexample.com': 'major',
      web03: 'minor',
    },
  );
  assert.equal(
    pick((a) => a.status),
    Object.fromEntries(ALL.map((r) => [r, r === 'mail01' ? 'ack' : r === 'lb01' ? 'closed' : 'open'])),
  );
  assert.equal(
    pick((a) => a.duplicateCount),
    Object.fromEntries(ALL.map((r) => [r, r === 'db01' ? 2 : r === 'queue01' ? 1 : 0])),
  );
  assert.equal(
    pick((a) => a.repeat),
    Object.fromEntries(ALL.map((r) => [r, r === 'db01' || r === 'queue01'])),
  );
  assert.equal(
    pick((a) => a.value),
    Object.fromEntries(
      ALL.map((r) => [r, r === 'web01.example.com' ? 'down' : r === 'fw01' ? 'scan' : null]),
    ),
  );
  assert.equal(sorted(seed.db01!.tags), ['dc2', 'linux']);
  assert.equal(seed.app01!.service, []);
  assert.is(seed.db02!.attributes.owner, 'ops');
  assert.is.not(seed.db01!.lastReceiveId, seed.db01!.id);
  assert.equal(
    ALL.filter((r) => seed[r]!.previousSeverity === 'critical'),
    ['myweb'],
  );
  assert.equal(
    seed.myweb!.history.map((h) => h.severity),
    ['major', 'critical', 'major'],
  );
  // lastReceiveTime strictly increases in seeding order, and t1 separates the batches
  const times = [...NEWEST_FIRST].reverse().map((r) => seed[r]!.lastReceiveTime);
  for (let i = 1; i < times.length; i++) assert.ok(times[i - 1]! < times[i]!, `seed order at ${i}`);
});

// ---- filters ------------------------------------------------------------------------------------

search('filters: equality is exact, repeated values are any-of', async ({ api }) => {
  await expectMatches(api, [['environment', 'Production']], PRODUCTION);
  await expectMatches(
    api,
    [
      ['environment', 'Production'],
      ['environment', 'Staging'],
    ],
    [...PRODUCTION, 'cache01', 'fw01', 'lb01', 'queue01'],
  );
  await expectMatches(api, [['environment', 'production']], []);
  await expectMatches(api, [['resource', 'db01']], ['db01']);
  await expectMatches(api, [['resource', 'DB01']], []);
  await expectMatches(
    api,
    [
      ['severity', 'major'],
      ['severity', 'critical'],
    ],
    ['db01', 'lb01', 'myweb', 'web01.example.com', 'web01xexample.com'],
  );
  await expectMatches(
    api,
    [
      ['environment', 'Production'],
      ['service', 'web'],
      ['status', 'open'],
    ],
    ['web01.example.com', 'web01xexample.com', 'web03'],
  );
  await expectMatches(api, [['_', '1699999999']], ALL);
});

search('filters: ~ is a case-insensitive substring; several values with ~ are one regex', async ({ api }) => {
  await expectMatches(api, [['environment', '~prod']], PRODUCTION);
  await expectMatches(api, [['environment', '~PROD']], PRODUCTION);
  await expectMatches(api, [['resource', '~WEB']], WEB_SERVICE);
  // '^web0|CACHE' case-insensitively: the anchor keeps myweb out
  await expectMatches(
    api,
    [
      ['resource', '~^web0'],
      ['resource', 'CACHE'],
    ],
    ['cache01', 'web01.example.com', 'web01xexample.com', 'web03'],
  );
  // a single ~ value is a substring, not a regex: '.' is literal
  await expectMatches(api, [['resource', '~01.example']], ['web01.example.com']);
  await getError(
    api,
    '/alerts',
    [
      ['resource', '~('],
      ['resource', 'x'],
    ],
    400,
  );
});

search('filters: field! negates (not equal, not containing, none of)', async ({ api }) => {
  // the literal URL form: `status!=open` is the parameter `status!` with the value `open`
  const raw = AlertListSchema.parse(await (await api.get('/alerts?status!=open')).json());
  assert.equal(sorted(raw.alerts.map((a) => a.resource)), ['lb01', 'mail01']);
  const closed = AlertListSchema.parse(await (await api.get('/alerts?status!=closed')).json());
  assert.is(closed.total, 11);
  await expectMatches(api, [['status!', 'open']], ['lb01', 'mail01']);
  await expectMatches(
    api,
    [
      ['status!', 'open'],
      ['status!', 'ack'],
    ],
    ['lb01'],
  );
  await expectMatches(
    api,
    [['resource!', '~web']],
    ALL.filter((r) => !WEB_SERVICE.includes(r)),
  );
  // repeated with ~: not matching the regex '^db|0[1-2]$'
  await expectMatches(
    api,
    [
      ['resource!', '~^db'],
      ['resource!', '~0[1-2]$'],
    ],
    ['myweb', 'web01.example.com', 'web01xexample.com', 'web03'],
  );
  await expectMatches(api, [['environment!', 'Production']], NOT_PRODUCTION);
});

search('filters: service= and tag= match any of the values; ! matches none of them', async ({ api }) => {
  await expectMatches(api, [['service', 'web']], WEB_SERVICE);
  await expectMatches(
    api,
    [
      ['service', 'web'],
      ['service', 'mail'],
    ],
    [...WEB_SERVICE, 'mail01', 'queue01'],
  );
  await expectMatches(
    api,
    [['service!', 'web']],
    ALL.filter((r) => !WEB_SERVICE.includes(r)),
  );
  await expectMatches(api, [['service', 'we']], []);
  await expectMatches(api, [['tag', 'linux']], ['db01', 'web01.example.com', 'web01xexample.com', 'web03']);
  await expectMatches(
    api,
    [
      ['tag', 'dc1'],
      ['tag', 'windows'],
    ],
    ['cache01', 'db02', 'web01.example.com'],
  );
  await expectMatches(api, [['tags', 'dc2']], ['db01', 'lb01']);
  await expectMatches(
    api,
    [['tag!', 'linux']],
    ['app01', 'cache01', 'db02', 'fw01', 'lb01', 'mail01', 'myweb', 'queue01'],
  );
});

search(
  'filters: attributes.<key>, id prefixes, repeat, duplicateCount, time fields',
  async ({ api, seed }) => {
    await expectMatches(api, [['attributes.region', 'EU']], ['cache01', 'web01.example.com']);
    await expectMatches(api, [['attributes.region', 'eu']], []);
    await expectMatches(api, [['attributes.region', '~eu']], ['cache01', 'db01', 'web01.example.com']);
    await expectMatches(api, [['attributes.tier', 'gold']], ['cache01']);

    const db02 = seed.db02!;
    const db01 = seed.db01!;
    await expectMatches(api, [['id', db02.id.slice(0, 8)]], ['db02']);
    await expectMatches(api, [['id', db02.id.slice(0, 8).toUpperCase()]], ['db02']);
    await expectMatches(api, [['id', db02.id]], ['db02']);
    // lastReceiveId of the third db01 receipt
    await expectMatches(api, [['id', db01.lastReceiveId.slice(0, 8)]], ['db01']);
    await expectMatches(
      api,
      [
        ['id', db02.id.slice(0, 8)],
        ['id', seed.fw01!.id.slice(0, 8)],
      ],
      ['db02', 'fw01'],
    );
    await expectMatches(api, [['id', 'zzzzzzzz']], []);

    await expectMatches(api, [['repeat', 'true']], ['db01', 'queue01']);
    await expectMatches(api, [['repeat', 'yes']], ['db01', 'queue01']);
    await expectMatches(
      api,
      [['repeat', '0']],
      ALL.filter((r) => r !== 'db01' && r !== 'queue01'),
    );
    await expectMatches(api, [['duplicateCount', '2']], ['db01']);
    await expectMatches(api, [['duplicate_count', '1']], ['queue01']);
    await expectMatches(api, [['createTime', '2020-01-01T00:00:00.000Z']], ['fw01']);
    await expectMatches(api, [['create_time', '2024-01-01T00:00:00Z']], ['db02']);
  },
);

search('filters: snake_case column names are aliases of the JSON names', async ({ api, seed }) => {
  const db01 = seed.db01!;
  await expectMatches(api, [['last_receive_id', db01.lastReceiveId]], ['db01']);
  await expectMatches(api, [['lastReceiveId', db01.lastReceiveId]], ['db01']);
  await expectMatches(api, [['previous_severity', 'critical']], ['myweb']);
  await expectMatches(api, [['previousSeverity', 'critical']], ['myweb']);
});

search('filters: from-date / to-date select by lastReceiveTime; ISO 8601 forms', async ({ api, t1 }) => {
  await expectMatches(api, [['from-date', t1]], BATCH_2);
  await expectMatches(api, [['to-date', t1]], BATCH_1);
  await expectMatches(
    api,
    [
      ['from-date', t1],
      ['environment', 'Production'],
    ],
    ['app01', 'web03'],
  );
  for (const d of [
    '2000-01-01',
    '2000-01-01T10:00:00Z',
    '2000-01-01T00:00:00.123Z',
    '2000-01-01T10:00:00+02:00',
  ]) {
    await expectMatches(api, [['from-date', d]], ALL);
    await expectMatches(api, [['to-date', d]], []);
  }
  await expectMatches(api, [['to-date', '2999-12-31T00:00:00.000Z']], ALL);
  for (const bad of ['yesterday', '2024-13-01', '01/05/2024', '2024-05-01T25:00:00Z']) {
    await getError(api, '/alerts', [['from-date', bad]], 400, DATE_MESSAGE);
    await getError(api, '/alerts', [['to-date', bad]], 400, DATE_MESSAGE);
  }
});

search('filters: unknown names and values of the wrong type are 400', async ({ api }) => {
  await getError(api, '/alerts', [['foo', 'bar']], 400, 'Invalid filter parameter: foo');
  await getError(api, '/alerts', [['foo!', 'bar']], 400, /^Invalid filter parameter: foo/);
  await getError(api, '/alerts/count', [['foo', 'bar']], 400, 'Invalid filter parameter: foo');
  await getError(api, '/alerts', [['attributes', 'x']], 400, 'Invalid filter parameter: attributes');
  await getError(api, '/alerts', [['duplicateCount', 'abc']], 400, /duplicateCount/);
  await getError(api, '/alerts', [['duplicateCount', '1.5']], 400, /duplicateCount/);
  await getError(api, '/alerts', [['timeout', 'abc']], 400, /timeout/);
  await getError(api, '/alerts', [['repeat', 'maybe']], 400, /repeat/);
  await getError(api, '/alerts', [['createTime', 'garbage']], 400);
});

// ---- q ------------------------------------------------------------------------------------------

search('q: bare words, q.df, field:word substrings', async ({ api }) => {
  await expectMatches(api, [['q', 'down']], ['lb01', 'web01.example.com']);
  await expectMatches(api, [['q', 'DOWN']], ['lb01', 'web01.example.com']);
  await expectMatches(
    api,
    [
      ['q', 'web'],
      ['q.df', 'resource'],
    ],
    WEB_SERVICE,
  );
  await expectMatches(api, [['q', 'web']], ['web03']);
  await expectMatches(api, [['q', 'resource:db']], ['db01', 'db02']);
  await expectMatches(api, [['q', 'resource:DB']], ['db01', 'db02']);
  await expectMatches(
    api,
    [['q', 'status:o']],
    ALL.filter((r) => r !== 'mail01'),
  );
});

search(
  'q on environment, severity and status (resolved to stored values first) matches row by row',
  async ({ api }) => {
    const all = (await list(api, [['page-size', '1000']])).alerts;
    const expect = (test: (a: Alert) => boolean) =>
      all
        .filter(test)
        .map((a) => a.resource)
        .sort();
    const cases: [string, (a: Alert) => boolean][] = [
      ['environment:/^(prod|stag)/', (a) => /^(prod|stag)/i.test(a.environment)],
      ['environment:dev*', (a) => /^dev/i.test(a.environment)],
      ['environment:ROD', (a) => /rod/i.test(a.environment)],
      ['NOT environment:prod', (a) => !/prod/i.test(a.environment)],
      ['severity:"major"', (a) => a.severity === 'major'],
      ['severity:/^(critical|security)$/', (a) => ['critical', 'security'].includes(a.severity)],
      ['severity:nosuchseverity', () => false],
      [
        'status:/^(open|ack)$/ AND environment:production',
        (a) => ['open', 'ack'].includes(a.status) && a.environment === 'Production',
      ],
      ['status:o -environment:staging', (a) => a.status.includes('o') && a.environment !== 'Staging'],
    ];
    for (const [q, test] of cases) {
      assert.equal((await matches(api, [['q', q]])).sort(), expect(test), q);
    }
    await expectError(await api.get(url('/alerts', [['q', 'environment:/(/']])), 400);
  },
);

search('q: quoted phrases are whole words with literal punctuation', async ({ api }) => {
  await expectMatches(api, [['q', 'resource:"web01.example.com"']], ['web01.example.com']);
  await expectMatches(api, [['q', 'text:"disk full"']], ['db01']);
  await expectMatches(api, [['q', 'text:"DISK FULL"']], ['db01']);
  await expectMatches(api, [['q', 'text:"down"']], ['lb01', 'web01.example.com']);
  await expectMatches(api, [['q', 'text:"dow"']], []);
  await expectMatches(api, [['q', 'text:dow']], ['lb01', 'web01.example.com']);
  await expectMatches(api, [['q', '"queue backlog"']], ['queue01']);
});

search('q: wildcards are whole-word; /regex/ is a case-insensitive POSIX regex', async ({ api }) => {
  await expectMatches(api, [['q', 'text:qu?ck']], ['app01']);
  await expectMatches(api, [['q', 'text:bro*']], ['app01']);
  await expectMatches(api, [['q', 'resource:web0*']], ['web01.example.com', 'web01xexample.com', 'web03']);
  await expectMatches(api, [['q', 'resource:web0?']], ['web01.example.com', 'web03']);
  await expectMatches(api, [['q', 'resource:/^db0[12]$/']], ['db01', 'db02']);
  await expectMatches(api, [['q', 'resource:/^DB01$/']], ['db01']);
  await expectMatches(api, [['q', 'resource:/web/']], WEB_SERVICE);
});

search('q: ranges and comparisons use the field type', async ({ api }) => {
  await expectMatches(api, [['q', 'resource:[db01 TO db02]']], ['db01', 'db02']);
  await expectMatches(api, [['q', 'resource:{db01 TO db02]']], ['db02']);
  await expectMatches(api, [['q', 'resource:[db01 TO db02}']], ['db01']);
  await expectMatches(api, [['q', 'duplicate_count:[2 TO *]']], ['db01']);
  await expectMatches(api, [['q', 'duplicate_count:{0 TO *]']], ['db01', 'queue01']);
  await expectMatches(api, [['q', 'duplicate_count:[1 TO 1]']], ['queue01']);
  await expectMatches(api, [['q', 'duplicateCount:>1']], ['db01']);
  await expectMatches(api, [['q', 'duplicate_count:>=1']], ['db01', 'queue01']);
  await expectMatches(
    api,
    [['q', 'duplicate_count:<=1']],
    ALL.filter((r) => r !== 'db01'),
  );
  await expectMatches(
    api,
    [['q', 'duplicate_count:<1']],
    ALL.filter((r) => r !== 'db01' && r !== 'queue01'),
  );
  await expectMatches(api, [['q', 'last_receive_time:>2000-01-01']], ALL);
  await expectMatches(api, [['q', 'lastReceiveTime:>2000-01-01']], ALL);
  await expectMatches(api, [['q', 'lastReceiveTime:<=2000-01-01']], []);
  await expectMatches(api, [['q', 'create_time:<2021-01-01']], ['fw01']);
  await expectMatches(api, [['q', 'createTime:[2023-06-01 TO 2024-06-01]']], ['db02']);
  // a numeric comparison, not a text one ('10' < '9' as text)
  await expectMatches(api, [['q', 'duplicate_count:<10']], ALL);
});

search('q: field groups, list fields, attributes, _exists_, field:*', async ({ api }) => {
  const criticalOrMajor = ['db01', 'lb01', 'myweb', 'web01.example.com', 'web01xexample.com'];
  await expectMatches(api, [['q', 'severity:(critical OR major)']], criticalOrMajor);
  await expectMatches(api, [['q', 'severity:(critical major)']], criticalOrMajor);
  await expectMatches(
    api,
    [['q', 'environment:(Staging Development) AND severity:minor']],
    ['cache01', 'db02'],
  );

  await expectMatches(
    api,
    [['q', 'tags:linux']],
    ['db01', 'web01.example.com', 'web01xexample.com', 'web03'],
  );
  await expectMatches(api, [['q', 'tags:lin']], []);
  await expectMatches(api, [['q', 'tags:dc*']], ['cache01', 'db01', 'lb01', 'web01.example.com']);
  await expectMatches(api, [['q', 'service:web']], WEB_SERVICE);
  await expectMatches(api, [['q', 'service:we']], []);
  await expectMatches(api, [['q', 'service:/^data/']], ['db01', 'db02']);

  await expectMatches(api, [['q', 'attributes.region:eu']], ['cache01', 'db01', 'web01.example.com']);
  await expectMatches(api, [['q', '_.region:eu']], ['cache01', 'db01', 'web01.example.com']);
  await expectMatches(
    api,
    [['q', '_exists_:region']],
    ['cache01', 'db01', 'db02', 'fw01', 'web01.example.com', 'web01xexample.com'],
  );
  await expectMatches(api, [['q', '_exists_:tier']], ['cache01']);
  await expectMatches(
    api,
    [['q', '_exists_:region AND attributes.region:us']],
    ['fw01', 'web01xexample.com'],
  );
  await expectMatches(api, [['q', 'value:*']], ['fw01', 'web01.example.com']);
  await expectMatches(api, [['q', 'repeat:true']], ['db01', 'queue01']);
});

search('q: AND / OR / NOT, &&, ||, !, -, +, implicit OR and precedence', async ({ api }) => {
  const cases: [string, string[]][] = [
    ['environment:Production AND severity:major', ['db01', 'web01xexample.com']],
    ['environment:Production && severity:major', ['db01', 'web01xexample.com']],
    ['severity:critical OR severity:security', ['fw01', 'lb01', 'web01.example.com']],
    ['severity:critical || severity:security', ['fw01', 'lb01', 'web01.example.com']],
    ['severity:critical severity:security', ['fw01', 'lb01', 'web01.example.com']],
    ['NOT environment:Production', NOT_PRODUCTION],
    ['!environment:Production', NOT_PRODUCTION],
    ['-environment:Production', NOT_PRODUCTION],
    ['+environment:Production', PRODUCTION],
    // a NOT b, a OR NOT b and a -b (= a OR NOT b) all read as a AND NOT b
    ['environment:Production NOT severity:major', ['app01', 'web01.example.com', 'web03']],
    ['environment:Production OR NOT severity:major', ['app01', 'web01.example.com', 'web03']],
    ['environment:Production -severity:major', ['app01', 'web01.example.com', 'web03']],
    ['-down', ALL.filter((r) => r !== 'lb01' && r !== 'web01.example.com')],
    ['!down', ALL.filter((r) => r !== 'lb01' && r !== 'web01.example.com')],
    ['down NOT hard', ['lb01']],
    ['down -hard', ['lb01']],
    ['down !hard', ['lb01']],
    // NOT > AND > OR
    ['severity:security OR environment:Production AND severity:major', ['db01', 'fw01', 'web01xexample.com']],
    ['(severity:security OR environment:Production) AND severity:major', ['db01', 'web01xexample.com']],
    ['NOT severity:minor AND environment:Staging', ['fw01', 'lb01', 'queue01']],
  ];
  // every case is tried, so one report shows all the readings that differ
  const wrong: string[] = [];
  for (const [q, expected] of cases) {
    const res = await api.get(url('/alerts', [['q', q]]));
    const text = await res.text();
    if (res.status !== 200) {
      wrong.push(`${q} → ${res.status} ${text}`);
      continue;
    }
    const got = sorted(AlertListSchema.parse(JSON.parse(text)).alerts.map((a) => a.resource));
    if (JSON.stringify(got) !== JSON.stringify(sorted(expected))) {
      wrong.push(`${q} → ${JSON.stringify(got)}, expected ${JSON.stringify(sorted(expected))}`);
    }
  }
  assert.equal(wrong, []);
  // q is ANDed with the filters
  await expectMatches(
    api,
    [
      ['environment', 'Staging'],
      ['q', 'severity:(critical OR security)'],
    ],
    ['fw01', 'lb01'],
  );
});

search('q: errors are clean 400s', async ({ api }) => {
  const unknown = await getError(api, '/alerts', [['q', 'foo:bar']], 400);
  assert.match(
    [unknown.message, ...(unknown.errors ?? [])].join(' '),
    /resource/,
    'names the allowed fields',
  );
  const syntax = await getError(api, '/alerts', [['q', '(a']], 400, 'Failed to parse query string.');
  assert.ok(syntax.errors && syntax.errors.length > 0, 'errors give the position');
  assert.match(syntax.errors!.join(' '), /\d/);
  await getError(api, '/alerts', [['q', 'resource:/(/']], 400);
  const mongo = await getError(
    api,
    '/alerts',
    [['q', '{"status":"open"}']],
    400,
    'Failed to parse query string.',
  );
  assert.match((mongo.errors ?? []).join(' '), /lucene/i);
  await getError(api, '/alerts', [['q', 'timeout:xyz']], 400);
  await getError(api, '/alerts', [['q', 'duplicate_count:[a TO 3]']], 400);
  await getError(api, '/alerts', [['q', 'severity:major^2']], 400);
  await getError(api, '/alerts', [['q', 'resource:db01~']], 400);
  await getError(api, '/alerts/count', [['q', '(a']], 400, 'Failed to parse query string.');
});

search('q and filters: injection attempts are inert', async ({ api, db }) => {
  const attempts: Params[] = [
    [['q', "'; drop table alerts; --"]],
    [['q', 'resource:"a\\" OR 1=1"']],
    [['q', "resource:x' OR '1'='1"]],
    [['resource', "x' OR '1'='1"]],
    [['resource', "x'); DELETE FROM alerts; --"]],
    [['attributes.region', "EU' OR 'a'='a"]],
    [['sort-by', 'resource; DROP TABLE alerts']],
  ];
  for (const params of attempts) {
    const res = await api.get(url('/alerts', params));
    if (res.status === 200) {
      const body = AlertListSchema.parse(await res.json());
      assert.is(body.total, 0, `${label('/alerts', params)} matched ${body.total}`);
      assert.equal(body.alerts, []);
    } else {
      await expectError(res, 400);
    }
  }
  assert.is((await list(api)).total, 12);
  const rows = await queryDb<{ n: string }>(db.url, 'SELECT count(*) AS n FROM alerts');
  assert.is(Number(rows[0]!.n), 12);
});

// ---- sorting ------------------------------------------------------------------------------------

async function order(api: Api, params: Params): Promise<string[]> {
  return (await list(api, params)).alerts.map((a) => a.resource);
}

search('sorting: default is lastReceiveTime newest first; -, reverse and several keys', async ({ api }) => {
  assert.equal(await order(api, []), NEWEST_FIRST);
  assert.equal(await order(api, [['sort-by', 'lastReceiveTime']]), NEWEST_FIRST);
  assert.equal(await order(api, [['sort-by', 'last_receive_time']]), NEWEST_FIRST);
  assert.equal(await order(api, [['sort-by', '-lastReceiveTime']]), [...NEWEST_FIRST].reverse());
  assert.equal(await order(api, [['reverse', 'true']]), [...NEWEST_FIRST].reverse());

  const bySeverityThenResourceDesc = [
    'fw01',
    'web01.example.com',
    'lb01',
    'web01xexample.com',
    'myweb',
    'db01',
    'web03',
    'db02',
    'cache01',
    'queue01',
    'mail01',
    'app01',
  ];
  const twoKeys: Params = [
    ['sort-by', 'severity'],
    ['sort-by', '-resource'],
  ];
  assert.equal(await order(api, twoKeys), bySeverityThenResourceDesc);
  assert.equal(
    await order(api, [...twoKeys, ['reverse', 'true']]),
    [...bySeverityThenResourceDesc].reverse(),
  );

  assert.equal(await order(api, [['sort-by', 'resource']]), ALL);
  assert.equal(await order(api, [['sort-by', '-resource']]), [...ALL].reverse());
  assert.equal(
    await order(api, [
      ['sort-by', 'resource'],
      ['reverse', 'true'],
    ]),
    [...ALL].reverse(),
  );
  assert.equal(await order(api, [['sort-by', 'createTime']]), [
    'web03',
    'myweb',
    'queue01',
    'app01',
    'lb01',
    'cache01',
    'mail01',
    'db01',
    'web01xexample.com',
    'web01.example.com',
    'db02',
    'fw01',
  ]);
});

search('sorting: severity by the alarm model, status by its key order', async ({ api }) => {
  const severities = async (params: Params) => (await list(api, params)).alerts.map((a) => a.severity);
  const mostSevereFirst = [
    'security',
    'critical',
    'critical',
    'major',
    'major',
    'major',
    'minor',
    'minor',
    'minor',
    'warning',
    'warning',
    'informational',
  ];
  assert.equal(await severities([['sort-by', 'severity']]), mostSevereFirst);
  assert.equal(await severities([['sort-by', '-severity']]), [...mostSevereFirst].reverse());
  const statuses = async (params: Params) => (await list(api, params)).alerts.map((a) => a.status);
  const openFirst = [...Array<string>(10).fill('open'), 'ack', 'closed'];
  assert.equal(await statuses([['sort-by', 'status']]), openFirst);
  assert.equal(await statuses([['sort-by', '-status']]), [...openFirst].reverse());
});

search('sorting: attributes.<key>, tags; unknown fields are 400', async ({ api }) => {
  const withPri: Params = [['q', '_exists_:pri']];
  assert.equal(await order(api, [...withPri, ['sort-by', 'attributes.pri']]), [
    'mail01',
    'queue01',
    'web01xexample.com',
  ]);
  assert.equal(await order(api, [...withPri, ['sort-by', '-attributes.pri']]), [
    'web01xexample.com',
    'queue01',
    'mail01',
  ]);
  assert.is((await list(api, [['sort-by', 'tags']])).total, 12);
  await getError(api, '/alerts', [['sort-by', 'foo']], 400, "Sorting by 'foo' field not supported.");
  await getError(api, '/alerts', [['sort-by', 'tag']], 400, "Sorting by 'tag' field not supported.");
  await getError(
    api,
    '/alerts',
    [
      ['sort-by', 'severity'],
      ['sort-by', 'foo'],
    ],
    400,
    "Sorting by 'foo' field not supported.",
  );
});

// ---- paging -------------------------------------------------------------------------------------

search(
  'paging: page-size 1 walks every alert once, in order; the last page has more:false',
  async ({ api }) => {
    const seen: string[] = [];
    for (let page = 1; page <= 12; page++) {
      const body = await list(api, [
        ['page', String(page)],
        ['page-size', '1'],
      ]);
      assert.equal(
        [body.page, body.pageSize, body.pages, body.total, body.more, body.alerts.length],
        [page, 1, 12, 12, page < 12, 1],
        `page ${page}`,
      );
      assert.equal(body.severityCounts, ALL_SEVERITY_COUNTS, 'counts cover every match, not the page');
      seen.push(body.alerts[0]!.resource);
    }
    assert.equal(seen, NEWEST_FIRST);
    assert.is(new Set(seen).size, 12);
    // ties (equal severity) are broken the same way on every page: no overlap, no gap
    const bySeverity: string[] = [];
    for (let page = 1; page <= 12; page++) {
      const body = await list(api, [
        ['sort-by', 'severity'],
        ['page', String(page)],
        ['page-size', '1'],
      ]);
      bySeverity.push(body.alerts[0]!.resource);
    }
    assert.equal(bySeverity, await order(api, [['sort-by', 'severity']]));
  },
);

search('paging: page-size 5, limit alias, default size, lastTime of the page', async ({ api, seed }) => {
  const p3 = await list(api, [
    ['page', '3'],
    ['page-size', '5'],
  ]);
  assert.equal([p3.page, p3.pageSize, p3.pages, p3.more, p3.total], [3, 5, 3, false, 12]);
  assert.equal(
    p3.alerts.map((a) => a.resource),
    NEWEST_FIRST.slice(10),
  );
  const p2 = await list(api, [
    ['page', '2'],
    ['limit', '5'],
  ]);
  assert.equal([p2.page, p2.pageSize, p2.pages, p2.more], [2, 5, 3, true]);
  assert.equal(
    p2.alerts.map((a) => a.resource),
    NEWEST_FIRST.slice(5, 10),
  );
  assert.is(p2.lastTime, seed.lb01!.lastReceiveTime, 'lastTime is the newest lastReceiveTime on the page');
  const p1 = await list(api, [['page-size', '5']]);
  assert.is(p1.lastTime, seed.fw01!.lastReceiveTime);
  const whole = await list(api, [['page-size', '0']]);
  assert.equal([whole.pageSize, whole.pages, whole.alerts.length], [1000, 1, 12]);
  const dflt = await list(api);
  assert.equal([dflt.page, dflt.pageSize, dflt.pages, dflt.more], [1, 1000, 1, false]);
});

search('paging: out of range is 416, bad page numbers are 400', async ({ api }) => {
  await getError(
    api,
    '/alerts',
    [
      ['page', '13'],
      ['page-size', '1'],
    ],
    416,
    'page out of range: 1-12',
  );
  await getError(
    api,
    '/alerts',
    [
      ['page', '4'],
      ['page-size', '5'],
    ],
    416,
    'page out of range: 1-3',
  );
  await getError(api, '/alerts', [['page', '2']], 416, 'page out of range: 1-1');
  await getError(api, '/alerts', [['page', '0']], 400);
  await getError(api, '/alerts', [['page', '-1']], 400);
  await getError(api, '/alerts', [['page', 'abc']], 400);
  await getError(api, '/alerts', [['page', '1.5']], 400);
});

search('an empty result has its own form (and no 416 on later pages)', async ({ api }) => {
  for (const params of [
    [['environment', 'QA']],
    [
      ['environment', 'QA'],
      ['page', '3'],
    ],
  ] as Params[]) {
    const before = Date.now();
    const raw = await getOk(api, '/alerts', params);
    const after = Date.now();
    const body = AlertListSchema.parse(raw);
    assert.equal(
      {
        message: body.message,
        alerts: body.alerts,
        total: body.total,
        pages: body.pages,
        more: body.more,
        severityCounts: body.severityCounts,
        statusCounts: body.statusCounts,
        autoRefresh: body.autoRefresh,
        status: body.status,
      },
      {
        message: 'not found',
        alerts: [],
        total: 0,
        pages: 0,
        more: false,
        severityCounts: {},
        statusCounts: {},
        autoRefresh: true,
        status: 'ok',
      },
      label('/alerts', params),
    );
    assert.is(body.pageSize, 1000);
    const lastTime = Date.parse(body.lastTime);
    assert.ok(
      lastTime >= before - 1000 && lastTime <= after + 1000,
      `lastTime ${body.lastTime} is the query time`,
    );
  }
});

// ---- response shape -----------------------------------------------------------------------------

search(
  'GET /alerts: every field, counts over all matches, rawData/history only on request',
  async ({ api, seed }) => {
    const raw = await getOk(api, '/alerts');
    assert.equal(Object.keys(raw).sort(), [
      'alerts',
      'autoRefresh',
      'lastTime',
      'more',
      'page',
      'pageSize',
      'pages',
      'severityCounts',
      'status',
      'statusCounts',
      'total',
    ]);
    const body = AlertListSchema.parse(raw);
    assert.equal(
      [body.status, body.total, body.page, body.pageSize, body.pages, body.more, body.autoRefresh],
      ['ok', 12, 1, 1000, 1, false, true],
    );
    assert.equal(body.severityCounts, ALL_SEVERITY_COUNTS);
    assert.equal(body.statusCounts, ALL_STATUS_COUNTS);
    assert.is(body.lastTime, seed.fw01!.lastReceiveTime);
    for (const a of body.alerts) {
      assert.equal(Object.keys(a).sort(), ALERT_KEYS);
      assert.is(a.rawData, null);
      assert.equal(a.history, []);
      const full = seed[a.resource]!;
      assert.equal(
        { ...a, rawData: full.rawData, history: full.history },
        full,
        `${a.resource} as GET /alert`,
      );
    }
    const both = await list(api, [
      ['show-raw-data', 'true'],
      ['show-history', 'true'],
    ]);
    for (const a of both.alerts) assert.equal(a, seed[a.resource], `${a.resource} with raw data and history`);
    const withRaw = await list(api, [
      ['resource', 'web01.example.com'],
      ['show-raw-data', 'true'],
    ]);
    assert.equal([withRaw.alerts[0]!.rawData, withRaw.alerts[0]!.history], ['raw-A1', []]);
    const withHistory = await list(api, [
      ['resource', 'myweb'],
      ['show-history', 'true'],
    ]);
    const history = withHistory.alerts[0]!.history;
    assert.is(withHistory.alerts[0]!.rawData, null);
    assert.equal(
      history.map((h) => [h.type, h.severity]),
      [
        ['new', 'major'],
        ['severity', 'critical'],
        ['severity', 'major'],
      ],
    );
    for (let i = 1; i < history.length; i++) assert.ok(history[i - 1]!.updateTime <= history[i]!.updateTime);
    const mail = await list(api, [
      ['resource', 'mail01'],
      ['show-history', '1'],
    ]);
    assert.equal(
      mail.alerts[0]!.history.map((h) => h.type),
      ['new', 'ack'],
    );
    assert.equal((await list(api, [['show-history', 'false']])).alerts[0]!.history, []);
  },
);

search('GET /alerts: total = Σ severityCounts = Σ statusCounts = matches across pages', async ({ api }) => {
  const selections: Params[] = [
    [],
    [['environment', 'Production']],
    [['status!', 'open']],
    [['q', 'severity:(critical OR major)']],
    [
      ['service', 'web'],
      ['tag', 'linux'],
    ],
    [['environment', 'QA']],
  ];
  for (const params of selections) {
    const first = await list(api, [...params, ['page-size', '2']]);
    assert.is(sum(first.severityCounts), first.total, label('/alerts', params));
    assert.is(sum(first.statusCounts), first.total, label('/alerts', params));
    let n = first.alerts.length;
    for (let page = 2; page <= first.pages; page++) {
      n += (await list(api, [...params, ['page-size', '2'], ['page', String(page)]])).alerts.length;
    }
    assert.is(n, first.total, `${label('/alerts', params)}: alerts across pages`);
    assert.is(first.pages, Math.ceil(first.total / 2));
  }
  const prod = await list(api, [['environment', 'Production']]);
  assert.equal(prod.severityCounts, { critical: 1, major: 2, minor: 1, informational: 1 });
  assert.equal(prod.statusCounts, { open: 5 });
});

// ---- /alerts/count ------------------------------------------------------------------------------

search('/alerts/count agrees with /alerts for the same selection', async ({ api, t1 }) => {
  const selections: Params[] = [
    [],
    [['environment', 'Production']],
    [['status!', 'open']],
    [
      ['service', 'web'],
      ['tag', 'linux'],
    ],
    [['q', 'severity:(critical OR major)']],
    [
      ['q', 'NOT environment:Production'],
      ['status', 'open'],
    ],
    [['from-date', t1]],
    [['attributes.region', '~eu']],
    [['environment', 'QA']],
  ];
  for (const params of selections) {
    const raw = await getOk(api, '/alerts/count', params);
    assert.equal(Object.keys(raw).sort(), [
      'autoRefresh',
      'severityCounts',
      'status',
      'statusCounts',
      'total',
    ]);
    const count = AlertCountSchema.parse(raw);
    const listed = await list(api, params);
    assert.equal(
      [count.total, count.severityCounts, count.statusCounts],
      [listed.total, listed.severityCounts, listed.statusCounts],
      label('/alerts/count', params),
    );
    assert.equal([count.status, count.autoRefresh], ['ok', true]);
  }
  const all = AlertCountSchema.parse(await getOk(api, '/alerts/count'));
  assert.equal(
    [all.total, all.severityCounts, all.statusCounts],
    [12, ALL_SEVERITY_COUNTS, ALL_STATUS_COUNTS],
  );
  const none = AlertCountSchema.parse(await getOk(api, '/alerts/count', [['environment', 'QA']]));
  assert.equal([none.total, none.severityCounts, none.statusCounts], [0, {}, {}]);
});

// ---- /alerts/history ----------------------------------------------------------------------------

const HISTORY_NEWEST_FIRST: [string, string][] = [
  ['web03', 'new'],
  ['myweb', 'severity'],
  ['myweb', 'severity'],
  ['myweb', 'new'],
  ['queue01', 'new'],
  ['app01', 'new'],
  ['lb01', 'status'],
  ['lb01', 'new'],
  ['cache01', 'new'],
  ['mail01', 'ack'],
  ['mail01', 'new'],
  ['db01', 'new'],
  ['web01xexample.com', 'new'],
  ['web01.example.com', 'new'],
  // creation entries carry the alert's createTime
  ['db02', 'new'],
  ['fw01', 'new'],
];

const HISTORY_KEYS = [
  'id',
  'href',
  'resource',
  'event',
  'environment',
  'service',
  'group',
  'text',
  'tags',
  'attributes',
  'origin',
  'updateTime',
  'user',
  'timeout',
  'type',
  'customer',
];

async function history(api: Api, params: Params = []) {
  const body = await getOk(api, '/alerts/history', params);
  assert.is(body.status, 'ok');
  const entries = (body.history as unknown[]).map((e) => HistoryListEntrySchema.parse(e));
  assert.is(body.total, entries.length, `${label('/alerts/history', params)}: total`);
  return { body, entries };
}

search(
  '/alerts/history: entries of every alert, newest first, with the alert fields as now',
  async ({ api, seed }) => {
    const { body, entries } = await history(api);
    assert.is(body.total, 16);
    assert.not.ok('message' in body);
    assert.equal(
      entries.map((e) => [e.resource, e.type]),
      HISTORY_NEWEST_FIRST,
    );
    for (let i = 1; i < entries.length; i++) assert.ok(entries[i - 1]!.updateTime >= entries[i]!.updateTime);
    const raw = body.history as Record<string, unknown>[];
    for (const [i, e] of entries.entries()) {
      const keys = Object.keys(raw[i]!);
      for (const k of HISTORY_KEYS) assert.ok(keys.includes(k), `entry ${i} has ${k}`);
      for (const k of keys)
        assert.ok([...HISTORY_KEYS, 'severity', 'status', 'value'].includes(k), `entry ${i}: ${k}`);
      const alert = seed[e.resource]!;
      assert.equal(
        [e.environment, e.service, e.group, e.tags, e.attributes, e.origin, e.customer, e.event],
        [
          alert.environment,
          alert.service,
          alert.group,
          alert.tags,
          alert.attributes,
          alert.origin,
          alert.customer,
          alert.event,
        ],
        `entry ${i} (${e.resource})`,
      );
      assert.is(e.href.endsWith(`/alert/${e.id}`), true);
      if (e.type === 'severity')
        assert.ok(typeof raw[i]!.severity === 'string', `entry ${i} has its severity`);
    }
    // value only when set; attributes as they are now (owner was added after the entry was written)
    assert.equal(
      entries.filter((_, i) => 'value' in raw[i]!).map((e) => [e.resource, e.value]),
      [
        ['web01.example.com', 'down'],
        ['fw01', 'scan'],
      ],
    );
    assert.is(entries.find((e) => e.resource === 'db02')!.attributes.owner, 'ops');
    assert.equal(
      entries.filter((e) => e.resource === 'myweb').map((e) => e.severity),
      ['major', 'critical', 'major'],
    );
    assert.is(entries.find((e) => e.type === 'status')!.status, 'closed');
    assert.is(entries.find((e) => e.resource === 'fw01')!.severity, 'security');
  },
);

search('/alerts/history: filters and q narrow it; paging without 416; empty form', async ({ api }) => {
  const myweb = await history(api, [['resource', 'myweb']]);
  assert.equal(
    myweb.entries.map((e) => [e.type, e.severity]),
    [
      ['severity', 'major'],
      ['severity', 'critical'],
      ['new', 'major'],
    ],
  );
  assert.is((await history(api, [['q', 'resource:myweb']])).entries.length, 3);
  const dev = await history(api, [['environment', 'Development']]);
  assert.equal(
    dev.entries.map((e) => [e.resource, e.type]),
    [
      ['myweb', 'severity'],
      ['myweb', 'severity'],
      ['myweb', 'new'],
      ['mail01', 'ack'],
      ['mail01', 'new'],
      ['db02', 'new'],
    ],
  );
  const paged: [string, string][] = [];
  for (const page of [1, 2, 3, 4]) {
    const { entries, body } = await history(api, [
      ['page', String(page)],
      ['page-size', '5'],
    ]);
    assert.is(body.total, page < 4 ? 5 : 1, `history page ${page}`);
    paged.push(...entries.map((e): [string, string] => [e.resource, e.type]));
  }
  assert.equal(paged, HISTORY_NEWEST_FIRST);
  const past = await history(api, [
    ['page', '5'],
    ['page-size', '5'],
  ]);
  assert.equal([past.body.message, past.body.total, past.entries], ['not found', 0, []]);
  const empty = await getOk(api, '/alerts/history', [['environment', 'QA']]);
  assert.equal(empty, { status: 'ok', message: 'not found', history: [], total: 0 });
  await getError(api, '/alerts/history', [['foo', 'x']], 400, 'Invalid filter parameter: foo');
});

// ---- top-N --------------------------------------------------------------------------------------

const TOP_COUNT_BY_EVENT = {
  NodeDown: {
    count: 4,
    duplicateCount: 0,
    environments: ['Production', 'Staging'],
    services: ['frontend', 'network', 'web'],
    resources: ['lb01', 'web01.example.com', 'web01xexample.com'],
  },
  DiskFull: {
    count: 3,
    duplicateCount: 2,
    environments: ['Development', 'Production'],
    services: ['database', 'storage'],
    resources: ['db01', 'db02'],
  },
  QueueHigh: {
    count: 2,
    duplicateCount: 1,
    environments: ['Development', 'Staging'],
    services: ['mail'],
    resources: ['mail01', 'queue01'],
  },
  HttpError: {
    count: 1,
    duplicateCount: 0,
    environments: ['Development'],
    services: ['web'],
    resources: ['myweb'],
  },
  SlowResponse: {
    count: 1,
    duplicateCount: 0,
    environments: ['Production'],
    services: ['web'],
    resources: ['web03'],
  },
  PortScan: {
    count: 1,
    duplicateCount: 0,
    environments: ['Staging'],
    services: ['network'],
    resources: ['fw01'],
  },
  CacheMiss: {
    count: 1,
    duplicateCount: 0,
    environments: ['Staging'],
    services: ['cache'],
    resources: ['cache01'],
  },
};

function assertDescending(entries: readonly TopEntry[], what: string) {
  for (let i = 1; i < entries.length; i++)
    assert.ok(entries[i - 1]!.count >= entries[i]!.count, `${what} order`);
}

search(
  'top-N count: default group-by event, entry shape, alerts without a service left out',
  async ({ api, seed }) => {
    for (const path of ['/alerts/top10/count', '/alerts/topn/count']) {
      const { top10 } = await top(api, path);
      assert.equal(topSummary(top10, 'event'), TOP_COUNT_BY_EVENT, path);
      assert.equal(top10.length, 7);
      assert.is(top10[0]!.event, 'NodeDown');
      assert.is(top10[1]!.event, 'DiskFull');
      assert.is(top10[2]!.event, 'QueueHigh');
      assertDescending(top10, path);
      for (const e of top10) {
        assert.equal(
          Object.keys(e).sort(),
          ['count', 'duplicateCount', 'environments', 'event', 'firstCreateTime', 'resources', 'services'],
          path,
        );
        for (const r of e.resources) {
          assert.equal(Object.keys(r).sort(), ['href', 'id', 'resource']);
          const alert = seed[r.resource]!;
          assert.equal([r.id, r.href], [alert.id, alert.href]);
        }
      }
    }
    const { top10: two } = await top(api, '/alerts/topn/count', [['topn', '2']]);
    assert.equal(
      two.map((e) => [e.event, e.count]),
      [
        ['NodeDown', 4],
        ['DiskFull', 3],
      ],
    );
    // top10 is always ten: topn does not shrink it
    assert.is((await top(api, '/alerts/top10/count', [['topn', '2']])).top10.length, 7);
    const prod = await top(api, '/alerts/top10/count', [['environment', 'Production']]);
    assert.equal(
      prod.top10.map((e) => [e.event, e.count, e.duplicateCount]),
      [
        ['NodeDown', 3, 0],
        ['DiskFull', 2, 2],
        ['SlowResponse', 1, 0],
      ],
    );
    assert.is(prod.total, 3);
    const viaQ = await top(api, '/alerts/topn/count', [['q', 'event:HttpError']]);
    assert.equal(topSummary(viaQ.top10, 'event'), { HttpError: TOP_COUNT_BY_EVENT.HttpError });
  },
);

search('top-N count: group-by resource, environment, service; size limits', async ({ api }) => {
  const byResource = await top(api, '/alerts/topn/count', [
    ['group-by', 'resource'],
    ['topn', '20'],
  ]);
  assert.equal(
    Object.fromEntries(byResource.top10.map((e) => [e.resource, e.count])),
    Object.fromEntries(
      ALL.filter((r) => r !== 'app01').map((r) => [r, r === 'db01' || r === 'web01.example.com' ? 2 : 1]),
    ),
  );
  for (const e of byResource.top10) {
    assert.equal(Object.keys(e).sort(), [
      'count',
      'duplicateCount',
      'environments',
      'firstCreateTime',
      'resource',
      'resources',
      'services',
    ]);
    assert.equal(
      e.resources.map((r) => r.resource),
      [e.resource],
    );
  }
  assertDescending(byResource.top10, 'group-by resource');
  const db01 = byResource.top10.find((e) => e.resource === 'db01')!;
  assert.equal([db01.duplicateCount, sorted(db01.services)], [2, ['database', 'storage']]);
  const two = await top(api, '/alerts/topn/count', [
    ['group-by', 'resource'],
    ['topn', '2'],
  ]);
  assert.equal(sorted(two.top10.map((e) => e.resource as string)), ['db01', 'web01.example.com']);
  assert.is((await top(api, '/alerts/top10/count', [['group-by', 'resource']])).top10.length, 10);
  assert.is((await top(api, '/alerts/topn/count', [['group-by', 'resource']])).top10.length, 10);
  assert.is(
    (
      await top(api, '/alerts/topn/count', [
        ['group-by', 'resource'],
        ['topn', '11'],
      ])
    ).top10.length,
    11,
  );

  const byEnv = await top(api, '/alerts/top10/count', [['group-by', 'environment']]);
  assert.equal(
    byEnv.top10.map((e) => [e.environment, e.count, e.environments]),
    [
      ['Production', 6, ['Production']],
      ['Staging', 4, ['Staging']],
      ['Development', 3, ['Development']],
    ],
  );
  assert.equal(
    byEnv.top10.map((e) => e.duplicateCount),
    [2, 1, 0],
  );

  const byService = await top(api, '/alerts/topn/count', [['group-by', 'service']]);
  assert.equal(Object.fromEntries(byService.top10.map((e) => [e.service, [e.count, e.services]])), {
    web: [4, ['web']],
    database: [2, ['database']],
    mail: [2, ['mail']],
    network: [2, ['network']],
    frontend: [1, ['frontend']],
    storage: [1, ['storage']],
    cache: [1, ['cache']],
  });
  assert.is(byService.top10[0]!.service, 'web');
  assert.equal(sorted(byService.top10[0]!.resources.map((r) => r.resource)), WEB_SERVICE);
});

search('top-N flapping counts severity changes; standing orders by time standing', async ({ api }) => {
  // Only myweb changed severity (major → critical → major): two changes. An alert's first entry is
  // not a change, so the alerts received once are not flapping at all (issue #19 item 11).
  for (const path of ['/alerts/top10/flapping', '/alerts/topn/flapping']) {
    const { top10 } = await top(api, path);
    assert.equal(
      Object.fromEntries(top10.map((e) => [e.event, [e.count, e.duplicateCount]])),
      { HttpError: [2, 0] },
      path,
    );
  }
  const flapper = await top(api, '/alerts/topn/flapping', [
    ['group-by', 'resource'],
    ['topn', '1'],
  ]);
  assert.equal(
    flapper.top10.map((e) => [e.resource, e.count, e.environments, e.services]),
    [['myweb', 2, ['Development'], ['web']]],
  );
  assert.equal(
    flapper.top10[0]!.resources.map((r) => r.resource),
    ['myweb'],
  );

  // Standing counts `severity` entries, as the established server: myweb's two. The alerts
  // received once (only their `new` entry), fw01 and db02 the oldest, are not standing at all
  // (migration 0054; the order by time standing: tests/api/top-n-severity-entries.test.ts).
  for (const path of ['/alerts/top10/standing', '/alerts/topn/standing']) {
    const byResource = await top(api, path, [['group-by', 'resource']]);
    assert.equal(
      byResource.top10.map((e) => [e.resource, e.count]),
      [['myweb', 2]],
      path,
    );
    const byEvent = await top(api, path);
    assert.equal(
      byEvent.top10.map((e) => e.event),
      ['HttpError'],
      path,
    );
  }
  const standingTwo = await top(api, '/alerts/topn/standing', [
    ['group-by', 'environment'],
    ['topn', '1'],
  ]);
  assert.equal(
    standingTwo.top10.map((e) => e.environment),
    ['Development'],
  );
});

search('top-N: unknown group-by is 400; an empty selection has the empty form', async ({ api }) => {
  for (const path of [
    '/alerts/top10/count',
    '/alerts/top10/flapping',
    '/alerts/top10/standing',
    '/alerts/topn/count',
    '/alerts/topn/flapping',
    '/alerts/topn/standing',
  ]) {
    await getError(api, path, [['group-by', 'foo']], 400);
    await getError(api, path, [['foo', 'x']], 400, 'Invalid filter parameter: foo');
    const empty = await getOk(api, path, [['environment', 'QA']]);
    assert.equal(empty, { status: 'ok', message: 'not found', top10: [], total: 0 }, path);
    // an alert without a service never appears
    const app = await getOk(api, path, [['resource', 'app01']]);
    assert.equal(app, { status: 'ok', message: 'not found', top10: [], total: 0 }, `${path} app01`);
  }
});

// ---- derived resources --------------------------------------------------------------------------

async function items<T>(api: Api, path: string, key: string, parse: (x: unknown) => T, params: Params = []) {
  const body = await getOk(api, path, params);
  assert.is(body.status, 'ok');
  const list = (body[key] as unknown[]).map(parse);
  assert.is(body.total, list.length, `${label(path, params)}: total is the number of items`);
  return { body, list };
}

search('/environments and /alerts/environments: counts per environment, filters apply', async ({ api }) => {
  for (const path of ['/environments', '/alerts/environments']) {
    const { list } = await items(api, path, 'environments', (x) => EnvironmentItemSchema.parse(x));
    const byEnv = Object.fromEntries(list.map((e) => [e.environment, e]));
    assert.equal(byEnv, {
      Production: {
        environment: 'Production',
        count: 5,
        severityCounts: { critical: 1, major: 2, informational: 1, minor: 1 },
        statusCounts: { open: 5 },
      },
      Development: {
        environment: 'Development',
        count: 3,
        severityCounts: { minor: 1, warning: 1, major: 1 },
        statusCounts: { open: 2, ack: 1 },
      },
      Staging: {
        environment: 'Staging',
        count: 4,
        severityCounts: { minor: 1, critical: 1, warning: 1, security: 1 },
        statusCounts: { open: 3, closed: 1 },
      },
    });
    assert.is(list.length, 3);
    const open = await items(api, path, 'environments', (x) => EnvironmentItemSchema.parse(x), [
      ['status', 'open'],
    ]);
    assert.equal(Object.fromEntries(open.list.map((e) => [e.environment, e.count])), {
      Production: 5,
      Development: 2,
      Staging: 3,
    });
    const viaQ = await items(api, path, 'environments', (x) => EnvironmentItemSchema.parse(x), [
      ['q', 'severity:critical'],
    ]);
    assert.equal(Object.fromEntries(viaQ.list.map((e) => [e.environment, e.count])), {
      Development: 0,
      Production: 1,
      Staging: 1,
    });
  }
});

search(
  '/environments and /services list every known one, with count 0 where nothing matches',
  async ({ api }) => {
    for (const params of [
      [['status', 'shelved']],
      [['environment', 'QA']],
      [['q', 'resource:nosuchhost']],
    ] as Params[]) {
      for (const path of ['/environments', '/alerts/environments']) {
        const { body, list } = await items(
          api,
          path,
          'environments',
          (x) => EnvironmentItemSchema.parse(x),
          params,
        );
        assert.not.ok('message' in body, label(path, params));
        assert.equal(
          list,
          ['Development', 'Production', 'Staging'].map((environment) => ({
            environment,
            count: 0,
            severityCounts: {},
            statusCounts: {},
          })),
          label(path, params),
        );
      }
      for (const path of ['/services', '/alerts/services']) {
        const { list } = await items(api, path, 'services', (x) => ServiceItemSchema.parse(x), params);
        assert.is(list.length, 10, label(path, params));
        assert.ok(
          list.every((s) => s.count === 0 && Object.keys(s.severityCounts).length === 0),
          label(path, params),
        );
      }
    }
    // A partial match: the known ones without a match are still listed, with 0.
    const acked = await items(api, '/services', 'services', (x) => ServiceItemSchema.parse(x), [
      ['status', 'ack'],
    ]);
    assert.equal(
      acked.list
        .filter((s) => s.count > 0)
        .map((s) => [`${s.environment}/${s.service}`, s.count, s.statusCounts]),
      [['Development/mail', 1, { ack: 1 }]],
    );
    assert.is(acked.list.length, 10);
  },
);

search('/services and /alerts/services: one item per (environment, service)', async ({ api }) => {
  const expected = {
    'Production/web': 3,
    'Production/frontend': 1,
    'Production/database': 1,
    'Production/storage': 1,
    'Development/database': 1,
    'Development/mail': 1,
    'Development/web': 1,
    'Staging/cache': 1,
    'Staging/network': 2,
    'Staging/mail': 1,
  };
  for (const path of ['/services', '/alerts/services']) {
    const { list } = await items(api, path, 'services', (x) => ServiceItemSchema.parse(x));
    assert.equal(
      Object.fromEntries(list.map((s) => [`${s.environment}/${s.service}`, s.count])),
      expected,
      path,
    );
    assert.is(list.length, 10);
    const network = list.find((s) => s.environment === 'Staging' && s.service === 'network')!;
    assert.equal(
      [network.severityCounts, network.statusCounts],
      [
        { critical: 1, security: 1 },
        { closed: 1, open: 1 },
      ],
    );
    const web = list.find((s) => s.environment === 'Production' && s.service === 'web')!;
    assert.equal([web.severityCounts, web.statusCounts], [{ critical: 1, major: 1, minor: 1 }, { open: 3 }]);
    const open = await items(api, path, 'services', (x) => ServiceItemSchema.parse(x), [['status', 'open']]);
    assert.equal(Object.fromEntries(open.list.map((s) => [`${s.environment}/${s.service}`, s.count])), {
      'Production/web': 3,
      'Production/frontend': 1,
      'Production/database': 1,
      'Production/storage': 1,
      'Development/database': 1,
      'Development/mail': 0,
      'Development/web': 1,
      'Staging/cache': 1,
      'Staging/network': 1,
      'Staging/mail': 1,
    });
  }
});

search('/alerts/groups: one item per (environment, group)', async ({ api }) => {
  const { list } = await items(api, '/alerts/groups', 'groups', (x) => GroupItemSchema.parse(x));
  assert.equal(Object.fromEntries(list.map((g) => [`${g.environment}/${g.group}`, g.count])), {
    'Production/Network': 2,
    'Production/Storage': 1,
    'Production/Web': 2,
    'Development/Storage': 1,
    'Development/Mail': 1,
    'Development/Web': 1,
    'Staging/Performance': 1,
    'Staging/Network': 1,
    'Staging/Mail': 1,
    'Staging/Security': 1,
  });
  assert.is(list.length, 10);
  for (const g of list) assert.equal(Object.keys(g).sort(), ['count', 'environment', 'group']);
  const open = await items(api, '/alerts/groups', 'groups', (x) => GroupItemSchema.parse(x), [
    ['status', 'open'],
  ]);
  assert.equal(
    sorted(open.list.map((g) => `${g.environment}/${g.group}`)),
    sorted([
      'Production/Network',
      'Production/Storage',
      'Production/Web',
      'Development/Storage',
      'Development/Web',
      'Staging/Performance',
      'Staging/Mail',
      'Staging/Security',
    ]),
  );
  const none = await getOk(api, '/alerts/groups', [['environment', 'QA']]);
  assert.equal(none, { status: 'ok', message: 'not found', groups: [], total: 0 });
});

search('/tags and /alerts/tags: one item per (environment, tag)', async ({ api }) => {
  for (const path of ['/tags', '/alerts/tags']) {
    const { list } = await items(api, path, 'tags', (x) => TagItemSchema.parse(x));
    assert.equal(
      Object.fromEntries(list.map((t) => [`${t.environment}/${t.tag}`, t.count])),
      {
        'Production/linux': 4,
        'Production/dc1': 1,
        'Production/dc2': 1,
        'Production/quick': 1,
        'Development/windows': 1,
        'Staging/dc1': 1,
        'Staging/dc2': 1,
      },
      path,
    );
    assert.is(list.length, 7);
    for (const t of list) assert.equal(Object.keys(t).sort(), ['count', 'environment', 'tag']);
    const open = await items(api, path, 'tags', (x) => TagItemSchema.parse(x), [['status', 'open']]);
    assert.equal(
      sorted(open.list.map((t) => `${t.environment}/${t.tag}/${t.count}`)),
      sorted([
        'Production/linux/4',
        'Production/dc1/1',
        'Production/dc2/1',
        'Production/quick/1',
        'Development/windows/1',
        'Staging/dc1/1',
      ]),
      path,
    );
    const viaQ = await items(api, path, 'tags', (x) => TagItemSchema.parse(x), [['q', 'resource:web']]);
    assert.equal(
      sorted(viaQ.list.map((t) => `${t.environment}/${t.tag}/${t.count}`)),
      ['Production/dc1/1', 'Production/linux/3'],
      path,
    );
    const none = await getOk(api, path, [['environment', 'QA']]);
    assert.equal(none, { status: 'ok', message: 'not found', tags: [], total: 0 }, path);
  }
});

search('every derived endpoint refuses bad filters and q with a clean 400', async ({ api }) => {
  for (const path of [
    '/alerts/count',
    '/alerts/history',
    '/environments',
    '/alerts/environments',
    '/services',
    '/alerts/services',
    '/alerts/groups',
    '/tags',
    '/alerts/tags',
    '/alerts/top10/count',
  ]) {
    await getError(api, path, [['foo', 'x']], 400, 'Invalid filter parameter: foo');
    await getError(api, path, [['q', '(a']], 400, 'Failed to parse query string.');
    await getError(api, path, [['q', 'nosuchfield:x']], 400);
    await getError(api, path, [['duplicateCount', 'abc']], 400, /duplicateCount/);
    await getError(api, path, [['from-date', 'yesterday']], 400, DATE_MESSAGE);
  }
});

search.run();

// ---- an empty database --------------------------------------------------------------------------

const empty = appSuite('alert search with no alerts', { ...SETTINGS, TEST_LABEL: 'search_empty' });

empty('every endpoint answers the empty form', async ({ api }) => {
  const alerts = AlertListSchema.parse(await getOk(api, '/alerts', [['page', '2']]));
  assert.equal(
    [
      alerts.message,
      alerts.alerts,
      alerts.total,
      alerts.pages,
      alerts.more,
      alerts.severityCounts,
      alerts.statusCounts,
    ],
    ['not found', [], 0, 0, false, {}, {}],
  );
  assert.equal(await getOk(api, '/alerts/count'), {
    status: 'ok',
    total: 0,
    severityCounts: {},
    statusCounts: {},
    autoRefresh: true,
  });
  assert.equal(await getOk(api, '/alerts/history'), {
    status: 'ok',
    message: 'not found',
    history: [],
    total: 0,
  });
  for (const path of ['/alerts/top10/count', '/alerts/topn/flapping', '/alerts/topn/standing']) {
    assert.equal(await getOk(api, path), { status: 'ok', message: 'not found', top10: [], total: 0 }, path);
  }
  for (const [path, key] of [
    ['/environments', 'environments'],
    ['/services', 'services'],
    ['/alerts/groups', 'groups'],
    ['/tags', 'tags'],
    ['/alerts/tags', 'tags'],
  ] as const) {
    const body = await getOk(api, path);
    assert.equal([body.status, body.message, body[key], body.total], ['ok', 'not found', [], 0], path);
  }
});

empty.run();
