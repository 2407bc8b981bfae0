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
  /** Origins allowed on some paths only: the SAML identity provider's on /auth/saml. */
  pathOrigins: (path: string) => readonly string[] = () => [],
): Middleware {
  const isListed = originMatcher(origins);
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      if (origins.includes('*')) return credentials || credentialPaths(ctx.path) ? origin : '*';
      return isListed(origin) || pathOrigins(ctx.path).includes(origin) ? origin : '';
    },
    allowHeaders: [...allowHeaders],
    exposeHeaders: ['X-Request-ID'],
    credentials: (ctx) => credentials || credentialPaths(ctx.path),
    maxAge: 86400,
  });
}

/** Does CORS_ORIGINS list this origin: exactly, as `*`, or by a `^` regular expression? */
export function originMatcher(origins: readonly string[]): (origin: string) => boolean {
  const exact = new Set(origins.filter((o) => !o.startsWith('^')));
  const patterns = origins.filter((o) => o.startsWith('^')).map((o) => new RegExp(o));
  return (origin) => exact.has('*') || exact.has(origin) || patterns.some((p) => p.test(origin));
}
