import type { Context } from 'koa';
import { appError } from '../errors.ts';

/**
 * The parsed JSON body as an object; null or no body (real clients send null for "nothing")
 * becomes {}; any other JSON value is 400 `expected a JSON object`.
 */
export function bodyObject(ctx: Context): Record<string, unknown> {
  const body = ctx.request.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw appError('expected_object');
  return body as Record<string, unknown>;
}

/** 201 with the new resource's address in Location, as every create answers (tests/api/keys.test.ts). */
export function answerCreated(ctx: Context, location: string, body: Record<string, unknown>): void {
  ctx.status = 201;
  ctx.set('Location', location);
  ctx.body = body;
}
