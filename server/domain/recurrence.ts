import { RRuleTemporal } from 'rrule-temporal';
import { toText } from 'rrule-temporal/totext';
import { MAX_TIME_MS } from '../../shared/alerts.ts';
import { appError } from '../errors.ts';

/**
 * Recurring blackouts (docs/blackouts.md, "Recurring blackouts"): an RFC 5545 rule expanded by
 * rrule-temporal in an IANA zone. Occurrences start at the rule's local times; a local time the
 * zone skips that day (spring forward) is no occurrence, an ambiguous one (fall back) is its first,
 * as RFC 5545 §3.3.10 and §3.3.5 say (tests/unit/blackout-recurrence.test.ts pins both in
 * Europe/Berlin and Australia/Sydney). Each occurrence lasts `duration` seconds of real time and is
 * cut to the series' [startTime, endTime).
 */
export interface Series {
  rrule: string;
  timezone: string;
  /** Series start (epoch ms): DTSTART is this instant with its seconds dropped. */
  startTime: number;
  /** Series end (epoch ms); MAX_TIME_MS when open. */
  endTime: number;
  /** Length of each occurrence in seconds. */
  duration: number;
}

/** A recurring blackout's series from its stored fields, or null for a one-off blackout. */
export function seriesOf(b: {
  rrule?: string | null;
  timezone?: string | null;
  startTime: number;
  endTime: number;
  duration?: number | null;
}): Series | null {
  if (!b.rrule || !b.timezone) return null;
  const { rrule, timezone, startTime, endTime } = b;
  return { rrule, timezone, startTime, endTime, duration: b.duration ?? 0 };
}

/**
 * What a recurring blackout knows as of `from`: no occurrence covers [from, start), one covers
 * [start, end). `start = end = NONE` when no occurrence is left. Stored in the row (window_from,
 * window_start, window_end) so the receive check is a time comparison.
 */
export interface Window {
  from: number;
  start: number;
  end: number;
}

/** The window marker for "no occurrence left". */
export const NONE = MAX_TIME_MS;

/** Parts an RRULE may carry (RFC 5545 §3.3.10) and the numbers each BYxxx part allows. */
const NUMERIC: Record<string, [min: number, max: number, signed: boolean]> = {
  BYSECOND: [0, 60, false],
  BYMINUTE: [0, 59, false],
  BYHOUR: [0, 23, false],
  BYMONTHDAY: [1, 31, true],
  BYYEARDAY: [1, 366, true],
  BYWEEKNO: [1, 53, true],
  BYMONTH: [1, 12, false],
  BYSETPOS: [1, 366, true],
};
const OTHER_PARTS = new Set(['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYDAY', 'WKST']);
const FREQUENCIES = new Set(['MINUTELY', 'HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY']);
const WEEKDAYS = new Set(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU']);
/** Occurrences looked at when merging overlapping ones or skipping ones cut away by the series. */
const MAX_STEPS = 500;

const invalid = (field: 'rrule' | 'timezone' | 'duration', problem: string) => {
  const text = `${field}: ${problem}`;
  return appError('invalid_request', text).with({ errors: [text] });
};

/** The zone's canonical IANA name (any case accepted); 400 naming `timezone` otherwise. */
export function checkTimezone(name: string): string {
  // Intl also takes offsets such as +01:00; a maintenance window follows a place's rules.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name))
    throw invalid('timezone', `'${name}' is not an IANA time zone, e.g. Europe/Berlin`);
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw invalid('timezone', `'${name}' is not an IANA time zone, e.g. Europe/Berlin`);
  }
}

/**
 * The rule in its stored form (upper case, no `RRULE:` prefix); 400 naming `rrule` for a part
 * RFC 5545 does not have, a number out of its range, SECONDLY, or anything rrule-temporal refuses.
 * The library expands the rule; this only refuses what it would silently drop.
 */
