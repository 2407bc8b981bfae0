/**
 * What scripts/bench/push.ts shares with its measuring clients' worker (push-probe.ts): POST times
 * and per-client delivery bits in shared memory, so measuring never waits on the POST loop.
 */
import { performance } from 'node:perf_hooks';

/** Slots of the shared statistics array. */
export const STAT = {
  messages: 0,
  alerts: 1,
  firstDelivery: 2,
  lastDelivery: 3,
  unmatched: 4,
  untracked: 5,
  repeats: 6,
  firstDeliveries: 7,
  removed: 8,
  countsMessages: 9,
  resyncs: 10,
  latencyN: 11,
  latencyMax: 12,
  acceptedN: 13,
  acceptedMax: 14,
  disconnects: 15,
  /** Bytes of socket messages received, and alerts that came as patches. */
  bytes: 16,
  patches: 17,
} as const;
export const STAT_SLOTS = 18;
/** Latency histograms: 0.1 ms buckets up to 60 s. */
export const HISTOGRAM_BUCKETS = 600_000;

/** One measured phase's shared memory. */
export interface PhaseBuffers {
  /** Alert ids of this phase's POSTs are `<tag><index>`. */
  tag: string;
  capacity: number;
  clients: number;
  /** Float64 per POST: when it was sent / answered, in absolute ms (0 = not yet). */
  sent: SharedArrayBuffer;
  accepted: SharedArrayBuffer;
  /** Per client, one bit per POST. */
  bits: SharedArrayBuffer;
  stats: SharedArrayBuffer;
  latency: SharedArrayBuffer;
  acceptedLatency: SharedArrayBuffer;
}

/** Milliseconds on a clock every thread shares. */
export const clock = () => performance.timeOrigin + performance.now();

export function createPhaseBuffers(tag: string, capacity: number, clients: number): PhaseBuffers {
  return {
    tag,
    capacity,
    clients,
    sent: new SharedArrayBuffer(8 * capacity),
    accepted: new SharedArrayBuffer(8 * capacity),
    bits: new SharedArrayBuffer(Math.max(1, clients * (capacity >> 3))),
    stats: new SharedArrayBuffer(8 * STAT_SLOTS),
    latency: new SharedArrayBuffer(4 * HISTOGRAM_BUCKETS),
    acceptedLatency: new SharedArrayBuffer(4 * HISTOGRAM_BUCKETS),
  };
}
