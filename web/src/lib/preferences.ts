import { api, token, tokenClaims } from './api.ts';

/**
 * A user's preferences, with alerta-webui's `prefs` keys so a user moving between the two UIs keeps
 * them (wall-display.md §5). Logged-in users keep them in their user attributes (`prefs`, saved by
 * partial PUT /user/me/attributes, which the server deep-merges); anonymous screens in local storage.
 * URL parameters still win over both, so a wall is configured by bookmark.
 */
export interface Preferences {
  /** true dark, false light, null/absent: follow the OS. */
  isDark?: boolean | null;
  /** Sound off for this user (wall-display.md §4). */
  isMute?: boolean;
  displayDensity?: 'comfortable' | 'compact';
  /** 'local' (the browser's zone) or 'utc'. */
  timezone?: 'local' | 'utc';
  rowsPerPage?: number;
  /** Default timeouts of the ack and shelve actions, seconds (0: the server's default). */
  ackTimeout?: number;
  shelveTimeout?: number;
  /** Severities that sound on a new alert (ours; alerta-webui has one on/off switch). */
  soundSeverities?: string[];
  /** Show a tab for every configured environment, even with no alerts (alerta-webui's key). */
  showAllowedEnvs?: boolean;
  [key: string]: unknown;
}

/** A saved search, as alerta-webui stores it: user attribute `queries`. */
export interface SavedQuery {
  text: string;
  q: string;
}

const LOCAL = 'alertwall.prefs';
const LOCAL_QUERIES = 'alertwall.queries';

interface Attributes {
  prefs?: Preferences;
  queries?: SavedQuery[];
}

let attributes: Promise<Attributes> | null = null;

function readLocal<T>(key: string, fallback: T): T {
  try {
    return (JSON.parse(localStorage.getItem(key) ?? 'null') as T | null) ?? fallback;
  } catch {
    return fallback;
  }
}

/** The user's attributes (fetched once per page load), or this browser's copy when nobody is logged in. */
function loadAttributes(): Promise<Attributes> {
  attributes ??= token()
    ? api<{ attributes: Attributes }>('GET', '/user/me/attributes')
        .then((r) => r.attributes ?? {})
        .catch(() => ({}))
    : Promise.resolve({
        prefs: readLocal<Preferences>(LOCAL, {}),
        queries: readLocal<SavedQuery[]>(LOCAL_QUERIES, []),
      });
  return attributes;
}

export async function loadPreferences(): Promise<Preferences> {
  return (await loadAttributes()).prefs ?? {};
}

/** Saves the given keys only; `null` removes a key (the server's merge rule, mirrored locally). */
export async function savePreferences(change: Partial<Preferences>): Promise<Preferences> {
  const current = await loadPreferences();
  const merged: Preferences = { ...current, ...change };
  for (const [k, v] of Object.entries(merged)) if (v === null) delete merged[k];
  if (token()) await api('PUT', '/user/me/attributes', { attributes: { prefs: change } });
  else localStorage.setItem(LOCAL, JSON.stringify(merged));
  const all = await loadAttributes();
  attributes = Promise.resolve({ ...all, prefs: merged });
  return merged;
}

export async function loadQueries(): Promise<SavedQuery[]> {
  return (await loadAttributes()).queries ?? [];
}

/** Replaces the saved searches (arrays replace in the server's merge). */
export async function saveQueries(queries: SavedQuery[]): Promise<void> {
  if (token()) await api('PUT', '/user/me/attributes', { attributes: { queries } });
  else localStorage.setItem(LOCAL_QUERIES, JSON.stringify(queries));
  const all = await loadAttributes();
  attributes = Promise.resolve({ ...all, queries });
}

/** The logged-in user's login (the token's `preferred_username`), or null. Not a security check. */
export function currentLogin(): string | null {
  const login = tokenClaims()?.preferred_username;
  return typeof login === 'string' ? login : null;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A format with the year, for a date outside the current year: `YYYY` after the month name
 * (`ddd D MMM HH:mm` → `ddd D MMM YYYY HH:mm`), else at the end. A format with a year is kept.
 */
export function withYear(format: string): string {
  const plain = format.replace(/\[[^\]]*\]/g, '');
  if (/Y/.test(plain)) return format;
  return /MMMM|MMM/.test(format) ? format.replace(/MMMM|MMM/, '$& YYYY') : `${format} YYYY`;
}

/**
 * A time in one of `/config dates`' moment.js formats (e.g. `ddd D MMM, YYYY HH:mm:ss.SSS Z`), in the
 * browser's zone or UTC. Supports the tokens those formats use; other letters are printed as they are,
 * and `[text]` is literal, as in moment. Given `now`, a time in another year than now's shows its
 * year even when the format has none (withYear).
 */
export function formatTime(
  iso: string | number | Date,
  format: string,
  timezone: 'local' | 'utc' = 'local',
  now?: number,
): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const utc = timezone === 'utc';
  if (now !== undefined) {
    const year = (t: Date) => (utc ? t.getUTCFullYear() : t.getFullYear());
    if (year(d) !== year(new Date(now))) format = withYear(format);
  }
  const get = {
    Y: utc ? d.getUTCFullYear() : d.getFullYear(),
    M: utc ? d.getUTCMonth() : d.getMonth(),
    D: utc ? d.getUTCDate() : d.getDate(),
    d: utc ? d.getUTCDay() : d.getDay(),
    H: utc ? d.getUTCHours() : d.getHours(),
    m: utc ? d.getUTCMinutes() : d.getMinutes(),
    s: utc ? d.getUTCSeconds() : d.getSeconds(),
    S: d.getUTCMilliseconds(),
  };
  const offset = utc ? 0 : -d.getTimezoneOffset();
  const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
  const zone = (sep: string) =>
    `${offset < 0 ? '-' : '+'}${pad(Math.trunc(offset / 60))}${sep}${pad(offset % 60)}`;
  const tokens: Record<string, () => string> = {
    YYYY: () => String(get.Y),
    YY: () => pad(get.Y % 100),
    MMMM: () => new Date(Date.UTC(2000, get.M, 1)).toLocaleString('en', { month: 'long', timeZone: 'UTC' }),
    MMM: () => MONTHS[get.M]!,
    MM: () => pad(get.M + 1),
    M: () => String(get.M + 1),
    DD: () => pad(get.D),
    D: () => String(get.D),
    dddd: () =>
      new Date(Date.UTC(2000, 0, 2 + get.d)).toLocaleString('en', { weekday: 'long', timeZone: 'UTC' }),
    ddd: () => DAYS[get.d]!,
    HH: () => pad(get.H),
    H: () => String(get.H),
    hh: () => pad(get.H % 12 || 12),
    h: () => String(get.H % 12 || 12),
    mm: () => pad(get.m),
    ss: () => pad(get.s),
    SSS: () => pad(get.S, 3),
    A: () => (get.H < 12 ? 'AM' : 'PM'),
    ZZ: () => zone(''),
    Z: () => zone(':'),
  };
  return format.replace(
    /\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|DD|D|dddd|ddd|HH|H|hh|h|mm|ss|SSS|A|ZZ|Z/g,
    (match: string, literal: string | undefined) => (literal !== undefined ? literal : tokens[match]!()),
  );
}
