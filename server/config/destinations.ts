import { z } from 'zod';
import { ACTION_NAME } from '../../shared/alerts.ts';

/**
 * FWD_DESTINATIONS (spec "Events", docs/forwarding.md): a list of
 * `(remote BASE_URL, credentials, filter)`. The setting keeps the tuples as written (so
 * /management/properties and the config tests see what the operator gave); this module checks them
 * at start-up; forwarding/destinations.ts turns them into the typed destinations the forwarder uses.
 */

/** Seconds a destination may take to answer when its credentials give no `timeout`. */
export const DEFAULT_DESTINATION_TIMEOUT = 5;
const MAX_DESTINATION_TIMEOUT = 300;

/** Filter entries that are not action names. */
const FILTER_WORDS = new Set(['*', 'alerts', 'actions', 'delete']);
const CREDENTIAL_KEYS = new Set(['username', 'password', 'key', 'secret', 'token', 'timeout', 'ssl_verify']);
const SCHEMES = 'username + password, key + secret (HMAC), key, or token';

/** Is forwarding on: the forwarder plugin listed and at least one destination? */
export const isForwardingOn = (c: { PLUGINS: readonly string[]; FWD_DESTINATIONS: readonly unknown[] }) =>
  c.PLUGINS.some((p) => p.trim() === 'forwarder') && c.FWD_DESTINATIONS.length > 0;

const names = new Map<string, string>();

/**
 * A server's name as loop headers and destination lists compare it: scheme and host lower-cased,
 * default port dropped, no trailing slash. Anything that is not a URL is only trimmed.
 */
export function serverName(url: string): string {
  const known = names.get(url);
  if (known !== undefined) return known;
  const name = nameOf(url);
  // Every receipt asks for its loop headers' names and the destinations' own: remembered, since
  // parsing a URL costs more than the rest of the loop check. Header values come from clients, so
  // the memory is bounded (and simply starts over when full).
  if (names.size >= 1000) names.clear();
  names.set(url, name);
  return name;
}

