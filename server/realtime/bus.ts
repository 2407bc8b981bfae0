import { randomUUID } from 'node:crypto';
import { BusEnvelopeSchema, LiveEventSchema, type BusEnvelope, type LiveEvent } from '../../shared/events.ts';
import type { Log } from '../log.ts';
import type { Metrics } from '../metrics.ts';

export interface BusMessageInfo {
  /** The instance that published the message. */
  origin: string;
  /** Its place in that instance's sequence, from 1. */
  seq: number;
  /** Its place in the sequence shared by every instance (0 for a message without one). */
  gseq: number;
  /** The sequence `gseq` belongs to: the Redis channel's, or this process's for the in-process bus. */
  epoch: string;
  /** When it was published, epoch ms. */
  time: number;
}
export type BusListener = (event: LiveEvent, info: BusMessageInfo) => void;

/** Where the shared sequence stands: its epoch and its latest number. */
export interface BusPosition {
  epoch: string;
  seq: number;
}
/** Told when the subscription starts again after a break: messages of the break were not heard. */
export type ResumeListener = (at: BusPosition) => void;

/** What /management/status and the metrics say of the bus (docs/live.md, "When Redis is down"). */
export interface BusState {
  kind: 'memory' | 'redis';
  /** Whether changes reach every instance now: always for the in-process bus. */
  connected: boolean;
  /** Since when (epoch ms) it has been connected, or not. */
  since: number;
  /** Changes committed and not yet published, and their size (bytes of JSON). */
  outbox: number;
  outboxBytes: number;
  /** Changes dropped from a full outbox since start (each time, every live view was reloaded). */
  dropped: number;
}

/**
 * Publish/subscribe for change events. Every subscriber of every instance hears every message,
 * its own included, so a hub can always emit to its local sockets only. Two kinds: the in-process
 * bus below, and the Redis bus with its outbox (redis-bus.ts).
 */
export interface Bus {
  readonly kind: 'memory' | 'redis';
  readonly instanceId: string;
  /**
   * Queues a change (published after commit) and returns: it never waits for Redis and never
   * fails because of it; it throws only for an event that does not fit the schema.
   */
  publish(event: LiveEvent): Promise<void>;
  subscribe(listener: BusListener): () => void;
  /** Called each time the subscription starts again after a break (never for the in-process bus). */
  onResume(listener: ResumeListener): () => void;
  /** The shared sequence's epoch and its latest number (what a subscriber has at most heard). */
  position(): Promise<BusPosition>;
  state(): BusState;
  close(): Promise<void>;
}

export interface BusDeps {
  log: Log;
  metrics: Metrics;
}

/** The metrics' `type` label set of each event type, made once (there are five). */
const typeLabels = new Map<string, { type: string }>();
export function labelsOf(type: string) {
  let labels = typeLabels.get(type);
  if (!labels) typeLabels.set(type, (labels = { type }));
  return labels;
}

/** Fans a validated message out to listeners; one listener's failure never reaches the others. */
export function createFanout({ log, metrics }: BusDeps) {
  const listeners = new Set<BusListener>();
  return {
    listeners,
    deliver(raw: unknown) {
      const parsed = BusEnvelopeSchema.safeParse(raw);
      if (!parsed.success) {
        metrics.busDropped.inc();
        log.warn({ issues: parsed.error.issues.slice(0, 3).map((i) => i.message) }, 'bus.message.dropped');
        return;
      }
      this.deliverValid(parsed.data);
    },
    /** An envelope already validated in this process (the in-process bus checks it on publish). */
    deliverValid(envelope: BusEnvelope) {
      const { event, origin, seq, gseq, epoch, time } = envelope;
      metrics.busReceived.inc(labelsOf(event.type));
      const info = { origin, seq, gseq: gseq ?? 0, epoch: epoch ?? '', time: time ?? Date.now() };
      for (const listener of listeners) {
        try {
          listener(event, info);
        } catch (err) {
          log.error({ err, type: event.type }, 'bus.listener.failed');
        }
      }
    },
  };
}

const isLeftOutOfJson = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * `JSON.parse(JSON.stringify(value))` without the text in between, three times faster for an
 * alert: plain objects and arrays are copied here as JSON would copy them (values JSON leaves out
 * are left out of objects and null in arrays, non-finite numbers become null, -0 becomes 0); any
 * other object (a Date, a class instance, one with toJSON) still goes through JSON.
 */
export function jsonCopy(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value + 0 : null;
    case 'object': {
      if (value === null) return null;
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') break;
      if (Array.isArray(value)) {
        const out: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          out[i] = isLeftOutOfJson(item) ? null : jsonCopy(item);
        }
        return out;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) break;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const item = (value as Record<string, unknown>)[key];
        if (isLeftOutOfJson(item)) continue;
        // JSON.parse makes `__proto__` an own key; plain assignment would set the prototype.
        if (key === '__proto__')
          Object.defineProperty(out, key, {
            value: jsonCopy(item),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else out[key] = jsonCopy(item);
      }
      return out;
    }
  }
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/** The default bus: one process, delivery on the next tick (as a remote bus would be). */
export function createMemoryBus(deps: BusDeps): Bus {
  const instanceId = randomUUID();
  const fanout = createFanout(deps);
  let seq = 0;
  const since = Date.now();
  deps.metrics.busConnected.set(1);
  return {
    kind: 'memory',
    instanceId,
    async publish(event) {
      seq += 1;
      const envelope = {
        v: 1,
        origin: instanceId,
        seq,
        gseq: seq,
        epoch: instanceId,
        time: Date.now(),
        event: LiveEventSchema.parse(event),
      };
      deps.metrics.busPublished.inc(labelsOf(event.type));
      // Listeners get the same detached copy a Redis subscriber would get; it was validated just
      // above, so it is not validated again on delivery.
      const copy = jsonCopy(envelope) as BusEnvelope;
      setImmediate(() => fanout.deliverValid(copy));
    },
    subscribe(listener) {
      fanout.listeners.add(listener);
      return () => fanout.listeners.delete(listener);
    },
    onResume() {
      return () => {};
    },
    async position() {
      return { epoch: instanceId, seq };
    },
    state() {
      return { kind: 'memory', connected: true, since, outbox: 0, outboxBytes: 0, dropped: 0 };
    },
    async close() {
      fanout.listeners.clear();
    },
  };
}
