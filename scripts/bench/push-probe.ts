/**
 * scripts/bench/push.ts's measuring clients, in a worker thread of their own: each delivery's
 * latency is taken here, on an event loop that only these clients use (as each real client has a
 * machine of its own), and written to the phase's shared memory (push-shared.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ViewAlerts } from '../../shared/events.ts';
import { HISTOGRAM_BUCKETS, STAT, clock, type PhaseBuffers } from './push-shared.ts';
import { openSocket, subscribeOnConnect, type BenchSocket } from './socket.ts';

const { origin, count, patches } = workerData as { origin: string; count: number; patches: boolean };

interface Views {
  b: PhaseBuffers;
  sent: Float64Array;
  accepted: Float64Array;
  stats: Float64Array;
  latency: Uint32Array;
  acceptedLatency: Uint32Array;
  bits: Uint8Array[];
}
let phase: Views | null = null;

const bucket = (ms: number) => Math.min(HISTOGRAM_BUCKETS - 1, Math.max(0, Math.floor(ms * 10)));

function delivered(index: number, m: ViewAlerts) {
  const now = clock();
  const p = phase;
  if (!p) return;
  const s = p.stats;
  s[STAT.messages]! += 1;
  const states = m.patches?.length ? [...m.alerts, ...m.patches] : m.alerts;
  s[STAT.alerts]! += states.length;
  s[STAT.patches]! += m.patches?.length ?? 0;
  if (!s[STAT.firstDelivery]) s[STAT.firstDelivery] = now;
  s[STAT.lastDelivery] = now;
  const bits = p.bits[index]!;
  for (const alert of states) {
    // A patch carries lastReceiveId whenever a receipt changed the alert (every change here).
    const id = alert.lastReceiveId;
    if (id === undefined || !id.startsWith(p.b.tag)) {
      s[STAT.unmatched]! += 1;
      continue;
    }
    const k = Number(id.slice(p.b.tag.length));
    if (!(k < p.b.capacity)) {
      s[STAT.untracked]! += 1;
      continue;
    }
    const mask = 1 << (k & 7);
    if (bits[k >> 3]! & mask) {
      s[STAT.repeats]! += 1;
      continue;
    }
    bits[k >> 3]! |= mask;
    s[STAT.firstDeliveries]! += 1;
    const fromSent = now - p.sent[k]!;
    p.latency[bucket(fromSent)]! += 1;
    s[STAT.latencyN]! += 1;
    if (fromSent > s[STAT.latencyMax]!) s[STAT.latencyMax] = fromSent;
    const accepted = p.accepted[k]!;
    const fromAccepted = accepted ? Math.max(0, now - accepted) : 0;
    p.acceptedLatency[bucket(fromAccepted)]! += 1;
    s[STAT.acceptedN]! += 1;
    if (fromAccepted > s[STAT.acceptedMax]!) s[STAT.acceptedMax] = fromAccepted;
  }
}

const sockets: BenchSocket[] = [];
async function connectOne(index: number): Promise<void> {
  const socket = openSocket(origin, 30_000);
  socket.on('alert.updated', (m) => delivered(index, m));
  socket.on('alert.removed-from-view', () => phase && (phase.stats[STAT.removed]! += 1));
  socket.on('counts', () => phase && (phase.stats[STAT.countsMessages]! += 1));
  socket.on('resync', () => phase && (phase.stats[STAT.resyncs]! += 1));
  socket.on('disconnect', () => phase && (phase.stats[STAT.disconnects]! += 1));
  await subscribeOnConnect(socket, { query: '', patches }, 60_000, `probe ${index}`, () => {
    socket.io.engine.on('packet', (packet) => {
      if (phase && typeof packet.data === 'string') phase.stats[STAT.bytes]! += packet.data.length;
    });
  });
  sockets.push(socket);
}

for (let i = 0; i < count; i += 50) {
  await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => connectOne(i + j)));
}
parentPort!.postMessage({ type: 'ready' });
parentPort!.on('message', (m: { type: 'phase'; buffers: PhaseBuffers } | { type: 'close' }) => {
  if (m.type === 'phase') {
    const b = m.buffers;
    const per = b.capacity >> 3;
    phase = {
      b,
      sent: new Float64Array(b.sent),
      accepted: new Float64Array(b.accepted),
      stats: new Float64Array(b.stats),
      latency: new Uint32Array(b.latency),
      acceptedLatency: new Uint32Array(b.acceptedLatency),
      bits: Array.from({ length: b.clients }, (_, i) => new Uint8Array(b.bits, i * per, per)),
    };
    parentPort!.postMessage({ type: 'phase-set' });
  } else {
    phase = null;
    for (const s of sockets) s.close();
    parentPort!.close();
  }
});
