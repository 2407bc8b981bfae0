/** An error whose message is safe to show to the client, with the HTTP status to answer. */
export class AppError extends Error {
  readonly status: number;
  readonly errors: string[] | undefined;
  readonly headers: Record<string, string> | undefined;
  constructor(status: number, message: string, errors?: string[], headers?: Record<string, string>) {
    super(message);
    this.status = status;
    this.errors = errors;
    this.headers = headers;
  }
}

export const badRequest = (message: string, errors?: string[]) => new AppError(400, message, errors);
export const unauthorized = (message: string, headers?: Record<string, string>) =>
  new AppError(401, message, undefined, headers);
export const forbidden = (message: string) => new AppError(403, message);
export const notFound = (what = 'resource') =>
  new AppError(404, what === 'resource' ? 'not found' : `${what} not found`);
export const methodNotAllowed = (method: string, allowed: string[]) =>
  new AppError(
    405,
    `The method ${method} is not allowed for the requested URL.`,
    [`allowed: ${allowed.join(', ')}`],
    {
      Allow: allowed.join(', '),
    },
  );
export const conflict = (message: string) => new AppError(409, message);
export const payloadTooLarge = (limit: number) =>
  new AppError(413, `request body is larger than the limit of ${limit} bytes`);
export const unsupportedMediaType = () =>
  new AppError(415, "POST and PUT requests must set 'Content-type' to 'application/json'");
export const rejected = (message: string) => new AppError(403, message);

/**
 * PostgreSQL could not compile a regular expression from a query (SQLSTATE 2201B): the same 400 as
 * the query checker's, in our words, never the database's. Null for any other error.
 */
export function invalidRegexFromDb(err: unknown): AppError | null {
  if ((err as { code?: unknown } | null)?.code !== '2201B') return null;
  return badRequest('Invalid regular expression', [
    'the database could not compile a regular expression in the query',
  ]);
}

/** Seconds a client is asked to wait (Retry-After) while the database cannot be reached. */
export const RETRY_AFTER_SECONDS = 5;
/** 503 for a database outage: a message of our own; the driver's detail (host, port) is only logged. */
export const databaseUnavailable = () =>
  new AppError(503, 'The database is unavailable; try again shortly', undefined, {
    'Retry-After': String(RETRY_AFTER_SECONDS),
  });
