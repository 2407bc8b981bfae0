import * as assert from 'uvu/assert';
import { HeartbeatSchema, type Heartbeat } from '../../shared/heartbeats.ts';
import { staleHeartbeats } from '../../server/domain/heartbeats.ts';
import { appSuite } from '../helpers/app.ts';
import { nextEvent } from '../helpers/bus.ts';
import type { Api } from '../helpers/api.ts';

type Json = Record<string, unknown>;
let n = 0;
/** A name no other test uses, so each test owns its heartbeats. */
const fresh = (label: string) => `${label}-${++n}-${Date.now()}`;
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

async function post(api: Api, body: unknown): Promise<{ status: number; body: Json }> {
  const res = await api.post('/heartbeat', body);
  return { status: res.status, body: (await res.json()) as Json };
}
async function created(api: Api, body: Json): Promise<Heartbeat> {
  const res = await post(api, body);
  assert.is(res.status, 201, JSON.stringify(res.body));
  return HeartbeatSchema.parse(res.body.heartbeat);
}
async function get(api: Api, path: string): Promise<{ status: number; body: Json }> {
  const res = await api.get(path);
  return { status: res.status, body: (await res.json()) as Json };
}
const listed = async (api: Api, query: string) => {
  const { status, body } = await get(api, `/heartbeats?${query}`);
  assert.is(status, 200, JSON.stringify(body));
  return body as Json & { heartbeats: Heartbeat[] };
};

const hb = appSuite('heartbeats API', { TEST_LABEL: 'heartbeats' });

