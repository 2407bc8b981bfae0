import type { Middleware } from 'koa';
import type { Log } from '../../log.ts';
import type { Metrics } from '../../metrics.ts';

/** The path with credentials removed from the query string (keys must never reach the log). */
function loggablePath(url: string): string {
  return url.replace(/([?&]api-key=)[^&]*/gi, '$1[redacted]');
}

interface MethodLabels {
  method: { method: string };
  /** By status class, 1 to 9 (`2xx` at 2). */
  byClass: ({ method: string; status: string } | undefined)[];
}

/** One JSON line per request, and the request counters. */
export function accessLog(log: Log, metrics: Metrics): Middleware {
  // The metrics' label sets, made once per method (Node's parser knows a few dozen) and status class.
  const labelSets = new Map<string, MethodLabels>();
  const labelsOf = (method: string) => {
    let sets = labelSets.get(method);
    if (!sets) labelSets.set(method, (sets = { method: { method }, byClass: [] }));
    return sets;
  };
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const status = ctx.status;
      const labels = labelsOf(ctx.method);
      const statusClass = Math.floor(status / 100);
      metrics.httpRequests.inc(
        (labels.byClass[statusClass] ??= { method: ctx.method, status: `${statusClass}xx` }),
      );
      metrics.httpDuration.observe(labels.method, seconds);
      // The line's fields only when it is written (LOG_LEVEL info or debug): the path's redaction
      // and the client's address cost something on every request otherwise.
      if (log.isLevelEnabled('info'))
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
