import { randomUUID } from 'node:crypto';
import { formatTime, isTimeInRange } from '../../shared/alerts.ts';
import type { Blackout, BlackoutInput, BlackoutList, BlackoutUpdate } from '../../shared/blackouts.ts';
import * as blackoutsDb from '../db/blackouts.ts';
import type { BlackoutRow, BlackoutSortKey, BlackoutStatusName, BlackoutWrite } from '../db/blackouts.ts';
import type { ActiveBlackout, Base, BlackoutCache, Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import type { AlertDraft } from './alert-types.ts';
import { assignCustomer, type Caller } from './caller.ts';
import { and, not, type Cond } from './query/conditions.ts';
import {
  LIST_RESERVED,
  booleanParam,
  pageFieldsOf,
  pagingOf,
  paramsOf,
  valuesCondition,
} from './query/params.ts';

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

/** pending before startTime, active until endTime, expired from then on. */
export function statusOf(b: Pick<BlackoutRow, 'startTime' | 'endTime'>, now: number): BlackoutStatusName {
  if (now < b.startTime) return 'pending';
  if (now < b.endTime) return 'active';
  return 'expired';
}

/** Seconds left, counted from the start when it is still ahead; rounded up so it is 0 exactly when expired. */
export function remainingOf(b: Pick<BlackoutRow, 'startTime' | 'endTime'>, now: number): number {
  return Math.max(0, Math.ceil((b.endTime - Math.max(b.startTime, now)) / 1000));
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
  };
}

/**
 * Whether a blackout covers an alert (heartbeats-blackouts.md §2): in force at the alert's createTime
 * and every field it sets matches. The database runs the same rule in `findActiveMatch`; this is its
 * plain statement, for tests and readers.
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
    b.startTime <= alert.createTime &&
    alert.createTime < b.endTime &&
    b.environment === alert.environment &&
    (b.resource === null || b.resource === alert.resource) &&
    (b.event === null || b.event === alert.event) &&
    (b.group === null || b.group === alert.group) &&
    (b.origin === null || b.origin === alert.origin) &&
    b.service.every((s) => alert.service.includes(s)) &&
    b.tags.every((t) => alert.tags.includes(t)) &&
    (!customerViews || b.customer === null || b.customer === alert.customer)
  );
}

/** How long an instance trusts its copy of the recent blackouts (another instance's change shows within this). */
const CACHE_MS = 1000;
/** The copy holds blackouts that ended at most this long ago; alerts created earlier are matched in SQL. */
const CACHE_WINDOW_MS = 3600_000;

interface RecentBlackouts {
  loadedAt: number;
  /** Alerts created at or after this time can be matched against `rows` alone. */
  from: number;
  rows: readonly BlackoutRow[];
}

/**
 * This instance's copy of the recent blackouts (deps.blackoutCache), used by the blackout plugin on
 * every receipt. Blackouts are few, so the copy is kept for a second and alerts are matched in
 * process; an alert created before the copy's window is matched in SQL (tests/api/blackout-cache.test.ts).
 */
