import type { Middleware } from 'koa';
import type { Deps } from '../deps.ts';
import type { TimerName } from '../metrics.ts';

/** Times the rest of the request into one of the application timers (api.md §11). */
export const timed =
  (deps: Deps, name: TimerName): Middleware =>
  async (_ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      deps.metrics.app.time(name, performance.now() - started);
    }
  };
