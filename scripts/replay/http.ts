/** Sends one replay step to one server, with that side's values filled in. */
import type { BodyFn, Step, Vars } from './types.ts';

export interface Side {
  /** `A` or `B`, as printed. */
  label: string;
  /** The API base, e.g. `http://127.0.0.1:8080/api`, without a trailing slash. */
  base: string;
  key?: string;
}

export interface RawAnswer {
  status: number | string;
  type: string;
  location?: string;
  body: unknown;
}

/** Thrown when a step needs a value this side never saved (an earlier step failed there). */
export class MissingVar extends Error {}

/**
 * Replaces each `{name}` whose name a step of the scenario saves (`declared`) with the side's value;
 * one not saved on this side is a MissingVar. Other braces (Prometheus `{instance}`) stay.
 */
export function fill(text: string, vars: Vars, declared: ReadonlySet<string>): string {
  return text.replace(/\{([A-Za-z][\w-]*)\}/g, (whole, name: string) => {
    if (!declared.has(name)) return whole;
    const v = vars[name];
    if (v === undefined) throw new MissingVar(`{${name}} not saved on this side`);
    return v;
  });
}

function fillDeep(value: unknown, vars: Vars, declared: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return fill(value, vars, declared);
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, vars, declared));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, vars, declared)]));
  return value;
}

const TIMEOUT_MS = 30_000;

/** Sends `step` to `side`; `declared`: the names the scenario's steps save (see fill). */
export async function send(
  side: Side,
  step: Step,
  vars: Vars,
  declared: ReadonlySet<string>,
): Promise<RawAnswer> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (side.key && !step.anonymous) headers.Authorization = `Key ${side.key}`;
  let body: string | undefined;
  if (step.raw) {
    body = fill(step.raw.text, vars, declared);
    headers['Content-Type'] = step.raw.type;
  } else if (step.body !== undefined) {
    const value = typeof step.body === 'function' ? (step.body as BodyFn)(vars) : step.body;
    body = JSON.stringify(fillDeep(value, vars, declared));
    headers['Content-Type'] = 'application/json';
  }
  for (const [name, value] of Object.entries(step.headers ?? {})) headers[name] = fill(value, vars, declared);
  try {
    const res = await fetch(`${side.base}${fill(step.path, vars, declared)}`, {
      method: step.method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const text = await res.text();
    let parsed: unknown = text;
    if (/json|javascript/.test(type) || /^\s*[[{]/.test(text)) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const location = res.headers.get('location') ?? undefined;
    return { status: res.status, type, ...(location ? { location } : {}), body: parsed };
  } catch (e) {
    if (e instanceof MissingVar) throw e;
    return { status: `no answer: ${(e as Error).message}`, type: '', body: null };
  }
}

/** The value at a dotted path (`alert.id`, `ids.0`) of a parsed body, as text; undefined if none. */
export function pick(body: unknown, path: string): string | undefined {
  let v: unknown = body;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}
