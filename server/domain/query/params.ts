import { appError } from '../../errors.ts';
import { and, invalidDate, not, parseBoolean, parseIsoDate, parseScalar, type Cond } from './conditions.ts';
import { FIELD_NAMES, fieldNamed, resolveField, typeOf, type FieldRef } from './fields.ts';
import { parseLucene } from './lucene.ts';
import { assertRegex } from './regex.ts';

/** Parameters that select, sort or page, and are never field filters (api.md §4). */
const RESERVED = new Set([
  '_',
  'callback',
  'token',
  'api-key',
  'q',
  'q.df',
  'from-date',
  'to-date',
  'sort-by',
  'group-by',
  'page',
  'page-size',
  'limit',
  'show-raw-data',
  'show-history',
  'reverse',
  'topn',
]);

export const MAX_PAGE_SIZE = 100_000;

export interface SortKey {
  ref: FieldRef;
  descending: boolean;
}

/** One request's selection, order and page: the same for every alert query endpoint. */
export interface AlertQuery {
  where: Cond;
  sort: SortKey[];
  page: number;
  pageSize: number;
  showRawData: boolean;
  showHistory: boolean;
}

export interface QueryOptions {
  defaultPageSize: number;
  /** The `DEFAULT_FIELD` setting: `q.df` overrides it. */
  defaultField: string;
  /** When set, `to-date` defaults to this time (GET /alerts). */
  now?: number;
  /** Extra parameters the endpoint itself reads (e.g. `status` on /blackouts); never filters here. */
  reserved?: readonly string[];
}

/** The query string as name → values, refusing NUL characters (Postgres text cannot hold them). */
export function paramsOf(search: URLSearchParams): Map<string, string[]> {
  const params = new Map<string, string[]>();
  for (const [k, v] of search) {
    if (k.includes('\0') || v.includes('\0')) throw appError('nul_in_query');
    const list = params.get(k);
    if (list) list.push(v);
    else params.set(k, [v]);
  }
  return params;
}

const last = (params: Map<string, string[]>, name: string) => params.get(name)?.at(-1);

/** A boolean query parameter; 400 when it is not a boolean word. */
export function booleanParam(params: Map<string, string[]>, name: string, fallback: boolean): boolean {
  const raw = last(params, name);
  if (raw === undefined || raw === '') return fallback;
  const b = parseBoolean(raw);
  if (b === undefined) throw appError('invalid_boolean_param', name);
  return b;
}

/** A whole-number parameter within bounds; 400 otherwise. */
export function integerParam(
  params: Map<string, string[]>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = last(params, name);
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\s*[+-]?\d+\s*$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw appError('invalid_integer_param', name, min, max);
  }
  return Number(raw);
}

function dateParam(params: Map<string, string[]>, name: string): number | undefined {
  const raw = last(params, name);
  if (raw === undefined || raw === '') return undefined;
  const d = parseIsoDate(raw);
  if (!d) throw invalidDate(name, raw);
  return d.ms;
}

/** `page-size` (alias `limit`), or 0 when missing or 0: the caller's default then applies. */
export function pageSizeOf(params: Map<string, string[]>): number {
  const sizeName = params.has('page-size') ? 'page-size' : 'limit';
  return integerParam(params, sizeName, 0, 0, MAX_PAGE_SIZE);
}

