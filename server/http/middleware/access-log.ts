import type { Middleware } from 'koa';
import type { Log } from '../../log.ts';
import type { Metrics } from '../../metrics.ts';

/** The path with credentials removed from the query string (keys must never reach the log). */
function loggablePath(url: string): string {
  return url.replace(/([?&]api-key=)[^&]*/gi, '$1[redacted]');
}

/** One JSON line per request, and the request counters. */
export function accessLog(log: Log, metrics: Metrics): Middleware {
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const status = ctx.status;
      metrics.httpRequests.inc({ method: ctx.method, status: `${Math.floor(status / 100)}xx` });
      metrics.httpDuration.observe({ method: ctx.method }, seconds);
      log.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: loggablePath(ctx.originalUrl),
          status,
          ms: Math.round(seconds * 1e4) / 10,
          bytes: ctx.response.length ?? null,
          ip: ctx.ip,
        },
        'http.request',
      );
    }
  };
}
