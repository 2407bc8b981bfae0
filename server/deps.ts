import type { Config } from './config.ts';
import type { Db } from './db/pool.ts';
import type { Log } from './log.ts';
import type { Metrics } from './metrics.ts';
import type { Bus } from './realtime/bus.ts';
import type { AlarmModel } from './domain/alarm-model.ts';
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

/** Everything a request handler or use case may touch: Base plus the services boot.ts builds from it. */
export interface Deps extends Base {
  /** The PLUGINS, ready to run. */
  plugins: PluginPipeline;
  /** POST /alert's way in (domain/receive/). */
  receiver: Receiver;
  /** Forwarding's delivery side, when forwarding is on (forwarding/worker.ts). */
  forwarder: Forwarder | null;
  /** The notifications engine: routing, scheduling, delivery (notifications/engine.ts). */
  notifier: Notifier;
}
