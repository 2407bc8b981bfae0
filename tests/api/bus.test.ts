import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LiveEvent } from '../../shared/events.ts';
import { createLog } from '../../server/log.ts';
import { createMetrics } from '../../server/metrics.ts';
import { createMemoryBus, type Bus, type BusPosition } from '../../server/realtime/bus.ts';
import { createRedisBus } from '../../server/realtime/redis-bus.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = createLog('silent');
const deleted = (id: string): LiveEvent => ({ type: 'alert.deleted', id, customer: null });

function nextEvent(bus: Bus, timeoutMs = 5000): Promise<{ event: LiveEvent; origin: string; seq: number }> {
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('no bus message within timeout')), timeoutMs);
    const off = bus.subscribe((event, info) => {
      clearTimeout(timer);
      off();
      ok({ event, ...info });
    });
  });
}

const memory = suite('in-process bus');

memory('delivers to every subscriber after publish returns, numbered from 1', async () => {
  const bus = createMemoryBus({ log, metrics: createMetrics() });
  const a = nextEvent(bus);
  const b = nextEvent(bus);
  await bus.publish(deleted('one'));
  const [ra, rb] = await Promise.all([a, b]);
  assert.equal(ra.event, deleted('one'));
  assert.equal(rb.event, deleted('one'));
  assert.is(ra.seq, 1);
  assert.is(ra.origin, bus.instanceId);
  await bus.close();
});

memory("listeners get the schema's shape in a copy the publisher does not share", async () => {
  const bus = createMemoryBus({ log, metrics: createMetrics() });
  const time = '2026-01-02T03:04:05.006Z';
  const alert = {
    id: 'a1',
    href: 'http://x/alert/a1',
    resource: 'r',
    event: 'e',
    environment: 'Production',
    severity: 'major',
    correlate: [],
    status: 'open',
    service: ['web'],
    group: 'Misc',
    value: null,
    text: '',
    tags: ['t'],
    attributes: { nested: { list: [{ deep: 1 }] } },
    origin: 'o',
    type: 'exceptionAlert',
    createTime: time,
    timeout: 86400,
    customer: null,
    duplicateCount: 0,
    repeat: false,
    previousSeverity: 'unknown',
    trendIndication: 'moreSevere',
    receiveTime: time,
    lastReceiveId: 'a1',
    lastReceiveTime: time,
    updateTime: time,
    extra: 'not in the schema',
  };
  const pristine = structuredClone(alert);
  const got = nextEvent(bus);
  await bus.publish({ type: 'alert.updated', alert } as LiveEvent);
  alert.tags.push('changed by the publisher after publishing');
  alert.attributes.nested.list[0]!.deep = 2;
  const { event } = await got;
  const { extra: _, ...expected } = pristine;
  assert.is(JSON.stringify(event), JSON.stringify({ type: 'alert.updated', alert: expected }));
  const received = event as unknown as { alert: typeof alert };
  received.alert.tags.push('changed by the listener');
  received.alert.attributes.nested.list[0]!.deep = 3;
  assert.equal(alert.tags, ['t', 'changed by the publisher after publishing']);
  assert.is(alert.attributes.nested.list[0]!.deep, 2);
  await bus.close();
});

memory('refuses to publish an event that does not fit the schema', async () => {
  const bus = createMemoryBus({ log, metrics: createMetrics() });
  let threw = false;
  try {
    await bus.publish({ type: 'alert.deleted', id: 5 } as unknown as LiveEvent);
  } catch {
    threw = true;
  }
  assert.ok(threw);
  await bus.close();
});

memory.run();

const redis = suite('Redis bus (real Redis at REDIS_URL)');

