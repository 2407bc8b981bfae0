import type { IncomingMessage, ServerResponse } from 'node:http';
import Koa from 'koa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appError } from '../../server/errors.ts';
import { allowedRequestHeaders, corsFrom } from '../../server/http/middleware/cors.ts';

test('CORS preflight: the requested headers that are allowed, in the request spelling, sorted', () => {
  const allowed = ['Content-Type', 'Authorization', 'Access-Control-Allow-Origin', 'X-Request-ID'];
  assert.equal(allowedRequestHeaders('x-request-id, content-type, X-Evil', allowed), [
    'content-type',
    'x-request-id',
  ]);
  assert.equal(allowedRequestHeaders('', allowed), []);
  assert.equal(allowedRequestHeaders('X-Anything', ['*']), ['X-Anything']);
});

/** A Koa context whose response keeps its headers in a Map, in the order they were first set. */
function requestTo(method: string, path: string, headers: Record<string, string> = {}) {
  const sent = new Map<string, [string, string]>();
  const res = {
    headersSent: false,
    getHeader: (name: string) => sent.get(name.toLowerCase())?.[1],
    setHeader(name: string, value: string) {
      sent.set(name.toLowerCase(), [name, value]);
    },
    removeHeader: (name: string) => sent.delete(name.toLowerCase()),
    hasHeader: (name: string) => sent.has(name.toLowerCase()),
    getHeaders: () => Object.fromEntries([...sent].map(([k, [, v]]) => [k, v])),
  } as unknown as ServerResponse;
  const lowered = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const req = { method, url: path, headers: lowered, socket: {} } as unknown as IncomingMessage;
  const ctx = new Koa().createContext(req, res);
  return { ctx, headers: () => [...sent.values()] };
}

const listed = ['http://wall.example', '^https://\\w+\\.noc\\.example$'];
const middleware = (origins: string[]) =>
  corsFrom(origins, ['Content-Type'], false, (path) => path.startsWith('/api/auth/'));

test('other requests than preflights get Vary, and the allow and expose headers when the origin is allowed', async () => {
  const cases: [string[], string, Record<string, string>, [string, string][]][] = [
    [listed, '/api/alert', {}, [['Vary', 'Origin']]],
    [listed, '/api/alert', { Origin: 'http://evil.example' }, [['Vary', 'Origin']]],
    [
      listed,
      '/api/alert',
      { Origin: 'https://screen1.noc.example' },
      [
        ['Vary', 'Origin'],
        ['Access-Control-Allow-Origin', 'https://screen1.noc.example'],
        ['Access-Control-Expose-Headers', 'X-Request-ID'],
      ],
    ],
    [
      listed,
      '/api/auth/login',
      { Origin: 'http://wall.example' },
      [
        ['Vary', 'Origin'],
        ['Access-Control-Allow-Origin', 'http://wall.example'],
        ['Access-Control-Allow-Credentials', 'true'],
        ['Access-Control-Expose-Headers', 'X-Request-ID'],
      ],
    ],
    [
      ['*'],
      '/api/alert',
      {},
      [
        ['Vary', 'Origin'],
        ['Access-Control-Allow-Origin', '*'],
        ['Access-Control-Expose-Headers', 'X-Request-ID'],
      ],
    ],
  ];
  for (const [origins, path, headers, want] of cases) {
    const { ctx, headers: got } = requestTo('POST', path, headers);
    let reached = false;
    await middleware(origins)(ctx, async () => {
      reached = true;
    });
    assert.ok(reached);
    assert.equal(got(), want, `${origins.join(' ')} ${path} ${JSON.stringify(headers)}`);
  }
});

test('a failure below carries the CORS headers on the error, as @koa/cors puts them there', async () => {
  const allowed = requestTo('PUT', '/api/alert/x/status', { Origin: 'http://wall.example' });
  const failure = appError('database_unavailable').with({ headers: { 'Retry-After': '5' } });
  const thrown = await middleware(listed)(allowed.ctx, () => Promise.reject(failure)).catch(
    (e: unknown) => e,
  );
  assert.is(thrown, failure);
  assert.equal(Object.entries(failure.headers ?? {}), [
    ['Retry-After', '5'],
    ['Access-Control-Allow-Origin', 'http://wall.example'],
    ['Access-Control-Expose-Headers', 'X-Request-ID'],
    ['vary', 'Origin'],
  ]);
  const refused = requestTo('PUT', '/api/alert/x/status', { Origin: 'http://evil.example' });
  const plain = appError('invalid_request', 'bad');
  assert.is(
    await middleware(listed)(refused.ctx, () => Promise.reject(plain)).catch((e: unknown) => e),
    plain,
  );
  assert.is(plain.headers, undefined);
});

test.run();
