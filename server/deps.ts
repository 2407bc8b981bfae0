import type { Config } from './config.ts';
import type { Db } from './db/pool.ts';
import type { Log } from './log.ts';
import type { Metrics } from './metrics.ts';
import type { Bus } from './realtime/bus.ts';
import type { AlarmModel } from './domain/alarm-model.ts';
import type { AlertDraft } from './domain/alert-types.ts';
import type { Forwarder, Notifier } from './delivery/services.ts';
import type { PluginPipeline } from './domain/plugin-hooks.ts';
import type { Receiver } from './domain/receive/receiver.ts';
import type { SecretBox } from './secret-box.ts';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

/**
 * The plain dependencies, built first in boot.ts: what every per-instance service is created from.
 * A service's constructor takes Base (and the services it needs) explicitly, so nothing is built
 * half-done and filled in later.
 */
export interface Base {
  config: Config;
  db: Db;
  bus: Bus;
  log: Log;
  metrics: Metrics;
  clock: Clock;
  /** The alarm model ALARM_MODEL selects. */
  model: AlarmModel;
  /** Seals and opens receiver secrets at rest (SECRETS_KEYS). */
  secrets: SecretBox;
  /** When this process started, for uptime. */
  startedAt: number;
}

/** Counts uses of API keys in memory and writes them every second (auth/key-usage.ts). */
export interface KeyUsage {
  note(keyId: string): void;
}

/** Failed logins counted in this process's memory (auth/rate-limit.ts, docs/users.md). */
export interface LoginLimiter {
  /** Seconds to wait before this login from this address may be tried; 0 = go ahead. */
  retryAfter(login: string, ip: string): number;
  fail(login: string, ip: string): void;
  succeed(login: string, ip: string): void;
}

/** Runs this instance's bulk tasks (domain/bulk.ts). */
export interface BulkRunner {
  /** A task was queued: look for it now rather than at the next sweep. */
  kick(): void;
}

/** The blackout an alert falls in. */
export interface ActiveBlackout {
  id: string;
  priority?: number;
}

/** This instance's one-second copy of the recent blackouts (domain/blackouts.ts createBlackoutCache). */
export interface BlackoutCache {
  /** The blackout in force at the alert's createTime that matches it, if any. */
  findActive(alert: AlertDraft): Promise<ActiveBlackout | null>;
  /** Drops the copy, so this instance's own change applies to the very next alert. */
  forget(): void;
}

/** Everything a request handler or use case may touch: Base plus the services boot.ts builds from it. */
export interface Deps extends Base {
  /** The PLUGINS, ready to run. */
  plugins: PluginPipeline;
  /** POST /alert's way in (domain/receive/). */
  receiver: Receiver;
  keyUsage: KeyUsage;
  loginLimiter: LoginLimiter;
  bulk: BulkRunner;
  blackoutCache: BlackoutCache;
  /** Forwarding's delivery side, when forwarding is on (forwarding/worker.ts). */
  forwarder: Forwarder | null;
  /** The notifications engine: routing, scheduling, delivery (notifications/engine.ts). */
  notifier: Notifier;
}
