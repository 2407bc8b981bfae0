import type { BlackoutList } from '../../shared/blackouts.ts';
import * as blackoutsDb from '../db/blackouts.ts';
import type { BlackoutSortKey, BlackoutStatusName } from '../db/blackouts.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { refreshWindows } from './blackout-windows.ts';
import { presentBlackout } from './blackout-status.ts';
import type { Caller } from './caller.ts';
import { and, not, type Cond } from './query/conditions.ts';
import {
  LIST_RESERVED,
  booleanParam,
  pageFieldsOf,
  pagingOf,
  paramsOf,
  valuesCondition,
} from './query/params.ts';

const STATUSES = new Set<string>(['pending', 'active', 'expired']);

const fieldsByName = new Map(blackoutsDb.BLACKOUT_FIELDS.map((f) => [f.name, f]));
fieldsByName.set('tag', fieldsByName.get('tags')!);
const FILTER_NAMES = [...blackoutsDb.BLACKOUT_FIELDS.map((f) => f.name), 'tag', 'status'];
const SORT_NAMES = [...blackoutsDb.BLACKOUT_FIELDS.map((f) => f.name), 'remaining'];

/** One `name=value…` filter as docs/queries.md describes them for alerts. */
function filterOf(name: string, values: string[]): Cond {
  const negated = name.endsWith('!');
  const fieldName = negated ? name.slice(0, -1) : name;
  const field = fieldsByName.get(fieldName);
  if (!field || field.name === 'id') {
    throw appError('invalid_filter', name).with({
      errors: [`filters: ${FILTER_NAMES.join(', ')} (add ! to negate)`],
    });
  }
  const cond = valuesCondition({ field }, values, fieldName, name);
  return negated ? not(cond) : cond;
}

function sortKeyOf(raw: string): BlackoutSortKey {
  const inverted = raw.startsWith('-');
  const name = inverted ? raw.slice(1) : raw;
  if (name === 'remaining') return { column: 'remaining', descending: inverted };
  const field = name === 'tag' ? undefined : fieldsByName.get(name);
  if (!field) {
    throw appError('invalid_sort', name).with({
      errors: [`sort-by: ${SORT_NAMES.join(', ')} (prefix - to invert)`],
    });
  }
  const natural = field.descending === true;
  return { column: field.column, descending: inverted ? !natural : natural };
}

/** GET /blackouts: filters, `status=`, sort-by, reverse and paging; expired blackouts included. */
export async function listBlackouts(
  deps: Deps,
  search: URLSearchParams,
  caller: Caller,
): Promise<BlackoutList> {
  const now = deps.clock.now();
  const params = paramsOf(search);
  const conditions: Cond[] = [];
  const idPrefixes: string[] = [];
  const statuses: BlackoutStatusName[] = [];
  for (const [name, values] of params) {
    if (LIST_RESERVED.has(name)) continue;
    if (name === 'id') idPrefixes.push(...values);
    else if (name === 'status') {
      for (const v of values) {
        if (!STATUSES.has(v))
          throw appError('invalid_filter_value', 'status', v).with({
            errors: ['status: pending, active, expired'],
          });
        statuses.push(v as BlackoutStatusName);
      }
    } else conditions.push(filterOf(name, values));
  }
  const reverse = booleanParam(params, 'reverse', false);
  const sort = (params.get('sort-by') ?? []).filter((s) => s !== '').map(sortKeyOf);
  if (sort.length === 0) sort.push({ column: 'start_time', descending: true });
  const { page, pageSize } = pagingOf(params, deps.config.DEFAULT_PAGE_SIZE);
  const selection = { where: and(conditions), idPrefixes, statuses, now, customers: caller.customers };
  // Status and remaining of recurring blackouts are read from their stored windows.
  await refreshWindows(deps, now);
  const [rows, total] = await Promise.all([
    blackoutsDb.listBlackouts(deps.db, selection, {
      sort: reverse ? sort.map((k) => ({ ...k, descending: !k.descending })) : sort,
      limit: pageSize,
      offset: (page - 1) * pageSize,
    }),
    blackoutsDb.countBlackouts(deps.db, selection),
  ]);
  const paging = pageFieldsOf(page, pageSize, total);
  const blackouts = rows.map((r) => presentBlackout(r, caller.baseUrl, now));
  return { status: 'ok', ...(blackouts.length === 0 ? { message: 'not found' } : {}), blackouts, ...paging };
}