redis('a message published by one process is received by another', async () => {
  const channel = `test.bus.${randomUUID()}`;
  const bus = await createRedisBus({ log, metrics: createMetrics() }, { url: REDIS_URL, channel });
  const received = nextEvent(bus, 15_000);
  const script = `
    import { createRedisBus } from './server/realtime/redis-bus.ts';
    import { createLog } from './server/log.ts';
    import { createMetrics } from './server/metrics.ts';
    const bus = await createRedisBus({ log: createLog('silent'), metrics: createMetrics() }, { url: process.env.URL, channel: process.env.CHANNEL });
    await bus.publish({ type: 'alert.deleted', id: 'from-child', customer: 'acme' });
    await bus.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, URL: REDIS_URL, CHANNEL: channel },
    stdio: 'inherit',
  });
  const exitCode = await new Promise<number | null>((ok) => child.on('close', ok));
  assert.is(exitCode, 0);
  const got = await received;
  assert.equal(got.event, { type: 'alert.deleted', id: 'from-child', customer: 'acme' });
  assert.is.not(got.origin, bus.instanceId);
  await bus.close();
});

redis('every instance hears its own messages and the others', async () => {
  const channel = `test.bus.${randomUUID()}`;
  const one = await createRedisBus({ log, metrics: createMetrics() }, { url: REDIS_URL, channel });
  const two = await createRedisBus({ log, metrics: createMetrics() }, { url: REDIS_URL, channel });
  const heardByOne = nextEvent(one);
  const heardByTwo = nextEvent(two);
  await one.publish(deleted('shared'));
  assert.equal((await heardByOne).event, deleted('shared'));
  assert.equal((await heardByTwo).event, deleted('shared'));
  await Promise.all([one.close(), two.close()]);
});

redis('bad messages on the channel are dropped and counted, good ones still arrive', async () => {
  const channel = `test.bus.${randomUUID()}`;
  const metrics = createMetrics();
  const bus = await createRedisBus({ log, metrics }, { url: REDIS_URL, channel });
  const raw = new Redis(REDIS_URL);
  const received = nextEvent(bus);
  await raw.publish(channel, 'not json at all');
  await raw.publish(
    channel,
    JSON.stringify({ v: 1, origin: 'x', seq: 1, event: { type: 'alert.exploded' } }),
  );
  await raw.publish(channel, JSON.stringify({ v: 1, origin: 'x', seq: 2, event: deleted('good') }));
  assert.equal((await received).event, deleted('good'));
  const dropped = await metrics.busDropped.get();
  assert.is(dropped.values[0]?.value, 2);
  raw.disconnect();
  await bus.close();
});

redis.run();

const outage = suite('Redis bus while Redis is down (a redis-server of its own, stopped and started)');
const opened: Bus[] = [];
const servers: PrivateRedis[] = [];
/** A bus closed after the test, passed or not (a bus left open keeps reconnecting). */
async function open(...args: Parameters<typeof createRedisBus>) {
  const bus = await createRedisBus(...args);
  opened.push(bus);
  return bus;
}
async function privateRedis() {
  const server = await startPrivateRedis();
  servers.push(server);
  return server;
}
outage.after.each(async () => {
  await Promise.all(opened.splice(0).map((b) => b.close()));
  await Promise.all(servers.splice(0).map((s) => s.remove()));
});
const metricValue = async (metrics: ReturnType<typeof createMetrics>, name: string) =>
  Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await metrics.registry.metrics())?.[1] ?? NaN);

/** Every message a bus hears, with its numbers, and every resume it announces. */
function record(bus: Bus) {
  const heard: { id: string; gseq: number; epoch: string }[] = [];
  const resumes: BusPosition[] = [];
  bus.subscribe((event, info) => {
    if (event.type === 'alert.deleted') heard.push({ id: event.id, gseq: info.gseq, epoch: info.epoch });
  });
  bus.onResume((at) => resumes.push(at));
  return { heard, resumes, ids: () => heard.map((h) => h.id) };
}

/** Two instances' buses on one fresh channel of `server`, each recording what it hears. */
async function twoInstances(server: PrivateRedis) {
  const channel = `test.bus.${randomUUID()}`;
  const one = await open({ log, metrics: createMetrics() }, { url: server.url, channel });
  const two = await open({ log, metrics: createMetrics() }, { url: server.url, channel });
  return { one, two, seenOne: record(one), seenTwo: record(two) };
}

async function eventually(what: string, check: () => boolean, timeoutMs = 10_000) {
  for (const deadline = Date.now() + timeoutMs; !check(); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const consecutive = (ns: number[]) => ns.every((n, i) => i === 0 || n === ns[i - 1]! + 1);

outage(
  'made without Redis: start-up goes on, publish returns at once, the outbox goes out in order once Redis appears',
  async () => {
    const server = await privateRedis();
    await server.stop();
    const metrics = createMetrics();
    const channel = `test.bus.${randomUUID()}`;
    const started = Date.now();
    const bus = await open({ log, metrics }, { url: server.url, channel });
    assert.ok(Date.now() - started < 1500, `created in ${Date.now() - started} ms`);
    assert.equal([bus.state().connected, bus.state().outbox], [false, 0]);
    const seen = record(bus);
    const t0 = Date.now();
    for (let i = 0; i < 20; i++) await bus.publish(deleted(`early-${i}`));
    assert.ok(Date.now() - t0 < 200, `20 publishes took ${Date.now() - t0} ms`);
    assert.equal([bus.state().connected, bus.state().outbox], [false, 20]);
    assert.is(await metricValue(metrics, 'bus_outbox_messages'), 20);
    assert.is(await metricValue(metrics, 'bus_connected'), 0);

    await server.start();
    await eventually('the outbox is heard', () => seen.heard.length === 20);
    assert.equal(
      seen.ids(),
      Array.from({ length: 20 }, (_, i) => `early-${i}`),
    );
    assert.ok(consecutive(seen.heard.map((h) => h.gseq)), JSON.stringify(seen.heard.map((h) => h.gseq)));
    assert.is(seen.resumes.length, 1);
    assert.equal([bus.state().connected, bus.state().outbox, bus.state().dropped], [true, 0, 0]);
    assert.is(await metricValue(metrics, 'bus_connected'), 1);
    assert.is(await metricValue(metrics, 'bus_outbox_messages'), 0);
  },
);

outage(
  'a restart of Redis: what one instance published meanwhile goes out in order, once; each subscriber hears all of it after its resume',
  async () => {
    const server = await privateRedis();
    const { one, two, seenOne, seenTwo } = await twoInstances(server);
    await one.publish(deleted('before'));
    await eventually('both hear the first', () => seenOne.heard.length === 1 && seenTwo.heard.length === 1);

    await server.stop({ keepData: true });
    await eventually('both notice', () => !one.state().connected && !two.state().connected);
    const want = Array.from({ length: 10 }, (_, i) => `during-${i}`);
    for (const id of want) await one.publish(deleted(id));
    await server.start();
    await eventually('one hears all of its own', () => seenOne.heard.length === 11);
    await eventually('both resumed', () => seenOne.resumes.length + seenTwo.resumes.length === 2);
    await sleep(500);
    // The publisher listens again before it sends: it hears every change of its own, in order.
    assert.equal(seenOne.ids(), ['before', ...want]);
    assert.ok(consecutive(seenOne.heard.map((h) => h.gseq)));
    // The other hears, after the first, an unbroken tail of what the publisher heard, in the same
    // order and with the same numbers, each once; the tail reaches back at least to its resume
    // position (what came before that is what the resume told it it missed). Changes sent between
    // its subscription and its reading of the position are heard and also counted in the position.
    const resumedAt = seenTwo.resumes[0]!.seq;
    const tail = seenTwo.heard.slice(1);
    assert.equal(tail, seenOne.heard.slice(seenOne.heard.length - tail.length));
    assert.ok(
      tail.length >= seenOne.heard.filter((h) => h.gseq > resumedAt).length,
      `heard ${JSON.stringify(tail.map((h) => h.gseq))} after resuming at ${resumedAt}`,
    );
    assert.equal([seenOne.resumes.length, seenTwo.resumes.length], [1, 1]);
  },
);

outage(
  'a paused Redis (commands time out and are sent again): nothing lost, nothing twice, no break for subscribers',
  async () => {
    const server = await privateRedis();
    const { one, seenOne, seenTwo } = await twoInstances(server);
    server.pause();
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) await one.publish(deleted(`paused-${i}`));
    assert.ok(Date.now() - t0 < 200);
    // Longer than the command timeout: the first batch is given up and sent again later.
    await sleep(6500);
    server.resume();
    await eventually('both hear all', () => seenOne.heard.length >= 5 && seenTwo.heard.length >= 5, 15_000);
    await sleep(1500);
    const want = Array.from({ length: 5 }, (_, i) => `paused-${i}`);
    assert.equal([seenOne.ids(), seenTwo.ids()], [want, want]);
    assert.ok(consecutive(seenTwo.heard.map((h) => h.gseq)));
    assert.equal([seenOne.resumes.length, seenTwo.resumes.length], [0, 0]);
  },
);

outage(
  'the publishing connection alone cut: what was published meanwhile goes out when it is back, with no resume',
  async () => {
    const server = await privateRedis();
    const channel = `test.bus.${randomUUID()}`;
    const bus = await open({ log, metrics: createMetrics() }, { url: server.url, channel });
    const seen = record(bus);
    const admin = new Redis(server.url);
    try {
      // Every connection that is not subscribed: the bus's publisher (and this one, spared).
      await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      // Published while it is away (it is back within about 100 ms): nothing is being sent then.
      for (const deadline = Date.now() + 2000; bus.state().connected;) {
        assert.ok(Date.now() < deadline, 'the bus notices the cut');
        await new Promise((r) => setImmediate(r));
      }
      for (let i = 0; i < 3; i++) await bus.publish(deleted(`cut-${i}`));
      assert.is(bus.state().outbox, 3);
      await eventually('heard without another publish', () => seen.heard.length === 3);
      assert.equal(seen.ids(), ['cut-0', 'cut-1', 'cut-2']);
      assert.is(seen.resumes.length, 0, 'the subscription held');
    } finally {
      admin.disconnect();
    }
  },
);

outage('a full outbox drops the oldest, counts them, and the rest goes out under a new epoch', async () => {
  const server = await privateRedis();
  const channel = `test.bus.${randomUUID()}`;
  const metrics = createMetrics();
  const one = await open({ log, metrics }, { url: server.url, channel, outboxBytes: 2000 });
  const seen = record(one);
  await one.publish(deleted('first'));
  await eventually('heard', () => seen.heard.length === 1);
  const before = seen.heard[0]!.epoch;
  await server.stop({ keepData: true });
  await eventually('noticed', () => !one.state().connected);
  for (let i = 0; i < 40; i++) await one.publish(deleted(`many-${String(i).padStart(2, '0')}`));
  const state = one.state();
  assert.ok(state.dropped > 0 && state.outbox + state.dropped === 40, JSON.stringify(state));
  assert.ok(state.outboxBytes <= 2000);
  assert.is(await metricValue(metrics, 'bus_outbox_dropped_total'), state.dropped);
  await server.start();
  await eventually('the rest is heard', () => seen.heard.length === 1 + state.outbox);
  const rest = seen.heard.slice(1);
  assert.equal(
    rest.map((h) => h.id),
    Array.from({ length: state.outbox }, (_, i) => `many-${String(40 - state.outbox + i).padStart(2, '0')}`),
    'the newest, in order',
  );
  assert.ok(
    rest.every((h) => h.epoch === rest[0]!.epoch && h.epoch !== before),
    'a new epoch',
  );
});

outage.run();
