import { appError } from '../../errors.ts';
import { LIST_RESERVED, paramsOf } from './params.ts';

// Filters of the lists that are not alerts (GET /perms, /customers, /users, /groups, /keys), with the
// established server's operators on text fields: `name=v` exact, `name=~v` substring, `name!=v`
// negation (its query builder's filter_query); tests/api/list-filters.test.ts.

/**
 * One text filter of a list endpoint (GET /perms, /customers, /users, /groups, /keys): any of the
 * exact `values`, or with `contains` any of them as a case-insensitive substring; `negated` keeps
 * the rows that do not match (a NULL column included). db/rows.ts `textFilterSql` turns it into
 * SQL; docs/keys-perms-customers.md.
 */
export interface TextFilter {
  values: readonly string[];
  contains: boolean;
  negated: boolean;
}

/**
 * The query string's filters by parameter name, refusing names outside `allowed` (400, never a
 * database error). `name!` is accepted for the names in `text`.
 */
export function filtersOf(search: URLSearchParams, allowed: readonly string[], text: readonly string[] = []) {
  const params = paramsOf(search);
  const filters = new Map<string, string[]>();
  for (const [name, values] of params) {
    if (LIST_RESERVED.has(name)) continue;
    const ok = allowed.includes(name) || (name.endsWith('!') && text.includes(name.slice(0, -1)));
    if (!ok) {
      const names = allowed.map((a) => (text.includes(a) ? `${a} (add ! to negate)` : a));
      throw appError('invalid_filter', name).with({ errors: [`filters: ${names.join(', ')}`] });
    }
    filters.set(name, values);
  }
  return { params, filters };
}

/**
 * The text filters `name=…` and `name!=…`: repeated values mean any of them; when any starts with
 * `~`, each (without its `~`) is a case-insensitive substring. Empty when neither is given.
 */
export function textFilters(filters: ReadonlyMap<string, string[]>, name: string): TextFilter[] {
  const out: TextFilter[] = [];
  for (const negated of [false, true]) {
    const values = filters.get(negated ? `${name}!` : name);
    if (!values) continue;
    const contains = values.some((v) => v.startsWith('~'));
    out.push({ values: contains ? values.map((v) => v.replace(/^~/, '')) : values, contains, negated });
  }
  return out;
}

/** Does `value` pass every filter (the same rule as db/rows.ts `textFilterSql`, for rows not in the database)? */
export function passesTextFilters(filters: readonly TextFilter[], value: string | null): boolean {
  return filters.every((f) => {
    const hit =
      value !== null &&
      (f.contains
        ? f.values.some((v) => value.toLowerCase().includes(v.toLowerCase()))
        : f.values.includes(value));
    return f.negated ? !hit : hit;
  });
}
