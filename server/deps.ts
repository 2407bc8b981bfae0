import type { Config } from './config.ts';
import type { Db } from './db/pool.ts';
import type { Log } from './log.ts';
import type { Metrics } from './metrics.ts';
import type { Bus } from './realtime/bus.ts';

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
  /** When this process started, for uptime. */
  startedAt: number;
}
