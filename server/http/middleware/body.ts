import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { appError } from '../../errors.ts';

declare module 'koa' {
  interface Request {
    body?: unknown;
    rawBody?: string;
  }
}

const MAX_DEPTH = 32;
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export interface BodyOptions {
  limit: number;
  /** Routes (webhooks) that take any content type; their raw text is kept in ctx.request.rawBody. */
  acceptsAnyType?: (path: string) => boolean;
}

/**
 * Refuses what Postgres or a later read could not hold: NUL bytes, unpaired UTF-16 surrogates
 * (JSON may escape them, `"\ud800"`, but jsonb refuses them) and very deep nesting.
 */
export function checkJsonValue(value: unknown, depth = 0): string | null {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return 'strings must not contain NUL bytes';
    return value.isWellFormed() ? null : 'strings must not contain unpaired UTF-16 surrogates';
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_DEPTH) return `JSON is nested more than ${MAX_DEPTH} levels deep`;
  if (Array.isArray(value)) {
    for (const v of value) {
      const problem = checkJsonValue(v, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  // Each key, then its value (without the arrays Object.entries would make for every object).
  for (const key of Object.keys(value)) {
    const problem =
      checkJsonValue(key, depth + 1) ?? checkJsonValue((value as Record<string, unknown>)[key], depth + 1);
    if (problem) return problem;
  }
  return null;
}

/** Reads request bodies within the size limit and parses JSON; everything it refuses is a clean 4xx. */
export function body(options: BodyOptions): Middleware {
  return async (ctx, next) => {
    const hasBody = ctx.request.length ? ctx.request.length > 0 : Boolean(ctx.get('Transfer-Encoding'));
    if (!hasBody) return next();
    // The JSON types clients send most, known without type-is and the content-type parser (which
    // would find the same: JSON, in utf-8 or with no charset said).
    const contentType = ctx.req.headers['content-type'];
    const isPlainJson =
      contentType === 'application/json' || contentType === 'application/json; charset=utf-8';
    const isJson = isPlainJson || Boolean(ctx.request.is('application/json', 'application/*+json'));
    if (WITH_BODY.has(ctx.method) && !isJson && !(options.acceptsAnyType?.(ctx.path) ?? false)) {
      // Drain what was sent so the connection stays usable, then refuse.
      await read(ctx.req, options.limit, ctx.request.length).catch(() => '');
      throw appError('unsupported_media_type');
    }
    const charset = isPlainJson ? '' : ctx.request.charset;
    if (charset && !/^utf-?8$/i.test(charset)) throw appError('unsupported_charset', charset);
    const text = await read(ctx.req, options.limit, ctx.request.length);
    if (!WITH_BODY.has(ctx.method)) return next(); // a body on GET or DELETE is read and ignored
    ctx.request.rawBody = text;
    if (isJson) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        throw appError('invalid_json').with({ errors: [(err as Error).message] });
      }
      const problem = checkJsonValue(parsed);
      if (problem) throw appError('invalid_json_value', problem);
      ctx.request.body = parsed;
    }
    return next();
  };
}

async function read(req: IncomingMessage, limit: number, length: number | undefined) {
  try {
    return await getRawBody(req, { limit, length, encoding: 'utf8' });
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') throw appError('body_too_large', limit);
    if (type === 'request.aborted') throw appError('request_aborted');
    throw appError('unreadable_body');
  }
}
