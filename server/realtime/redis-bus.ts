import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { LiveEventSchema } from '../../shared/events.ts';
import {
  createFanout,
  labelsOf,
  type Bus,
  type BusDeps,
  type BusPosition,
  type ResumeListener,
} from './bus.ts';

export interface RedisBusOptions {
  url: string;
  channel: string;
  /** BUS_OUTBOX_SIZE: bytes of JSON the outbox holds at most (64 MiB unless given). */
  outboxBytes?: number;
  /** How long creating the bus waits for a first connection before it goes on without one. */
  connectWaitMs?: number;
}

/** Messages, and bytes of them, sent to Redis in one script call. */
const BATCH_MESSAGES = 200;
const BATCH_BYTES = 1024 * 1024;
/** A command Redis has not answered by then is given up (a batch is then sent again, see below). */
const COMMAND_TIMEOUT_MS = 5000;
/** Waits between tries while Redis is connected but the publish fails. */
const RETRY_MS = [250, 1000, 5000];
/** How long close() waits for the outbox to empty while Redis is connected. */
const DRAIN_MS = 5000;

/**
 * Numbers and publishes a batch of one instance's messages in order, atomically, so the channel
 * carries them in the order of their shared sequence numbers. KEYS: the sequence, its epoch, the
 * channel, the last `seq` of this instance published. ARGV: an epoch, '1' to start it even if one
 * is set (after changes were dropped from the outbox) or '0' to use it only when none is, then
 * `seq`, JSON pairs. A batch whose answer was lost is sent again; messages at or below the last
 * `seq` published are skipped, so none goes out twice (tests/api/bus.test.ts, "a paused Redis").
 */
const PUBLISH_SCRIPT = `
  local epoch = redis.call('GET', KEYS[2])
  if ARGV[2] == '1' or not epoch then redis.call('SET', KEYS[2], ARGV[1]); epoch = ARGV[1] end
  local sent = tonumber(redis.call('GET', KEYS[4]) or '0')
  for i = 3, #ARGV, 2 do
    local seq = tonumber(ARGV[i])
    if seq > sent then
      local n = redis.call('INCR', KEYS[1])
      redis.call('PUBLISH', KEYS[3], '{"gseq":' .. n .. ',"epoch":"' .. epoch .. '",' .. string.sub(ARGV[i + 1], 2))
      sent = seq
    end
  end
  redis.call('SET', KEYS[4], sent, 'EX', 86400)
  return sent`;

interface Outgoing {
  seq: number;
  body: string;
  type: string;
}

/**
 * Redis pub/sub: every instance sharing REDIS_URL and the channel hears every change. Publishing
 * never waits for Redis: a change goes into an ordered outbox (bounded by `outboxBytes`) that one
 * pump sends in batches while Redis is connected and keeps while it is not. Connections are made
 * and made again in the background; a subscription that starts again after a break is announced
 * to `onResume` listeners, who cannot know what they missed meanwhile (docs/live.md, "When Redis
 * is down"). Creating the bus waits `connectWaitMs` at most for a first connection.
 */
