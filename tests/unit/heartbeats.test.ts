import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HeartbeatInputSchema, heartbeatStatus } from '../../shared/heartbeats.ts';
import type { HeartbeatRow } from '../../server/db/heartbeats.ts';
import { assignCustomer, parseHeartbeatQuery } from '../../server/domain/heartbeats.ts';
import { AppError } from '../../server/errors.ts';
import { presentHeartbeat } from '../../server/present.ts';

const NOW = Date.parse('2024-05-01T12:00:00.000Z');
const row = (over: Partial<HeartbeatRow> = {}): HeartbeatRow => ({
  id: '0b1e8c1a-4c1f-4d3e-9a57-0f5e2c1d9b01',
  origin: 'cron/host1',
  tags: [],
  attributes: {},
  type: 'Heartbeat',
  createTime: NOW - 100,
  receiveTime: NOW,
  timeout: 60,
  customer: null,
  ...over,
});
const present = (r: HeartbeatRow, now = NOW) =>
  presentHeartbeat(r, { baseUrl: 'http://x/api', maxLatency: 2000, now });

const status = suite('heartbeat status');

status('ok when fresh and fast', () => {
  assert.is(heartbeatStatus({ ageMs: 0, timeout: 60, latency: 0, maxLatency: 2000 }), 'ok');
  assert.is(heartbeatStatus({ ageMs: 60_000, timeout: 60, latency: 2000, maxLatency: 2000 }), 'ok');
});

status('slow when latency exceeds maxLatency (strictly)', () => {
  assert.is(heartbeatStatus({ ageMs: 0, timeout: 60, latency: 2001, maxLatency: 2000 }), 'slow');
});

status('expired wins over slow, and compares the exact age with the timeout', () => {
  assert.is(heartbeatStatus({ ageMs: 60_001, timeout: 60, latency: 5000, maxLatency: 2000 }), 'expired');
  assert.is(heartbeatStatus({ ageMs: 1500, timeout: 1, latency: 0, maxLatency: 2000 }), 'expired');
  assert.is(heartbeatStatus({ ageMs: 1, timeout: 0, latency: 0, maxLatency: 2000 }), 'expired');
  assert.is(heartbeatStatus({ ageMs: 0, timeout: 0, latency: 0, maxLatency: 2000 }), 'ok');
});

status('a negative latency (sender clock ahead) is ok', () => {
  assert.is(heartbeatStatus({ ageMs: 0, timeout: 60, latency: -90_000, maxLatency: 2000 }), 'ok');
});

status.run();

const shape = suite('presentHeartbeat');

shape('latency in ms, since in whole seconds, status and href', () => {
  const hb = present(row({ createTime: NOW - 2500, receiveTime: NOW - 1999 }), NOW);
  assert.equal([hb.latency, hb.maxLatency, hb.since, hb.status], [501, 2000, 1, 'ok']);
  assert.is(hb.href, 'http://x/api/heartbeat/0b1e8c1a-4c1f-4d3e-9a57-0f5e2c1d9b01');
  assert.is(hb.createTime, '2024-05-01T11:59:57.500Z');
  assert.is(hb.receiveTime, '2024-05-01T11:59:58.001Z');
});

shape('ok → slow → expired as time and latency change', () => {
  assert.is(present(row()).status, 'ok');
  assert.is(present(row({ createTime: NOW - 60_000 })).status, 'slow');
  const expired = present(row({ createTime: NOW - 60_000, timeout: 1 }), NOW + 1500);
  assert.equal([expired.since, expired.status], [1, 'expired']);
});

shape('since never goes below 0 (receipt in the future of the reader)', () => {
  assert.is(present(row({ receiveTime: NOW + 5000 })).since, 0);
});

shape.run();

const query = suite('GET /heartbeats parameters');

const fails = (fn: () => unknown, message: RegExp) => {
  try {
    fn();
  } catch (err) {
    assert.instance(err, AppError);
    assert.is((err as AppError).status, 400);
    assert.match((err as AppError).message, message);
    return;
  }
  assert.unreachable('expected a 400');
};

