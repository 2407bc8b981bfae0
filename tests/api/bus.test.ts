import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LiveEvent } from '../../shared/events.ts';
import { createLog } from '../../server/log.ts';
import { createMetrics } from '../../server/metrics.ts';
import { createMemoryBus, createRedisBus, type Bus } from '../../server/realtime/bus.ts';

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
    import { createRedisBus } from './server/realtime/bus.ts';
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

redis('an unreachable Redis fails start-up with a clear message', async () => {
  let message = '';
  try {
    await createRedisBus({ log, metrics: createMetrics() }, { url: 'redis://127.0.0.1:1', channel: 'x' });
  } catch (err) {
    message = (err as Error).message;
  }
  assert.match(message, /cannot reach Redis/);
});

redis.run();