export function checkRule(raw: string): string {
  const rule = raw
    .trim()
    .replace(/^RRULE:/i, '')
    .toUpperCase();
  if (/[\r\n]/.test(rule)) throw invalid('rrule', 'one RRULE value, without DTSTART or other lines');
  const parts = rule.split(';').filter((p) => p !== '');
  const seen = new Set<string>();
  for (const part of parts) {
    const [name = '', value = ''] = part.split('=', 2);
    if (seen.has(name)) throw invalid('rrule', `${name} is given twice`);
    seen.add(name);
    if (!part.includes('=') || value === '') throw invalid('rrule', `'${part}' is not NAME=VALUE`);
    const range = NUMERIC[name];
    if (range) {
      const [min, max, signed] = range;
      for (const v of value.split(',')) {
        const n = /^[+-]?\d{1,3}$/.test(v) ? Math.abs(Number(v)) : NaN;
        if (!(n >= min && n <= max) || (!signed && v.startsWith('-'))) {
          const bounds = signed ? `${min} to ${max} or -${max} to -${min}` : `${min} to ${max}`;
          throw invalid('rrule', `${name} values must be ${bounds}, got '${v}'`);
        }
      }
    } else if (!OTHER_PARTS.has(name)) {
      throw invalid('rrule', `unknown rule part '${name}'`);
    }
  }
  const freq = parts.find((p) => p.startsWith('FREQ='))?.slice(5);
  if (!freq) throw invalid('rrule', 'FREQ is required, e.g. FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18');
  if (!FREQUENCIES.has(freq))
    throw invalid('rrule', `FREQ must be one of ${[...FREQUENCIES].join(', ')}, got '${freq}'`);
  for (const p of ['INTERVAL', 'COUNT']) {
    const v = parts.find((x) => x.startsWith(`${p}=`))?.slice(p.length + 1);
    if (v !== undefined && !/^[1-9]\d{0,5}$/.test(v))
      throw invalid('rrule', `${p} must be a whole number from 1`);
  }
  const wkst = parts.find((x) => x.startsWith('WKST='))?.slice(5);
  if (wkst !== undefined && !WEEKDAYS.has(wkst)) throw invalid('rrule', `WKST must be a weekday (MO…SU)`);
  const normalised = parts.join(';');
  try {
    // A rule naming a day that never comes (BYMONTH=2;BYMONTHDAY=31) runs out of steps here.
    const series = { rrule: normalised, timezone: 'UTC', startTime: 0, endTime: NONE, duration: 1 };
    ruleOf(series, CHECK_STEPS).next(new Date(0), true);
  } catch (err) {
    const message = (err as Error).message;
    if (/Maximum iterations/.test(message))
      throw invalid('rrule', 'no occurrence found: the rule may name a day that never comes');
    throw invalid('rrule', message);
  }
  return normalised;
}

/** A zoned instant in the shape rrule-temporal reads (it parses the string with its own Temporal). */
const zoned = (ms: number, timezone: string) => ({
  timeZoneId: timezone,
  toString: () => `${new Date(ms).toISOString()}[${timezone}]`,
});

/** Steps rrule-temporal may take for one answer; a rule is refused if its first takes more than CHECK_STEPS. */
const STEPS = 100_000;
const CHECK_STEPS = 10_000;

function ruleOf(s: Series, maxIterations = STEPS): RRuleTemporal {
  return new RRuleTemporal({
    rruleString: s.rrule,
    dtstart: zoned(Math.floor(s.startTime / 60_000) * 60_000, s.timezone),
    tzid: s.timezone,
    strict: true,
    cache: false,
    maxIterations,
  });
}

const epoch = (z: { epochMilliseconds: number } | null) => (z ? z.epochMilliseconds : null);

/**
 * The occurrence of the series in force at `t`, or else the next one, as a Window from `t`.
 * Overlapping occurrences merge into one window; occurrences are cut to the series' bounds.
 */
export function windowAt(s: Series, t: number, rule: RRuleTemporal = ruleOf(s)): Window {
  const none = { from: t, start: NONE, end: NONE };
  const length = s.duration * 1000;
  if (t >= s.endTime || length <= 0) return none;
  const at = Math.max(t, s.startTime);
  // The latest start at or before `at` covers it if any occurrence does (all last equally long).
  let start = epoch(rule.previous(new Date(at), true));
  if (start === null || start + length <= at) start = epoch(rule.next(new Date(at), false));
  for (let step = 0; start !== null && step < MAX_STEPS; step++) {
    let end = start + length;
    // Occurrences that begin before this one ends extend it.
    for (
      let more = 0, next = epoch(rule.next(new Date(start), false));
      next !== null && next <= end;
      more++
    ) {
      end = Math.max(end, next + length);
      if (more >= MAX_STEPS) break;
      next = epoch(rule.next(new Date(next), false));
    }
    const cut = { start: Math.max(start, s.startTime), end: Math.min(end, s.endTime) };
    if (cut.start >= s.endTime) return none;
    if (cut.start < cut.end && cut.end > at) return { from: t, ...cut };
    start = epoch(rule.next(new Date(end - 1), false));
  }
  return none;
}

/**
 * The window to store at `now`: computed from `since` (the end of the one stored before, or an
 * hour back) and stepped on until it has not passed, so alerts created in between are still
 * answered from it. Deterministic, so every instance that refreshes a row stores the same.
 */