function nameOf(url: string): string {
  const text = url.trim();
  if (text === '') return '';
  try {
    const u = new URL(text);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return text.replace(/\/+$/, '');
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return text.replace(/\/+$/, '');
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const show = (v: unknown) => {
  const s = typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/**
 * What a value is, without its content: start-up errors are logged, and an entry or a credentials
 * dict can hold passwords, keys and tokens.
 */
const kindOf = (v: unknown) =>
  Array.isArray(v)
    ? `a list of ${v.length} item${v.length === 1 ? '' : 's'}`
    : v === null
      ? 'None'
      : isRecord(v)
        ? 'a dict'
        : typeof v === 'string'
          ? 'a string'
          : `a ${typeof v}`;

/** A URL as given, with any user and password in it replaced by `***`. */
function withoutUserInfo(url: string): string {
  return url.replace(/^([a-z][\w+.-]*:\/\/)[^/@]*@/i, '$1***@');
}

function urlProblem(url: unknown): string | null {
  if (typeof url !== 'string' || !url.trim()) return `the URL must be a string, got ${kindOf(url)}`;
  const shown = withoutUserInfo(url);
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return `'${shown}' is not a URL; expected one such as http://peer:8080/api`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `'${shown}' must be an http:// or https:// URL`;
  if (u.search || u.hash) return `'${shown}' must not have a query or a fragment`;
  if (u.username || u.password)
    return `'${shown}' must not carry credentials; give them in the credentials dict`;
  return null;
}

function credentialProblems(c: unknown): string[] {
  if (!isRecord(c)) return [`credentials must be a dict (${SCHEMES}), got ${kindOf(c)}`];
  const problems: string[] = [];
  for (const k of Object.keys(c)) {
    if (!CREDENTIAL_KEYS.has(k)) {
      problems.push(`unknown credentials key '${k}' (expected ${SCHEMES}; optional timeout, ssl_verify)`);
    }
  }
  for (const k of ['username', 'key', 'secret', 'token']) {
    if (k in c && (typeof c[k] !== 'string' || !(c[k] as string))) {
      problems.push(`credentials '${k}' must be a non-empty string`);
    }
  }
  if ('password' in c && typeof c.password !== 'string')
    problems.push("credentials 'password' must be a string");
  for (const k of ['key', 'token']) {
    // Sent as they are in a header: a line break or another control character would break it.
    if (typeof c[k] === 'string' && [...c[k]].some((ch) => ch < ' ' || ch === '\u007f')) {
      problems.push(`credentials '${k}' must not contain control characters`);
    }
  }
  if (typeof c.username === 'string' && c.username.includes(':')) {
    problems.push("credentials 'username' must not contain ':' (HTTP Basic cannot carry it)");
  }
  if ('secret' in c && typeof c.key === 'string' && /["\\]|[^\x20-\x7e]/.test(c.key)) {
    problems.push('an HMAC key id must be printable ASCII without quotes or backslashes (Hawk header rules)');
  }
  const has = (k: string) => k in c;
  if (has('username') !== has('password')) problems.push('credentials need both username and password');
  if (has('secret') && !has('key')) problems.push('credentials with a secret need the key it belongs to');
  const schemes = [has('username'), has('key'), has('token')].filter(Boolean).length;
  if (schemes > 1) problems.push(`credentials must give one scheme: ${SCHEMES}`);
  if ('timeout' in c) {
    const t = c.timeout;
    if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0 || t > MAX_DESTINATION_TIMEOUT) {
      problems.push(
        `credentials 'timeout' must be a number of seconds above 0 and at most ${MAX_DESTINATION_TIMEOUT}`,
      );
    }
  }
  if ('ssl_verify' in c && typeof c.ssl_verify !== 'boolean') {
    problems.push("credentials 'ssl_verify' must be True or False");
  }
  return problems;
}

function filterProblems(f: unknown): string[] {
  if (!Array.isArray(f))
    return [`the filter must be a list such as ['*'] or ['alerts', 'ack'], got ${show(f)}`];
  if (f.length === 0) return ["the filter is empty, so nothing would be forwarded; use ['*'] for everything"];
  return f
    .filter((e) => typeof e !== 'string' || !(FILTER_WORDS.has(e) || ACTION_NAME.test(e)))
    .map((e) => `filter entry ${show(e)} is not '*', 'alerts', 'actions', 'delete' or an action name`);
}

/** Every problem with a FWD_DESTINATIONS value, each naming the entry; [] when it is usable. */
export function destinationProblems(value: unknown): string[] {
  if (!Array.isArray(value)) return [`expected a list of (url, credentials, filter), got ${kindOf(value)}`];
  const problems: string[] = [];
  const seen = new Set<string>();
  value.forEach((entry, i) => {
    const where = `entry ${i + 1}`;
    if (!Array.isArray(entry) || entry.length !== 3) {
      problems.push(`${where}: expected (url, credentials, filter), got ${kindOf(entry)}`);
      return;
    }
    const [url, credentials, filter] = entry as unknown[];
    const bad = urlProblem(url);
    const named = bad ? where : `${where} (${serverName(url as string)})`;
    if (bad) problems.push(`${where}: ${bad}`);
    else if (seen.has(serverName(url as string)))
      problems.push(`${named}: the same destination is listed twice`);
    else seen.add(serverName(url as string));
    for (const p of [...credentialProblems(credentials), ...filterProblems(filter)])
      problems.push(`${named}: ${p}`);
  });
  return problems;
}

export type DestinationTuple = [string, Record<string, unknown>, string[]];

/** The FWD_DESTINATIONS setting: checked (custom issues name each problem), kept as written. */
export const DestinationsSettingSchema = z.unknown().transform((value, ctx): DestinationTuple[] => {
  const problems = destinationProblems(value);
  for (const message of problems) ctx.addIssue({ code: 'custom', message });
  return problems.length ? z.NEVER : (value as DestinationTuple[]);
});
