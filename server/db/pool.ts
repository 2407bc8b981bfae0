import { createHash } from 'node:crypto';
import {
  createPool,
  sql,
  createDateTypeParser,
  createNumericTypeParser,
  SchemaValidationError,
  type DatabasePool,
  type Interceptor,
  type QueryResultRow,
} from 'slonik';
import { clampTime, MAX_TIME_MS, MIN_TIME_MS } from '../../shared/alerts.ts';
import { CONNECTION_SETTINGS } from './planner.ts';
import { connectionLossInterceptor } from './unavailable.ts';

export type Db = DatabasePool;

/** Starts the SQL of a statement whose shape comes from user input (see preparedStatements). */
export const AD_HOC = '/* ad hoc */';

/** Statement names by text, remembered: a digest per statement showed in profiles (~5 µs each). */
const names = new Map<string, string>();
/** Texts remembered at most (statements have a few hundred shapes; batches of n rows add some). */
const NAMES_KEPT = 2000;

function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `q${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    if (names.size >= NAMES_KEPT) names.clear();
    names.set(text, name);
  }
  return name;
}

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
    return { ...query, name: statementName(query.sql) };
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

/** PostgreSQL's ISO output of a timestamp: any year, any zone offset (old zones have seconds), BC. */
const PG_TIMESTAMP =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?(?:([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?)?( BC)?$/;

/** The value of the ASCII digit at `i`, or -1. */
const digitAt = (text: string, i: number) => {
  const c = text.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
};

/** The two-digit number at `i`, or a negative number when either is not a digit. */
const twoDigits = (text: string, i: number) => {
  const a = digitAt(text, i);
  const b = digitAt(text, i + 1);
  return a < 0 || b < 0 ? -1 : a * 10 + b;
};

/**
 * What nearly every stored time looks like, read without a regular expression or a Date (a row of
 * the receive path holds four or more, and the regex's match arrays were 2 % of the server's CPU):
 * `YYYY-MM-DD HH:MM:SS[.f{1,6}][+00]` from 1970 on. -1 for anything else, which the general parse takes.
 */
function utcStoredTime(text: string): number {
  const n = text.length;
  if (n < 19 || n > 29) return -1;
  const y1 = twoDigits(text, 0);
  const y2 = twoDigits(text, 2);
  const mo = twoDigits(text, 5);
  const d = twoDigits(text, 8);
  const h = twoDigits(text, 11);
  const mi = twoDigits(text, 14);
  const sec = twoDigits(text, 17);
  if (
    (y1 | y2 | mo | d | h | mi | sec) < 0 ||
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58
  )
    return -1;
  let i = 19;
  let ms = 0;
  if (text.charCodeAt(i) === 46) {
    i++;
    let scale = 100;
    const start = i;
    for (let c = digitAt(text, i); c >= 0; c = digitAt(text, ++i)) {
      ms += c * scale;
      scale /= 10;
    }
    ms = Math.floor(ms);
    if (i === start || i - start > 6) return -1;
  }
  if (
    i < n &&
    !(
      n - i === 3 &&
      text.charCodeAt(i) === 43 &&
      text.charCodeAt(i + 1) === 48 &&
      text.charCodeAt(i + 2) === 48
    )
  )
    return -1;
  const year = y1 * 100 + y2;
  if (year < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return -1;
  const t = Date.UTC(year, mo - 1, d, h, mi, sec, ms);
  // A day past the month's end (PostgreSQL never writes one) would roll over: leave it to the general parse.
  return new Date(t).getUTCDate() === d ? t : -1;
}

/**
 * A timestamp column as epoch ms within the years 0001–9999, whatever the row holds: `-infinity`,
 * BC dates and year 0 read as the first instant, `infinity` and later years as the last. Rows
 * written before validation (or by hand) must not make every read fail. Without an offset
 * (`timestamp`), the text is UTC.
 */
export function parseStoredTime(text: string): number {
  const fast = utcStoredTime(text);
  if (fast >= 0) return fast;
  if (text === 'infinity') return MAX_TIME_MS;
  if (text === '-infinity') return MIN_TIME_MS;
  const m = PG_TIMESTAMP.exec(text);
  if (!m) return clampTime(Date.parse(text));
  const [, y, mo, d, h, mi, s, frac, sign, oh, om, os, bc] = m;
  const year = bc ? 1 - Number(y) : Number(y);
  if (year < 1) return MIN_TIME_MS;
  if (year > 9999) return MAX_TIME_MS;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years below 100 as 19xx.
  date.setUTCFullYear(year, Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), frac ? Math.floor(Number(frac) * 1000) : 0);
  const offset = ((Number(oh ?? 0) * 60 + Number(om ?? 0)) * 60 + Number(os ?? 0)) * 1000;
  return clampTime(date.getTime() - (sign === '-' ? -offset : offset));
}

/**
 * A timestamp column brought into the years 0001–9999 in SQL, for arithmetic on stored times:
 * PostgreSQL refuses to subtract infinite timestamps, which would fail the whole read.
 */
export const finiteTime = (...column: string[]) =>
  sql.fragment`LEAST(GREATEST(${sql.identifier(column)}, '0001-01-01 00:00:00+00'::timestamptz), '9999-12-31 23:59:59.999+00'::timestamptz)`;

export interface PoolOptions {
  size?: number;
  /**
   * Name (prepare) every statement, so each connection plans it once (default). A bulk writer whose
   * tables grow from empty to millions of rows while it runs (the Alerta import) turns this off: a
   * plan kept from the first, empty batches would scan what later batches look up by index.
   */
  prepared?: boolean;
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
  // planner.ts says why each is set; one the URL already sets is left as it is.
  let opts = u.searchParams.get('options') ?? '';
  for (const [name, value] of Object.entries(CONNECTION_SETTINGS)) {
    if (!new RegExp(`\\b${name}=`).test(opts)) opts = `${opts} -c ${name}=${value}`.trim();
  }
  u.searchParams.set('options', opts);
  if (options.applicationName && !u.searchParams.has('application_name')) {
    u.searchParams.set('application_name', options.applicationName);
  }
  return u.toString();
}

/** A slonik pool: rows parsed by zod, timestamps as epoch ms (in range), int8 as number, no per-release reset. */
export async function createDb(url: string, options: PoolOptions = {}): Promise<Db> {
  return createPool(connectionUrl(url, { applicationName: 'alertwall', ...options }), {
    interceptors: [
      ...(options.prepared === false ? [] : [preparedStatements]),
      resultParser,
      connectionLossInterceptor,
    ],
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
      { name: 'timestamp', parse: parseStoredTime },
      { name: 'timestamptz', parse: parseStoredTime },
    ],
  });
}
