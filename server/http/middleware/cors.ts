import cors from '@koa/cors';
import type { Middleware } from 'koa';
import { originMatcher } from '../../config/origins.ts';

/**
 * CORS from CORS_ORIGINS: each entry is an exact origin, `*` for any, or a regular expression
 * (originMatcher), as the established server allows for its `*.local.alerta.io` default.
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
