import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Hawk from 'hawk';
import { ConfigError, loadConfig } from '../../server/config.ts';
import type { QueuedRow } from '../../server/db/forward-queue.ts';
import { destinationProblems, serverName, type DestinationTuple } from '../../server/config/destinations.ts';
import { toDestinations, wantsEvent } from '../../server/forwarding/destinations.ts';
import { isNamed, loopNames, loopValue } from '../../server/forwarding/loop.ts';
import { agentFor, attemptOf, buildRequest, send } from '../../server/forwarding/outbound.ts';
import { backoffMs } from '../../server/delivery/queue.ts';
import { forwardRetry } from '../../server/forwarding/worker.ts';
import { selfSignedCert } from '../helpers/slapd.ts';

const load = (env: Record<string, string>) => loadConfig(env, { systemFile: null });
/** The problems loadConfig reports ([] when it loads). */
const problemsOf = (env: Record<string, string>): string[] => {
  try {
    return load(env) && [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems;
  }
};

// ---- FWD_DESTINATIONS --------------------------------------------------------------------------

const settings = suite('FWD_DESTINATIONS is checked at start-up');

settings('the four credential shapes, none at all, and the optional keys are accepted', () => {
  const value: DestinationTuple[] = [
    ['http://a:8080/api', { username: 'u', password: 'p', timeout: 2.5, ssl_verify: false }, ['*']],
    ['http://b:8080/api', { key: 'id', secret: 'c2VjcmV0' }, ['alerts', 'actions']],
    ['https://c.example/api/', { key: 'api-key' }, ['ack', 'delete', 'my-action']],
    ['http://d', { token: 't' }, ['alerts']],
    ['http://e/hook', {}, ['delete']],
  ];
  assert.equal(destinationProblems(value), []);
  const [basic, hawk, key, bearer, none] = toDestinations(value);
  assert.equal(basic!.auth, { kind: 'basic', username: 'u', password: 'p' });
  assert.is(basic!.timeoutMs, 2500);
  assert.is(basic!.sslVerify, false);
  assert.equal(hawk!.auth, { kind: 'hawk', id: 'id', secret: 'c2VjcmV0' });
  assert.is(hawk!.timeoutMs, 5000);
  assert.is(hawk!.sslVerify, true);
  assert.equal(key!.auth, { kind: 'key', key: 'api-key' });
  assert.is(key!.url, 'https://c.example/api');
  assert.equal(bearer!.auth, { kind: 'bearer', token: 't' });
  assert.equal(none!.auth, { kind: 'none' });
});

settings('every problem is named with its entry', () => {
  const cases: [unknown, RegExp][] = [
    ['http://a', /expected a list of \(url, credentials, filter\)/],
    [[['http://a', {}]], /entry 1: expected \(url, credentials, filter\)/],
    [[['ftp://a', {}, ['*']]], /entry 1: 'ftp:\/\/a' must be an http/],
    [[['not a url', {}, ['*']]], /entry 1: 'not a url' is not a URL/],
    [[[42, {}, ['*']]], /entry 1: the URL must be a string/],
    [[['http://u:p@a/api', {}, ['*']]], /must not carry credentials/],
    [[['http://a/api?x=1', {}, ['*']]], /must not have a query/],
    [[['http://a', [], ['*']]], /entry 1 \(http:\/\/a\): credentials must be a dict/],
    [[['http://a', { user: 'x', password: 'y' }, ['*']]], /unknown credentials key 'user'/],
    [[['http://a', { username: 'x' }, ['*']]], /need both username and password/],
    [[['http://a', { secret: 's' }, ['*']]], /need the key it belongs to/],
    [[['http://a', { key: 'k', token: 't' }, ['*']]], /must give one scheme/],
    [[['http://a', { key: '' }, ['*']]], /'key' must be a non-empty string/],
    [[['http://a', { token: 't', timeout: 0 }, ['*']]], /'timeout' must be a number of seconds/],
    [[['http://a', { token: 'line\nbreak' }, ['*']]], /'token' must not contain control characters/],
    [[['http://a', { username: 'a:b', password: 'p' }, ['*']]], /'username' must not contain ':'/],
    [[['http://a', { key: 'k"ey', secret: 's' }, ['*']]], /HMAC key id must be printable ASCII/],
    [[['http://a', { token: 't', timeout: '5' }, ['*']]], /'timeout' must be a number of seconds/],
    [[['http://a', { token: 't', ssl_verify: 'no' }, ['*']]], /'ssl_verify' must be True or False/],
    [[['http://a', {}, []]], /the filter is empty/],
    [[['http://a', {}, 'alerts']], /the filter must be a list/],
    [[['http://a', {}, ['alerts', 'a b']]], /filter entry 'a b' is not/],
    [
      [
        ['http://a/api', {}, ['*']],
        ['HTTP://A:80/api/', {}, ['*']],
      ],
      /entry 2 \(http:\/\/a\/api\): the same destination is listed twice/,
    ],
  ];
  for (const [value, expected] of cases) {
    const problems = destinationProblems(value);
    assert.ok(
      problems.some((p) => expected.test(p)),
      `${JSON.stringify(value)} → ${JSON.stringify(problems)}`,
    );
  }
});

settings(
  'problems never repeat a credential: entries and dicts are described, URLs lose user and password',
  () => {
    const secret = 'hunter2-top-secret';
    const values: unknown[] = [
      { url: 'http://a', token: secret },
      [['http://a', { token: secret }]],
      [['http://a', [secret], ['*']]],
      [[`http://admin:${secret}@peer/api`, {}, ['*']]],
      [[`http://admin:${secret}@peer/api?x=1`, {}, ['*']]],
      [[`ftp://admin:${secret}@peer/api`, {}, ['*']]],
    ];
    for (const value of values) {
      const problems = destinationProblems(value);
      assert.ok(problems.length > 0, JSON.stringify(value));
      assert.not.ok(problems.join('\n').includes(secret), problems.join('\n'));
    }
    assert.ok(
      destinationProblems([[`http://admin:${secret}@peer/api`, {}, ['*']]]).some((p) =>
        p.includes("'http://***@peer/api' must not carry credentials"),
      ),
    );
  },
);

settings('loadConfig reports each problem under FWD_DESTINATIONS, from the environment or a file', () => {
  const problems = problemsOf({
    BASE_URL: 'http://me/api',
    FWD_DESTINATIONS: '[["http://peer/api", {"username": "u"}, ["alerts", "?"]]]',
  });
  assert.equal(problems, [
    'FWD_DESTINATIONS (environment): entry 1 (http://peer/api): credentials need both username and password',
    "FWD_DESTINATIONS (environment): entry 1 (http://peer/api): filter entry '?' is not '*', 'alerts', 'actions', 'delete' or an action name",
  ]);
  const ok = load({
    BASE_URL: 'http://me/api',
    FWD_DESTINATIONS: `[('http://peer/api', {'key': 'k', 'secret': 's'}, ['*'])]`,
  });
  assert.equal(ok.FWD_DESTINATIONS, [['http://peer/api', { key: 'k', secret: 's' }, ['*']]]);
});

settings('BASE_URL is required when the forwarder has destinations, and may not be a destination', () => {
  const fwd = '[["http://peer/api", {}, ["*"]]]';
  const missing = problemsOf({ FWD_DESTINATIONS: fwd });
  assert.is(missing.length, 1);
  assert.match(missing[0]!, /^BASE_URL: needed when the forwarder plugin has FWD_DESTINATIONS/);
  // Without the plugin (or without destinations) nothing is forwarded, so nothing is required.
  assert.is(load({ FWD_DESTINATIONS: fwd, PLUGINS: 'reject' }).BASE_URL, '');
  assert.is(load({ PLUGINS: 'forwarder' }).BASE_URL, '');
  assert.equal(problemsOf({ FWD_DESTINATIONS: fwd, BASE_URL: 'http://PEER:80/api/' }), [
    "FWD_DESTINATIONS: 'http://peer/api' is this server's own BASE_URL",
  ]);
  assert.equal(problemsOf({ FWD_RETRY_DELAY: '10', FWD_RETRY_MAX_DELAY: '5' }), [
    'FWD_RETRY_MAX_DELAY: must not be below FWD_RETRY_DELAY',
  ]);
  assert.is(load({ FWD_RETRY_DELAY: '0.25' }).FWD_RETRY_DELAY, 0.25);
});

settings('FWD_INLINE_TIMEOUT: seconds from 0 (queue only) to 60, 2 by default', () => {
  assert.is(load({}).FWD_INLINE_TIMEOUT, 2);
  assert.is(load({ FWD_INLINE_TIMEOUT: '0' }).FWD_INLINE_TIMEOUT, 0);
  assert.is(load({ FWD_INLINE_TIMEOUT: '0.5' }).FWD_INLINE_TIMEOUT, 0.5);
  for (const bad of ['-1', '61', 'soon']) {
    const problems = problemsOf({ FWD_INLINE_TIMEOUT: bad });
    assert.is(problems.length, 1, bad);
    assert.match(problems[0]!, /^FWD_INLINE_TIMEOUT/);
  }
});

settings.run();

// ---- filters, loop headers, retries --------------------------------------------------------------

const rules = suite('forwarding rules');

rules('filters: *, alerts, actions, a named action, delete; housekeeping actions only by name', () => {
  const [all, alerts, actions, ackOnly, del, expiry] = toDestinations([
    ['http://1', {}, ['*']],
    ['http://2', {}, ['alerts']],
    ['http://3', {}, ['actions']],
    ['http://4', {}, ['ack']],
    ['http://5', {}, ['delete']],
    ['http://6', {}, ['expired', 'timeout']],
  ]);
  const row = (d: ReturnType<typeof toDestinations>[number]) => [
    wantsEvent(d, 'alert'),
    wantsEvent(d, 'action', 'ack'),
    wantsEvent(d, 'action', 'investigate'),
    wantsEvent(d, 'action', 'expired'),
    wantsEvent(d, 'delete'),
  ];
  assert.equal(row(all!), [true, true, true, false, true]);
  assert.equal(row(alerts!), [true, false, false, false, false]);
  assert.equal(row(actions!), [false, true, true, false, false]);
  assert.equal(row(ackOnly!), [false, true, false, false, false]);
  assert.equal(row(del!), [false, false, false, false, true]);
  assert.equal(row(expiry!), [false, false, false, true, false]);
});

rules('server names: scheme and host case, default ports and trailing slashes do not matter', () => {
  assert.is(serverName(' HTTP://Peer.Example:80/API/ '), 'http://peer.example/API');
  assert.is(serverName('https://peer:443/api'), 'https://peer/api');
  assert.is(serverName('http://peer:8080/api'), 'http://peer:8080/api');
  assert.is(serverName('not a url/'), 'not a url');
});

rules('loop headers: both names read, entries trimmed and deduplicated, whole names compared', () => {
  const names = loopNames('http://a/api, http://b:8080/api/', 'http://a/api,,  http://c/api');
  assert.equal(names, ['http://a/api', 'http://b:8080/api', 'http://c/api']);
  assert.ok(isNamed(names, 'http://B:8080/api'));
  assert.not.ok(isNamed(names, 'http://b:80/api'));
  assert.not.ok(isNamed(loopNames('http://a:8080/api'), 'http://a:80/api'));
  assert.not.ok(isNamed(loopNames('http://a/apis'), 'http://a/api'));
  assert.equal(loopNames('', ''), []);
  assert.is(loopValue([], 'http://me/api/'), 'http://me/api');
  assert.is(loopValue(names, 'http://me/api'), 'http://a/api,http://b:8080/api,http://c/api,http://me/api');
});

rules('backoff doubles from FWD_RETRY_DELAY up to FWD_RETRY_MAX_DELAY', () => {
  const config = { FWD_RETRY_DELAY: 2, FWD_RETRY_MAX_DELAY: 300, FWD_MAX_ATTEMPTS: 10 };
  assert.equal(
    [1, 2, 3, 4, 8, 9, 10, 1000].map((n) => backoffMs(n, forwardRetry(config))),
    [2000, 4000, 8000, 16000, 256000, 300000, 300000, 300000],
  );
});

rules('answers: 2xx taken (202 too), 5xx/408/429 retried, other 4xx and 3xx refused', () => {
  assert.equal(attemptOf(200), { outcome: 'delivered', status: 200 });
  assert.equal(attemptOf(202), { outcome: 'delivered', status: 202 });
  for (const s of [500, 502, 503, 408, 429]) assert.is(attemptOf(s).outcome, 'failed', String(s));
  for (const s of [301, 400, 401, 403, 404, 409]) assert.is(attemptOf(s).outcome, 'rejected', String(s));
});

rules.run();

// ---- the requests -------------------------------------------------------------------------------

const requests = suite('forwarded requests');

const row = (over: Partial<QueuedRow>): QueuedRow => ({
  id: 1,
  destination: 'http://peer:8080/api',
  kind: 'alert',
  alertId: 'b6f6f4c5-1f0e-4c8e-9a36-2f8f6a4f9b10',
  body: { resource: 'r', event: 'e' },
  loop: 'http://me/api',
  requestId: 'req-1',
  attempts: 0,
  createTime: 0,
  ...over,
});

requests('one route per kind under the destination, JSON, both loop headers, the request id', () => {
  const [d] = toDestinations([['http://peer:8080/api/', { token: 't' }, ['*']]]);
  const alert = buildRequest(d!, row({}));
  assert.equal(
    [alert.method, alert.url, alert.body],
    ['POST', 'http://peer:8080/api/alert', '{"resource":"r","event":"e"}'],
  );
  assert.equal(alert.headers['Content-Type'], 'application/json');
  assert.equal(alert.headers['X-Service-Loop'], 'http://me/api');
  assert.equal(alert.headers['X-Alerta-Loop'], 'http://me/api');
  assert.equal(alert.headers['X-Request-ID'], 'req-1');
  assert.equal(alert.headers.Authorization, 'Bearer t');
  const action = buildRequest(d!, row({ kind: 'action', alertId: 'a/b', body: { action: 'ack' } }));
  assert.equal([action.method, action.url], ['PUT', 'http://peer:8080/api/alert/a%2Fb/action']);
  const del = buildRequest(d!, row({ kind: 'delete', body: null }));
  assert.equal(
    [del.method, del.url, del.body],
    ['DELETE', `http://peer:8080/api/alert/${row({}).alertId}`, ''],
  );
});

requests(
  'HMAC credentials sign each request with Hawk: an independent implementation accepts it',
  async () => {
    const [d] = toDestinations([
      ['http://peer.example:8080/api', { key: 'fwd-key', secret: 'fwd-secret' }, ['*']],
    ]);
    for (const kind of ['alert', 'action', 'delete'] as const) {
      const r = buildRequest(
        d!,
        row({ kind, body: kind === 'delete' ? null : { action: 'ack', text: 'ü' } }),
      );
      const u = new URL(r.url);
      const request = {
        method: r.method,
        url: u.pathname,
        host: u.hostname,
        port: Number(u.port),
        authorization: r.headers.Authorization!,
        contentType: r.headers['Content-Type'],
      };
      const server = (Hawk as unknown as { server: { authenticate: HawkAuthenticate } }).server;
      const credentials = { key: 'fwd-secret', algorithm: 'sha256' };
      const { artifacts } = await server.authenticate(
        request,
        async (id) => (id === 'fwd-key' ? credentials : null),
        {
          payload: r.body,
        },
      );
      assert.is(artifacts.id, 'fwd-key', kind);
      let refused = '';
      try {
        await server.authenticate(request, async () => ({ key: 'wrong', algorithm: 'sha256' }), {
          payload: r.body,
        });
      } catch (err) {
        refused = (err as Error).message;
      }
      assert.is(refused, 'Bad mac');
    }
    // A fresh nonce each time: a retry is never a replay.
    const first = buildRequest(d!, row({})).headers.Authorization!;
    const second = buildRequest(d!, row({})).headers.Authorization!;
    assert.is.not(/nonce="([^"]+)"/.exec(first)![1], /nonce="([^"]+)"/.exec(second)![1]);
  },
);

type HawkAuthenticate = (
  req: object,
  credentials: (id: string) => Promise<{ key: string; algorithm: string } | null>,
  options: { payload: string },
) => Promise<{ artifacts: { id: string } }>;

requests('Basic and API key credentials', () => {
  const [basic, key] = toDestinations([
    ['http://a', { username: 'ü', password: 'p:w' }, ['*']],
    ['http://b', { key: 'k-1' }, ['*']],
  ]);
  assert.is(
    buildRequest(basic!, row({})).headers.Authorization,
    `Basic ${Buffer.from('ü:p:w').toString('base64')}`,
  );
  assert.is(buildRequest(key!, row({})).headers.Authorization, 'Key k-1');
});

/** A server on a self-signed certificate (made by openssl for the test) or plain HTTP; counts connections. */
async function listening(tls: boolean) {
  let server: Server;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  };
  if (tls) {
    const dir = mkdtempSync(join(tmpdir(), 'fwd-tls-'));
    await selfSignedCert(dir, 'server');
    server = createHttpsServer(
      { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.crt')) },
      handler,
    );
    rmSync(dir, { recursive: true });
  } else server = createHttpServer(handler);
  let connections = 0;
  server.on(tls ? 'secureConnection' : 'connection', () => (connections += 1));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    base: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/api`,
    connections: () => connections,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

requests(
  'ssl_verify False accepts any certificate; https destinations verify; connections are kept',
  async () => {
    const tls = await listening(true);
    const plainServer = await listening(false);
    const stop = new AbortController().signal;
    const [lax, strict, plain] = toDestinations([
      [tls.base, { token: 't', ssl_verify: false }, ['*']],
      [tls.base, { token: 't' }, ['*']],
      [plainServer.base, {}, ['*']],
    ]);
    const post = async (d: typeof lax, agent: ReturnType<typeof agentFor>) =>
      send(buildRequest(d!, row({})), { agent, timeoutMs: 5000, stop });
    const agents = [agentFor(lax!, 4), agentFor(strict!, 4), agentFor(plain!, 4)] as const;
    try {
      assert.equal(await post(lax, agents[0]), { outcome: 'delivered', status: 200 });
      const refused = await post(strict, agents[1]);
      assert.is(refused.outcome, 'failed');
      assert.match((refused as { error: string }).error, /SELF_SIGNED|CERT/);
      for (let i = 0; i < 10; i++)
        assert.equal(await post(plain, agents[2]), { outcome: 'delivered', status: 200 });
      // Kept alive: without it each request would open its own (a new one may open while the last
      // one's answer is still being read, so not necessarily exactly one).
      assert.ok(
        plainServer.connections() <= 2,
        `${plainServer.connections()} connections for ten requests in a row`,
      );
    } finally {
      await Promise.all(agents.map((a) => a.destroy()));
      await Promise.all([tls.close(), plainServer.close()]);
    }
  },
);

requests.run();
