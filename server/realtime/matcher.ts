import type { LiveAlert } from '../../shared/alerts.ts';
import type { Bound, Cond, Scalar } from '../domain/query/conditions.ts';
import { typeOf, type FieldRef } from '../domain/query/fields.ts';

/**
 * A selection (the same conditions GET /alerts compiles to SQL, server/db/alert-query.ts) as a
 * predicate over one alert, for live views: evaluated in memory for every change.
 */
export type Matcher = (alert: LiveAlert) => boolean;

type Value = string | number | boolean | string[] | null | undefined;

/** The field's value as the database would compare it (times as epoch ms, attributes as text). */
function valueOf(alert: LiveAlert, ref: FieldRef): Value {
  if (ref.key !== undefined) {
    const v = alert.attributes[ref.key];
    if (v === undefined || v === null) return null;
    return typeof v === 'string' ? v : JSON.stringify(v);
  }
  const byName: Readonly<Record<string, unknown>> = alert;
  const raw = byName[ref.field.name];
  if (raw === undefined || raw === null) return null;
  if (ref.field.type === 'time') return Date.parse(String(raw));
  return raw as Value;
}

/** A POSIX regular expression as JavaScript reads it: `\y` (word boundary) is `\b`. */
function regexOf(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern.replace(/\\y/g, '\\b'), 'i');
  } catch {
    return null;
  }
}

const compareWith = (a: Scalar, b: Scalar) => (a < b ? -1 : a > b ? 1 : 0);

function inRange(v: Value, lower?: Bound, upper?: Bound): boolean {
  if (v === null || v === undefined || Array.isArray(v)) return false;
  if (lower) {
    const c = compareWith(v, lower.value);
    if (c < 0 || (c === 0 && !lower.inclusive)) return false;
  }
  if (upper) {
    const c = compareWith(v, upper.value);
    if (c > 0 || (c === 0 && !upper.inclusive)) return false;
  }
  return true;
}

/** Compiles a condition once; the predicate is then cheap to run per change. */
export function compileMatcher(c: Cond): Matcher {
  switch (c.kind) {
    case 'all':
      return () => true;
    case 'and': {
      const items = c.items.map(compileMatcher);
      return (a) => items.every((m) => m(a));
    }
    case 'or': {
      const items = c.items.map(compileMatcher);
      return (a) => items.some((m) => m(a));
    }
    case 'not': {
      const item = compileMatcher(c.item);
      return (a) => !item(a);
    }
    case 'in': {
      const { ref } = c;
      if (typeOf(ref) === 'list') {
        const wanted = new Set(c.values.map(String));
        return (a) => {
          const v = valueOf(a, ref);
          return Array.isArray(v) && v.some((e) => wanted.has(e));
        };
      }
      const wanted = new Set<Scalar>(c.values);
      return (a) => {
        const v = valueOf(a, ref);
        return v !== null && v !== undefined && !Array.isArray(v) && wanted.has(v);
      };
    }
    case 'like': {
      const needle = c.value.toLowerCase();
      const { ref } = c;
      const hit = (s: unknown) => typeof s === 'string' && s.toLowerCase().includes(needle);
      return (a) => {
        const v = valueOf(a, ref);
        return Array.isArray(v) ? v.some(hit) : hit(v);
      };
    }
    case 'match': {
      const re = regexOf(c.pattern);
      if (!re) return () => false;
      const { ref } = c;
      const hit = (s: unknown) => typeof s === 'string' && re.test(s);
      return (a) => {
        const v = valueOf(a, ref);
        return Array.isArray(v) ? v.some(hit) : hit(v);
      };
    }
    case 'range': {
      const { ref, lower, upper } = c;
      return (a) => inRange(valueOf(a, ref), lower, upper);
    }
    case 'exists':
      return (a) => Object.hasOwn(a.attributes, c.key);
    case 'present': {
      const { ref } = c;
      return ref.key !== undefined
        ? (a) => Object.hasOwn(a.attributes, ref.key!)
        : (a) => {
            const v = valueOf(a, ref);
            return v !== null && v !== undefined;
          };
    }
    case 'idPrefix': {
      const prefixes = c.prefixes.map((p) => p.toLowerCase());
      return (a) =>
        prefixes.some((p) => a.id.toLowerCase().startsWith(p) || a.lastReceiveId.toLowerCase().startsWith(p));
    }
  }
}
