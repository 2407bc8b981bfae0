import type { LiveAlert } from '../shared/alerts.ts';
import type {
  ClientToServerEvents,
  Position,
  ServerToClientEvents,
  SubscribeAnswer,
} from '../shared/events.ts';
import type { Socket } from 'socket.io-client';
import type { Context } from './context.ts';
import { AuthError, CliError } from './http.ts';
import { loginWith } from './commands/session.ts';

/**
 * The live socket for `watch` and `tail` (docs/live.md): subscribe to the selection, get a
 * snapshot, then every change, including acks, closes and deletions. After a reconnect it
 * subscribes again from the last position, so nothing is missed while the server holds it.
 */

export interface LiveHandlers {
  /** A fresh picture of the view (first subscribe, or after the server could not catch us up). */
  snapshot(alerts: LiveAlert[], answer: Extract<SubscribeAnswer, { mode: 'snapshot' }>): void;
  updated(alerts: LiveAlert[], seq: number): void;
  removed(ids: string[], seq: number): void;
  /** Every socket message as it came (for `tail`). */
  raw?(event: string, data: unknown): void;
  /** A remark for stderr: connection lost, caught up… */
  notice(message: string): void;
}

/** How the socket ended: stopped by a signal, or never available (then the caller polls). */
export type LiveOutcome = { kind: 'stopped' } | { kind: 'unavailable'; reason: string };

type Credentials = { key: string } | { token: string } | Record<string, never>;

/** The handshake credentials for the configured ones: the socket takes a key or a token. */
async function socketCredentials(ctx: Context): Promise<Credentials> {
  const header = ctx.http.credentials;
  if (!header) return {};
  // A Hawk signature covers one HTTP request; the socket has nothing to check it against.
  if (typeof header !== 'string') throw new CliError('the live socket takes no Hawk credentials');
  const [scheme, value = ''] = header.split(' ', 2);
  if (scheme === 'Key') return { key: value };
  if (scheme === 'Bearer') return { token: value };
  // Basic: the socket has no Basic auth, so trade the password for a token for this session only.
  const { username, password } = ctx.settings;
  return { token: await loginWith(ctx, username ?? '', password ?? '') };
}

/** Resolves when a signal stops us; rejects with a CliError when the session can not go on. */
export async function streamLive(
  ctx: Context,
  query: string,
  handlers: LiveHandlers,
  stop: AbortSignal,
): Promise<LiveOutcome> {
  let auth: Credentials;
  try {
    auth = await socketCredentials(ctx);
  } catch (err) {
    return { kind: 'unavailable', reason: (err as Error).message };
  }
  const { io } = await import('socket.io-client');
  const endpoint = new URL(ctx.http.endpoint);
  const socket = io(endpoint.origin, {
    path: `${endpoint.pathname.replace(/\/+$/, '')}/socket.io`,
    transports: ['websocket'],
    auth,
    forceNew: true,
    reconnectionDelay: 500,
    reconnectionDelayMax: 5000,
    timeout: ctx.settings.timeout * 1000,
    rejectUnauthorized: ctx.settings.sslverify,
  }) as Socket<ServerToClientEvents, ClientToServerEvents>;

  return new Promise<LiveOutcome>((resolve, reject) => {
    let connectedOnce = false;
    let position: Position | null = null;
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      stop.removeEventListener('abort', onStop);
      socket.close();
      fn();
    };
    const onStop = () => finish(() => resolve({ kind: 'stopped' }));
    stop.addEventListener('abort', onStop);
    const advance = (seq: number) => {
      if (position && seq > position.seq) position = { ...position, seq };
    };
    const subscribe = (since: Position | null) => {
      socket.emit('subscribe', { query, since }, (answer) => {
        if (answer.status === 'error') {
          finish(() => reject(new CliError(`${answer.message} (code ${answer.code})`)));
          return;
        }
        position = answer.position;
        handlers.raw?.('subscribed', answer.mode === 'snapshot' ? { ...answer, alerts: undefined } : answer);
        if (answer.mode === 'snapshot') handlers.snapshot(answer.alerts, answer);
        else handlers.notice(`caught up: ${answer.replayed} changes while disconnected`);
      });
    };

    socket.on('connect', () => {
      if (connectedOnce) handlers.notice('reconnected');
      connectedOnce = true;
      subscribe(position);
    });
    socket.on('connect_error', (err) => {
      if (!connectedOnce) {
        finish(() => resolve({ kind: 'unavailable', reason: err.message }));
      } else if (!socket.active) {
        // Refused by the server (credentials no longer valid): retrying would not help.
        finish(() => reject(new AuthError(`live socket refused: ${err.message}`)));
      }
    });
    socket.on('disconnect', (reason) => {
      if (done) return;
      if (reason === 'io server disconnect') {
        finish(() => reject(new AuthError('the server closed the live socket; log in again')));
      } else handlers.notice(`connection lost (${reason}); reconnecting…`);
    });
    socket.on('session.expired', (m) =>
      finish(() => reject(new AuthError(`session expired: ${m.message}; log in again`))),
    );
    socket.on('alert.updated', (m) => {
      advance(m.seq);
      handlers.raw?.('alert.updated', m);
      handlers.updated(m.alerts, m.seq);
    });
    socket.on('alert.removed-from-view', (m) => {
      advance(m.seq);
      handlers.raw?.('alert.removed-from-view', m);
      handlers.removed(m.ids, m.seq);
    });
    socket.on('counts', (m) => {
      advance(m.seq);
      handlers.raw?.('counts', m);
    });
    socket.on('heartbeat.updated', (m) => handlers.raw?.('heartbeat.updated', m));
    socket.on('heartbeat.deleted', (m) => handlers.raw?.('heartbeat.deleted', m));
    socket.on('tick', (m) => handlers.raw?.('tick', m));
    socket.on('resync', (m) => {
      handlers.raw?.('resync', m);
      handlers.notice(`resync (${m.reason}): taking a new snapshot`);
      subscribe(null);
    });
  });
}
