import cors from '@koa/cors';
import type { Context, Middleware, Next } from 'koa';
import { originMatcher } from '../../config/origins.ts';

/** Response headers a page on another origin may read. */
const EXPOSED = 'X-Request-ID';

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
  const originFor = (ctx: Context) => {
    const origin = ctx.get('Origin');
    if (origins.includes('*')) return credentials || credentialPaths(ctx.path) ? origin : '*';
    return isListed(origin) || pathOrigins(ctx.path).includes(origin) ? origin : '';
  };
  const credentialsFor = (ctx: Context) => credentials || credentialPaths(ctx.path);
  const handle = cors({
    origin: originFor,
    allowHeaders: [...allowHeaders],
    exposeHeaders: [EXPOSED],
    credentials: credentialsFor,
    maxAge: 86400,
  });

  /** @koa/cors answers the preflight itself (204, the whole allow-list): make it the reference's. */
  async function preflight(ctx: Context, next: Next) {
    await handle(ctx, next);
    const isPreflight = ctx.get('Access-Control-Request-Method') !== '';
    if (!isPreflight || ctx.status !== 204 || !ctx.response.get('Access-Control-Allow-Origin')) return;
    const headers = allowedRequestHeaders(ctx.get('Access-Control-Request-Headers'), allowHeaders);
    if (headers.length) ctx.set('Access-Control-Allow-Headers', headers.join(', '));
    else ctx.remove('Access-Control-Allow-Headers');
    ctx.status = 200;
    ctx.body = '';
  }

  return (ctx, next) => {
    if (ctx.method === 'OPTIONS') return preflight(ctx, next);
    // Any other request gets what @koa/cors gives it, set here without its awaits of plain values
    // (it awaits both callbacks, then the rest, on every request).
    ctx.vary('Origin');
    const origin = originFor(ctx);
    if (!origin) return next();
    ctx.set('Access-Control-Allow-Origin', origin);
    if (credentialsFor(ctx)) ctx.set('Access-Control-Allow-Credentials', 'true');
    ctx.set('Access-Control-Expose-Headers', EXPOSED);
    // On a failure @koa/cors also copies these headers onto the error (the errors middleware sets
    // an AppError's, logs show them): handed the error, it does exactly that and throws it on.
    return next().catch((err: unknown) => handle(ctx, () => Promise.reject(err)));
  };
}
