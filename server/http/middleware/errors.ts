import type { Middleware, Context } from 'koa';
import { ZodError } from 'zod';
import { NotFoundError, UniqueIntegrityConstraintViolationError } from 'slonik';
import type { ErrorBody } from '../../../shared/errors.ts';
import { AppError, appError, databaseUnavailable, invalidRegexFromDb } from '../../errors.ts';
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

/** Writes the one error shape every API failure has: Alerta's, plus the catalogue's `errorCode`. */
export function sendError(ctx: Context, err: AppError, status = err.status) {
  if (err.headers) ctx.set(err.headers);
  const body: ErrorBody = {
    status: 'error',
    message: cut(err.message),
    code: status,
    errors: err.errors ? listedErrors(err.errors) : null,
    requestId: ctx.state.requestId,
    errorCode: err.errorCode,
  };
  ctx.status = status;
  ctx.body = body;
}

/** What the client is told for an error the handlers threw; null for one it must not see (a 500). */
export function knownError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof ZodError) {
    const issues = zodIssues(err);
    const message = err.issues.length === 1 ? err.issues[0]!.message : `${issues.length} invalid fields`;
    return appError('invalid_request', message).with({ errors: issues });
  }
  if (err instanceof NotFoundError) return appError('not_found');
  if (err instanceof UniqueIntegrityConstraintViolationError) return appError('already_exists');
  return invalidRegexFromDb(err);
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
      const known = knownError(err);
      if (known) return sendError(ctx, known);
      if (isUnreachable(err)) {
        log.warn(
          { err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path },
          'http.database_unavailable',
        );
        return sendError(ctx, databaseUnavailable());
      }
      const pgCode = (err as { code?: unknown }).code;
      if (typeof pgCode === 'string' && pgCode.startsWith('22')) {
        // Data exceptions: a value the database refused. Say so without echoing SQL.
        log.warn({ pgCode, requestId: ctx.state.requestId, path: ctx.path }, 'http.data_exception');
        return sendError(ctx, appError('invalid_value'));
      }
      const e = err as HttpLikeError;
      const status = e.status ?? e.statusCode;
      if (status && status >= 400 && status < 500 && e.expose && e.message) {
        return sendError(ctx, appError('http_error', e.message), status);
      }
      log.error(
        { err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path },
        'http.unhandled',
      );
      sendError(ctx, appError('internal_error'));
    }
  };
}
