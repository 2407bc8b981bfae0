// What scripts/bench/push.ts measures with: latency histograms, one measured phase, CPU time of
// the server and the machine, and the server's own live metrics.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { STAT, createPhaseBuffers, type PhaseBuffers } from './push-shared.ts';

/** Latencies in 0.1 ms buckets up to 60 s: fixed memory however many deliveries there are. */
export class Histogram {
  counts: Uint32Array<ArrayBufferLike> = new Uint32Array(600_000);
  n = 0;
  max = 0;
  add(ms: number) {
    const b = Math.min(this.counts.length - 1, Math.max(0, Math.floor(ms * 10)));
    this.counts[b]!++;
    this.n++;
    if (ms > this.max) this.max = ms;
  }
  quantile(q: number): number | null {
    if (!this.n) return null;
    const target = Math.max(1, Math.ceil(q * this.n));
    let acc = 0;
    for (let i = 0; i < this.counts.length; i++) {
      acc += this.counts[i]!;
      if (acc >= target) return (i + 1) / 10;
    }
    return this.max;
  }
}

export const round1 = (x: number | null) => (x == null ? null : Math.round(x * 10) / 10);

/** One measured phase: the POSTs sent in it and what the clients received of them. */
export class Phase {
  sentAt: number[] = [];
  /** When the POST's answer arrived (the server accepted it); undefined until then. */
  acceptedAt: (number | undefined)[] = [];
  resource: number[] = [];
  /** The POST response's duplicateCount: the server's order of the receipts of one alert; -1 = failed. */
  order: number[] = [];
  ok = 0;
  non2xx = 0;
  errors = 0;
  skipped = 0;
  idMismatch = 0;
  postLatency = new Histogram();
  latency = new Histogram();
  /** From the POST being accepted (its answer arriving) to the delivery; 0 when the delivery came first. */
  acceptedLatency = new Histogram();
  messages = 0;
  alerts = 0;
  firstDeliveries = 0;
  repeats = 0;
  unmatched = 0;
  untracked = 0;
  removed = 0;
  countsMessages = 0;
  /** Alerts that came as patches, and the bytes of every socket message, over the measuring clients. */
  patched = 0;
  bytes = 0;
  resyncs = 0;
  firstDelivery = 0;
  lastDelivery = 0;
  disconnects = 0;
  readonly capacity: number;
  /** Per client, one bit per POST: its state has reached this client. */
  bits: Uint8Array[];
  /** Shared with the measuring clients' worker (push-probe.ts). */
  readonly buffers: PhaseBuffers;
  readonly sentAbs: Float64Array;
  readonly acceptedAbs: Float64Array;
  readonly stats: Float64Array;
  constructor(clients: number, capacity: number) {
    this.capacity = capacity;
    this.buffers = createPhaseBuffers(`bench${randomBytes(3).toString('hex')}-`, capacity, clients);
    const per = capacity >> 3;
    this.bits = Array.from({ length: clients }, (_, i) => new Uint8Array(this.buffers.bits, i * per, per));
    this.sentAbs = new Float64Array(this.buffers.sent);
    this.acceptedAbs = new Float64Array(this.buffers.accepted);
    this.stats = new Float64Array(this.buffers.stats);
  }
  /** Takes what the measuring clients recorded into the fields the report reads. */
  absorb() {
    const st = this.stats;
    this.messages = st[STAT.messages]!;
    this.alerts = st[STAT.alerts]!;
    this.firstDelivery = st[STAT.firstDelivery]!;
    this.lastDelivery = st[STAT.lastDelivery]!;
    this.unmatched = st[STAT.unmatched]!;
    this.untracked = st[STAT.untracked]!;
    this.repeats = st[STAT.repeats]!;
    this.firstDeliveries = st[STAT.firstDeliveries]!;
    this.removed = st[STAT.removed]!;
    this.countsMessages = st[STAT.countsMessages]!;
    this.patched = st[STAT.patches]!;
    this.bytes = st[STAT.bytes]!;
    this.resyncs = st[STAT.resyncs]!;
    this.disconnects = st[STAT.disconnects]!;
    this.latency.counts = new Uint32Array(this.buffers.latency);
    this.latency.n = st[STAT.latencyN]!;
    this.latency.max = st[STAT.latencyMax]!;
    this.acceptedLatency.counts = new Uint32Array(this.buffers.acceptedLatency);
    this.acceptedLatency.n = st[STAT.acceptedN]!;
    this.acceptedLatency.max = st[STAT.acceptedMax]!;
  }
}

/** CPU seconds (user + system) of a process, from /proc (Linux; clock ticks of 1/100 s). */
export function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}
/** The server's live metrics (docs/live.md): delivered/coalesced counts and push latency buckets. */
export async function liveMetrics(origin: string) {
  const text = await (await fetch(`${origin}/api/management/metrics`)).text();
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const bucketsOf = (name: string) => {
    const buckets: [number, number][] = [];
    for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"[^}]*\\} (\\S+)$`, 'gm')))
      buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
    return buckets;
  };
  const buckets = bucketsOf('live_push_latency_seconds');
  return {
    flush: {
      count: num(/^live_flush_seconds_count(?:\{[^}]*\})? (\S+)$/m),
      sum: num(/^live_flush_seconds_sum(?:\{[^}]*\})? (\S+)$/m),
      buckets: bucketsOf('live_flush_seconds'),
    },
    delivered: num(/^live_events_total\{[^}]*outcome="delivered"[^}]*\} (\S+)$/m),
    coalesced: num(/^live_events_total\{[^}]*outcome="coalesced"[^}]*\} (\S+)$/m),
    count: num(/^live_push_latency_seconds_count(?:\{[^}]*\})? (\S+)$/m),
    sum: num(/^live_push_latency_seconds_sum(?:\{[^}]*\})? (\S+)$/m),
    buckets,
  };
}
export type LiveMetrics = Awaited<ReturnType<typeof liveMetrics>>;

/** Server-side push latency over a window: mean, and the bucket bounds p50/p99 fall under (ms). */
export function serverPush(a: LiveMetrics, b: LiveMetrics) {
  const count = b.count - a.count;
  const boundOf = (from: [number, number][], to: [number, number][], n: number, q: number) => {
    const target = q * n;
    for (const [le, k] of to) {
      const before = from.find(([l]) => l === le)?.[1] ?? 0;
      if (k - before >= target) return le === Infinity ? 'inf' : `≤${le * 1000}`;
    }
    return null;
  };
  const bound = (q: number) => boundOf(a.buckets, b.buckets, count, q);
  const flushes = b.flush.count - a.flush.count;
  return {
    // How long the server's flushes took (each writes to every socket in one turn of its loop).
    serverFlushes: flushes,
    serverFlushMean: flushes ? round1(((b.flush.sum - a.flush.sum) / flushes) * 1000) : null,
    serverFlushP99: flushes ? boundOf(a.flush.buckets, b.flush.buckets, flushes, 0.99) : null,
    serverDelivered: b.delivered - a.delivered,
    serverCoalesced: b.coalesced - a.coalesced,
    serverPushMean: count ? round1(((b.sum - a.sum) / count) * 1000) : null,
    serverPushP50: count ? bound(0.5) : null,
    serverPushP99: count ? bound(0.99) : null,
  };
}

/** The whole machine's CPU time so far, busy and idle (/proc/stat, in clock ticks). */
export function machineCpu(): { busy: number; idle: number } {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3]! + f[4]!;
    return { busy: f.reduce((a, b) => a + b, 0) - idle, idle };
  } catch {
    return { busy: NaN, idle: NaN };
  }
}

export const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
