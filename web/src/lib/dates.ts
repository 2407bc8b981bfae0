import { clientConfig } from './config.ts';
import { formatTime, loadPreferences } from './preferences.ts';

/** Formats an API time with one of `/config dates` in the user's zone preference; '' for none. */
export type TimeFormat = (iso: unknown, format?: 'shortTime' | 'mediumDate' | 'longDate') => string;

/**
 * The time format of this page: `/config dates` and the user's `timezone` preference (local or UTC);
 * a time in another year shows its year.
 */
export async function loadTimeFormat(): Promise<TimeFormat> {
  const [config, prefs] = await Promise.all([clientConfig(), loadPreferences()]);
  return (iso, format = 'mediumDate') =>
    typeof iso === 'string' && iso
      ? formatTime(iso, config.dates[format], prefs.timezone ?? 'local', Date.now())
      : '';
}

/** A stand-in until the real format has loaded: the ISO time as it came. */
export const rawTime: TimeFormat = (iso) => (typeof iso === 'string' ? iso : '');

/** "45s", "12m 5s", "3h 20m", "2d 4h": a duration in seconds, in its two largest units. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

type Zone = 'local' | 'utc';
const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const title = (s: string) => s[0]!.toUpperCase() + s.slice(1);
/** The format of time inputs (docs/ui-pages.md): the UI's own, "Sun 29 Nov 14:00", 24-hour. */
export const INPUT_FORMAT = 'ddd D MMM HH:mm';

/** An API time as a time input shows it: "Sun 29 Nov 14:00", with the year when not this year's. */
export const toTimeInput = (iso: unknown, timezone: Zone, now = Date.now()): string =>
  typeof iso === 'string' && iso ? formatTime(iso, INPUT_FORMAT, timezone, now) : '';

/** A name's index in `names` when `word` is at least its first three letters; -1 when none. */
const nameIndex = (names: string[], word: string) =>
  word.length >= 3 ? names.findIndex((n) => n.startsWith(word)) : -1;

/**
 * A time input's text as an ISO time: `[weekday] D month [YYYY] HH:mm` ("Sun 29 Nov 14:00",
 * "29 november 2026 09:30") or `YYYY-MM-DD HH:mm`, in the user's zone or UTC. Without a year, the
 * date is the one within six months of `now`. `{ error }` says in words what is wrong: a 12-hour
 * time, a day the month lacks, a weekday that is not that date's. Empty text is `{ iso: null }`.
 */
export function parseTimeInput(
  text: string,
  timezone: Zone,
  now = Date.now(),
): { iso: string | null; error?: undefined } | { iso?: undefined; error: string } {
  const value = text.trim().toLowerCase().replace(/,/g, ' ').replace(/\s+/g, ' ');
  if (!value) return { iso: null };
  const example = `e.g. ${toTimeInput(new Date(now).toISOString(), timezone, now)}`;
  if (/\d\s?(am|pm)\b/.test(value)) return { error: `Use the 24-hour clock (${example})` };
  const at = (y: number, m: number, d: number, h: number, min: number) =>
    timezone === 'utc' ? new Date(Date.UTC(y, m, d, h, min)) : new Date(y, m, d, h, min);

  let year: number | null;
  let month: number;
  let day: number;
  let weekday = -1;
  let clock: string;
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:t| )(\S+)$/.exec(value);
  if (iso) {
    year = Number(iso[1]);
    month = Number(iso[2]) - 1;
    day = Number(iso[3]);
    clock = iso[4]!;
    if (month < 0 || month > 11) return { error: `No month ${iso[2]} (${example})` };
  } else {
    const m = /^(?:([a-z]+)\.? )?(\d{1,2}) ([a-z]+)\.?(?: (\d{4}))?(?: (\S+))?$/.exec(value);
    if (!m) return { error: `Write the time as ${example}` };
    if (m[1]) {
      weekday = nameIndex(DAY_NAMES, m[1]);
      if (weekday < 0) return { error: `"${m[1]}" is no weekday (${example})` };
    }
    day = Number(m[2]);
    month = nameIndex(MONTH_NAMES, m[3]!);
    if (month < 0) return { error: `"${m[3]}" is no month (${example})` };
    year = m[4] ? Number(m[4]) : null;
    if (!m[5]) return { error: `Add the time of day, 24-hour (${example})` };
    clock = m[5];
  }
  const hm = /^(\d{1,2}):(\d{2})$/.exec(clock);
  if (!hm) return { error: `"${clock}" is no time of day: write hours:minutes, 24-hour (${example})` };
  const [hour, minute] = [Number(hm[1]), Number(hm[2])];
  if (hour > 23 || minute > 59) return { error: `"${clock}" is no time of day (${example})` };

  if (year === null) {
    // The year that puts the date nearest to now: this year's, unless that is over six months past.
    const thisYear = Number(formatTime(new Date(now), 'YYYY', timezone));
    year =
      at(thisYear, month, day, hour, minute).getTime() < now - 182 * 86_400_000 ? thisYear + 1 : thisYear;
  }
  const date = at(year, month, day, hour, minute);
  const got = {
    month: timezone === 'utc' ? date.getUTCMonth() : date.getMonth(),
    weekday: timezone === 'utc' ? date.getUTCDay() : date.getDay(),
  };
  const monthName = title(MONTH_NAMES[month]!).slice(0, 3);
  if (day < 1 || got.month !== month) return { error: `${monthName} ${year} has no day ${day}` };
  if (weekday >= 0 && weekday !== got.weekday)
    return {
      error: `${day} ${monthName} ${year} is a ${title(DAY_NAMES[got.weekday]!)}, not a ${title(DAY_NAMES[weekday]!)}`,
    };
  return { iso: date.toISOString() };
}