export async function createRedisBus(deps: BusDeps, options: RedisBusOptions): Promise<Bus> {
  const { log, metrics } = deps;
  const instanceId = randomUUID();
  const fanout = createFanout(deps);
  const limit = options.outboxBytes ?? 64 * 1024 * 1024;
  const keys = [`${options.channel}:seq`, `${options.channel}:epoch`] as const;
  const sentKey = `${options.channel}:sent:${instanceId}`;
  // Commands fail at once while disconnected (no offline queue), and a command in flight when the
  // connection drops fails instead of being sent again by ioredis: the pump decides what to resend.
  const redisOptions = {
    connectionName: `alertwall-${instanceId}`,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    autoResubscribe: false,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (times: number) => Math.min(100 * times, 2000),
  };
  const pub = new Redis(options.url, redisOptions);
  const sub = new Redis(options.url, redisOptions);
  pub.defineCommand('publishBatch', { numberOfKeys: 4, lua: PUBLISH_SCRIPT });
  const scripted = pub as unknown as { publishBatch(...args: (string | number)[]): Promise<number> };

  const outbox: Outgoing[] = [];
  let outboxBytes = 0;
  let dropped = 0;
  /** The epoch the next batch starts after changes were dropped (null: none pending). */
  let restartEpoch: string | null = null;
  let seq = 0;
  let pumping = false;
  let closed = false;
  const resumeListeners = new Set<ResumeListener>();

  // The subscriber's connections are numbered: a subscription or resume of an older one is stale.
  let subGen = 0;
  let subscribedGen = 0;
  let resumedGen = 0;
  let resuming = false;

  let connected = false;
  let since = Date.now();
  let announced: 'up' | 'down' | null = null;
  let lastError = '';
  let settleFirst: (() => void) | null = null;
  metrics.busConnected.set(0);

  const isConnected = () => !closed && pub.status === 'ready' && subGen > 0 && resumedGen === subGen;

  /** Logs each change of state once (not each reconnection attempt) and keeps `since`. */
  function changed() {
    const now = isConnected();
    const previously = since;
    if (now !== connected) {
      connected = now;
      since = Date.now();
      metrics.busConnected.set(now ? 1 : 0);
      if (now) settleFirst?.();
    }
    if (closed) return;
    if (now && announced !== 'up') {
      log.info({ outbox: outbox.length, downMs: since - previously }, 'bus.redis.up');
      announced = 'up';
    } else if (!now && announced === 'up') {
      log.warn({ err: lastError, outbox: outbox.length }, 'bus.redis.down');
      announced = 'down';
    }
  }

  for (const [role, conn] of [
    ['publisher', pub],
    ['subscriber', sub],
  ] as const) {
    conn.on('error', (err: Error) => {
      lastError = err.message;
      if (announced === null && !closed) {
        log.warn({ role, err: err.message }, 'bus.redis.down');
        announced = 'down';
      }
      settleFirst?.();
    });
  }
  pub.on('ready', () => {
    changed();
    void tryResume();
    // The publisher alone may have been away: the subscription held, and the outbox waits.
    void pump();
  });
  pub.on('close', changed);
  sub.on('ready', () => {
    const gen = ++subGen;
    changed();
    sub.subscribe(options.channel).then(
      () => {
        if (gen !== subGen) return;
        subscribedGen = gen;
        void tryResume();
      },
      (err: Error) => {
        if (gen !== subGen || closed) return;
        lastError = err.message;
        sub.disconnect(true);
      },
    );
  });
  sub.on('close', () => {
    subGen++;
    changed();
  });
  sub.on('message', (channel: string, message: string) => {
    if (channel !== options.channel) return;
    let raw: unknown;
    try {
      raw = JSON.parse(message);
    } catch {
      raw = undefined;
    }
    fanout.deliver(raw);
  });

  async function readPosition(): Promise<BusPosition> {
    if (pub.status !== 'ready') throw new Error('Redis is not connected');
    await pub.set(keys[1], randomUUID(), 'NX');
    const [epoch, n] = await pub.mget(keys[1], keys[0]);
    return { epoch: epoch ?? '', seq: Number(n ?? 0) };
  }

  /**
   * Once the subscriber listens again and the publisher is connected: read where the sequence
   * stands and tell the listeners (what was published during the break was not heard).
   */
  async function tryResume(): Promise<void> {
    if (resuming || closed) return;
    const gen = subscribedGen;
    if (gen === 0 || gen !== subGen || resumedGen === gen || pub.status !== 'ready') return;
    resuming = true;
    let at: BusPosition | null = null;
    try {
      at = await readPosition();
    } catch (err) {
      lastError = (err as Error).message;
    } finally {
      resuming = false;
    }
    if (closed) return;
    if (!at) {
      setTimeout(() => void tryResume(), RETRY_MS[1]).unref();
      return;
    }
    if (gen !== subGen) return void tryResume();
    resumedGen = gen;
    changed();
    for (const listener of resumeListeners) {
      try {
        listener(at);
      } catch (err) {
        log.error({ err }, 'bus.resume_listener.failed');
      }
    }
    void pump();
  }

  /**
   * Sends the outbox in order while connected (the publisher, and the subscriber listening, so
   * this instance hears its own changes as numbered deltas); keeps what was not confirmed.
   */
  async function pump(): Promise<void> {
    if (pumping) return;
    pumping = true;
    let failures = 0;
    try {
      while (outbox.length > 0 && isConnected()) {
        const args: (string | number)[] = [];
        let bytes = 0;
        for (const m of outbox) {
          if (args.length >= BATCH_MESSAGES * 2 || (args.length > 0 && bytes + m.body.length > BATCH_BYTES))
            break;
          args.push(m.seq, m.body);
          bytes += m.body.length;
        }
        const last = outbox[Math.min(outbox.length, args.length / 2) - 1]!.seq;
        const restart = restartEpoch;
        try {
          await scripted.publishBatch(
            keys[0],
            keys[1],
            options.channel,
            sentKey,
            restart ?? randomUUID(),
            restart ? '1' : '0',
            ...args,
          );
        } catch (err) {
          // Not published, or not known to be: kept in place and sent again (the script skips
          // what already went out). A connection that dropped is waited for by its 'ready'.
          lastError = (err as Error).message;
          if (failures === 0) log.warn({ err: lastError, outbox: outbox.length }, 'bus.publish.retrying');
          await sleep(RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]!);
          continue;
        }
        failures = 0;
        if (restart !== null && restartEpoch === restart) restartEpoch = null;
        while (outbox.length > 0 && outbox[0]!.seq <= last) {
          const m = outbox.shift()!;
          outboxBytes -= m.body.length;
          metrics.busPublished.inc(labelsOf(m.type));
        }
        metrics.busOutbox.set(outbox.length);
      }
    } finally {
      pumping = false;
    }
  }

  const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms).unref());

  // The first connection: waited for a little, so a bus made with Redis up is listening at once.
  await new Promise<void>((ok) => {
    const timer = setTimeout(ok, options.connectWaitMs ?? 2000);
    timer.unref();
    settleFirst = () => {
      clearTimeout(timer);
      settleFirst = null;
      ok();
    };
  });

  return {
    kind: 'redis',
    instanceId,
    async publish(event) {
      const envelope = {
        v: 1,
        origin: instanceId,
        seq: ++seq,
        time: Date.now(),
        event: LiveEventSchema.parse(event),
      };
      const body = JSON.stringify(envelope);
      outbox.push({ seq: envelope.seq, body, type: event.type });
      outboxBytes += body.length;
      // Full: the oldest go, and the next batch starts a new epoch, on which every hub of every
      // instance reloads its views from the database (hub.ts): a change is never silently lost.
      while (outboxBytes > limit && outbox.length > 1) {
        outboxBytes -= outbox.shift()!.body.length;
        dropped++;
        metrics.busOutboxDropped.inc();
        if (restartEpoch === null) log.warn({ outbox: outbox.length, limit }, 'bus.outbox.dropped');
        restartEpoch = randomUUID();
      }
      if (isConnected()) void pump();
      else metrics.busOutbox.set(outbox.length);
    },
    subscribe(listener) {
      fanout.listeners.add(listener);
      return () => fanout.listeners.delete(listener);
    },
    onResume(listener) {
      resumeListeners.add(listener);
      return () => resumeListeners.delete(listener);
    },
    position: readPosition,
    state() {
      return { kind: 'redis', connected: isConnected(), since, outbox: outbox.length, outboxBytes, dropped };
    },
    async close() {
      for (
        const deadline = Date.now() + DRAIN_MS;
        outbox.length > 0 && isConnected() && Date.now() < deadline;
      )
        await sleep(10);
      if (outbox.length > 0) log.warn({ outbox: outbox.length }, 'bus.outbox.unpublished');
      closed = true;
      changed();
      fanout.listeners.clear();
      resumeListeners.clear();
      pub.disconnect();
      sub.disconnect();
    },
  };
}
