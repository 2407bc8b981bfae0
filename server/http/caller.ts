import type { Context } from 'koa';
import { authenticate as authenticateRequest } from '../auth/authenticate.ts';
import type { Auth } from '../auth/types.ts';
import { apiBase } from '../base-url.ts';
import type { Deps } from '../deps.ts';
import { callerOf, type Caller } from '../domain/caller.ts';
import type { RequestFacts } from '../request.ts';

declare module 'koa' {
  interface DefaultState {
    auth?: Auth;
  }
}

/** The plain facts of a Koa request, for code below the HTTP layer. */
export function requestFacts(ctx: Context): RequestFacts {
  return {
    method: ctx.method,
    url: ctx.originalUrl,
    header: (name) => ctx.get(name),
    // A repeated parameter is an array in Koa's query: it names no single value.
    query: (name) => {
      const value = ctx.query[name];
      return typeof value === 'string' ? value : '';
    },
    ip: ctx.ip,
    encrypted: Boolean((ctx.req.socket as { encrypted?: boolean }).encrypted),
    rawBody: ctx.request.rawBody,
  };
}

/** The request's caller (auth/authenticate.ts), worked out once per request and kept in ctx.state. */
export async function authenticate(ctx: Context, deps: Deps): Promise<Auth> {
  if (ctx.state.auth) return ctx.state.auth;
  const auth = await authenticateRequest(deps, requestFacts(ctx), apiBase(ctx, deps.config));
  ctx.state.auth = auth;
  return auth;
}

/** Who is calling (domain/caller.ts), for use cases and plugins. */
export function httpCaller(ctx: Context, deps: Deps): Caller {
  return callerOf(deps.config, ctx.state.auth, {
    ip: ctx.request.socket.remoteAddress ?? '',
    header: (name) => ctx.get(name),
    baseUrl: apiBase(ctx, deps.config),
  });
}