export function windowSince(s: Series, since: number, now: number): Window {
  const rule = ruleOf(s);
  let w = windowAt(s, Math.min(since, now), rule);
  for (let step = 0; w.end <= now && w.end !== NONE && step < 50; step++) w = windowAt(s, w.end, rule);
  return w.end <= now ? windowAt(s, now, rule) : w;
}

/**
 * The windows that start or end in (from, to], in order: the edges blackout notices announce
 * (notifications/notices.ts). At most `limit` windows.
 */
export function windowsBetween(s: Series, from: number, to: number, limit = 100): Window[] {
  const rule = ruleOf(s);
  const out: Window[] = [];
  for (let w = windowAt(s, from, rule); w.start !== NONE && w.start <= to && out.length < limit;) {
    if (w.start > from || (w.end > from && w.end <= to)) out.push(w);
    if (w.end > to) break;
    w = windowAt(s, w.end, rule);
  }
  return out;
}

/** Whether an occurrence covers `t`, from the stored window when it knows `t`, else from the rule. */
export function coversAt(s: Series, stored: Window | null, t: number): boolean {
  if (t < s.startTime || t >= s.endTime) return false;
  if (stored && stored.from <= t && t < stored.end) return stored.start <= t;
  const w = windowAt(s, t);
  return w.start <= t && t < w.end;
}

/** The next `n` occurrence starts at or after `after` (epoch ms), for previews and tests. */
export function occurrences(s: Series, after: number, n: number): number[] {
  const rule = ruleOf(s);
  const out: number[] = [];
  for (let t = epoch(rule.next(new Date(after), true)); t !== null && t < s.endTime && out.length < n;) {
    out.push(t);
    t = epoch(rule.next(new Date(t), false));
  }
  return out;
}

/**
 * The series start when none is given: 00:00 local on the day an occurrence in force now could
 * have begun (now − duration), so one already under way counts, and a rule without BYHOUR or
 * BYMINUTE takes midnight's rather than an arbitrary clock time.
 */
export function defaultStart(timezone: string, now: number, duration: number): number {
  const t = now - duration * 1000;
  const midnights = ruleOf({
    rrule: 'FREQ=DAILY;BYHOUR=0;BYMINUTE=0;BYSECOND=0',
    timezone,
    startTime: t - 3 * 86_400_000,
    endTime: NONE,
    duration: 1,
  });
  return epoch(midnights.previous(new Date(t), true)) ?? t;
}

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60) % 24).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** "1h 30m", "2d", "45s": a duration in its largest whole units. */
export function durationInWords(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'm'],
    [1, 's'],
  ];
  const out: string[] = [];
  let left = seconds;
  for (const [size, unit] of units) {
    if (left >= size) {
      out.push(`${Math.floor(left / size)}${unit}`);
      left %= size;
    }
  }
  return out.join(' ') || '0s';
}

/**
 * The rule in words: "every weekday 18:00–08:00 Europe/Berlin" when each occurrence starts at one
 * time of day and lasts less than a day, else the library's words and the length
 * ("every 4 hours for 30m UTC"), with times of day on the 24-hour clock as everywhere in the UI
 * ("every day at 02:30 for 2d Europe/Berlin"; tests/unit/blackout-recurrence.test.ts).
 */
export function describe(s: Series): string {
  const rule = ruleOf(s);
  const words = toText(rule, 'en', { excludeTzAbbreviation: true });
  const times = words.match(/ at \d{1,2}(:\d{2})? [AP]M\b/g) ?? [];
  const first = rule.next(new Date(s.startTime), true);
  if (
    times.length === 1 &&
    !words.includes(' and ', words.indexOf(times[0]!)) &&
    first &&
    s.duration < 86_400
  ) {
    const from = first.hour * 60 + first.minute;
    const span = `${hhmm(from)}–${hhmm(from + Math.floor(s.duration / 60))}`;
    return `${words.replace(times[0]!, ` ${span}`)} ${s.timezone}`;
  }
  return `${clock24(words)} for ${durationInWords(s.duration)} ${s.timezone}`;
}

/** The library's 12-hour times ("2:30 AM", "12 PM") on the 24-hour clock ("02:30", "12:00"). */
const clock24 = (words: string) =>
  words.replace(/\b(\d{1,2})(?::(\d{2}))? ([AP])M\b/g, (_m, h: string, m: string | undefined, ap: string) =>
    hhmm(((Number(h) % 12) + (ap === 'P' ? 12 : 0)) * 60 + Number(m ?? 0)),
  );
