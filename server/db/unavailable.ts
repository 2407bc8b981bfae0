import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  type Interceptor,
} from 'slonik';

/**
 * SQLSTATEs of a PostgreSQL that cannot take work: class 08 (connection exception), 57P01 admin
 * shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up, in recovery), 53300 too
 * many connections.
 */
const isUnavailableState = (code: string) =>
  /^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code);

/** System error codes of a peer that cannot be reached or went away mid-conversation. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** What the pg driver says, without a code, when it cannot connect or loses the connection. */
const DRIVER_MESSAGE = /^(Connection terminated\b|timeout exceeded when trying to connect)/;

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** The error, its causes and (for AggregateError) the errors it holds, at most a few levels deep. */
function* chainOf(err: unknown, depth = 0): Generator<ErrorLike> {
  if (!err || typeof err !== 'object' || depth > 8) return;
  const e = err as ErrorLike;
  yield e;
  if (Array.isArray(e.errors)) for (const inner of e.errors) yield* chainOf(inner, depth + 1);
  yield* chainOf(e.cause, depth + 1);
}

const isDriverOutage = (e: ErrorLike) =>
  e instanceof ConnectionError ||
  e instanceof BackendTerminatedError ||
  e instanceof BackendTerminatedUnexpectedlyError ||
  (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && isUnavailableState(e.code)) ||
  (typeof e.message === 'string' && DRIVER_MESSAGE.test(e.message));

const isNetworkFailure = (e: ErrorLike) => typeof e.code === 'string' && NETWORK_CODES.has(e.code);

/**
 * True when the error is, or was caused by, the database being unreachable or refusing work:
 * slonik's connection errors, the SQLSTATEs above, the driver's own connection messages — also
 * when a plugin wrapped one as the cause of an error of its own. Not for other failures of the
 * database (a bad statement, a timeout), which are bugs or load, not an outage.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of chainOf(err)) if (isDriverOutage(e)) return true;
  return false;
}

/**
 * isDatabaseUnavailable, or a bare network failure (ECONNREFUSED, ECONNRESET …) anywhere in the
 * chain. For the last line of error handling only: the modules that call other services (LDAP,
 * identity providers, forwarding, webhooks) answer their own failures, so a network error that
 * reaches the edge unanswered came from the database driver.
 */
export function isUnreachable(err: unknown): boolean {
  for (const e of chainOf(err)) if (isDriverOutage(e) || isNetworkFailure(e)) return true;
  return false;
}

/**
 * A statement that fails because its connection broke (the driver gives the bare socket error,
 * e.g. `read ECONNRESET`) is rethrown as slonik's BackendTerminatedUnexpectedlyError, so it is
 * known as an outage wherever it is caught, including inside plugins.
 */
export const connectionLossInterceptor: Interceptor = {
  name: 'connection-loss',
  queryExecutionError(_context, _query, error) {
    if (!isDatabaseUnavailable(error) && isNetworkFailure(error as ErrorLike)) {
      throw new BackendTerminatedUnexpectedlyError(error);
    }
    return null;
  },
};
