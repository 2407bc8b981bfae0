import type { Clock, LoginLimiter } from '../deps.ts';

/** At most this many keys are remembered; the oldest are forgotten first (bounded memory). */
const MAX_KEYS = 100_000;

/**
 * Counts failures per key in a sliding window, in this process's memory: each instance counts on
 * its own, and a restart forgets (docs/users.md). A key is blocked once `limit` failures fall
 * inside the window.
 */
export class FailureCounter {
  private readonly failures = new Map<string, number[]>();
  readonly limit: number;
  readonly windowMs: number;
  private readonly clock: Clock;

  constructor(limit: number, windowMs: number, clock: Clock) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.clock = clock;
  }

  private recent(key: string, now: number): number[] {
    const list = this.failures.get(key);
    if (!list) return [];
    const kept = list.filter((t) => t > now - this.windowMs);
    if (kept.length === 0) this.failures.delete(key);
    else if (kept.length !== list.length) this.failures.set(key, kept);
    return kept;
  }

  /** Seconds until `key` may try again; 0 when it is not blocked. */
  retryAfter(key: string): number {
    const now = this.clock.now();
    const list = this.recent(key, now);
    if (list.length < this.limit) return 0;
    const freedAt = list[list.length - this.limit]! + this.windowMs;
    return Math.max(1, Math.ceil((freedAt - now) / 1000));
  }

  fail(key: string): void {
    const now = this.clock.now();
    const list = this.recent(key, now);
    list.push(now);
    if (list.length > this.limit) list.splice(0, list.length - this.limit);
    this.failures.delete(key); // re-insert: Map order is then least recently failed first
    this.failures.set(key, list);
    if (this.failures.size > MAX_KEYS) this.failures.delete(this.failures.keys().next().value!);
  }

  reset(key: string): void {
    this.failures.delete(key);
  }
}

const WINDOW_MS = 5 * 60_000;
/** Failed logins for one login from one address: the ordinary brute-force guard. */
const PER_LOGIN_AND_IP = 10;
/** Failed logins from one address across all logins (password spraying). */
const PER_IP = 50;
/** Failed logins for one login from all addresses (distributed guessing); high, so a victim is rarely locked out. */
const PER_LOGIN = 100;

/**
 * The login rate limits (docs/users.md): per login and address, per address, per login. boot.ts makes
 * one per instance (deps.loginLimiter), shared by POST /auth/login and Basic credentials.
 */
export function createLoginLimiter(clock: Clock): LoginLimiter {
  const pair = new FailureCounter(PER_LOGIN_AND_IP, WINDOW_MS, clock);
  const byIp = new FailureCounter(PER_IP, WINDOW_MS, clock);
  const byLogin = new FailureCounter(PER_LOGIN, WINDOW_MS, clock);
  const norm = (login: string) => login.trim().toLowerCase();
  return {
    retryAfter: (login, ip) =>
      Math.max(
        pair.retryAfter(`${norm(login)}\n${ip}`),
        byIp.retryAfter(ip),
        byLogin.retryAfter(norm(login)),
      ),
    fail: (login, ip) => {
      pair.fail(`${norm(login)}\n${ip}`);
      byIp.fail(ip);
      byLogin.fail(norm(login));
    },
    succeed: (login, ip) => pair.reset(`${norm(login)}\n${ip}`),
  };
}