hb('POST /heartbeat stores a heartbeat with the defaults and answers 201', async ({ api, running }) => {
  const origin = fresh('cron/web1');
  const res = await post(api, { origin, tags: ['dc1'], attributes: { environment: 'Production' } });
  assert.is(res.status, 201);
  assert.equal(Object.keys(res.body).sort(), ['heartbeat', 'id', 'status']);
  assert.is(res.body.status, 'ok');
  const h = HeartbeatSchema.parse(res.body.heartbeat);
  assert.is(h.id, res.body.id);
  assert.equal(Object.keys(h).sort(), Object.keys(HeartbeatSchema.shape).sort());
  assert.equal(
    [h.origin, h.tags, h.attributes, h.type, h.timeout, h.customer],
    [
      origin,
      ['dc1'],
      { environment: 'Production' },
      'Heartbeat',
      running.deps.config.HEARTBEAT_TIMEOUT,
      null,
    ],
  );
  assert.is(h.href, `${api.base}/heartbeat/${h.id}`);
  assert.equal([h.maxLatency, h.since, h.status], [running.deps.config.HEARTBEAT_MAX_LATENCY, 0, 'ok']);
  assert.ok(Math.abs(Date.parse(h.receiveTime) - Date.now()) < 60_000);

  // Nulls mean "not given", and an absent origin gets the server's own.
  const bare = await created(api, {
    origin: null,
    tags: null,
    attributes: null,
    timeout: null,
    customer: null,
  });
  assert.match(bare.origin, /^alertwall\//);
  assert.equal([bare.tags, bare.attributes], [[], {}]);
});

hb(
  'the same origin and customer update in place: same id, new receiveTime, bus event',
  async ({ api, running }) => {
    const origin = fresh('agent/db1');
    const first = await created(api, {
      origin,
      tags: ['a'],
      timeout: 120,
      createTime: ago(100),
      type: 'Custom',
    });
    await sleep(20);
    const seen = nextEvent(
      running.deps.bus,
      (e) => e.type === 'heartbeat.updated' && e.heartbeat.origin === origin,
    );
    const second = await created(api, { origin, tags: ['b'], attributes: { x: '1' }, timeout: 300 });
    assert.is(second.id, first.id);
    assert.ok(Date.parse(second.receiveTime) > Date.parse(first.receiveTime));
    assert.equal(
      [second.tags, second.attributes, second.timeout, second.type],
      [['b'], { x: '1' }, 300, 'Custom'],
    );
    const event = await seen;
    assert.is(event.type, 'heartbeat.updated');
    if (event.type === 'heartbeat.updated') assert.equal(event.heartbeat, second);

    const other = await created(api, { origin, customer: 'acme' });
    assert.is.not(other.id, first.id);
    assert.is(other.customer, 'acme');
    const both = await listed(api, `origin=${encodeURIComponent(origin)}`);
    assert.is(both.total, 2);
  },
);

hb('GET /heartbeat/:id by id or id prefix; 404 JSON when unknown', async ({ api }) => {
  const h = await created(api, { origin: fresh('get') });
  for (const id of [h.id, h.id.slice(0, 8), h.id.toUpperCase()]) {
    const res = await get(api, `/heartbeat/${id}`);
    assert.is(res.status, 200);
    assert.equal(Object.keys(res.body).sort(), ['heartbeat', 'status', 'total']);
    assert.equal([res.body.status, res.body.total], ['ok', 1]);
    assert.is(HeartbeatSchema.parse(res.body.heartbeat).id, h.id);
  }
  const missing = await get(api, '/heartbeat/ffffffff-0000-0000-0000-000000000000');
  assert.is(missing.status, 404);
  assert.equal([missing.body.status, missing.body.message, missing.body.code], ['error', 'not found', 404]);
  const odd = await get(api, `/heartbeat/${encodeURIComponent("%_'\\x")}`);
  assert.is(odd.status, 404);
});

hb('status goes ok → slow → expired', async ({ api, running }) => {
  const origin = fresh('transitions');
  const ok = await created(api, { origin, timeout: 1 });
  assert.is(ok.status, 'ok');
  const slow = await created(api, { origin, timeout: 1, createTime: ago(60_000) });
  assert.is(slow.id, ok.id);
  assert.ok(slow.latency >= 60_000, String(slow.latency));
  assert.is(slow.status, 'slow');
  assert.ok(slow.latency > running.deps.config.HEARTBEAT_MAX_LATENCY);
  await sleep(1500);
  const res = await get(api, `/heartbeat/${ok.id}`);
  const expired = HeartbeatSchema.parse(res.body.heartbeat);
  assert.equal([expired.status, expired.since], ['expired', 1]);
  assert.is(expired.latency, slow.latency);
});

hb('status= filter (repeatable); total counts the other filters only', async ({ api }) => {
  const tag = fresh('status-filter');
  const ok = await created(api, { origin: fresh('ok'), tags: [tag] });
  const slow = await created(api, { origin: fresh('slow'), tags: [tag], createTime: ago(10_000) });
  const expired = await created(api, { origin: fresh('expired'), tags: [tag], timeout: 1 });
  await sleep(1200);
  const ids = (body: { heartbeats: Heartbeat[] }) => body.heartbeats.map((h) => h.id).sort();

  const onlyOk = await listed(api, `tag=${tag}&status=ok`);
  assert.equal(ids(onlyOk), [ok.id]);
  assert.is(onlyOk.heartbeats[0]!.status, 'ok');
  assert.is(onlyOk.total, 3); // as Alerta: status is not counted (heartbeats-blackouts.md §1)
  assert.equal(ids(await listed(api, `tag=${tag}&status=slow`)), [slow.id]);
  assert.equal(ids(await listed(api, `tag=${tag}&status=expired`)), [expired.id]);
  assert.equal(ids(await listed(api, `tag=${tag}&status=ok&status=expired`)), [ok.id, expired.id].sort());
  const all = await listed(api, `tag=${tag}`);
  assert.equal(ids(all), [ok.id, slow.id, expired.id].sort());
  assert.equal(
    all.heartbeats.map((h) => [h.id, h.status]).sort(),
    [
      [ok.id, 'ok'],
      [slow.id, 'slow'],
      [expired.id, 'expired'],
    ].sort(),
  );

  const bad = await get(api, '/heartbeats?status=asleep');
  assert.is(bad.status, 400);
  assert.equal([bad.body.status, bad.body.code], ['error', 400]);
});

hb('field filters: origin, type, timeout, customer, attributes.<k>, times', async ({ api }) => {
  const tag = fresh('fields');
  const a = await created(api, {
    origin: fresh('alpha'),
    tags: [tag],
    type: 'Cron',
    timeout: 77,
    attributes: { env: 'Prod' },
    createTime: '2024-05-01T12:00:00.000Z',
  });
  const b = await created(api, { origin: fresh('beta'), tags: [tag], customer: 'acme' });
  const only = async (query: string) =>
    (await listed(api, `tag=${tag}&${query}`)).heartbeats.map((h) => h.id);
  assert.equal(await only(`origin=${a.origin}`), [a.id]);
  assert.equal(await only('origin=~ALPHA'), [a.id]);
  assert.equal(await only(`origin!=${a.origin}`), [b.id]);
  assert.equal(await only('type=Cron'), [a.id]);
  assert.equal(await only('timeout=77'), [a.id]);
  assert.equal(await only('customer=acme'), [b.id]);
  assert.equal(await only('attributes.env=Prod'), [a.id]);
  assert.equal(await only('createTime=2024-05-01T12:00:00.000Z'), [a.id]);
  assert.equal(await only(`receiveTime=${encodeURIComponent(b.receiveTime)}`), [b.id]);
  assert.equal(await only('attributes.env=~pro'), [a.id]);
  assert.equal((await only(`tag=~${tag.slice(2, 10).toUpperCase()}`)).sort(), [a.id, b.id].sort());
  assert.equal(await only(`tag!=${tag}`), []);
  assert.equal(await only(`id=${a.id.slice(0, 8)}`), [a.id]);
  assert.equal(await only('sort-by=origin'), [a.id, b.id]);
  assert.equal(await only('sort-by=-origin'), [b.id, a.id]);

  for (const query of ['foo=1', 'timeout=abc', 'createTime=yesterday', 'sort-by=nope']) {
    const res = await get(api, `/heartbeats?${query}`);
    assert.is(res.status, 400, query);
    assert.equal([res.body.status, res.body.code], ['error', 400]);
  }
});

hb('paging: page, page-size, more, 416 past the end, and the empty form', async ({ api }) => {
  const tag = fresh('paging');
  for (let i = 0; i < 3; i++) await created(api, { origin: fresh('page'), tags: [tag] });
  const first = await listed(api, `tag=${tag}&page-size=2`);
  assert.equal(
    [first.status, first.total, first.page, first.pageSize, first.pages, first.more, first.heartbeats.length],
    ['ok', 3, 1, 2, 2, true, 2],
  );
  assert.is(first.message, undefined);
  const second = await listed(api, `tag=${tag}&page-size=2&page=2`);
  assert.equal([second.page, second.more, second.heartbeats.length], [2, false, 1]);
  const seen = new Set([...first.heartbeats, ...second.heartbeats].map((h) => h.id));
  assert.is(seen.size, 3);
  // Newest receipt first by default.
  const times = [...first.heartbeats, ...second.heartbeats].map((h) => Date.parse(h.receiveTime));
  assert.equal(
    times,
    [...times].sort((x, y) => y - x),
  );

  const past = await get(api, `/heartbeats?tag=${tag}&page-size=2&page=3`);
  assert.is(past.status, 416);
  assert.equal([past.body.status, past.body.message], ['error', 'page out of range: 1-2']);
  assert.is((await get(api, `/heartbeats?tag=${tag}&page=0`)).status, 400);

  const empty = await listed(api, `tag=${fresh('nothing')}`);
  assert.equal(empty, {
    status: 'ok',
    message: 'not found',
    heartbeats: [],
    total: 0,
    page: 1,
    pageSize: 1000,
    pages: 0,
    more: false,
  });
});

hb('DELETE /heartbeat/:id removes it and tells the bus; 404 JSON when unknown', async ({ api, running }) => {
  const h = await created(api, { origin: fresh('gone'), customer: 'acme' });
  const seen = nextEvent(running.deps.bus, (e) => e.type === 'heartbeat.deleted' && e.id === h.id);
  const res = await api.delete(`/heartbeat/${h.id}`);
  assert.is(res.status, 200);
  assert.equal(await res.json(), { status: 'ok' });
  assert.equal(await seen, { type: 'heartbeat.deleted', id: h.id, customer: 'acme' });
  assert.is((await get(api, `/heartbeat/${h.id}`)).status, 404);
  const again = await api.delete(`/heartbeat/${h.id}`);
  assert.is(again.status, 404);
  const body = (await again.json()) as Json;
  assert.equal([body.status, body.message, body.code], ['error', 'not found', 404]);
});

hb('bad bodies are JSON 400s naming the problem, and store nothing', async ({ api }) => {
  const origin = fresh('invalid');
  const cases: [unknown, string][] = [
    [{ origin, tags: 'dc1' }, 'tags must be a list'],
    [{ origin, timeout: 'soon' }, 'timeout must be an integer'],
    [{ origin, timeout: 1.5 }, 'timeout must be an integer'],
    [{ origin, timeout: -5 }, 'negative'],
    [{ origin, timeout: 2 ** 40 }, 'timeout must be at most'],
    [{ origin, attributes: ['a'] }, 'attributes must be a JSON object'],
    [{ origin, attributes: { 'a.b': 1 } }, 'must not contain'],
    [{ origin, attributes: { $x: 1 } }, 'must not contain'],
    [{ origin, customer: '' }, 'customer must not be an empty string'],
    [{ origin, origin2: 1, createTime: 'now' }, 'dates must be ISO 8601'],
    [{ origin: 5 }, 'origin must be a string'],
    [[], 'expected a JSON object'],
    ['x', 'expected a JSON object'],
  ];
  for (const [body, message] of cases) {
    const res = await post(api, body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.equal([res.body.status, res.body.code], ['error', 400]);
    const text = `${String(res.body.message)} ${JSON.stringify(res.body.errors)}`;
    assert.ok(text.includes(message), `${JSON.stringify(body)} → ${text}`);
  }
  const res = await api.post('/heartbeat', undefined, {
    raw: '{"origin":',
    headers: { 'Content-Type': 'application/json' },
  });
  assert.is(res.status, 400);
  assert.is(((await res.json()) as Json).status, 'error');
  assert.is((await listed(api, `origin=${origin}`)).total, 0);
});

hb('staleHeartbeats: receive age beyond 4 × timeout', async ({ api, running }) => {
  const stale = await created(api, { origin: fresh('stale'), timeout: 0 });
  const fine = await created(api, { origin: fresh('fine'), timeout: 60 });
  await sleep(20);
  const origins = (await staleHeartbeats(running.deps)).map((h) => h.origin);
  assert.ok(origins.includes(stale.origin));
  assert.not.ok(origins.includes(fine.origin));
});

hb.run();
