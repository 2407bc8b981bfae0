import type { Middleware, Context } from 'koa';
import { ZodError } from 'zod';
import { NotFoundError, UniqueIntegrityConstraintViolationError } from 'slonik';
import type { ErrorBody } from '../../../shared/errors.ts';
import { AppError, databaseUnavailable } from '../../errors.ts';
import { isUnreachable } from '../../db/unavailable.ts';
import type { Log } from '../../log.ts';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
}

/** Writes the one error shape every API failure has. */
export function sendError(ctx: Context, status: number, message: string, errors?: string[] | null) {
  const body: ErrorBody = {
    status: 'error',
    message,
    code: status,
    errors: errors ?? null,
    requestId: ctx.state.requestId,
  };
  ctx.status = status;
  ctx.body = body;
}

/** Lists every issue of a zod error as "field: problem". */
export function zodIssues(err: ZodError): string[] {
  return err.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
}

/**
 * Sits first: maps known errors to their status, answers everything else with a plain 500 and
 * logs it with its stack. SQL and stack traces never reach a client.
 */
export function errors(log: Log): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError) {
        if (err.headers) ctx.set(err.headers);
        return sendError(ctx, err.status, err.message, err.errors);
      }
      if (err instanceof ZodError) {
        const issues = zodIssues(err);
        return sendError(
          ctx,
          400,
          err.issues.length === 1 ? err.issues[0]!.message : `${issues.length} invalid fields`,
          issues,
        );
      }
      if (err instanceof NotFoundError) return sendError(ctx, 404, 'not found');
      if (err instanceof UniqueIntegrityConstraintViolationError)
        return sendError(ctx, 409, 'already exists');
      if (isUnreachable(err)) {
        log.warn(
          { err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path },
          'http.database_unavailable',
        );
        const outage = databaseUnavailable();
        ctx.set(outage.headers!);
        return sendError(ctx, outage.status, outage.message);
      }
      const pgCode = (err as { code?: unknown }).code;
      if (pgCode === '2201B') {
        // A user-supplied regular expression (q /…/ or a ~ filter) Postgres cannot compile.
        return sendError(ctx, 400, 'invalid regular expression', [(err as Error).message]);
      }
      if (typeof pgCode === 'string' && pgCode.startsWith('22')) {
        // Data exceptions: a value the database refused. Say so without echoing SQL.
        log.warn({ pgCode, requestId: ctx.state.requestId, path: ctx.path }, 'http.data_exception');
        return sendError(ctx, 400, 'invalid value in request');
      }
      const e = err as HttpLikeError;
      const status = e.status ?? e.statusCode;
      if (status && status >= 400 && status < 500 && e.expose && e.message) {
        return sendError(ctx, status, e.message);
      }
      log.error(
        { err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path },
        'http.unhandled',
      );
      sendError(ctx, 500, 'An internal error has occurred!');
    }
  };
}
