import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import parse from 'parse-prometheus-text-format';
import type { Running } from '../../server/boot.ts';
import { createAlert, postAlert } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { apiFor, appSuite, bootInstance, type InstancePair, startPair, stopPair } from '../helpers/app.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';

const mgmt = appSuite('management endpoints', {
  TEST_LABEL: 'management',
  PLUGINS: 'remote_ip,reject',
  SECRET_KEY: 'top-secret-signing-key',
  ADMIN_PASSWORD: 'hunter2-admin',
  OAUTH2_CLIENT_SECRET: 'oauth-client-secret-value',
  TELEGRAM_TOKEN: '12345:telegram-bot-token',
  HMAC_AUTH_CREDENTIALS: '[{"key": "hawk-id", "secret": "hawk-shared-secret"}]',
  REDIS_URL: '',
  BASE_URL: '',
});

const text = async (res: Response) => ({
  status: res.status,
  type: res.headers.get('content-type'),
  body: await res.text(),
});

mgmt('/_ and gtg answer plain OK; /management lists the links', async ({ api }) => {
  assert.equal(await text(await api.get('/_')), {
    status: 200,
    type: 'text/plain; charset=utf-8',
    body: 'OK',
  });
  const gtg = await text(await api.get('/management/gtg'));
  assert.equal([gtg.status, gtg.body], [200, 'OK']);
  const index = await text(await api.get('/management'));
  assert.is(index.status, 200);
  for (const l of [
    'manifest',
    'properties',
    'switchboard',
    'gtg',
    'healthcheck',
    'housekeeping',
    'status',
    'metrics',
  ])
    assert.match(index.body, `/management/${l}"`);
});

mgmt('properties lists settings and environment with every secret masked', async ({ api }) => {
  const res = await api.get('/management/properties', {
    headers: { 'X-Upstream-Token': 'caller-api-key-value' },
  });
  const { status, type, body } = await text(res);
  assert.is(status, 200);
  assert.match(type ?? '', /^text\/plain/);
  assert.match(body, /^SECRET_KEY: \*{8}$/m);
  assert.match(body, /^ADMIN_PASSWORD: \*{8}$/m);
  assert.match(body, /^OAUTH2_CLIENT_SECRET: \*{8}$/m);
  assert.match(body, /^HTTP_X_UPSTREAM_TOKEN: \*{8}$/m);
  assert.match(body, /^DEFAULT_PAGE_SIZE: 1000$/m);
  assert.match(body, /^REQUEST_METHOD: GET$/m);
  for (const secret of [
    'top-secret-signing-key',
    'hunter2-admin',
    'oauth-client-secret-value',
    'caller-api-key-value',
  ])
    assert.not.ok(body.includes(secret), `${secret} leaked`);
  // Every line is "name: value".
  for (const line of body.trimEnd().split('\n')) assert.match(line, /^[^:\n]+: /);
});

mgmt('properties masks every name that suggests a secret, and shows flags and limits', async ({ api }) => {
  const env = {
    GITHUB_PAT: 'ghp_personal-access-token',
    DEPLOY_PASSPHRASE: 'correct horse battery',
    NPM_AUTH: 'npm-auth-value',
    CI_CREDENTIALS: 'ci-credential-value',
  };
  Object.assign(process.env, env);
  try {
    const res = await api.get('/management/properties', {
      headers: { 'X-Deploy-Passphrase': 'header-passphrase', Cookie: 'session=cookie-value' },
    });
    const body = await res.text();
    for (const name of [...Object.keys(env), 'TELEGRAM_TOKEN', 'HMAC_AUTH_CREDENTIALS', 'HTTP_COOKIE'])
      assert.match(body, new RegExp(`^${name}: \\*{8}$`, 'm'));
    assert.match(body, /^HTTP_X_DEPLOY_PASSPHRASE: \*{8}$/m);
    for (const secret of [
      ...Object.values(env),
      'telegram-bot-token',
      'hawk-shared-secret',
      'header-passphrase',
      'cookie-value',
    ])
      assert.not.ok(body.includes(secret), `${secret} leaked`);
    // Settings about secrets, which cannot hold one, stay readable.
    assert.match(body, /^AUTH_REQUIRED: false$/m);
    assert.match(body, /^AUTH_PROXY_USER_HEADER: X-Proxy-User$/m);
    assert.match(body, /^TOKEN_EXPIRE_DAYS: 14$/m);
    assert.match(body, /^BASIC_AUTH_REALM: Alerta$/m);
  } finally {
    for (const name of Object.keys(env)) delete process.env[name];
  }
});

