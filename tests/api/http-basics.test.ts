import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { uiRoutes } from '../../server/http/routes/ui.ts';
import { appSuite, bootInstance } from '../helpers/app.ts';

/** Asserts the one error shape and returns the body. */
async function expectError(res: Response, status: number) {
  assert.is(res.status, status, `status of ${res.url}`);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = ErrorBodySchema.parse(await res.json());
  assert.is(body.code, status);
  assert.is(body.requestId, res.headers.get('x-request-id'));
  assert.not.match(JSON.stringify(body), /SELECT|INSERT|at .*\.ts:\d+|stack/i);
  return body;
}

const basics = appSuite('HTTP basics (API under /api)', {
  TEST_LABEL: 'http',
  MAX_BODY_SIZE: '64k',
  CORS_ORIGINS: 'http://wall.example,^https://.*\\.noc\\.example$',
});

basics('GET /api/_ answers OK as plain text', async ({ api }) => {
  const res = await api.get('/_');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  assert.is(await res.text(), 'OK');
});

basics('the UI placeholder is served at / and the API index at /api/', async ({ api, origin }) => {
  const page = await fetch(`${origin}/`);
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  const index = await api.get('/');
  assert.is(index.status, 200);
  const body = (await index.json()) as {
    status: string;
    uri: string;
    links: { href: string; method: string }[];
  };
  assert.is(body.status, 'ok');
  assert.is(body.uri, `${origin}/api`);
  assert.ok(body.links.some((l) => l.href === `${origin}/api/_` && l.method === 'GET'));
});

