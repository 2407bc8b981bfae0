import { Writable } from 'node:stream';
import type { Context } from 'koa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accessLog } from '../../server/http/middleware/access-log.ts';
import { createLog } from '../../server/log.ts';
import { createMetrics } from '../../server/metrics.ts';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, log: createLog(level, false, sink) };
}

/** A bare request context: what the access log reads of one. */
const request = (method: string, url: string, status: number, fields: object = {}) =>
  ({
    method,
    originalUrl: url,
    status,
    state: { requestId: 'r1' },
    response: { length: 12 },
    ip: '10.0.0.1',
    ...fields,
  }) as unknown as Context;

test('counts requests by method and status class, each under its own labels', async () => {
  const metrics = createMetrics();
  const middleware = accessLog(capture('silent').log, metrics);
  for (const [method, status] of [
    ['GET', 200],
    ['GET', 204],
    ['GET', 404],
    ['POST', 201],
    ['POST', 201],
    ['POST', 503],
  ] as const)
    await middleware(request(method, '/api/x', status), async () => {});
  const { values } = await metrics.httpRequests.get();
  const counts = Object.fromEntries(values.map((v) => [`${v.labels.method} ${v.labels.status}`, v.value]));
  assert.equal(counts, { 'GET 2xx': 2, 'GET 4xx': 1, 'POST 2xx': 2, 'POST 5xx': 1 });
  const durations = (await metrics.httpDuration.get()).values.filter((v) => v.metricName?.endsWith('_count'));
  assert.equal(Object.fromEntries(durations.map((v) => [v.labels.method, v.value])), { GET: 3, POST: 3 });
});

test('writes the line, key redacted, at info', async () => {
  const { lines, log } = capture('info');
  await accessLog(log, createMetrics())(
    request('GET', '/api/alerts?api-key=secret&q=x', 200),
    async () => {},
  );
  assert.is(lines.length, 1);
  const { time: _, ms, ...line } = lines[0]!;
  assert.type(ms, 'number');
  assert.equal(line, {
    level: 'info',
    requestId: 'r1',
    method: 'GET',
    path: '/api/alerts?api-key=[redacted]&q=x',
    status: 200,
    bytes: 12,
    ip: '10.0.0.1',
    msg: 'http.request',
  });
});

test('above info, no line and none of its fields are worked out', async () => {
  const { lines, log } = capture('warning');
  const untouchable = request('GET', '/api/alerts', 200);
  for (const field of ['ip', 'originalUrl', 'response'])
    Object.defineProperty(untouchable, field, {
      get() {
        throw new Error(`${field} read`);
      },
    });
  await accessLog(log, createMetrics())(untouchable, async () => {});
  assert.is(lines.length, 0);
});

test.run();
