import { formatTime } from '../../shared/alerts.ts';
import type { Blackout } from '../../shared/blackouts.ts';
import type { BlackoutRow, BlackoutStatusName } from '../db/blackouts.ts';
import type { AlertDraft } from './alert-types.ts';
import { coversAt, describe, NONE, seriesOf, windowAt, type Series, type Window } from './recurrence.ts';

// A blackout's state at a given time, one-off or recurring: what GET answers and what matching asks.

const iso = formatTime;

/** The recurrence columns; absent or null on a one-off blackout. */
export type Timed = Pick<BlackoutRow, 'startTime' | 'endTime'> &
  Partial<Pick<BlackoutRow, 'duration' | 'rrule' | 'timezone' | 'windowFrom' | 'windowStart' | 'windowEnd'>>;

const storedWindow = (b: Timed): Window | null =>
  b.windowFrom != null && b.windowStart != null && b.windowEnd != null
    ? { from: b.windowFrom, start: b.windowStart, end: b.windowEnd }
    : null;

/** The occurrence in force at `now` or next: the stored window when it knows `now`, else computed. */
function windowNow(b: Timed, series: Series, now: number): Window {
  const stored = storedWindow(b);
  return stored && stored.from <= now && now < stored.end ? stored : windowAt(series, now);
}

/**
 * pending before startTime, active until endTime, expired from then on; a recurring series is
 * also expired once no occurrence is left (COUNT, UNTIL). Whether an occurrence is on now is the
 * recurrence's `activeNow`, not the status.
 */
export function statusOf(b: Timed, now: number): BlackoutStatusName {
  if (now < b.startTime) return 'pending';
  if (now >= b.endTime) return 'expired';
  const series = seriesOf(b);
  if (series && windowNow(b, series, now).end === NONE) return 'expired';
  return 'active';
}

/**
 * Seconds left, counted from the start when it is still ahead; rounded up so it is 0 exactly when
 * expired. For a recurring blackout, of the occurrence in force or next.
 */
export function remainingOf(b: Timed, now: number): number {
  const series = seriesOf(b);
  const { start, end } = series ? windowNow(b, series, now) : { start: b.startTime, end: b.endTime };
  if (end === NONE) return 0;
  return Math.max(0, Math.ceil((end - Math.max(start, now)) / 1000));
}

/** The API's blackout, with status and remaining evaluated at `now`. */
export function presentBlackout(row: BlackoutRow, baseUrl: string, now: number): Blackout {
  return {
    id: row.id,
    href: `${baseUrl}/blackout/${row.id}`,
    priority: row.priority,
    environment: row.environment,
    service: row.service,
    resource: row.resource,
    event: row.event,
    group: row.group,
    tags: row.tags,
    origin: row.origin,
    customer: row.customer,
    startTime: iso(row.startTime),
    endTime: iso(row.endTime),
    duration: row.duration ?? Math.floor((row.endTime - row.startTime) / 1000),
    status: statusOf(row, now),
    remaining: remainingOf(row, now),
    user: row.user,
    createTime: iso(row.createTime),
    text: row.text,
    ...recurrenceOf(row, now),
  };
}

/** A recurring blackout's additions to the API shape (shared/blackouts.ts RecurrenceSchema). */
function recurrenceOf(row: BlackoutRow, now: number): Pick<Blackout, 'rrule' | 'timezone' | 'recurrence'> {
  const series = seriesOf(row);
  if (!series) return {};
  const w = windowNow(row, series, now);
  const occurrence = w.end === NONE ? null : { startTime: iso(w.start), endTime: iso(w.end) };
  return {
    rrule: series.rrule,
    timezone: series.timezone,
    recurrence: {
      description: describe(series),
      activeNow: w.start <= now && now < w.end,
      occurrence,
      remaining: remainingOf(row, now),
    },
  };
}

/**
 * Whether a blackout covers an alert (heartbeats-blackouts.md §2): every field it sets matches and it
 * is in force at the alert's createTime. The one decision for the receive path (in memory, and after
 * `findActiveCandidates` in SQL), the notifications worker and anything else that asks.
 */
export function matchesBlackout(
  b: BlackoutRow,
  alert: Pick<
    AlertDraft,
    'environment' | 'resource' | 'event' | 'group' | 'service' | 'tags' | 'origin' | 'customer' | 'createTime'
  >,
  customerViews: boolean,
): boolean {
  return (
    b.environment === alert.environment &&
    (b.resource === null || b.resource === alert.resource) &&
    (b.event === null || b.event === alert.event) &&
    (b.group === null || b.group === alert.group) &&
    (b.origin === null || b.origin === alert.origin) &&
    b.service.every((s) => alert.service.includes(s)) &&
    b.tags.every((t) => alert.tags.includes(t)) &&
    (!customerViews || b.customer === null || b.customer === alert.customer) &&
    isInForce(b, alert.createTime)
  );
}

/**
 * Whether the blackout suppresses at `t`: a one-off one from startTime until endTime; a recurring
 * one while an occurrence covers `t`, answered from its stored window when that knows `t` (a time
 * comparison), else from the rule (tests/unit/blackout-recurrence.test.ts).
 */
export function isInForce(b: Timed, t: number): boolean {
  const series = seriesOf(b);
  if (!series) return b.startTime <= t && t < b.endTime;
  return coversAt(series, storedWindow(b), t);
}
