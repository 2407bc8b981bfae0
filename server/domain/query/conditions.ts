import { isTimeInRange } from '../../../shared/alerts.ts';
import { appError, type AppError } from '../../errors.ts';
import { typeOf, type FieldRef } from './fields.ts';

/** A typed value: text, an integer, epoch milliseconds (time fields) or a boolean. */
export type Scalar = string | number | boolean;

export interface Bound {
  value: Scalar;
  inclusive: boolean;
}

/** A selection condition: what query parameters and `q` are translated to before SQL. */
export type Cond =
  | { kind: 'all' }
  | { kind: 'and'; items: Cond[] }
  | { kind: 'or'; items: Cond[] }
  | { kind: 'not'; item: Cond }
  /** Equals any of the values; for list fields, has any of them as an element. */
  | { kind: 'in'; ref: FieldRef; values: Scalar[] }
  /** Contains the text, case-insensitive (for lists: some element does). */
  | { kind: 'like'; ref: FieldRef; value: string }
  /** Matches a case-insensitive POSIX regular expression (for lists: some element does). */
  | { kind: 'match'; ref: FieldRef; pattern: string }
  | { kind: 'range'; ref: FieldRef; lower?: Bound; upper?: Bound }
  /** The alert has this attribute. */
  | { kind: 'exists'; key: string }
  /** The field is not null. */
  | { kind: 'present'; ref: FieldRef }
  /** `id` or `lastReceiveId` starts with one of the prefixes, case-insensitive. */
  | { kind: 'idPrefix'; prefixes: string[] };

export const and = (items: Cond[]): Cond => {
  const kept = items.filter((c) => c.kind !== 'all');
  return kept.length === 0 ? { kind: 'all' } : kept.length === 1 ? kept[0]! : { kind: 'and', items: kept };
};
export const or = (items: Cond[]): Cond => (items.length === 1 ? items[0]! : { kind: 'or', items });
export const not = (item: Cond): Cond => ({ kind: 'not', item });

const TRUE_WORDS = new Set(['true', 't', '1', 'yes', 'y', 'on']);
const FALSE_WORDS = new Set(['false', 'f', '0', 'no', 'n', 'off']);

/** A boolean parameter (`true, t, 1, yes, y, on` / `false, f, 0, no, n, off`); undefined when not a boolean word. */
export function parseBoolean(raw: string): boolean | undefined {
  const s = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(s)) return true;
  if (FALSE_WORDS.has(s)) return false;
  return undefined;
}

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 date or datetime as epoch ms (UTC unless an offset is given), and whether it was a
 * bare date; undefined when it is not one, or falls outside the years 0001–9999 once in UTC.
 */
export function parseIsoDate(raw: string): { ms: number; dateOnly: boolean } | undefined {
  const d = parseAnyIsoDate(raw);
  return d && isTimeInRange(d.ms) ? d : undefined;
}

/** Why `parseIsoDate` refused this text: not a date, or out of range. */
const dateProblem = (raw: string) => appError(parseAnyIsoDate(raw) ? 'date_out_of_range' : 'invalid_date');

/** The 400 for a date parameter `parseIsoDate` refused. */
export function invalidDate(label: string, raw: string): AppError {
  return dateProblem(raw).with({ errors: [`${label}: '${raw}'`] });
}

function parseAnyIsoDate(raw: string): { ms: number; dateOnly: boolean } | undefined {
  const m = ISO_DATE.exec(raw.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const fraction = frac ? frac.slice(0, 4).padEnd(4, '0') : '.000';
  const offset =
    !zone || zone === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const text = `${y}-${mo}-${d}T${h ?? '00'}:${mi ?? '00'}:${s ?? '00'}${fraction}${offset}`;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls 2024-02-31 over to March: refuse dates that do not exist.
  if (new Date(Date.parse(`${y}-${mo}-${d}T00:00:00Z`)).toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) {
    return undefined;
  }
  return { ms, dateOnly: h === undefined };
}

const INTEGER = /^[+-]?\d{1,16}$/;

/** A value typed for the field it is compared with; 400 naming the field when it does not fit. */
export function parseScalar(ref: FieldRef, raw: string, label: string): Scalar {
  switch (typeOf(ref)) {
    case 'int': {
      const n = Number(raw.trim());
      if (!INTEGER.test(raw.trim()) || !Number.isSafeInteger(n)) {
        throw appError('filter_not_integer', label, raw);
      }
      return n;
    }
    case 'time': {
      const d = parseIsoDate(raw);
      if (!d) throw appError('invalid_filter_value', label, raw).with({ errors: [dateProblem(raw).message] });
      return d.ms;
    }
    case 'bool': {
      const b = parseBoolean(raw);
      if (b === undefined) throw appError('filter_not_boolean', label, raw);
      return b;
    }
    default:
      return raw;
  }
}

/** Escapes text for literal use inside a POSIX regular expression. */
export const regexEscape = (s: string) => s.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);
