/**
 * The live socket as the benches' worker threads open it (memory-clients.ts, push-probe.ts,
 * push-worker.ts): websocket only, a connection of its own, and no reconnecting, so a drop is
 * counted as a disconnect instead of being hidden by a retry.
 */
import type { Worker } from 'node:worker_threads';
import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents, SubscribeRequest } from '../../shared/events.ts';

export type BenchSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

export function openSocket(origin: string, timeoutMs: number): BenchSocket {
  return io(origin, {
    path: '/api/socket.io',
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    timeout: timeoutMs,
  });
}

/**
 * Resolves once the socket has connected and the server accepted `request`; `label` names the
 * client in the error when either fails. `onConnect` runs before subscribing (e.g. to hook packets).
 */
export function subscribeOnConnect(
  socket: BenchSocket,
  request: SubscribeRequest,
  timeoutMs: number,
  label: string,
  onConnect?: () => void,
): Promise<void> {
  return new Promise((ok, fail) => {
    socket.once('connect_error', (err) => fail(new Error(`${label} could not connect: ${err.message}`)));
    socket.once('connect', () => {
      onConnect?.();
      socket.timeout(timeoutMs).emit('subscribe', request, (err, answer) => {
        if (err || answer.status !== 'ok')
          return fail(err ?? new Error(`${label}: subscribe refused: ${JSON.stringify(answer)}`));
        ok();
      });
    });
  });
}

/** Resolves once every socket worker has said `ready` (all its sockets subscribed); rejects on a worker's error. */
export async function workersReady(workers: Worker[]): Promise<void> {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((ok, fail) => {
          w.once('error', fail);
          w.on('message', (m: { type: string }) => m.type === 'ready' && ok());
        }),
    ),
  );
}

/** Asks each socket worker to close its sockets and exit; one that has not exited in 3 s is terminated. */
export async function closeWorkers(workers: Worker[]): Promise<void> {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((ok) => {
          w.once('exit', () => ok());
          w.postMessage('close');
          setTimeout(() => void w.terminate(), 3000).unref();
        }),
    ),
  );
}