/** `page` and `page-size` (alias `limit`): a missing or 0 page size means the default. */
export function pagingOf(params: Map<string, string[]>, defaultPageSize: number) {
  const page = integerParam(params, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
  return { page, pageSize: pageSizeOf(params) || defaultPageSize };
}

/** Parameters of the other list endpoints (blackouts, heartbeats, keys, perms, customers) that never filter. */
export const LIST_RESERVED: ReadonlySet<string> = new Set([
  '_',
  'callback',
  'token',
  'api-key',
  'sort-by',
  'page',
  'page-size',
  'limit',
  'reverse',
]);

/**
 * The values of one `field=…` filter as a condition (docs/queries.md): exact values, `~` for a
 * substring (several with `~`: one regular expression), typed by the field. Negation is the caller's.
 */
export function valuesCondition(ref: FieldRef, values: string[], label: string, parameter = label): Cond {
  if (values.some((v) => v.startsWith('~'))) {
    const type = typeOf(ref);
    if (type !== 'text' && type !== 'list') {
      throw appError('filter_not_like', parameter);
    }
    const texts = values.map((v) => (v.startsWith('~') ? v.slice(1) : v));
    if (texts.length === 1) return { kind: 'like', ref, value: texts[0]! };
    const pattern = texts.join('|');
    assertRegex(pattern, parameter);
    return { kind: 'match', ref, pattern };
  }
  return { kind: 'in', ref, values: values.map((v) => parseScalar(ref, v, label)) };
}

/** One `name=value…` filter (api.md §4) as a condition. */
function filterOf(name: string, values: string[]): Cond {
  const negated = name.endsWith('!');
  const fieldName = negated ? name.slice(0, -1) : name;
  const ref = resolveField(fieldName);
  if (!ref || (ref.field.type === 'json' && ref.key === undefined)) {
    throw appError('invalid_filter', name).with({
      errors: [`filters: ${FIELD_NAMES.join(', ')}, tag, attributes.<key> (add ! to negate)`],
    });
  }
  const cond: Cond =
    ref.field.name === 'id' && ref.key === undefined
      ? { kind: 'idPrefix', prefixes: values }
      : valuesCondition(ref, values, fieldName, name);
  return negated ? not(cond) : cond;
}

/** Parses an alert query string: filters, `q`, dates, sort, paging and display flags. */
export function parseAlertQuery(search: URLSearchParams, options: QueryOptions): AlertQuery {
  const params = paramsOf(search);
  const reserved = new Set([...RESERVED, ...(options.reserved ?? [])]);
  const conditions: Cond[] = [];
  for (const [name, values] of params) {
    if (!reserved.has(name)) conditions.push(filterOf(name, values));
  }
  const q = params.get('q');
  if (q) {
    const df = last(params, 'q.df') || options.defaultField;
    conditions.push(...q.map((text) => parseLucene(text, df)));
  }
  const lastReceiveTime: FieldRef = { field: fieldNamed('lastReceiveTime')! };
  const from = dateParam(params, 'from-date');
  const to = dateParam(params, 'to-date') ?? options.now;
  if (from !== undefined) {
    conditions.push({ kind: 'range', ref: lastReceiveTime, lower: { value: from, inclusive: false } });
  }
  if (to !== undefined) {
    conditions.push({ kind: 'range', ref: lastReceiveTime, upper: { value: to, inclusive: true } });
  }
  const reverse = booleanParam(params, 'reverse', false);
  const sort = (params.get('sort-by') ?? []).filter((s) => s !== '').map(sortKeyOf);
  if (sort.length === 0) sort.push({ ref: lastReceiveTime, descending: true });
  return {
    where: and(conditions),
    sort: reverse ? sort.map((k) => ({ ...k, descending: !k.descending })) : sort,
    ...pagingOf(params, options.defaultPageSize),
    showRawData: booleanParam(params, 'show-raw-data', false),
    showHistory: booleanParam(params, 'show-history', false),
  };
}

function sortKeyOf(raw: string): SortKey {
  const inverted = raw.startsWith('-');
  const name = inverted ? raw.slice(1) : raw;
  const ref = name === 'tag' ? undefined : resolveField(name);
  if (!ref || (ref.field.type === 'json' && ref.key === undefined)) {
    throw appError('invalid_sort', name).with({
      errors: [`sort-by: ${FIELD_NAMES.join(', ')}, attributes.<key> (prefix - to invert)`],
    });
  }
  const natural = ref.key === undefined && ref.field.descending === true;
  return { ref, descending: inverted ? !natural : natural };
}

/** 416 for a page past the last one when there are matches (api.md §3). */
export function assertPageInRange(page: number, pages: number, total: number): void {
  if (total > 0 && page > pages) throw appError('page_out_of_range', pages);
}

/**
 * The paging fields every list answer carries (api.md §3), after the 416 for a page past the last
 * one (tests/api/alerts-search.test.ts, tests/api/keys.test.ts).
 */
export function pageFieldsOf(page: number, pageSize: number, total: number) {
  const pages = Math.ceil(total / pageSize);
  assertPageInRange(page, pages, total);
  return { total, page, pageSize, pages, more: page < pages };
}
