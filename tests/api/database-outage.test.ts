import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase, dropTestDatabase, serverUrl } from '../helpers/db.ts';
import { LiveClient, refused, until } from '../helpers/live.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

/**
 * PostgreSQL becomes unreachable under a running server (issue #18 item 6): every endpoint that
 * needs it answers 503 with Retry-After and a message of our own, never the driver's text (host,
 * port, ECONNREFUSED) or a plugin's wrapping of it; the detail goes to the server's log; and the
 * server serves again once the database is back. The server runs as its own process, talking to
 * PostgreSQL through a TCP proxy in this process that the test cuts and restores.
 */

interface Ctx {
  db: { name: string; url: string };
  proxy: TcpProxy;
  server: ServerProcess;
  api: string;
  origin: string;
  alertId: string;
}

const outage = suite<Ctx>('the database becomes unreachable', {} as Ctx);

outage.before(async (ctx) => {
  ctx.db = await createTestDatabase('outage');
  const target = new URL(serverUrl);
  ctx.proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  ctx.server = await startServerProcess({
    DATABASE_URL: ctx.proxy.via(ctx.db.url),
    PLUGINS: './tests/fixtures/plugins/wrap-db-error.ts,remote_ip,reject,heartbeat,blackout',
    PLUGINS_RAISE_ON_ERROR: 'True',
    LOG_LEVEL: 'warning',
  });
  ctx.origin = ctx.server.url.replace(/\/$/, '');
  ctx.api = `${ctx.origin}/api`;
});

