import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionError } from 'slonik';
import { z } from 'zod';
import { errors } from '../../server/http/middleware/errors.ts';
import { requestId } from '../../server/http/middleware/request-id.ts';
import { appError } from '../../server/errors.ts';
import { createLog } from '../../server/log.ts';

/** The errors middleware on its own, behind a real socket, fed every kind of failure. */
async function serve(thrower: () => unknown): Promise<{ url: string; server: Server }> {
  const app = new Koa();
  app.use(requestId());
  app.use(errors(createLog('silent')));
  app.use(() => {
    throw thrower();
  });
  const server = createServer(app.callback());
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

async function call(thrower: () => unknown) {
  const { url, server } = await serve(thrower);
  try {
    const res = await fetch(url);
    return {
      status: res.status,
      body: (await res.json()) as Record<string, unknown>,
      requestId: res.headers.get('x-request-id'),
      retryAfter: res.headers.get('retry-after'),
    };
  } finally {
    server.close();
  }
}

test('an unexpected error is a 500 with a plain message: no SQL, no stack', async () => {
  const r = await call(() => {
    const e = new Error('syntax error at or near "FROM" in SELECT * FROM alerts WHERE id = $1');
    e.stack = 'Error: boom\n    at handler (/srv/server/db/alerts.ts:10:5)';
    return e;
  });
  assert.is(r.status, 500);
  assert.equal(r.body, {
    status: 'error',
    message: 'An internal error has occurred!',
    code: 500,
    errors: null,
    requestId: r.requestId,
    errorCode: 'internal_error',
  });
});

test('a thrown non-Error value is still a clean 500', async () => {
  const r = await call(() => 'just a string');
  assert.is(r.status, 500);
  assert.is(r.body.message, 'An internal error has occurred!');
});

test('AppError keeps its status, message, errors and catalogue code', async () => {
  const r = await call(() =>
    appError('invalid_transition', 'alert is already in ack status').with({ errors: ['detail'] }),
  );
  assert.is(r.status, 409);
  assert.equal(
    [r.body.message, r.body.code, r.body.errors, r.body.errorCode],
    ['alert is already in ack status', 409, ['detail'], 'invalid_transition'],
  );
});

test('a zod error is a 400 listing every bad field', async () => {
  const r = await call(
    () =>
      z.object({ resource: z.string(), timeout: z.number() }).safeParse({ resource: 1, timeout: 'x' }).error,
  );
  assert.is(r.status, 400);
  assert.is(r.body.errorCode, 'invalid_request');
  const errs = r.body.errors as string[];
  assert.is(errs.length, 2);
  assert.ok(errs.some((e) => e.startsWith('resource:')));
  assert.ok(errs.some((e) => e.startsWith('timeout:')));
});

test('a long list of errors is cut to the first 20 and a count, whatever threw it', async () => {
  const many = z.array(z.string()).safeParse(Array.from({ length: 100_000 }, (_, i) => i)).error;
  const zod = await call(() => many);
  assert.is(zod.status, 400);
  const listed = zod.body.errors as string[];
  assert.is(listed.length, 21);
  assert.is(listed[0], '0: Invalid input: expected string, received number');
  assert.is(listed[20], '… and 99980 more');
  assert.is(zod.body.message, '100000 invalid fields');

  const app = await call(() =>
    appError('invalid_request', 'x'.repeat(50_000)).with({ errors: Array(5000).fill('y'.repeat(5000)) }),
  );
  const errors = app.body.errors as string[];
  assert.is(errors.length, 21);
  assert.is(errors[20], '… and 4980 more');
  assert.ok(errors.slice(0, 20).every((e) => e === `${'y'.repeat(1000)}…`));
  assert.is(app.body.message, `${'x'.repeat(1000)}…`);
  assert.ok(JSON.stringify(app.body).length < 25_000);
});

test('a database outage is a 503 with Retry-After and our message, also when wrapped or bare', async () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5433'), { code: 'ECONNREFUSED' });
  const outage = new ConnectionError(refused.message, { cause: refused });
  for (const thrown of [outage, new Error(`lookup failed: ${outage.message}`, { cause: outage }), refused]) {
    const r = await call(() => thrown);
    assert.is(r.status, 503);
    assert.is(r.retryAfter, '5');
    assert.equal(r.body, {
      status: 'error',
      message: 'The database is unavailable; try again shortly',
      code: 503,
      errors: null,
      requestId: r.requestId,
      errorCode: 'database_unavailable',
    });
  }
});

test.run();
