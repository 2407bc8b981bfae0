import cors from '@koa/cors';
import type { Middleware } from 'koa';

/**
 * CORS from CORS_ORIGINS: each entry is an exact origin, `*` for any, or (starting with `^`) a
 * regular expression, as the established server allows for its `*.local.alerta.io` default.
 */
export function corsFrom(
  origins: readonly string[],
  allowHeaders: readonly string[],
  credentials: boolean,
): Middleware {
  const exact = new Set(origins.filter((o) => !o.startsWith('^')));
  const patterns = origins.filter((o) => o.startsWith('^')).map((o) => new RegExp(o));
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      if (exact.has('*')) return credentials ? origin : '*';
      return exact.has(origin) || patterns.some((p) => p.test(origin)) ? origin : '';
    },
    allowHeaders: [...allowHeaders],
    exposeHeaders: ['X-Request-ID'],
    credentials,
    maxAge: 86400,
  });
}
