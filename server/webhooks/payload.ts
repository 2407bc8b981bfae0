import { z } from 'zod';
import { appError } from '../errors.ts';

type Issue = z.core.$ZodIssue;

/** `alerts[0].labels.alertname`; the body itself is `payload`. */
function pathOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'payload';
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
  tuple: 'a list',
};

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function describeIssue(issue: Issue): string {
  const where = pathOf(issue.path);
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return `${where} is missing`;
    return `${where} must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${kindOf(issue.input)}`;
  }
  return `${where}: ${issue.message}`;
}

/**
 * Parses a notification with its receiver's schema. A mismatch is 400 naming the first bad field
 * in the message and every one in `errors`, never a crash further down.
 */
export function parsePayload<S extends z.ZodType>(schema: S, value: unknown, source: string): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const problems = result.error.issues.map(describeIssue);
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  throw appError('invalid_payload', source, `${problems[0]}${more}`).with({ errors: problems });
}

/**
 * A list of which the receiver reads only the first element (`targets[0]`, `Dimensions[0]`): that
 * one is checked with `schema`, later ones are not validated at all, as the established receiver
 * never looks at them. An empty list is fine.
 */
export const firstOf = <S extends z.ZodType>(schema: S) => z.tuple([schema.optional()], z.unknown());

/** The established server puts links into attributes and texts as HTML anchors. */
export const htmlLink = (url: string, label: string) => `<a href="${url}" target="_blank">${label}</a>`;

/**
 * A date as the API writes dates (ISO 8601, milliseconds, Z) from a date string or epoch seconds;
 * null when absent or unreadable.
 */
export function isoDate(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  const ms = typeof value === 'number' ? value * 1000 : Date.parse(value);
  if (!Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Non-empty query parameter or the fallback. */
export function queryParam(query: URLSearchParams, name: string, fallback: string): string;
export function queryParam(query: URLSearchParams, name: string, fallback?: null): string | null;
export function queryParam(query: URLSearchParams, name: string, fallback: string | null = null) {
  const value = query.get(name);
  return value === null || value === '' ? fallback : value;
}

/** The first 8 characters of an alert id, as the established server shortens it in messages. */
export const shortId = (id: string) => id.slice(0, 8);
