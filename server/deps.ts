import type { Config } from './config.ts';
import type { Db } from './db/pool.ts';
import type { Log } from './log.ts';
import type { Metrics } from './metrics.ts';
import type { Bus } from './realtime/bus.ts';
import type { AlarmModel } from './domain/alarm-model.ts';
import type { PluginPipeline } from './domain/plugin-hooks.ts';
import type { SecretBox } from './secret-box.ts';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

/** Everything a request handler or use case may touch; built once in main.ts (or a test). */
export interface Deps {
  config: Config;
  db: Db;
  bus: Bus;
  log: Log;
  metrics: Metrics;
  clock: Clock;
  /** The alarm model ALARM_MODEL selects. */
  model: AlarmModel;
  /** The PLUGINS, ready to run. */
  plugins: PluginPipeline;
  /** Seals and opens receiver secrets at rest (SECRETS_KEYS). */
  secrets: SecretBox;
  /** When this process started, for uptime. */
  startedAt: number;
}