basics('X-Request-ID is echoed, or generated when absent or unsafe', async ({ api }) => {
  const echoed = await api.get('/_', { headers: { 'X-Request-ID': 'abc-123' } });
  assert.is(echoed.headers.get('x-request-id'), 'abc-123');
  const made = await api.get('/_');
  assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const unsafe = await api.get('/_', { headers: { 'X-Request-ID': 'x'.repeat(500) } });
  assert.match(unsafe.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

basics(
  'JSON answers: one serialisation, JSON type, exact Content-Length, also for HEAD and errors',
  async ({ api, origin }) => {
    const posted = await api.post('/alert', {
      resource: 'json-once',
      event: 'e',
      environment: 'Production',
      service: ['web'],
      text: 'café ✓',
    });
    assert.is(posted.status, 201, await posted.clone().text());
    for (const path of ['/alerts?resource=json-once', '/alerts/count', '/no-such-route']) {
      const res = await api.get(path);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, path);
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.is(Number(res.headers.get('content-length')), bytes.length, path);
      const body = JSON.parse(bytes.toString('utf8')) as { status: string; alerts?: { text: string }[] };
      if (path.startsWith('/alerts?')) assert.is(body.alerts?.[0]?.text, 'café ✓');
      const head = await fetch(`${origin}/api${path}`, { method: 'HEAD' });
      assert.is(head.status, res.status, path);
      // (An error's message names the method, so only the successful answers are the same size.)
      if (res.ok) assert.is(Number(head.headers.get('content-length')), bytes.length, `HEAD ${path}`);
    }
  },
);

basics('unknown API route → 404 JSON', async ({ api }) => {
  const body = await expectError(await api.get('/no/such/thing'), 404);
  assert.match(body.message, /not found/i);
});

basics('wrong method → 405 JSON with Allow', async ({ api }) => {
  const res = await api.delete('/_');
  const body = await expectError(res, 405);
  assert.match(res.headers.get('allow') ?? '', /GET/);
  assert.match(body.message, /DELETE/);
});

basics('malformed JSON → 400', async ({ api }) => {
  const body = await expectError(
    await api.post('/alert', undefined, {
      raw: '{"resource": ',
      headers: { 'Content-Type': 'application/json' },
    }),
    400,
  );
  assert.match(body.message, /not valid JSON/);
});

basics('JSON nested too deeply or holding NUL bytes → 400', async ({ api }) => {
  const deep = '['.repeat(100) + ']'.repeat(100);
  const nested = await expectError(
    await api.post('/alert', undefined, { raw: deep, headers: { 'Content-Type': 'application/json' } }),
    400,
  );
  assert.match(nested.message, /nested/);
  const nul = await expectError(await api.post('/alert', { resource: 'a\u0000b' }), 400);
  assert.match(nul.message, /NUL/);
});

basics('unpaired UTF-16 surrogates in any string or key → 400, nothing stored', async ({ api }) => {
  const base = { resource: 'surrogate', event: 'e', environment: 'Production', service: ['s'] };
  for (const attributes of [{ k: '\ud800' }, { '\udfff': 'v' }, { k: { deeper: ['x\ud800y'] } }]) {
    const bad = await expectError(await api.post('/alert', { ...base, attributes }), 400);
    assert.match(bad.message, /unpaired UTF-16 surrogates/);
  }
  const list = await api.call('GET', '/alerts?resource=surrogate');
  assert.is(list.body.total, 0);
  // A pair written as escapes is one character and is welcome.
  const ok = await api.call('POST', '/alert', { ...base, attributes: { k: '\ud83d\udca9' } });
  assert.is(ok.status, 201);
});

basics('body over MAX_BODY_SIZE → 413, by header or by streaming', async ({ api }) => {
  const big = JSON.stringify({ text: 'x'.repeat(70 * 1024) });
  const body = await expectError(
    await api.post('/alert', undefined, { raw: big, headers: { 'Content-Type': 'application/json' } }),
    413,
  );
  assert.match(body.message, /65536 bytes/);
  const chunks = new ReadableStream({
    start(c) {
      for (let i = 0; i < 80; i++) c.enqueue(new TextEncoder().encode('x'.repeat(1024)));
      c.close();
    },
  });
  const streamed = await fetch(`${api.base}/alert`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: chunks,
    duplex: 'half',
  } as RequestInit);
  await expectError(streamed, 413);
});

basics('non-JSON content type on POST/PUT → 415', async ({ api }) => {
  const body = await expectError(
    await api.post('/alert', undefined, { raw: 'resource=x', headers: { 'Content-Type': 'text/plain' } }),
    415,
  );
  assert.match(body.message, /application\/json/);
  await expectError(
    await api.put('/alert/x/status', undefined, {
      raw: '<xml/>',
      headers: { 'Content-Type': 'application/xml' },
    }),
    415,
  );
});

basics('a body on GET is read and ignored', async ({ api }) => {
  // fetch refuses bodies on GET; send one with node:http.
  const { request } = await import('node:http');
  const payload = '{"ignored": true}';
  const status = await new Promise<number>((ok, fail) => {
    const req = request(
      `${api.base}/_`,
      {
        method: 'GET',
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) },
      },
      (r) => {
        r.resume();
        ok(r.statusCode ?? 0);
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
  assert.is(status, 200);
});

basics('URL over MAX_URL_LENGTH → 414 JSON; huge headers → 431 JSON', async ({ api }) => {
  const body = await expectError(await api.get(`/_?q=${'a'.repeat(9000)}`), 414);
  assert.match(body.message, /8192/);
  const { request } = await import('node:http');
  const res = await new Promise<{ status: number; text: string }>((ok, fail) => {
    const req = request(`${api.base}/_`, { headers: { 'X-Big': 'b'.repeat(70 * 1024) } }, (r) => {
      let text = '';
      r.on('data', (d: Buffer) => (text += d.toString()));
      r.on('end', () => ok({ status: r.statusCode ?? 0, text }));
    });
    req.on('error', fail);
    req.end();
  });
  assert.is(res.status, 431);
  assert.is(JSON.parse(res.text).code, 431);
});

basics('CORS: listed and pattern origins are allowed, others are not', async ({ api }) => {
  const preflight = (origin: string) =>
    api.request('OPTIONS', '/alert', undefined, {
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'Content-Type, Authorization',
      },
    });
  const ok = await preflight('http://wall.example');
  // 200 as flask-cors answers (auth.md §14); @koa/cors alone would say 204.
  assert.is(ok.status, 200);
  assert.is(ok.headers.get('access-control-allow-origin'), 'http://wall.example');
  assert.is(ok.headers.get('access-control-allow-headers'), 'Authorization, Content-Type');
  const pattern = await preflight('https://screen1.noc.example');
  assert.is(pattern.headers.get('access-control-allow-origin'), 'https://screen1.noc.example');
  const other = await preflight('http://evil.example');
  assert.is(other.headers.get('access-control-allow-origin'), null);
  const simple = await api.get('/_', { headers: { Origin: 'http://wall.example' } });
  assert.is(simple.headers.get('access-control-allow-origin'), 'http://wall.example');
  assert.is(simple.headers.get('access-control-expose-headers'), 'X-Request-ID');
});

basics('CORS preflight allows only the requested headers that CORS_ALLOW_HEADERS lists', async ({ api }) => {
  const preflight = (requested: string | null) =>
    api.request('OPTIONS', '/alerts', undefined, {
      headers: {
        Origin: 'http://wall.example',
        'Access-Control-Request-Method': 'GET',
        ...(requested === null ? {} : { 'Access-Control-Request-Headers': requested }),
      },
    });
  const some = await preflight('x-request-id, X-Evil, authorization');
  assert.is(some.status, 200);
  assert.is(some.headers.get('access-control-allow-headers'), 'authorization, x-request-id');
  assert.match(some.headers.get('access-control-allow-methods') ?? '', /GET/);
  assert.is(await some.text(), '');
  const none = await preflight(null);
  assert.is(none.status, 200);
  assert.is(none.headers.get('access-control-allow-headers'), null);
  const refused = await preflight('X-Evil');
  assert.is(refused.headers.get('access-control-allow-headers'), null);
});

basics(
  'every answer says nosniff, a referrer policy and that nobody may frame it',
  async ({ api, origin }) => {
    for (const res of [
      await api.get('/_'),
      await api.get('/no-such-route'),
      await fetch(`${origin}/alerts`),
    ]) {
      assert.is(res.headers.get('x-content-type-options'), 'nosniff', res.url);
      assert.is(res.headers.get('referrer-policy'), 'same-origin', res.url);
      assert.is(res.headers.get('x-frame-options'), 'DENY', res.url);
      assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, res.url);
    }
    const page = await fetch(`${origin}/alerts`);
    assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'self'; script-src 'self'/);
  },
);

