/**
 * The socket hub works out a request's scheme and host (server/request.ts) as Koa does for HTTP,
 * so a live alert's href is the one GET /alert/:id gives: compared here with Koa's own
 * `ctx.protocol` and `ctx.host`, with USE_PROXYFIX (Koa's `proxy`) off and on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiBase } from '../../server/base-url.ts';
import { requestOrigin } from '../../server/request.ts';

function koaOrigin(proxy: boolean, headers: Record<string, string>, encrypted: boolean) {
  const app = new Koa({ proxy });
  const req = { headers, socket: { encrypted }, httpVersionMajor: 1, url: '/', method: 'GET' };
  const ctx = app.createContext(req as unknown as IncomingMessage, {} as ServerResponse);
  return { protocol: ctx.protocol, host: ctx.host };
}

const CASES: [Record<string, string>, boolean][] = [
  [{ host: 'alerts.example:8080' }, false],
  [{ host: 'alerts.example' }, true],
  [{}, false],
  [{ host: 'user@alerts.example' }, false],
  [
    { host: '10.0.0.5', 'x-forwarded-proto': 'HTTPS, http', 'x-forwarded-host': 'a.example, b.example' },
    false,
  ],
  [{ host: '10.0.0.5', 'x-forwarded-proto': 'https' }, false],
  [{ host: '10.0.0.5', 'x-forwarded-host': 'a.example' }, true],
  [{ host: '[::1]:9000' }, false],
];

test('the same scheme and host as Koa, with and without USE_PROXYFIX', () => {
  for (const proxy of [false, true]) {
    for (const [headers, encrypted] of CASES) {
      const header = (name: string) => headers[name.toLowerCase()] ?? '';
      assert.equal(
        requestOrigin({ USE_PROXYFIX: proxy }, { header, encrypted }),
        koaOrigin(proxy, headers, encrypted),
        `proxy ${proxy} ${JSON.stringify(headers)} encrypted ${encrypted}`,
      );
    }
  }
});

test('the API base: BASE_URL when set, else the origin and API_PREFIX', () => {
  const origin = { protocol: 'https', host: 'alerts.example' };
  assert.is(apiBase(origin, { BASE_URL: '', API_PREFIX: '/api' }), 'https://alerts.example/api');
  assert.is(
    apiBase(origin, { BASE_URL: 'http://x.example/alerta/', API_PREFIX: '/api' }),
    'http://x.example/alerta',
  );
});

test.run();
