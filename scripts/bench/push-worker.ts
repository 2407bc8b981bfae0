/**
 * A share of scripts/bench/push.ts's load clients, in a worker thread: they connect, subscribe to
 * every alert and count what they receive, so the measuring clients in the main thread do not share
 * one event loop with hundreds of others (each real client has a machine of its own).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ViewAlerts } from '../../shared/events.ts';
import { openSocket, subscribeOnConnect, type BenchSocket } from './socket.ts';

const { origin, count, patches } = workerData as { origin: string; count: number; patches: boolean };
const totals = { messages: 0, alerts: 0, resyncs: 0, disconnects: 0 };
const sockets: BenchSocket[] = [];

async function connectOne(): Promise<void> {
  const socket = openSocket(origin, 30_000);
  socket.on('alert.updated', (m: ViewAlerts) => {
    totals.messages++;
    totals.alerts += m.alerts.length + (m.patches?.length ?? 0);
  });
  socket.on('resync', () => totals.resyncs++);
  socket.on('disconnect', () => totals.disconnects++);
  await subscribeOnConnect(socket, { query: '', patches }, 60_000, 'load client');
  sockets.push(socket);
}

for (let i = 0; i < count; i += 50) {
  await Promise.all(Array.from({ length: Math.min(50, count - i) }, connectOne));
}
parentPort!.postMessage({ type: 'ready' });
parentPort!.on('message', (m: string) => {
  if (m === 'reset') {
    totals.messages = totals.alerts = 0;
  } else if (m === 'report') {
    parentPort!.postMessage({ type: 'report', ...totals });
  } else if (m === 'close') {
    for (const s of sockets) s.close();
    parentPort!.close();
  }
});