query('status repeats, filters are typed, default order newest receipt first', () => {
  const q = parseHeartbeatQuery(
    new URLSearchParams(
      'status=ok&status=slow&origin=a&origin=b&timeout=60&tag=x&attributes.env=Prod&page=2',
    ),
    1000,
  );
  assert.equal(q.statuses, ['ok', 'slow']);
  assert.equal(q.filters, [
    { kind: 'in', field: 'origin', values: ['a', 'b'], negated: false },
    { kind: 'in', field: 'timeout', values: [60], negated: false },
    { kind: 'tag', values: ['x'], contains: false, negated: false },
    { kind: 'attribute', key: 'env', values: ['Prod'], contains: false, negated: false },
  ]);
  assert.equal(q.sort, [{ field: 'receiveTime', descending: true }]);
  assert.equal([q.page, q.pageSize], [2, 1000]);
});

query('times parse to epoch ms; ~ is a substring; ! negates', () => {
  const q = parseHeartbeatQuery(
    new URLSearchParams('createTime=2024-05-01T12:00:00.000Z&origin!=~cron&sort-by=origin&page-size=5'),
    1000,
  );
  assert.equal(q.filters, [
    { kind: 'in', field: 'createTime', values: [NOW], negated: false },
    { kind: 'like', field: 'origin', values: ['cron'], negated: true },
  ]);
  assert.equal(q.sort, [{ field: 'origin', descending: false }]);
  assert.is(q.pageSize, 5);
});

query('bad parameters are 400s naming the problem', () => {
  fails(() => parseHeartbeatQuery(new URLSearchParams('status=asleep'), 1000), /Invalid status: 'asleep'/);
  fails(() => parseHeartbeatQuery(new URLSearchParams('foo=1'), 1000), /Invalid filter parameter: foo/);
  fails(() => parseHeartbeatQuery(new URLSearchParams('timeout=abc'), 1000), /not an integer/);
  fails(() => parseHeartbeatQuery(new URLSearchParams('receiveTime=yesterday'), 1000), /receiveTime/);
  fails(() => parseHeartbeatQuery(new URLSearchParams('timeout=~6'), 1000), /cannot be matched with ~/);
  fails(() => parseHeartbeatQuery(new URLSearchParams('sort-by=latency'), 1000), /Sorting by 'latency'/);
  fails(() => parseHeartbeatQuery(new URLSearchParams('page=0'), 1000), /page/);
});

query.run();

const input = suite('POST /heartbeat body and customer');

const messages = (body: unknown) => {
  const r = HeartbeatInputSchema.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

input('null is absent; the reference messages for bad fields', () => {
  assert.equal(messages({ origin: null, tags: null, attributes: null, timeout: null, customer: null }), []);
  assert.equal(messages({ tags: 'a' }), ['tags must be a list']);
  assert.equal(messages({ timeout: '60' }), ['timeout must be an integer']);
  assert.equal(messages({ timeout: 1.5 }), ['timeout must be an integer']);
  assert.equal(messages({ attributes: [] }), ['attributes must be a JSON object']);
  assert.equal(messages({ customer: '' }), ['customer must not be an empty string']);
  assert.ok(messages({ attributes: { 'a.b': 1 } })[0]?.includes('"."'));
  assert.ok(messages({ timeout: -1 })[0]?.includes('negative'));
  assert.equal(messages({ createTime: '2024-05-01' }), [
    'dates must be ISO 8601 date format YYYY-MM-DDThh:mm:ss.sssZ',
  ]);
  assert.equal(messages([]), ['expected a JSON object']);
});

input('customer assignment (lifecycle §3)', () => {
  assert.is(assignCustomer(undefined, null), null);
  assert.is(assignCustomer('acme', null), 'acme');
  assert.is(assignCustomer(undefined, ['acme']), 'acme');
  assert.is(assignCustomer('acme', ['acme', 'beta']), 'acme');
  assert.throws(() => assignCustomer('other', ['acme']), /not allowed to set customer to 'other'/);
  assert.throws(() => assignCustomer(null, ['acme', 'beta']), /more than one possibility/);
});

input.run();
