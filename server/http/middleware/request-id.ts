import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

const SAFE_ID = /^[\w.:@/+=-]{1,200}$/;

/**
 * Echoes a caller's X-Request-ID (or X-Amzn-Trace-Id) when it is sane, otherwise makes one. Not an
 * async function: it has nothing to do after the rest, so it hands back the rest's promise.
 */
export function requestId(): Middleware {
  return (ctx, next) => {
    const given = ctx.get('X-Request-ID') || ctx.get('X-Amzn-Trace-Id');
    const id = SAFE_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-ID', id);
    return next();
  };
}