outage.after(async (ctx) => {
  await ctx.server?.stop();
  await ctx.proxy?.close();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

const alertBody = (resource: string) => ({
  resource,
  event: 'DiskFull',
  environment: 'Production',
  service: ['Storage'],
  severity: 'major',
});

const send = (ctx: Ctx, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${ctx.api}${path}`, {
    method,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Requests that each need the database, covering every resource and the ways in (routes, auth, plugins, webhooks). */
const requests = (ctx: Ctx): [string, string, unknown?, Record<string, string>?][] => [
  ['POST', '/alert', alertBody('web01')], // the blackout plugin's lookup fails first
  ['POST', '/alert', alertBody('wrap-web02')], // a plugin that wraps the driver's error in its own
  ['GET', '/alerts'],
  ['GET', '/alerts/count'],
  ['GET', `/alert/${ctx.alertId}`],
  ['PUT', `/alert/${ctx.alertId}/status`, { status: 'ack', text: '' }],
  ['DELETE', `/alert/${ctx.alertId}`],
  ['POST', '/heartbeat', { origin: 'probe/1' }],
  ['GET', '/heartbeats'],
  ['POST', '/blackout', { environment: 'Production' }],
  ['GET', '/blackouts'],
  ['GET', '/keys'],
  ['DELETE', '/key/demo-key-that-does-not-exist'],
  ['GET', '/users'],
  ['GET', '/customers'],
  ['POST', '/auth/login', { username: 'admin@example.com', password: 'secret-password' }],
  ['GET', '/alerts', undefined, { Authorization: 'Key demo-key-that-must-be-looked-up' }],
  [
    'POST',
    '/webhooks/prometheus',
    {
      version: '4',
      status: 'firing',
      receiver: 'alerta',
      alerts: [
        {
          status: 'firing',
          labels: { alertname: 'InstanceDown', instance: 'web03', environment: 'Production' },
          annotations: {},
          startsAt: '2026-03-01T10:00:00Z',
        },
      ],
    },
  ],
];

/** What a client sees that names the driver's, the network's or a plugin's internals. */
function leaksIn(ctx: Ctx, text: string): string[] {
  const upstream = new URL(serverUrl).port || '5432';
  const patterns = [/127\.0\.0\.1/, /ECONN/, /connect /i, /plugin/i, /site lookup/, /starting up/];
  return [
    ...patterns.filter((p) => p.test(text)).map(String),
    ...[String(ctx.proxy.port), upstream].filter((port) => text.includes(port)),
  ];
}

function assertNoLeak(ctx: Ctx, what: string, text: string) {
  assert.equal(leaksIn(ctx, text), [], `${what} leaks: ${text}`);
}

/** Every request answers 503, Retry-After, our JSON error and nothing more; lists every one that does not. */
async function assertAllUnavailable(ctx: Ctx) {
  const problems: string[] = [];
  for (const [method, path, body, headers] of requests(ctx)) {
    const what = `${method} ${path}${headers ? ' (with a key)' : ''}`;
    const res = await send(ctx, method, path, body, headers);
    const text = await res.text();
    let answer: Record<string, unknown> = {};
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      problems.push(`${what}: not JSON`);
    }
    const wrong = [
      res.status !== 503 && `status ${res.status}`,
      !(Number(res.headers.get('retry-after')) > 0) && 'no Retry-After',
      (answer.status !== 'error' || answer.code !== 503) && 'not our error shape',
      !/database/i.test(String(answer.message)) && 'message does not say the database',
      ...leaksIn(ctx, text).map((l) => `leaks ${l}`),
    ].filter(Boolean);
    if (wrong.length) problems.push(`${what}: ${wrong.join(', ')} — ${text}`);
  }
  for (const path of ['/management/gtg', '/management/healthcheck']) {
    const res = await send(ctx, 'GET', path);
    const text = await res.text();
    const wrong = [
      res.status !== 503 && `status ${res.status}`,
      !(Number(res.headers.get('retry-after')) > 0) && 'no Retry-After',
      ...leaksIn(ctx, text).map((l) => `leaks ${l}`),
    ].filter(Boolean);
    if (wrong.length) problems.push(`GET ${path}: ${wrong.join(', ')} — ${text}`);
  }
  assert.equal(problems, []);
  // Liveness never needs the database.
  assert.is((await send(ctx, 'GET', '/_')).status, 200);
}

outage('every endpoint answers 503 with Retry-After while PostgreSQL refuses connections', async (ctx) => {
  const created = await send(ctx, 'POST', '/alert', alertBody('web00'));
  assert.is(created.status, 201);
  ctx.alertId = ((await created.json()) as { id: string }).id;
  // A socket connected before the outage: its subscribe must fail cleanly too.
  const live = await LiveClient.connect(ctx.origin, {});
  try {
    await ctx.proxy.cut();
    await assertAllUnavailable(ctx);

    const answer = await live.subscribe('status=open');
    assert.equal(answer.status, 'error');
    const failed = answer as unknown as { code: number; message: string };
    assert.is(failed.code, 503);
    assertNoLeak(ctx, 'subscribe', JSON.stringify(answer));

    const refusal = (await refused(ctx.origin, { key: 'demo-key-that-must-be-looked-up' })) as Error & {
      data?: { code?: number; message?: string };
    };
    assert.is(refusal.data?.code, 503);
    assertNoLeak(ctx, 'socket handshake', JSON.stringify({ message: refusal.message, data: refusal.data }));
  } finally {
    live.close();
  }
  // The detail is in the server's own log.
  assert.match(ctx.server.output(), /ECONNREFUSED/);
});

outage('the same while PostgreSQL answers "cannot connect now" (57P03)', async (ctx) => {
  await ctx.proxy.refuseWith('57P03', 'the database system is starting up');
  await assertAllUnavailable(ctx);
});

outage('service resumes once PostgreSQL is reachable again', async (ctx) => {
  await ctx.proxy.restore();
  const res = await until(
    async () => {
      const r = await send(ctx, 'POST', '/alert', alertBody('web04'));
      return r.status === 201 ? r : undefined;
    },
    15_000,
    'POST /alert to succeed again',
    200,
  );
  const id = ((await res.json()) as { id: string }).id;
  const got = await send(ctx, 'GET', `/alert/${id}`);
  assert.is(got.status, 200);
  const list = (await (await send(ctx, 'GET', '/alerts')).json()) as { alerts: { resource: string }[] };
  assert.equal(list.alerts.map((a) => a.resource).sort(), ['web00', 'web04']);
  assert.is((await send(ctx, 'GET', '/management/gtg')).status, 200);
  assert.is((await send(ctx, 'GET', '/management/healthcheck')).status, 200);
  const live = await LiveClient.connect(ctx.origin, {});
  try {
    const answer = await live.subscribe('status=open');
    assert.is(answer.status, 'ok');
  } finally {
    live.close();
  }
});

outage.run();
