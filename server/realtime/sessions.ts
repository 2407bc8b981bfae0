import { authenticateSocket } from '../auth/authenticate.ts';
import { isGranted } from '../auth/scopes.ts';
import type { Auth } from '../auth/types.ts';
import { findTokenUsers, type TokenUser } from '../db/users.ts';
import { apiBase } from '../base-url.ts';
import type { Deps } from '../deps.ts';
import { callerOf } from '../domain/caller.ts';
import { appError, type AppError } from '../errors.ts';
import { requestOrigin } from '../request.ts';
import type { LiveSocket } from './view.ts';

/** Turns a failure into what a socket is told, as HTTP would answer it (the hub's `answerFor`). */
export type AnswerFor = (err: unknown, what: string) => AppError;

/**
 * Who a live socket is and for how long (docs/live.md): the handshake is checked as HTTP checks a
 * request (authenticate.ts), and a socket whose token expires, or whose user is disabled or deleted
 * while it is connected, is told `session.expired` and disconnected (tests/api/live-session.test.ts,
 * tests/api/users-disabled.test.ts).
 */
export interface Sessions {
  /** The `io.use` step: sets the socket's auth and caller, or refuses it with a JSON error. */
  authenticate(socket: LiveSocket, next: (err?: Error) => void): Promise<void>;
  /** Follows a connected socket until `forget`: its session may end while it is connected. */
  watch(socket: LiveSocket): void;
  /** The socket disconnected. */
  forget(socket: LiveSocket): void;
  /**
   * Re-reads the users behind the watched sockets, in one query (none without such sockets), and
   * ends the sessions of users no longer active or gone, as authenticate.ts would refuse them.
   */
  check(): Promise<void>;
  close(): void;
}

/** Whose status a socket's session depends on: the user of a token or the auth proxy, or a key's owner. */
interface Holder {
  userId: string | null;
  login: string | null;
  /** Tokens and the proxy need the user to exist; a key whose owner is no user here keeps working. */
  mustExist: boolean;
}

function holderOf(auth: Auth): Holder | null {
  if (auth.method === 'bearer' || auth.method === 'proxy')
    return { userId: auth.userId, login: auth.login, mustExist: true };
  if (auth.method === 'key' && auth.login) return { userId: null, login: auth.login, mustExist: false };
  return null;
}

/** Why a session ends now, as authenticate.ts would refuse its credential; null while it holds. */
function endingOf(holder: Holder, user: TokenUser | null): string | null {
  if (!user) return holder.mustExist ? 'Token is invalid: its user does not exist' : null;
  if (user.status === 'active') return null;
  // Worded as authenticate.ts words it: a token names its user's login, a key its own `user`.
  return `User ${holder.mustExist ? user.login : holder.login} not active`;
}

export function createSessions(deps: Deps, answerFor: AnswerFor): Sessions {
  const { config, log } = deps;
  /** The expiry timer of each watched socket whose token has an expiry. */
  const expiries = new Map<LiveSocket, NodeJS.Timeout>();
  /** The watched sockets whose session depends on a user's status. */
  const held = new Map<LiveSocket, Holder>();
  let checking = false;
  let failing = false;

  /** Tells the socket why its session ended and disconnects it (the UI shows the login page). */
  const end = (socket: LiveSocket, message: string) => {
    socket.emit('session.expired', { message });
    socket.disconnect(true);
  };

  return {
    async authenticate(socket, next) {
      try {
        const header = (name: string) => String(socket.handshake.headers[name.toLowerCase()] ?? '');
        // The same base URL as the HTTP requests of the page that opened the socket.
        const baseUrl = apiBase(
          requestOrigin(config, { header, encrypted: socket.handshake.secure }),
          config,
        );
        const auth = await authenticateSocket(deps, socket.handshake.auth ?? {}, baseUrl, header);
        if (!auth.unrestricted && !isGranted(auth.scopes, 'read:alerts', config.DELETE_SCOPES)) {
          throw appError('missing_scope', 'read:alerts');
        }
        socket.data.auth = auth;
        socket.data.caller = callerOf(config, auth, { ip: socket.handshake.address, header, baseUrl });
        socket.data.views = new Set();
        socket.data.behind = new Map();
        next();
      } catch (err) {
        const e = answerFor(err, 'live.auth_failed');
        const refusal = new Error(e.message) as Error & { data: unknown };
        refusal.data = { status: 'error', message: e.message, code: e.status, errorCode: e.errorCode };
        next(refusal);
      }
    },

    watch(socket) {
      const holder = holderOf(socket.data.auth);
      if (holder) held.set(socket, holder);
      const exp = socket.data.auth.claims?.exp;
      if (typeof exp !== 'number') return;
      const ms = Math.min(exp * 1000 - Date.now(), 2 ** 31 - 1);
      const expiry = setTimeout(() => end(socket, 'Token has expired'), Math.max(ms, 0));
      expiry.unref();
      expiries.set(socket, expiry);
    },

    forget(socket) {
      held.delete(socket);
      const expiry = expiries.get(socket);
      if (expiry) clearTimeout(expiry);
      expiries.delete(socket);
    },

    async check() {
      if (held.size === 0 || checking) return;
      checking = true;
      // One entry per distinct holder: a wall of screens of one user costs one row.
      const bySame = new Map<string, { holder: Holder; sockets: LiveSocket[] }>();
      for (const [socket, holder] of held) {
        const key = JSON.stringify([holder.userId, holder.login, holder.mustExist]);
        const entry = bySame.get(key);
        if (entry) entry.sockets.push(socket);
        else bySame.set(key, { holder, sockets: [socket] });
      }
      const entries = [...bySame.values()];
      try {
        const users = await findTokenUsers(
          deps.db,
          entries.map((e) => e.holder),
        );
        failing = false;
        entries.forEach(({ holder, sockets }, i) => {
          const message = endingOf(holder, users[i] ?? null);
          if (!message) return;
          log.info({ user: users[i]?.login ?? holder.login, sockets: sockets.length }, 'live.session_ended');
          for (const socket of sockets) if (held.has(socket)) end(socket, message);
        });
      } catch (err) {
        // Checked again at the next tick; a database outage is logged once, not every tick.
        if (!failing) log.warn({ err: (err as Error).message }, 'live.session_check_failed');
        failing = true;
      } finally {
        checking = false;
      }
    },

    close() {
      for (const expiry of expiries.values()) clearTimeout(expiry);
      expiries.clear();
      held.clear();
    },
  };
}
