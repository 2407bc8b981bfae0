import { Stream } from 'node:stream';
import type { Middleware } from 'koa';

/**
 * Serialises a JSON body once, here, into the string Koa then sends as it is. Left as an object,
 * the body was serialised twice: once when its length was asked for (the access log's byte count,
 * Koa's HEAD handling) and again when sent — for a top-N answer listing 10,000 alerts, or a page
 * of 1,000, milliseconds each time (`scripts/bench/query.ts --only top10`). The Content-Type Koa set for
 * the object (JSON) stays.
 */
export function jsonOnce(): Middleware {
  return async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (
      body === null ||
      typeof body !== 'object' ||
      Buffer.isBuffer(body) ||
      body instanceof Stream ||
      body instanceof Blob ||
      body instanceof ReadableStream ||
      body instanceof Response
    )
      return;
    ctx.body = JSON.stringify(body);
  };
}
