import { authenticateSocket } from '../auth/authenticate.ts';
import { isGranted } from '../auth/scopes.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import type { LiveSocket } from './view.ts';

/** Turns a failure into what a socket is told, as HTTP would answer it (the hub's `answerFor`). */
export type AnswerFor = (err: unknown, what: string) => AppError;

/**
 * Who a live socket is and for how long (docs/live.md): the handshake is checked as HTTP checks a
 * request (authenticate.ts), and a socket whose token expires is told `session.expired` and
 * disconnected (tests/api/live-session.test.ts).
 */
export interface Sessions {
  /** The `io.use` step: sets the socket's auth and caller, or refuses it with a JSON error. */
  authenticate(socket: LiveSocket, next: (err?: Error) => void): Promise<void>;
  /** Follows a connected socket until `forget`: its session may end while it is connected. */
  watch(socket: LiveSocket): void;
  /** The socket disconnected. */
  forget(socket: LiveSocket): void;
  close(): void;
}

export function createSessions(deps: Deps, answerFor: AnswerFor): Sessions {
  const { config } = deps;
  /** The expiry timer of each watched socket whose token has an expiry. */
  const expiries = new Map<LiveSocket, NodeJS.Timeout>();

  const baseUrlOf = (socket: LiveSocket) => {
    if (config.BASE_URL) return config.BASE_URL.replace(/\/+$/, '');
    const proto = socket.handshake.secure ? 'https' : 'http';
    return `${proto}://${socket.handshake.headers.host ?? 'localhost'}${config.API_PREFIX}`;
  };

  /** Tells the socket why its session ended and disconnects it (the UI shows the login page). */
  const end = (socket: LiveSocket, message: string) => {
    socket.emit('session.expired', { message });
    socket.disconnect(true);
  };

  return {
    async authenticate(socket, next) {
      try {
        const header = (name: string) => String(socket.handshake.headers[name.toLowerCase()] ?? '');
        const auth = await authenticateSocket(deps, socket.handshake.auth ?? {}, baseUrlOf(socket), header);
        if (!auth.unrestricted && !isGranted(auth.scopes, 'read:alerts', config.DELETE_SCOPES)) {
          throw new AppError(403, 'Missing required scope: read:alerts');
        }
        const customers = config.CUSTOMER_VIEWS && auth.customers.length ? auth.customers : null;
        socket.data.auth = auth;
        socket.data.caller = {
          ip: socket.handshake.address,
          header,
          user: auth.login,
          baseUrl: baseUrlOf(socket),
          customers,
        };
        socket.data.views = new Set();
        socket.data.behind = new Map();
        next();
      } catch (err) {
        const e = answerFor(err, 'live.auth_failed');
        const refusal = new Error(e.message) as Error & { data: unknown };
        refusal.data = { status: 'error', message: e.message, code: e.status };
        next(refusal);
      }
    },

    watch(socket) {
      const exp = socket.data.auth.claims?.exp;
      if (typeof exp !== 'number') return;
      const ms = Math.min(exp * 1000 - Date.now(), 2 ** 31 - 1);
      const expiry = setTimeout(() => end(socket, 'Token has expired'), Math.max(ms, 0));
      expiry.unref();
      expiries.set(socket, expiry);
    },

    forget(socket) {
      const expiry = expiries.get(socket);
      if (expiry) clearTimeout(expiry);
      expiries.delete(socket);
    },

    close() {
      for (const expiry of expiries.values()) clearTimeout(expiry);
      expiries.clear();
    },
  };
}