/** "in 23h 0m", "3h 20m left" — a blackout's (or any window's) time to start or to end, from now. */
export function windowState(
  startIso: unknown,
  endIso: unknown,
  now: number,
): { status: 'pending' | 'active' | 'expired'; startsIn: number; length: number; left: number } {
  const start = Date.parse(String(startIso));
  const end = Date.parse(String(endIso));
  const status = now < start ? 'pending' : now < end ? 'active' : 'expired';
  return {
    status,
    startsIn: Math.max(0, (start - now) / 1000),
    length: Math.max(0, (end - start) / 1000),
    left: Math.max(0, (end - Math.max(start, now)) / 1000),
  };
}

/** "1 day", "2 hours 30 minutes", "45 seconds": a duration in seconds, in words, its two largest units. */
export function spokenDuration(seconds: number): string {
  const units: [string, number][] = [
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
    ['second', 1],
  ];
  let rest = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  for (const [name, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 && parts.length < 2) parts.push(`${n} ${name}${n === 1 ? '' : 's'}`);
    else if (parts.length) break;
  }
  return parts.join(' ') || '0 seconds';
}

/** An alert's or an action's timeout in words: 0 (or none) is "no timeout" (docs/ui-pages.md). */
export const timeoutWords = (seconds: number | null | undefined): string =>
  seconds ? spokenDuration(seconds) : 'no timeout';

/** The browser's IANA time zone ("Europe/Berlin"); UTC when it cannot say. */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Every IANA zone this browser knows, UTC first, then by name. */
export function timeZones(): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...known.filter((z) => z !== 'UTC').sort()];
}

const zonedFormats = new Map<string, Intl.DateTimeFormat>();
/** The parts of `ms` as a clock in `zone` shows them (formats cached per zone). */
function zonedParts(ms: number, zone: string): Record<string, string> {
  let f = zonedFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      weekday: 'short',
      day: 'numeric',
      month: 'numeric',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'shortOffset',
    });
    zonedFormats.set(zone, f);
  }
  return Object.fromEntries(f.formatToParts(ms).map((p) => [p.type, p.value]));
}

/**
 * An instant as a clock in an IANA zone shows it, in the UI's format: "Thu 25 Mar 18:00" (the year
 * after the month when it is not `now`'s), and the zone's offset then ("UTC+1", "UTC-4"), which
 * changes across daylight saving.
 */
export function zonedTime(iso: string, zone: string, now = Date.now()): { time: string; offset: string } {
  const p = zonedParts(Date.parse(iso), zone);
  const year = p.year === zonedParts(now, zone).year ? '' : ` ${p.year}`;
  return {
    time: `${p.weekday} ${Number(p.day)} ${title(MONTH_NAMES[Number(p.month) - 1]!).slice(0, 3)}${year} ${p.hour}:${p.minute}`,
    offset: (p.timeZoneName ?? 'GMT').replace(/^GMT(\+0)?$/, 'UTC').replace(/^GMT/, 'UTC'),
  };
}

/** "14h", "1h 30m", "2d", "45s": seconds as a duration field shows them (parseDuration reads it back). */
export function durationText(seconds: number): string {
  const units: [string, number][] = [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  let rest = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  for (const [unit, size] of units) {
    if (rest >= size) parts.push(`${Math.floor(rest / size)}${unit}`);
    rest %= size;
  }
  return parts.join(' ') || '0s';
}

/**
 * A duration as typed: "14h", "1h 30m", "90m", "2d 4h", "45s", or hours:minutes ("1:30"); in
 * seconds, or `{ error }` in words.
 */
export function parseDuration(text: string): { seconds: number; error?: undefined } | { error: string } {
  const value = text.trim().toLowerCase();
  const example = 'e.g. 14h, 1h 30m or 90m';
  if (!value) return { error: `How long each lasts (${example})` };
  const clock = /^(\d{1,3}):([0-5]\d)$/.exec(value);
  if (clock) return { seconds: Number(clock[1]) * 3600 + Number(clock[2]) * 60 };
  const size: Record<string, number> = { d: 86400, h: 3600, m: 60, s: 1 };
  let seconds = 0;
  const rest = value.replace(/(\d+)\s*(d|h|m|s)[a-z]*\s*/g, (_, n: string, unit: string) => {
    seconds += Number(n) * size[unit]!;
    return '';
  });
  if (rest !== '' || seconds === 0)
    return { error: /^\d+$/.test(value) ? `Add a unit: ${value}h or ${value}m?` : `Write it as ${example}` };
  return { seconds };
}