basics('FRAME_ANCESTORS lets the named sites frame the pages', async (ctx) => {
  const r = await bootInstance(ctx.db.url, { FRAME_ANCESTORS: 'self,https://grafana.example.com' });
  try {
    for (const path of ['/api/_', '/wall']) {
      const res = await fetch(`http://127.0.0.1:${r.port}${path}`);
      assert.is(res.headers.get('x-frame-options'), null, path);
      assert.match(
        res.headers.get('content-security-policy') ?? '',
        /frame-ancestors 'self' https:\/\/grafana\.example\.com$/,
        path,
      );
      await res.arrayBuffer();
    }
  } finally {
    await r.close();
  }
});

basics('the live socket admits browsers by the same CORS rule, patterns included', async ({ origin }) => {
  // Socket.IO's long-polling handshake is a plain GET: the answer's CORS header is what a browser checks.
  const handshake = (from: string) =>
    fetch(`${origin}/api/socket.io/?EIO=4&transport=polling`, { headers: { Origin: from } });
  const pattern = await handshake('https://screen1.noc.example');
  assert.is(pattern.headers.get('access-control-allow-origin'), 'https://screen1.noc.example');
  assert.is(pattern.headers.get('access-control-allow-credentials'), 'true');
  await pattern.arrayBuffer();
  const exact = await handshake('http://wall.example');
  assert.is(exact.headers.get('access-control-allow-origin'), 'http://wall.example');
  await exact.arrayBuffer();
  const other = await handshake('http://evil.example');
  assert.is(other.headers.get('access-control-allow-origin'), null);
  await other.arrayBuffer();
});

basics('GET /management/gtg is OK while the database answers', async ({ api }) => {
  const res = await api.get('/management/gtg');
  assert.is(res.status, 200);
  assert.is(await res.text(), 'OK');
});

basics.run();

const root = appSuite('API_PREFIX=/ gives the stand-alone layout', {
  TEST_LABEL: 'rootprefix',
  API_PREFIX: '/',
});

root('the API is at the root and the UI at /ui/', async ({ origin }) => {
  const ok = await fetch(`${origin}/_`);
  assert.is(await ok.text(), 'OK');
  const index = (await (await fetch(`${origin}/`)).json()) as { uri: string };
  assert.is(index.uri, origin);
  const ui = await fetch(`${origin}/ui/`);
  assert.match(ui.headers.get('content-type') ?? '', /text\/html/);
  const missing = await fetch(`${origin}/api/_`);
  await expectError(missing, 404);
});

root.run();

const based = appSuite('BASE_URL is used for hrefs', {
  TEST_LABEL: 'baseurl',
  BASE_URL: 'https://alerts.example.com/api',
});

based('the index names BASE_URL, not the request host', async ({ api }) => {
  const index = (await (await api.get('/')).json()) as { uri: string; links: { href: string }[] };
  assert.is(index.uri, 'https://alerts.example.com/api');
  assert.ok(index.links.every((l) => l.href.startsWith('https://alerts.example.com/api/')));
});

based.run();

const built = suite<{ dir: string; server: Server; url: string }>(
  'UI pages from a build: the CSP allows their inline scripts by hash',
  {} as never,
);
built.before(async (ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'alertwall-ui-'));
  const app = new Koa();
  app.use(uiRoutes('/', '/api', { FRAME_ANCESTORS: [], DEFAULT_AUDIO_FILE: null }, ctx.dir).routes());
  ctx.server = app.listen(0, '127.0.0.1');
  await once(ctx.server, 'listening');
  ctx.url = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}`;
});
built.after((ctx) => {
  ctx.server?.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

built('index.html and every SPA path carry the hash of the page’s start-up script', async (ctx) => {
  const script = (n: number) => `{ __start = ${n}; import('./_app/start.js'); }`;
  const sha = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
  writeFileSync(join(ctx.dir, 'index.html'), `<html><body><script>${script(1)}</script></body></html>`);
  for (const path of ['/', '/alerts', '/wall?kiosk=1']) {
    const res = await fetch(`${ctx.url}${path}`);
    assert.match(await res.text(), /__start = 1/);
    assert.match(res.headers.get('content-security-policy') ?? '', `script-src 'self' ${sha(script(1))};`);
  }
  // A new build (a new start-up script) is picked up without a restart.
  writeFileSync(join(ctx.dir, 'index.html'), `<html><body><script>${script(2)}</script></body></html>`);
  utimesSync(join(ctx.dir, 'index.html'), new Date(), new Date(Date.now() + 5000));
  const res = await fetch(`${ctx.url}/`);
  await res.arrayBuffer();
  assert.match(res.headers.get('content-security-policy') ?? '', sha(script(2)));
});

built.run();