mgmt(
  'status: application, version, times, gauges always, timers and counters once used, switches',
  async ({ api }) => {
    await createAlert(api, { resource: 'status-1', event: 'e' });
    await createAlert(api, { resource: 'status-2', event: 'e' });
    const rejected = await postAlert(api, { resource: 'status-3', event: 'e', environment: 'Nowhere' });
    assert.is(rejected.status, 403);
    await api.get('/alerts');
    await api.get('/alerts/count');
    const res = await api.get('/management/status');
    assert.is(res.status, 200);
    const body = (await res.json()) as {
      application: string;
      version: string;
      time: number;
      uptime: number;
      metrics: Record<string, unknown>[];
    };
    assert.is(body.application, 'alerta');
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    assert.ok(Math.abs(body.time - Date.now()) < 5000);
    assert.ok(body.uptime > 0 && body.uptime < 10 * 60_000);
    const byName = new Map(body.metrics.map((m) => [`${m.group}/${m.name}`, m]));
    assert.equal(byName.get('alerts/total'), {
      group: 'alerts',
      name: 'total',
      title: 'Total alerts',
      description: 'Total number of alerts in the database',
      type: 'gauge',
      value: 2,
    });
    const received = byName.get('alerts/received') as { type: string; count: number; totalTime: number };
    assert.equal([received.type, received.count], ['timer', 3]);
    assert.ok(received.totalTime >= 0);
    assert.equal((byName.get('alerts/rejected') as { count: number }).count, 1);
    assert.is((byName.get('alerts/queries') as { count: number }).count, 1);
    assert.is((byName.get('alerts/counts') as { count: number }).count, 1);
    assert.not.ok(byName.has('alerts/deleted'), 'unused timers are not listed');
    assert.equal(byName.get('switch/auto-refresh-allow'), {
      group: 'switch',
      name: 'auto-refresh-allow',
      type: 'text',
      title: 'Alerta console auto-refresh',
      description: 'Allow consoles to auto-refresh alerts',
      value: 'ON',
    });
  },
);

/** Every line of the exposition format: HELP, TYPE, blank, or a sample. */
function assertValidExposition(body: string) {
  const sample =
    /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? -?([0-9.e+-]+|NaN|\+Inf|-Inf)( -?\d+)?$/;
  const typed = new Map<string, string>();
  for (const line of body.split('\n')) {
    if (line === '') continue;
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .*$/.exec(line);
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|summary|histogram|untyped)$/.exec(line);
    if (type) {
      assert.not.ok(typed.has(type[1]!), `TYPE given twice for ${type[1]}`);
      typed.set(type[1]!, type[2]!);
    }
    if (!help && !type) assert.match(line, sample, `not a valid sample line: ${line}`);
  }
}