export function createBlackoutCache(deps: Pick<Base, 'db' | 'clock' | 'config'>): BlackoutCache {
  // The copy, and the read that refreshes it: receipts arriving meanwhile wait for that read. A
  // change replaces the slot, so a read started before the change fills only the slot it came from.
  let slot: { value?: RecentBlackouts; loading?: Promise<RecentBlackouts> } = {};
  const recent = (): Promise<RecentBlackouts> | RecentBlackouts => {
    const now = deps.clock.now();
    const entry = slot;
    if (entry.value && now - entry.value.loadedAt < CACHE_MS) return entry.value;
    entry.loading ??= (async (): Promise<RecentBlackouts> => {
      try {
        const from = now - CACHE_WINDOW_MS;
        const read = { loadedAt: now, from, rows: await blackoutsDb.endingAfter(deps.db, from) };
        entry.value = read;
        return read;
      } finally {
        entry.loading = undefined;
      }
    })();
    return entry.loading;
  };
  return {
    async findActive(alert) {
      const copy = await recent();
      if (alert.createTime < copy.from) {
        return blackoutsDb.findActiveMatch(deps.db, alert, deps.config.CUSTOMER_VIEWS);
      }
      const match = copy.rows.find((b) => matchesBlackout(b, alert, deps.config.CUSTOMER_VIEWS));
      return match ? { id: match.id, priority: match.priority } : null;
    },
    forget() {
      slot = {};
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

/** POST /blackout: defaults (start now, end from duration or BLACKOUT_DURATION), priority, customer. */
export async function createBlackout(deps: Deps, input: BlackoutInput, caller: Caller): Promise<Blackout> {
  const now = deps.clock.now();
  const startTime = input.startTime ?? now;
  const endTime = input.endTime ?? startTime + (input.duration ?? deps.config.BLACKOUT_DURATION) * 1000;
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
    duration: durationOf(startTime, endTime),
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
    const endTime =
      change.endTime ?? (change.duration != null ? startTime + change.duration * 1000 : current.endTime);
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
      duration: change.duration ?? current.duration,
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

// ---- GET /blackouts -----------------------------------------------------------------------

const STATUSES = new Set<string>(['pending', 'active', 'expired']);

const fieldsByName = new Map(blackoutsDb.BLACKOUT_FIELDS.map((f) => [f.name, f]));
fieldsByName.set('tag', fieldsByName.get('tags')!);
const FILTER_NAMES = [...blackoutsDb.BLACKOUT_FIELDS.map((f) => f.name), 'tag', 'status'];
const SORT_NAMES = [...blackoutsDb.BLACKOUT_FIELDS.map((f) => f.name), 'remaining'];

/** One `name=value…` filter as docs/queries.md describes them for alerts. */
function filterOf(name: string, values: string[]): Cond {
  const negated = name.endsWith('!');
  const fieldName = negated ? name.slice(0, -1) : name;
  const field = fieldsByName.get(fieldName);
  if (!field || field.name === 'id') {
    throw appError('invalid_filter', name).with({
      errors: [`filters: ${FILTER_NAMES.join(', ')} (add ! to negate)`],
    });
  }
  const cond = valuesCondition({ field }, values, fieldName, name);
  return negated ? not(cond) : cond;
}

function sortKeyOf(raw: string): BlackoutSortKey {
  const inverted = raw.startsWith('-');
  const name = inverted ? raw.slice(1) : raw;
  if (name === 'remaining') return { column: 'remaining', descending: inverted };
  const field = name === 'tag' ? undefined : fieldsByName.get(name);
  if (!field) {
    throw appError('invalid_sort', name).with({
      errors: [`sort-by: ${SORT_NAMES.join(', ')} (prefix - to invert)`],
    });
  }
  const natural = field.descending === true;
  return { column: field.column, descending: inverted ? !natural : natural };
}

/** GET /blackouts: filters, `status=`, sort-by, reverse and paging; expired blackouts included. */
export async function listBlackouts(
  deps: Deps,
  search: URLSearchParams,
  caller: Caller,
): Promise<BlackoutList> {
  const now = deps.clock.now();
  const params = paramsOf(search);
  const conditions: Cond[] = [];
  const idPrefixes: string[] = [];
  const statuses: BlackoutStatusName[] = [];
  for (const [name, values] of params) {
    if (LIST_RESERVED.has(name)) continue;
    if (name === 'id') idPrefixes.push(...values);
    else if (name === 'status') {
      for (const v of values) {
        if (!STATUSES.has(v))
          throw appError('invalid_filter_value', 'status', v).with({
            errors: ['status: pending, active, expired'],
          });
        statuses.push(v as BlackoutStatusName);
      }
    } else conditions.push(filterOf(name, values));
  }
  const reverse = booleanParam(params, 'reverse', false);
  const sort = (params.get('sort-by') ?? []).filter((s) => s !== '').map(sortKeyOf);
  if (sort.length === 0) sort.push({ column: 'start_time', descending: true });
  const { page, pageSize } = pagingOf(params, deps.config.DEFAULT_PAGE_SIZE);
  const selection = { where: and(conditions), idPrefixes, statuses, now, customers: caller.customers };
  const [rows, total] = await Promise.all([
    blackoutsDb.listBlackouts(deps.db, selection, {
      sort: reverse ? sort.map((k) => ({ ...k, descending: !k.descending })) : sort,
      limit: pageSize,
      offset: (page - 1) * pageSize,
    }),
    blackoutsDb.countBlackouts(deps.db, selection),
  ]);
  const paging = pageFieldsOf(page, pageSize, total);
  const blackouts = rows.map((r) => presentBlackout(r, caller.baseUrl, now));
  return { status: 'ok', ...(blackouts.length === 0 ? { message: 'not found' } : {}), blackouts, ...paging };
}
