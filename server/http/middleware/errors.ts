import type { Middleware, Context } from 'koa';
import { ZodError } from 'zod';
import { NotFoundError, UniqueIntegrityConstraintViolationError } from 'slonik';
import type { ErrorBody } from '../../../shared/errors.ts';
import { AppError, databaseUnavailable, invalidRegexFromDb } from '../../errors.ts';
import { isUnreachable } from '../../db/unavailable.ts';
import type { Log } from '../../log.ts';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
}

/** At most this many `errors` are listed, then counted: a body must not grow with the bad input. */
export const MAX_LISTED_ERRORS = 20;
const MAX_ERROR_LENGTH = 1000;

const cut = (text: string) => (text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text);

/** The first MAX_LISTED_ERRORS errors, each cut to MAX_ERROR_LENGTH characters, and "… and N more". */
export function listedErrors(errors: readonly string[]): string[] {
  const shown = errors.slice(0, MAX_LISTED_ERRORS).map(cut);
  if (errors.length > MAX_LISTED_ERRORS) shown.push(`… and ${errors.length - MAX_LISTED_ERRORS} more`);
  return shown;
}

/** Writes the one error shape every API failure has. */
export function sendError(ctx: Context, status: number, message: string, errors?: string[] | null) {
  const body: ErrorBody = {
    status: 'error',
    message: cut(message),
    code: status,
    errors: errors ? listedErrors(errors) : null,
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
      const regex = invalidRegexFromDb(err);
      if (regex) return sendError(ctx, regex.status, regex.message, regex.errors);
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
