import cors from '@koa/cors';
import type { Middleware } from 'koa';

/**
 * CORS from CORS_ORIGINS: each entry is an exact origin, `*` for any, or (starting with `^`) a
 * regular expression, as the established server allows for its `*.local.alerta.io` default.
 * Credentials (cookies, Authorization) are allowed with CORS_SUPPORTS_CREDENTIALS, whenever
 * AUTH_REQUIRED is on (the caller passes them in `credentials`), and always on `/auth/*`.
 */
export function corsFrom(
  origins: readonly string[],
  allowHeaders: readonly string[],
  credentials: boolean,
  /** Paths that always allow credentials (the login endpoints), as the established server does. */
  credentialPaths: (path: string) => boolean = () => false,
): Middleware {
  const exact = new Set(origins.filter((o) => !o.startsWith('^')));
  const patterns = origins.filter((o) => o.startsWith('^')).map((o) => new RegExp(o));
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      if (exact.has('*')) return credentials || credentialPaths(ctx.path) ? origin : '*';
      return exact.has(origin) || patterns.some((p) => p.test(origin)) ? origin : '';
    },
    allowHeaders: [...allowHeaders],
    exposeHeaders: ['X-Request-ID'],
    credentials: (ctx) => credentials || credentialPaths(ctx.path),
    maxAge: 86400,
  });
}
