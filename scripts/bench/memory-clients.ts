/**
 * scripts/bench/memory.ts's sockets, in a worker thread: each connects, subscribes to its view
 * (query, optional groupBy) and counts what it receives.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { GroupField } from '../../shared/events.ts';
import { openSocket, subscribeOnConnect, type BenchSocket } from './socket.ts';

export interface ViewSpec {
  name: string;
  query: string;
  groupBy?: GroupField;
}
const { origin, views } = workerData as { origin: string; views: ViewSpec[] };
const totals = { messages: 0, alerts: 0, removed: 0, resyncs: 0, disconnects: 0 };
const sockets: BenchSocket[] = [];

async function connectOne(spec: ViewSpec): Promise<void> {
  const socket = openSocket(origin, 300_000);
  socket.on('alert.updated', (m) => {
    totals.messages++;
    totals.alerts += m.alerts.length;
  });
  socket.on('alert.removed-from-view', (m) => {
    totals.messages++;
    totals.removed += m.ids.length;
  });
  socket.on('counts', () => totals.messages++);
  socket.on('resync', () => totals.resyncs++);
  socket.on('disconnect', () => totals.disconnects++);
  const req = { query: spec.query, ...(spec.groupBy ? { groupBy: spec.groupBy } : {}) };
  await subscribeOnConnect(socket, req, 300_000, `view ${spec.name}`);
  sockets.push(socket);
}

for (let i = 0; i < views.length; i += 10) await Promise.all(views.slice(i, i + 10).map(connectOne));
parentPort!.postMessage({ type: 'ready' });
parentPort!.on('message', (m: string) => {
  if (m === 'report') parentPort!.postMessage({ type: 'report', ...totals });
  else if (m === 'close') {
    for (const s of sockets) s.close();
    parentPort!.close();
  }
});
