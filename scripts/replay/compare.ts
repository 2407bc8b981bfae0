/** Compares two normalised answers: every place they differ, with its path and both values. */
import { ABSENT, type Answer, type Difference } from './types.ts';

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const isObject = (v: unknown): v is Record<string, unknown> => kind(v) === 'object';

/** `*` matches within one path segment (`alerts[*]`, `top10[0].*`), `**` anything. */
export function pathPattern(glob: string): RegExp {
  const body = glob
    .split(/(\*\*|\*)/)
    .map((part) =>
      part === '**' ? '.*' : part === '*' ? '[^.]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${body}$`);
}

export interface CompareOptions {
  /** `shape`: keys and types only (a list's first items stand for the rest). */
  mode: 'values' | 'shape';
  /** Patterns of paths whose lists are compared in a fixed order of their own (order is not behaviour). */
  unordered: RegExp[];
}

/** Every difference between `a` and `b`; `path` names the step. */
export function compareAnswers(path: string, a: Answer, b: Answer, options: CompareOptions): Difference[] {
  const out: Difference[] = [];
  const walk = (p: string, first: unknown, second: unknown) => {
    if (Array.isArray(first) && Array.isArray(second)) {
      if (options.mode === 'shape') {
        if (first.length && second.length) walk(`${p}[0]`, first[0], second[0]);
        return;
      }
      const order = (l: unknown[]) =>
        options.unordered.some((r) => r.test(p))
          ? [...l].sort((m, n) => (JSON.stringify(m) < JSON.stringify(n) ? -1 : 1))
          : l;
      const x = order(first);
      const y = order(second);
      if (x.length !== y.length) out.push({ path: `${p}.length`, a: x.length, b: y.length });
      for (let i = 0; i < Math.max(x.length, y.length); i++)
        if (i >= x.length) out.push({ path: `${p}[${i}]`, a: ABSENT, b: y[i] });
        else if (i >= y.length) out.push({ path: `${p}[${i}]`, a: x[i], b: ABSENT });
        else walk(`${p}[${i}]`, x[i], y[i]);
      return;
    }
    const [x, y] = [first, second];
    if (isObject(x) && isObject(y)) {
      for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
        if (!(k in y)) out.push({ path: `${p}.${k}`, a: x[k], b: ABSENT });
        else if (!(k in x)) out.push({ path: `${p}.${k}`, a: ABSENT, b: y[k] });
        else walk(`${p}.${k}`, x[k], y[k]);
      }
      return;
    }
    if (options.mode === 'shape' ? kind(x) !== kind(y) : JSON.stringify(x) !== JSON.stringify(y))
      out.push({ path: p, a: x, b: y });
  };
  // Status and media type are compared as values in every mode: they are the answer's first meaning.
  if (a.status !== b.status) out.push({ path: `${path}.status`, a: a.status, b: b.status });
  if (a.type !== b.type) out.push({ path: `${path}.type`, a: a.type, b: b.type });
  walk(`${path}.location`, a.location ?? ABSENT, b.location ?? ABSENT);
  walk(`${path}.body`, a.body, b.body);
  return out;
}
