import { randomUUID } from 'node:crypto';
import { formatTime, isTimeInRange, MAX_TIME_MS } from '../../shared/alerts.ts';
import type { Blackout, BlackoutInput, BlackoutUpdate } from '../../shared/blackouts.ts';
import * as blackoutsDb from '../db/blackouts.ts';
import type { BlackoutRow, BlackoutWrite } from '../db/blackouts.ts';
import type { ActiveBlackout, Base, BlackoutCache, Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { refreshWindows, startWindowWatch } from './blackout-windows.ts';
import { checkRule, checkTimezone, defaultStart, windowSince } from './recurrence.ts';
import { matchesBlackout, presentBlackout } from './blackout-status.ts';

export { isInForce, matchesBlackout, presentBlackout, remainingOf, statusOf } from './blackout-status.ts';
import type { AlertDraft } from './alert-types.ts';
import { assignCustomer, type Caller } from './caller.ts';

export type { ActiveBlackout };

const MAX_INT32 = 2 ** 31 - 1;
const iso = formatTime;

/** The fields that decide a blackout's priority. */
export type PriorityFields = Pick<
  BlackoutRow,
  'resource' | 'event' | 'service' | 'group' | 'tags' | 'origin'
>;

/**
 * Informational priority from which fields are set (heartbeats-blackouts.md §2): 1 for environment
 * only (Alerta 9.x says 0, a regression), then the first rule that applies, origin overriding all.
 */
export function priorityOf(b: PriorityFields): number {
  let priority = 1;
  if (b.resource && !b.event) priority = 2;
  else if (b.service.length) priority = 3;
  else if (b.event && !b.resource) priority = 4;
  else if (b.group) priority = 5;
  else if (b.resource && b.event) priority = 6;
  else if (b.tags.length) priority = 7;
  if (b.origin) priority = 8;
  return priority;
}

/** How long an instance trusts its copy before checking the blackouts' version (another instance's change shows within this). */
const CACHE_MS = 1000;
/** The copy holds blackouts that ended at most this long ago; alerts created earlier are matched in SQL. */
const CACHE_WINDOW_MS = 3600_000;

interface RecentBlackouts {
  /** When the copy was last known to be current (read, or its version checked). */
  loadedAt: number;
  /** The blackouts' change counter the rows were read at (migration 0057). */
  version: number;
  /** The soonest stored window end among the rows: past it, windows are refreshed and read again. */
  windowsPassAt: number;
  /** Alerts created at or after this time can be matched against `rows` alone. */
  from: number;
  rows: readonly BlackoutRow[];
  /** `rows` by environment, then resource (null: any resource), so a receipt reads only its own. */
  byPlace: Map<string, Map<string | null, BlackoutRow[]>>;
}

function byPlaceOf(rows: readonly BlackoutRow[]): RecentBlackouts['byPlace'] {
  const index: RecentBlackouts['byPlace'] = new Map();
  for (const b of rows) {
    let byResource = index.get(b.environment);
    if (!byResource) index.set(b.environment, (byResource = new Map()));
    const list = byResource.get(b.resource);
    if (list) list.push(b);
    else byResource.set(b.resource, [b]);
  }
  return index;
}

/**
 * This instance's copy of the recent blackouts (deps.blackoutCache), used by the blackout plugin on
 * every receipt. Alerts are matched in process; the copy is checked against the blackouts' version
 * once a second and read again only after a change or when a stored window passes. An alert created
 * before the copy's window is matched in SQL (tests/api/blackout-cache.test.ts).
 */
export function createBlackoutCache(
  deps: Pick<Base, 'db' | 'clock' | 'config' | 'log'>,
): BlackoutCache & { start(): void; stop(): Promise<void> } {
  // The copy, and the read that refreshes it: receipts arriving meanwhile wait for that read. A
  // change replaces the slot, so a read started before the change fills only the slot it came from.
  let slot: { value?: RecentBlackouts; loading?: Promise<RecentBlackouts> } = {};
  let watch: ReturnType<typeof startWindowWatch> | null = null;
  // A copy whose version has not moved and whose windows have not passed is kept as it is: only a
  // change (any instance's: the counter is in the database) or a passing window reads the rows again
  // (tests/api/blackout-cache.test.ts, "re-reads only after a change").
  const load = (entry: typeof slot, now: number): Promise<RecentBlackouts> =>
    (entry.loading ??= (async (): Promise<RecentBlackouts> => {
      try {
        const previous = entry.value;
        let version = await blackoutsDb.readVersion(deps.db);
        if (previous && previous.version === version && now < previous.windowsPassAt) {
          const kept = { ...previous, loadedAt: now };
          entry.value = kept;
          return kept;
        }
        const from = now - CACHE_WINDOW_MS;
        // The version is read before the rows: a change committed in between is read again next time.
        let rows = await blackoutsDb.endingAfter(deps.db, from);
        // A recurring window that has passed is stored anew before receipts are matched on it.
        if (rows.some((b) => b.windowEnd != null && b.windowEnd <= now)) {
          await refreshWindows(deps, now);
          version = await blackoutsDb.readVersion(deps.db);
          rows = await blackoutsDb.endingAfter(deps.db, from);
        }
        const windowsPassAt = rows.reduce((t, b) => Math.min(t, b.windowEnd ?? Infinity), Infinity);
        const read = { loadedAt: now, version, windowsPassAt, from, rows, byPlace: byPlaceOf(rows) };
        entry.value = read;
        return read;
      } finally {
        entry.loading = undefined;
      }
    })());
  // Past three quarters of its life the copy is reloaded in the background, so receipts under steady traffic
  // never wait for the read; only a copy a full CACHE_MS old (or dropped) is waited for.
  const recent = (): Promise<RecentBlackouts> | RecentBlackouts => {
    const now = deps.clock.now();
    const entry = slot;
    const age = entry.value ? now - entry.value.loadedAt : Infinity;
    if (entry.value && age < (CACHE_MS * 3) / 4) return entry.value;
    const loading = load(entry, now);
    if (entry.value && age < CACHE_MS) {
      loading.catch(() => {}); // a failed read is retried by the next receipt
      return entry.value;
    }
    return loading;
  };
  // Only blackouts of the alert's environment, for its resource or any, can match it.
  const candidates = (copy: RecentBlackouts, alert: AlertDraft): readonly BlackoutRow[] => {
    const byResource = copy.byPlace.get(alert.environment);
    if (!byResource) return [];
    const mine = byResource.get(alert.resource) ?? [];
    const any = byResource.get(null) ?? [];
    return mine.length && any.length ? [...mine, ...any] : mine.length ? mine : any;
  };
  const matches = (alert: AlertDraft) => (b: BlackoutRow) =>
    matchesBlackout(b, alert, deps.config.CUSTOMER_VIEWS);
  return {
    async findActive(alert) {
      const copy = await recent();
      const match =
        alert.createTime < copy.from
          ? (await blackoutsDb.findActiveCandidates(deps.db, alert, deps.config.CUSTOMER_VIEWS)).find(
              matches(alert),
            )
          : candidates(copy, alert).find(matches(alert));
      return match ? { id: match.id, priority: match.priority } : null;
    },
    forget() {
      slot = {};
      watch?.kick();
    },
    /** Keeps recurring windows current while no receipt asks (domain/blackout-windows.ts). */
    start() {
      watch ??= startWindowWatch(deps);
    },
    async stop() {
      await watch?.stop();
    },
  };
}

/** 400 when end is before start, or past the last instant we represent. */
function assertEndNotBeforeStart(startTime: number, endTime: number): void {
  if (endTime < startTime) {
    throw appError('blackout_end_before_start').with({
      errors: [`startTime: ${iso(startTime)}`, `endTime: ${iso(endTime)}`],
    });
  }
  // startTime plus a duration can run past the last representable instant.
  if (!isTimeInRange(endTime))
    throw appError('date_out_of_range').with({ errors: [`endTime: ${iso(endTime)}`] });
}

/** Whole seconds from start to end; 400 when end is before start or the span does not fit. */
function durationOf(startTime: number, endTime: number): number {
  assertEndNotBeforeStart(startTime, endTime);
  const duration = Math.floor((endTime - startTime) / 1000);
  if (duration > MAX_INT32) throw appError('blackout_too_long', MAX_INT32);
  return duration;
}

/** Anonymous callers (auth off) may name the user; a logged-in caller is always the user. */
const userOf = (wanted: string | null | undefined, caller: Caller) => caller.user ?? wanted ?? null;

/** The rule and zone a write stores, checked (400 naming the field); null for a one-off blackout. */
function recurrenceInput(rrule: string | null | undefined, timezone: string | null | undefined) {
  return rrule ? { rrule: checkRule(rrule), timezone: checkTimezone(timezone ?? 'UTC') } : null;
}

/** The recurring fields of a write: duration at least a second, and the window as of `now`. */
function recurringWrite(
  recurrence: { rrule: string; timezone: string },
  times: { startTime: number; endTime: number; duration: number },
  now: number,
): Pick<BlackoutWrite, 'rrule' | 'timezone' | 'window'> {
  if (times.duration < 1) {
    const text = 'duration: each occurrence of a recurring blackout must last at least 1 second';
    throw appError('invalid_request', text).with({ errors: [text] });
  }
  assertEndNotBeforeStart(times.startTime, times.endTime);
  const series = { ...recurrence, ...times };
  return { ...recurrence, window: windowSince(series, Math.max(times.startTime, now - 3600_000), now) };
}

const ONE_OFF = { rrule: null, timezone: null, window: null };

/**
 * POST /blackout: defaults (start now, end from duration or BLACKOUT_DURATION), priority, customer.
 * With `rrule`, duration (default BLACKOUT_DURATION) is each occurrence's, the series is open
 * without endTime and starts by default at local midnight (recurrence.ts defaultStart); `timezone`
 * alone is ignored.
 */
export async function createBlackout(deps: Deps, input: BlackoutInput, caller: Caller): Promise<Blackout> {
  const now = deps.clock.now();
  const recurrence = recurrenceInput(input.rrule, input.timezone);
  let startTime = input.startTime ?? now;
  let endTime: number;
  let timing: Pick<BlackoutWrite, 'duration' | 'rrule' | 'timezone' | 'window'>;
  if (recurrence) {
    endTime = input.endTime ?? MAX_TIME_MS;
    const duration = input.duration ?? deps.config.BLACKOUT_DURATION;
    startTime = input.startTime ?? defaultStart(recurrence.timezone, now, duration);
    timing = { duration, ...recurringWrite(recurrence, { startTime, endTime, duration }, now) };
  } else {
    endTime = input.endTime ?? startTime + (input.duration ?? deps.config.BLACKOUT_DURATION) * 1000;
    timing = { duration: durationOf(startTime, endTime), ...ONE_OFF };
  }
  const fields = {
    environment: input.environment,
    service: input.service ?? [],
    resource: input.resource ?? null,
    event: input.event ?? null,
    group: input.group ?? null,
    tags: [...new Set(input.tags ?? [])],
    origin: input.origin ?? null,
  };
  const row = await blackoutsDb.insertBlackout(deps.db, randomUUID(), {
    ...fields,
    priority: priorityOf(fields),
    customer: assignCustomer(input.customer, caller.customers),
    startTime,
    endTime,
    ...timing,
    user: userOf(input.user, caller),
    createTime: now,
    text: input.text ?? '',
  });
  deps.blackoutCache.forget();
  return presentBlackout(row, caller.baseUrl, now);
}

/** GET /blackout/:id (a prefix of the id is enough). */
export async function getBlackout(deps: Deps, id: string, caller: Caller): Promise<Blackout> {
  const row = await blackoutsDb.findBlackout(deps.db, id, caller.customers);
  if (!row) throw appError('not_found');
  return presentBlackout(row, caller.baseUrl, deps.clock.now());
}

/**
 * PUT /blackout/:id (heartbeats-blackouts.md §2): a key absent from the body leaves the field alone;
 * null clears it, except environment, startTime, endTime and duration (kept) and service/tags
 * (emptied). A new duration without endTime moves endTime. Priority is recomputed; duration is not
 * recomputed from start and end, as on the established server (an old blackout extended by decades
 * keeps its stored duration instead of overflowing it).
 */
export async function updateBlackout(
  deps: Deps,
  id: string,
  change: BlackoutUpdate,
  caller: Caller,
): Promise<Blackout> {
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const current = await blackoutsDb.findBlackout(tx, id, caller.customers, { forUpdate: true });
    if (!current) throw appError('not_found');
    const pick = <K extends 'resource' | 'event' | 'group' | 'origin'>(k: K) =>
      change[k] === undefined ? current[k] : change[k];
    const startTime = change.startTime ?? current.startTime;
    const wasRecurring = current.rrule != null;
    const recurrence = recurrenceInput(
      change.rrule === undefined ? current.rrule : change.rrule,
      change.timezone === undefined ? current.timezone : change.timezone,
    );
    let endTime: number;
    let timing: Pick<BlackoutWrite, 'duration' | 'rrule' | 'timezone' | 'window'>;
    if (recurrence) {
      // A blackout that becomes recurring keeps its length per occurrence; its series is open.
      endTime = change.endTime ?? (wasRecurring ? current.endTime : MAX_TIME_MS);
      const duration =
        change.duration ?? current.duration ?? Math.floor((current.endTime - current.startTime) / 1000);
      timing = { duration, ...recurringWrite(recurrence, { startTime, endTime, duration }, now) };
    } else {
      // One that stops recurring is one window of its occurrence length from startTime.
      const duration = change.duration ?? (wasRecurring ? current.duration : null);
      endTime =
        change.endTime ??
        (duration != null && (wasRecurring || change.duration != null)
          ? startTime + duration * 1000
          : current.endTime);
      timing = { duration: change.duration ?? current.duration, ...ONE_OFF };
    }
    assertEndNotBeforeStart(startTime, endTime);
    const fields = {
      environment: change.environment ?? current.environment,
      service: change.service === undefined ? current.service : (change.service ?? []),
      resource: pick('resource'),
      event: pick('event'),
      group: pick('group'),
      tags: change.tags === undefined ? current.tags : [...new Set(change.tags ?? [])],
      origin: pick('origin'),
    };
    let customer = current.customer;
    if (change.customer !== undefined) {
      // A restricted caller cannot move a blackout out of its customers, so null keeps it there.
      customer =
        change.customer === null && caller.customers !== null
          ? current.customer
          : assignCustomer(change.customer, caller.customers);
    }
    const write: BlackoutWrite = {
      ...fields,
      priority: priorityOf(fields),
      customer,
      startTime,
      endTime,
      ...timing,
      user: change.user === undefined && caller.user === null ? current.user : userOf(change.user, caller),
      createTime: current.createTime,
      text: change.text === undefined ? current.text : (change.text ?? ''),
    };
    return blackoutsDb.updateBlackout(tx, current.id, write);
  });
  deps.blackoutCache.forget();
  return presentBlackout(row, caller.baseUrl, now);
}

/** DELETE /blackout/:id */
export async function deleteBlackout(deps: Deps, id: string, caller: Caller): Promise<void> {
  const row = await blackoutsDb.findBlackout(deps.db, id, caller.customers);
  if (!row || !(await blackoutsDb.deleteBlackout(deps.db, row.id, caller.customers)))
    throw appError('not_found');
  deps.blackoutCache.forget();
}

export { listBlackouts } from './blackout-list.ts';