mgmt(
  'metrics: valid Prometheus text with the spec names and types, process and request metrics',
  async ({ api }) => {
    await api.get('/alerts');
    const res = await api.get('/management/metrics');
    assert.is(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const body = await res.text();
    assertValidExposition(body);
    const families = new Map(parse(body).map((f) => [f.name, f]));
    assert.is(families.get('service_alerts_total')?.type, 'GAUGE');
    assert.is(families.get('service_alerts_total')?.metrics[0]?.value, '2');
    assert.is(families.get('service_alerts_queries')?.type, 'SUMMARY');
    assert.ok(Number(families.get('service_alerts_queries')?.metrics[0]?.count) >= 2);
    assert.is(families.get('service_alerts_counts')?.type, 'SUMMARY');
    assert.is(families.get('service_uptime_msecs')?.type, 'COUNTER');
    assert.ok(Number(families.get('service_uptime_msecs')?.metrics[0]?.value) > 0);
    assert.is(families.get('service_alerts_rejected_total')?.type, 'COUNTER');
    assert.is(families.get('http_request_duration_seconds')?.type, 'HISTOGRAM');
    assert.is(families.get('process_cpu_seconds_total')?.type, 'COUNTER');
    assert.ok(families.has('nodejs_eventloop_lag_seconds'));
    // Labels stay low-cardinality: no ids, paths or resources.
    assert.not.match(body, /alert\/|status-1|resource=/);
  },
);

mgmt('GET /config answers without credentials with every key the clients read', async ({ api }) => {
  const res = await api.get('/config');
  assert.is(res.status, 200);
  const c = (await res.json()) as Record<string, unknown> & {
    alarm_model: {
      severity: Record<string, number>;
      defaults: Record<string, string>;
      status: Record<string, string>;
    };
  };
  for (const key of [
    'debug',
    'endpoint',
    'alarm_model',
    'auth_required',
    'allow_readonly',
    'readonly_scopes',
    'provider',
    'customer_views',
    'signup_enabled',
    'email_verification',
    'client_id',
    'azure_tenant',
    'aws_region',
    'cognito_domain',
    'github_url',
    'gitlab_url',
    'keycloak_url',
    'keycloak_realm',
    'oidc_auth_url',
    'site_logo_url',
    'severity',
    'colors',
    'timeouts',
    'blackouts',
    'dates',
    'font',
    'audio',
    'columns',
    'sort_by',
    'filter',
    'indicators',
    'actions',
    'tracking_id',
    'refresh_interval',
    'environments',
    'clipboard_template',
  ])
    assert.ok(key in c, `missing ${key}`);
  assert.is(c.endpoint, api.base);
  assert.is(c.alarm_model.severity.critical, 1);
  assert.equal(c.alarm_model.defaults, {
    status: 'open',
    normal_severity: 'normal',
    previous_severity: 'indeterminate',
  });
  assert.is(c.alarm_model.status.open, 'A');
  assert.equal(c.timeouts, { alert: 86400, heartbeat: 86400, ack: 0, shelve: 7200 });
  assert.equal(c.blackouts, { duration: 3600 });
  assert.equal(c.sort_by, ['severity', 'lastReceiveTime']);
  assert.equal(c.filter, { status: ['open', 'ack'] });
  assert.equal(c.environments, ['Production', 'Development']);
  assert.equal(c.dates, {
    shortTime: 'HH:mm',
    mediumDate: 'ddd D MMM HH:mm',
    longDate: 'ddd D MMM, YYYY HH:mm:ss.SSS Z',
  });
  assert.equal((c.indicators as { queries: unknown[] }).queries.length, 4);
  assert.equal(
    [c.auth_required, c.provider, c.signup_enabled, c.refresh_interval],
    [false, 'basic', true, 5000],
  );
  assert.not.ok(JSON.stringify(c).includes('top-secret-signing-key'));
});

mgmt(
  'healthcheck: OK, 503 HEARTBEAT_STALE when a heartbeat is older than 4x its timeout, OK again',
  async (ctx) => {
    const { api } = ctx;
    assert.equal(await text(await api.get('/management/healthcheck')), {
      status: 200,
      type: 'text/plain; charset=utf-8',
      body: 'OK',
    });
    const hb = await api.post('/heartbeat', { origin: 'health/probe', timeout: 60 });
    assert.is(hb.status, 201);
    assert.is((await text(await api.get('/management/healthcheck'))).status, 200);
    // 3x its timeout: still healthy; 5x: stale.
    await queryDb(ctx.db.url, `UPDATE heartbeats SET receive_time = now() - interval '180 seconds'`);
    assert.is((await text(await api.get('/management/healthcheck'))).status, 200);
    await queryDb(ctx.db.url, `UPDATE heartbeats SET receive_time = now() - interval '300 seconds'`);
    const stale = await text(await api.get('/management/healthcheck'));
    assert.equal([stale.status, stale.body], [503, 'HEARTBEAT_STALE: health/probe']);
    await api.post('/heartbeat', { origin: 'health/probe', timeout: 60 });
    assert.is((await text(await api.get('/management/healthcheck'))).status, 200);
  },
);

mgmt.run();

// ---- two instances on one database --------------------------------------------------------------

const board = suite<InstancePair>('switchboard shared by instances', {} as InstancePair);
board.before((ctx) => startPair(ctx, 'switchboard'));
board.after(stopPair);

const form = (api: Api, body: string) =>
  api.post('/management/switchboard', undefined, {
    raw: body,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
const autoRefresh = async (api: Api) =>
  ((await (await api.get('/alerts')).json()) as { autoRefresh: boolean }).autoRefresh;

board(
  'a switch set on one instance is seen by the other: page, status, and autoRefresh on /alerts',
  async (ctx) => {
    const page = await ctx.apiB.get('/management/switchboard');
    assert.is(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /<select name="auto-refresh-allow"><option value="ON" selected>/);
    assert.is(await autoRefresh(ctx.apiB), true);

    const set = await form(ctx.apiA, 'auto-refresh-allow=OFF');
    assert.is(set.status, 200);
    assert.match(await set.text(), /<option value="OFF" selected>OFF/);

    assert.is(await autoRefresh(ctx.apiB), false);
    assert.is(
      ((await (await ctx.apiB.get('/alerts/count')).json()) as { autoRefresh: boolean }).autoRefresh,
      false,
    );
    const one = await (await ctx.apiB.get('/management/switchboard?switch=auto-refresh-allow')).text();
    assert.match(
      one,
      /name="auto-refresh-allow"><option value="ON">ON<\/option><option value="OFF" selected>/,
    );
    assert.not.match(one, /sender-api-allow/);
    const status = (await (await ctx.apiB.get('/management/status')).json()) as {
      metrics: { name: string; value?: string }[];
    };
    assert.is(status.metrics.find((m) => m.name === 'auto-refresh-allow')?.value, 'OFF');

    // Survives a restart of both instances.
    await ctx.b.close();
    ctx.b = await bootInstance(ctx.db.url);
    ctx.apiB = apiFor(ctx.b);
    assert.is(await autoRefresh(ctx.apiB), false);
    assert.is((await form(ctx.apiB, 'auto-refresh-allow=on')).status, 200);
    assert.is(await autoRefresh(ctx.apiA), true);
  },
);

board('switchboard refuses unknown switches and values with JSON 400, changing nothing', async (ctx) => {
  for (const body of [
    'no-such-switch=ON',
    'auto-refresh-allow=MAYBE',
    'sender-api-allow=OFF&auto-refresh-allow=sideways',
  ]) {
    const res = await form(ctx.apiA, body);
    const err = (await res.json()) as { status: string; code: number };
    assert.equal([res.status, err.status, err.code], [400, 'error', 400], body);
  }
  const status = (await (await ctx.apiA.get('/management/status')).json()) as {
    metrics: { name: string; value?: string }[];
  };
  assert.is(status.metrics.find((m) => m.name === 'sender-api-allow')?.value, 'ON');
  assert.is((await ctx.apiA.get('/management/switchboard?switch=nope')).status, 400);
});

board(
  'SERVER_VERSION: manifest release and status version in full, major only, or null when off',
  async (ctx) => {
    const shown = async (setting: string) => {
      const r = await bootInstance(ctx.db.url, { SERVER_VERSION: setting });
      try {
        const manifest = (await (await apiFor(r).get('/management/manifest')).json()) as { release: unknown };
        const status = (await (await apiFor(r).get('/management/status')).json()) as { version: unknown };
        return [manifest.release, status.version];
      } finally {
        await r.close();
      }
    };
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    assert.equal(await shown('full'), [version, version]);
    assert.equal(await shown('major'), [version.split('.')[0], version.split('.')[0]]);
    assert.equal(await shown('off'), [null, null]);
  },
);

board('METRICS_PREFIX=alerta keeps the established names', async (ctx) => {
  const r = await bootInstance(ctx.db.url, { METRICS_PREFIX: 'alerta' });
  try {
    const body = await (await apiFor(r).get('/management/metrics')).text();
    const names = new Set(parse(body).map((f) => f.name));
    for (const n of [
      'alerta_alerts_total',
      'alerta_alerts_queries',
      'alerta_alerts_counts',
      'alerta_uptime_msecs',
    ])
      assert.ok(names.has(n), n);
    assert.not.ok(names.has('service_alerts_total'));
  } finally {
    await r.close();
  }
});

board.run();

// ---- the database goes away -----------------------------------------------------------------------

const down = suite<{ db: { name: string; url: string }; app: Running; api: Api }>(
  'readiness when PostgreSQL goes away',
  {} as never,
);
down.before(async (ctx) => {
  ctx.db = await createTestDatabase('gtg_down');
  ctx.app = await bootInstance(ctx.db.url);
  ctx.api = apiFor(ctx.app);
});
down.after(async (ctx) => {
  await ctx.app?.close().catch(() => {});
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

down('gtg and healthcheck answer 503 within 2 s once the database is gone', async (ctx) => {
  assert.is((await ctx.api.get('/management/gtg')).status, 200);
  await dropTestDatabase(ctx.db.name); // terminates the pool's connections (WITH (FORCE))
  for (const path of ['/management/gtg', '/management/healthcheck']) {
    const started = Date.now();
    const res = await ctx.api.get(path);
    const elapsed = Date.now() - started;
    assert.is(res.status, 503, path);
    assert.match(await res.text(), /^(FAILED|HEALTH_CHECK_FAILED: Internal Error!)$/);
    assert.ok(elapsed < 2000, `${path} took ${elapsed} ms`);
  }
  // The process stays up: liveness still answers.
  assert.is((await ctx.api.get('/_')).status, 200);
});

down.run();

// ---- settings the established server starts with, unwisely -------------------------------------

const warned = appSuite('settings warnings in /management/status', {
  TEST_LABEL: 'mgmt_warnings',
  AUTH_REQUIRED: 'True',
  ADMIN_USERS: 'admin@example.com',
  ADMIN_PASSWORD: 'admin-pass',
});

const tokenOf = async (api: Api, username: string, password: string) => {
  const res = await api.post('/auth/login', { username, password });
  assert.is(res.status, 200, `login of ${username}`);
  return { headers: { Authorization: `Bearer ${((await res.json()) as { token: string }).token}` } };
};

warned('admins see every warning; other readers of the status see none', async ({ api }) => {
  const admin = await tokenOf(api, 'admin@example.com', 'admin-pass');
  const status = (await (await api.get('/management/status', admin)).json()) as { warnings: string[] };
  assert.is(status.warnings.length, 1);
  assert.match(status.warnings[0]!, /^SECRET_KEY: is the published default 'changeme'/);

  const signup = await api.post('/auth/signup', {
    name: 'Reader',
    email: 'reader@example.com',
    password: 'reader-pass-1',
  });
  assert.is(signup.status, 200);
  const reader = await tokenOf(api, 'reader@example.com', 'reader-pass-1');
  const res = await api.get('/management/status', reader);
  assert.is(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  assert.not.ok('warnings' in body);
  assert.not.match(JSON.stringify(body), /changeme/);
});

warned.run();
