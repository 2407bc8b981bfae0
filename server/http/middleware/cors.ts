import cors from '@koa/cors';
import type { Middleware } from 'koa';
import { originMatcher } from '../../config/origins.ts';

/**
 * The requested headers (`Access-Control-Request-Headers`) that `allowed` lists, case-insensitively,
 * in the request's spelling and sorted, as flask-cors answers them (auth.md §14); `*` allows all.
 */
export function allowedRequestHeaders(requested: string, allowed: readonly string[]): string[] {
  const names = new Set(allowed.map((h) => h.trim().toLowerCase()));
  return requested
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h && (names.has('*') || names.has(h.toLowerCase())))
    .sort();
}

/**
 * CORS from CORS_ORIGINS: each entry is an exact origin, `*` for any, or a regular expression
 * (originMatcher), as the established server allows for its `*.local.alerta.io` default.
 * Credentials (cookies, Authorization) are allowed with CORS_SUPPORTS_CREDENTIALS, whenever
 * AUTH_REQUIRED is on (the caller passes them in `credentials`), and always on `/auth/*`.
 * A preflight from an allowed origin answers 200 (not 204) and allows only the requested headers
 * that CORS_ALLOW_HEADERS lists, as flask-cors does.
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
  const handle = cors({
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
  return async (ctx, next) => {
    await handle(ctx, next);
    // @koa/cors answered the preflight itself (204, the whole allow-list): make it the reference's.
    const isPreflight = ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '';
    if (!isPreflight || ctx.status !== 204 || !ctx.response.get('Access-Control-Allow-Origin')) return;
    const headers = allowedRequestHeaders(ctx.get('Access-Control-Request-Headers'), allowHeaders);
    if (headers.length) ctx.set('Access-Control-Allow-Headers', headers.join(', '));
    else ctx.remove('Access-Control-Allow-Headers');
    ctx.status = 200;
    ctx.body = '';
  };
}
