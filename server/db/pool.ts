import { createHash } from 'node:crypto';
import {
  createPool,
  createTimestampTypeParser,
  createTimestampWithTimeZoneTypeParser,
  createDateTypeParser,
  createNumericTypeParser,
  SchemaValidationError,
  type DatabasePool,
  type Interceptor,
  type QueryResultRow,
} from 'slonik';
import { connectionLossInterceptor } from './unavailable.ts';

export type Db = DatabasePool;

/** Starts the SQL of a statement whose shape comes from user input (see preparedStatements). */
export const AD_HOC = '/* ad hoc */';

/**
 * Names every statement after a digest of its text, so each connection prepares it once and
 * PostgreSQL reuses the plan: planning the receive path's queries costs more than running them.
 */
const preparedStatements: Interceptor = {
  name: 'prepared-statements',
  transformQuery(_context, query) {
    // Searches have as many shapes as users write queries: preparing each would grow every
    // connection's statement cache without bound, so they are planned afresh.
    if (query.sql.startsWith(AD_HOC)) return query;
    return { ...query, name: `q${createHash('sha1').update(query.sql).digest('hex').slice(0, 20)}` };
  },
};

/** Without this interceptor `sql.type(Schema)` checks nothing: rows are validated and transformed here. */
const resultParser: Interceptor = {
  name: 'result-parser',
  transformRow(context, query, row) {
    const parser = context.resultParser;
    if (!parser) return row;
    const result = parser['~standard'].validate(row);
    if (result instanceof Promise) throw new TypeError('asynchronous row schemas are not supported');
    if (result.issues) throw new SchemaValidationError(query, row, result.issues);
    return result.value as QueryResultRow;
  },
};

export interface PoolOptions {
  size?: number;
  schema?: string;
  databaseName?: string | null;
  applicationName?: string;
}

/** Adds the database name, schema and application name settings to a connection URL. */
export function connectionUrl(url: string, options: PoolOptions = {}): string {
  const u = new URL(url);
  if (options.databaseName) u.pathname = `/${encodeURIComponent(options.databaseName)}`;
  if (options.schema && options.schema !== 'public' && !u.searchParams.has('options')) {
    u.searchParams.set('options', `-c search_path=${options.schema}`);
  }
  // JIT compilation costs tens of milliseconds on the grouped counts over every alert and never
  // pays off on queries this short.
  const opts = u.searchParams.get('options') ?? '';
  if (!/\bjit=/.test(opts)) u.searchParams.set('options', `${opts} -c jit=off`.trim());
  if (options.applicationName && !u.searchParams.has('application_name')) {
    u.searchParams.set('application_name', options.applicationName);
  }
  return u.toString();
}

/** A slonik pool: rows parsed by zod, timestamps as epoch ms, int8 as number, no per-release reset. */
export async function createDb(url: string, options: PoolOptions = {}): Promise<Db> {
  return createPool(connectionUrl(url, { applicationName: 'alertwall', ...options }), {
    interceptors: [preparedStatements, resultParser, connectionLossInterceptor],
    maxPoolSize: options.size ?? 10,
    // We keep no session state, so the default DISCARD ALL on every release would only cost a round trip.
    resetConnection: async () => {},
    captureStackTrace: false,
    connectionTimeout: 10_000,
    statementTimeout: 30_000,
    typeParsers: [
      { name: 'int8', parse: (v: string) => Number(v) },
      createDateTypeParser(),
      createNumericTypeParser(),
      createTimestampTypeParser(),
      createTimestampWithTimeZoneTypeParser(),
    ],
  });
}
