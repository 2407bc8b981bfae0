import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { BlackoutSchema } from '../../shared/blackouts.ts';
import type { AlertDraft } from '../domain/alert-types.ts';
import type { Cond } from '../domain/query/conditions.ts';
import type { Field } from '../domain/query/fields.ts';
import { conditionSql } from './alert-query.ts';
import { finiteTime } from './pool.ts';
import { isUuid, texts, ts } from './rows.ts';

/**
 * A stored blackout: the API's fields (shared/blackouts.ts) but times in epoch milliseconds and
 * `duration` null when not given (the presenter derives it). A recurring one also has its rule, zone
 * and stored window (migration 0056); those are absent or null on a one-off blackout.
 */
export const BlackoutRowSchema = BlackoutSchema.pick({
  id: true,
  priority: true,
  environment: true,
  service: true,
  resource: true,
  event: true,
  group: true,
  origin: true,
  tags: true,
  customer: true,
  user: true,
  text: true,
}).extend({
  startTime: z.number(),
  endTime: z.number(),
  duration: z.number().int().nullable(),
  createTime: z.number(),
  rrule: z.string().nullish(),
  timezone: z.string().nullish(),
  windowFrom: z.number().nullish(),
  windowStart: z.number().nullish(),
  windowEnd: z.number().nullish(),
});
export type BlackoutRow = z.infer<typeof BlackoutRowSchema>;

/** The window a recurring blackout stores (domain/recurrence.ts Window). */
export interface StoredWindow {
  from: number;
  start: number;
  end: number;
}

// The table is read as `a` so the alert query translator (conditionSql) works on it unchanged.
export const columns = sql.fragment`
  a.id::text AS id, a.priority, a.environment, a.service, a.resource, a.event, a."group", a.origin, a.tags,
  a.customer, a.start_time AS "startTime", a.end_time AS "endTime", a.duration, a."user",
  a.create_time AS "createTime", a.text, a.rrule, a.timezone, a.window_from AS "windowFrom",
  a.window_start AS "windowStart", a.window_end AS "windowEnd"`;

const scopeOf = (customers: readonly string[] | null) =>
  customers ? sql.fragment`AND a.customer = ANY(${texts(customers)})` : sql.fragment``;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The fields a blackout list may filter and sort on (api.md §6), in the shape the query translator knows. */
export const BLACKOUT_FIELDS: readonly Field[] = [
  { name: 'id', column: 'id', type: 'text' },
  { name: 'priority', column: 'priority', type: 'int' },
  { name: 'environment', column: 'environment', type: 'text' },
  { name: 'service', column: 'service', type: 'list' },
  { name: 'resource', column: 'resource', type: 'text' },
  { name: 'event', column: 'event', type: 'text' },
  { name: 'group', column: 'group', type: 'text' },
  { name: 'tags', column: 'tags', type: 'list' },
  { name: 'origin', column: 'origin', type: 'text' },
  { name: 'customer', column: 'customer', type: 'text' },
  { name: 'startTime', column: 'start_time', type: 'time', descending: true },
  { name: 'endTime', column: 'end_time', type: 'time', descending: true },
  { name: 'duration', column: 'duration', type: 'int' },
  { name: 'user', column: 'user', type: 'text' },
  { name: 'createTime', column: 'create_time', type: 'time', descending: true },
  { name: 'text', column: 'text', type: 'text' },
];

export type BlackoutStatusName = 'pending' | 'active' | 'expired';

/** A sort key: a field of BLACKOUT_FIELDS by column, or the computed `remaining`. */
export interface BlackoutSortKey {
  column: string;
  descending: boolean;
}

export interface BlackoutSelection {
  where: Cond;
  /** `id=` filters: the id starts with any of these (case-insensitive). */
  idPrefixes: readonly string[];
  /** `status=` filters, evaluated at `now`; empty = any. */
  statuses: readonly BlackoutStatusName[];
  now: number;
  customers: readonly string[] | null;
}

/** A recurring blackout's remaining is its stored occurrence's (domain/blackouts.ts remainingOf). */
const remainingSql = (now: number) => sql.fragment`GREATEST(0, EXTRACT(EPOCH FROM (CASE WHEN a.rrule IS NULL
  THEN ${finiteTime('a', 'end_time')} - GREATEST(${finiteTime('a', 'start_time')}, ${ts(now)})
  ELSE ${finiteTime('a', 'window_end')} - GREATEST(${finiteTime('a', 'window_start')}, ${ts(now)}) END)))`;

/** A recurring series with no occurrence left is over, whatever its endTime says. */
const noneLeft = sql.fragment`(a.rrule IS NOT NULL AND a.window_end >= '9999-12-31T00:00:00Z'::timestamptz)`;

function statusSql(status: BlackoutStatusName, now: number): FragmentSqlToken {
  switch (status) {
    case 'pending':
      return sql.fragment`a.start_time > ${ts(now)}`;
    case 'active':
      return sql.fragment`(a.start_time <= ${ts(now)} AND a.end_time > ${ts(now)} AND NOT ${noneLeft})`;
    case 'expired':
      return sql.fragment`(a.start_time <= ${ts(now)} AND (a.end_time <= ${ts(now)} OR ${noneLeft}))`;
  }
}

function whereOf(s: BlackoutSelection): FragmentSqlToken {
  const parts: FragmentSqlToken[] = [conditionSql(s.where)];
  if (s.idPrefixes.length) {
    parts.push(
      sql.fragment`(${sql.join(
        s.idPrefixes.map((p) => sql.fragment`a.id::text LIKE ${`${likeEscape(p.toLowerCase())}%`}`),
        sql.fragment` OR `,
      )})`,
    );
  }
  if (s.statuses.length) {
    parts.push(
      sql.fragment`(${sql.join(
        s.statuses.map((st) => statusSql(st, s.now)),
        sql.fragment` OR `,
      )})`,
    );
  }
  if (s.customers) parts.push(sql.fragment`a.customer = ANY(${texts(s.customers)})`);
  return sql.fragment`${sql.join(parts, sql.fragment` AND `)}`;
}

type RecurrenceKey = 'rrule' | 'timezone' | 'windowFrom' | 'windowStart' | 'windowEnd';

/** Everything a write stores; the domain computes priority, duration and a recurring one's window. */
export type BlackoutWrite = Omit<BlackoutRow, 'id' | RecurrenceKey> & {
  rrule: string | null;
  timezone: string | null;
  window: StoredWindow | null;
};

const maybeTs = (ms: number | undefined) => (ms === undefined ? null : ts(ms));

const values = (b: BlackoutWrite) => sql.fragment`
  ${b.priority}, ${b.environment}, ${texts(b.service)}, ${b.resource}, ${b.event}, ${b.group}, ${b.origin},
  ${texts(b.tags)}, ${b.customer}, ${ts(b.startTime)}, ${ts(b.endTime)}, ${b.duration}, ${b.user},
  ${ts(b.createTime)}, ${b.text}, ${b.rrule}, ${b.timezone}, ${maybeTs(b.window?.from)},
  ${maybeTs(b.window?.start)}, ${maybeTs(b.window?.end)}`;

const writable = sql.fragment`priority, environment, service, resource, event, "group", origin, tags,
  customer, start_time, end_time, duration, "user", create_time, text, rrule, timezone, window_from,
  window_start, window_end`;

export function insertBlackout(db: CommonQueryMethods, id: string, b: BlackoutWrite): Promise<BlackoutRow> {
  return db.one(sql.type(BlackoutRowSchema)`
    INSERT INTO blackouts AS a (id, ${writable})
    VALUES (${id}, ${values(b)})
    RETURNING ${columns}`);
}

/** One blackout by id or by a case-insensitive prefix of it (newest first), within the caller's customers. */
export async function findBlackout(
  db: CommonQueryMethods,
  id: string,
  customers: readonly string[] | null,
  options: { forUpdate?: boolean } = {},
): Promise<BlackoutRow | null> {
  const lock = options.forUpdate ? sql.fragment`FOR UPDATE` : sql.fragment``;
  if (isUuid(id)) {
    return db.maybeOne(sql.type(BlackoutRowSchema)`
      SELECT ${columns} FROM blackouts a WHERE a.id = ${id}::uuid ${scopeOf(customers)} ${lock}`);
  }
  const prefix = `${likeEscape(id.toLowerCase())}%`;
  return db.maybeOne(sql.type(BlackoutRowSchema)`
    SELECT ${columns} FROM blackouts a WHERE a.id::text LIKE ${prefix} ${scopeOf(customers)}
    ORDER BY a.create_time DESC, a.id LIMIT 1 ${lock}`);
}

/** One page of blackouts in the given order, ties broken by id so pages never overlap. */
export function listBlackouts(
  db: CommonQueryMethods,
  selection: BlackoutSelection,
  page: { sort: readonly BlackoutSortKey[]; limit: number; offset: number },
): Promise<readonly BlackoutRow[]> {
  const order = [
    ...page.sort.map((k) => {
      const expr =
        k.column === 'remaining'
          ? remainingSql(selection.now)
          : sql.fragment`${sql.identifier(['a', k.column])}`;
      return k.descending ? sql.fragment`${expr} DESC NULLS LAST` : sql.fragment`${expr} ASC NULLS FIRST`;
    }),
    sql.fragment`a.id`,
  ];
  return db.any(sql.type(BlackoutRowSchema)`/* ad hoc */
    SELECT ${columns} FROM blackouts a WHERE ${whereOf(selection)}
    ORDER BY ${sql.join(order, sql.fragment`, `)}
    LIMIT ${page.limit} OFFSET ${page.offset}`);
}

/** How many blackouts the selection holds. */
export async function countBlackouts(db: CommonQueryMethods, selection: BlackoutSelection): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`/* ad hoc */
    SELECT count(*) AS n FROM blackouts a WHERE ${whereOf(selection)}`);
}

export function updateBlackout(db: CommonQueryMethods, id: string, b: BlackoutWrite): Promise<BlackoutRow> {
  return db.one(sql.type(BlackoutRowSchema)`
    UPDATE blackouts AS a SET (${writable}) = (${values(b)})
    WHERE a.id = ${id}::uuid
    RETURNING ${columns}`);
}

/** Deletes one blackout by its full id; false when there was none in the caller's customers. */
export async function deleteBlackout(
  db: CommonQueryMethods,
  id: string,
  customers: readonly string[] | null,
): Promise<boolean> {
  const deleted = await db.any(sql.type(z.object({ id: z.string() }))`
    DELETE FROM blackouts a WHERE a.id = ${id}::uuid ${scopeOf(customers)} RETURNING a.id::text AS id`);
  return deleted.length > 0;
}

/** Blackouts that end after `time` (the recent ones each instance keeps in memory). */
export function endingAfter(db: CommonQueryMethods, time: number): Promise<readonly BlackoutRow[]> {
  return db.any(
    sql.type(BlackoutRowSchema)`SELECT ${columns} FROM blackouts a WHERE a.end_time > ${ts(time)}`,
  );
}

/**
 * The blackouts that may cover the alert at its createTime (heartbeats-blackouts.md §2), for
 * alerts older than the in-memory copy: one statement led by the (environment, end_time,
 * start_time) index. A field left unset on the blackout matches anything; service and tags must be
 * subsets of the alert's. A one-off blackout returned covers the alert; a recurring one is returned
 * unless its stored window says no occurrence covers that time, and the domain decides
 * (domain/blackouts.ts findActive, tests/api/blackouts-recurring.test.ts).
 */
export function findActiveCandidates(
  db: CommonQueryMethods,
  alert: Pick<
    AlertDraft,
    'environment' | 'resource' | 'event' | 'group' | 'service' | 'tags' | 'origin' | 'customer' | 'createTime'
  >,
  customerViews: boolean,
): Promise<readonly BlackoutRow[]> {
  const at = ts(alert.createTime);
  return db.any(sql.type(BlackoutRowSchema)`
    SELECT ${columns} FROM blackouts a
    WHERE a.environment = ${alert.environment}
      AND a.end_time > ${at} AND a.start_time <= ${at}
      AND (a.resource IS NULL OR a.resource = ${alert.resource})
      AND (a.event IS NULL OR a.event = ${alert.event})
      AND (a."group" IS NULL OR a."group" = ${alert.group})
      AND (a.origin IS NULL OR a.origin = ${alert.origin})
      AND a.service <@ ${texts(alert.service)}
      AND a.tags <@ ${texts(alert.tags)}
      AND (NOT ${customerViews}::boolean OR a.customer IS NULL OR a.customer = ${alert.customer}::text)
      AND (a.rrule IS NULL OR NOT (a.window_from <= ${at} AND ${at} < a.window_start))
    ORDER BY a.rrule IS NOT NULL, a.id
    LIMIT 100`);
}

/** Recurring blackouts whose stored window has passed by `now` (the partial window_end index). */
export function passedWindows(db: CommonQueryMethods, now: number): Promise<readonly BlackoutRow[]> {
  return db.any(sql.type(BlackoutRowSchema)`
    SELECT ${columns} FROM blackouts a WHERE a.rrule IS NOT NULL AND a.window_end <= ${ts(now)}`);
}

/** When the soonest stored window ends, or null without recurring blackouts. */
export function nextWindowEnd(db: CommonQueryMethods): Promise<number | null> {
  return db.oneFirst(sql.type(z.object({ t: z.number().nullable() }))`
    SELECT min(window_end) AS t FROM blackouts WHERE rrule IS NOT NULL`);
}

/**
 * Stores new windows, each only if the row still has the window and series it was computed from
 * (another instance, or a PUT, may have been first); gives how many rows changed. Times compare to
 * the millisecond, as they are read (`ts` may store a few microseconds more).
 */
export async function storeWindows(
  db: CommonQueryMethods,
  updates: readonly { row: BlackoutRow; window: StoredWindow }[],
): Promise<number> {
  if (!updates.length) return 0;
  const col = <T>(f: (u: (typeof updates)[number]) => T) => updates.map(f);
  const times = (f: (u: (typeof updates)[number]) => number) =>
    sql.array(
      col((u) => new Date(f(u)).toISOString()),
      'timestamptz',
    );
  const changed = await db.any(sql.type(z.object({ id: z.string() }))`
    UPDATE blackouts AS a SET window_from = u.wf, window_start = u.ws, window_end = u.we
    FROM unnest(${sql.array(
      col((u) => u.row.id),
      'uuid',
    )}, ${times((u) => u.row.windowEnd ?? 0)},
      ${sql.array(
        col((u) => u.row.rrule ?? ''),
        'text',
      )}, ${sql.array(
        col((u) => u.row.timezone ?? ''),
        'text',
      )},
      ${times((u) => u.row.startTime)}, ${times((u) => u.row.endTime)},
      ${sql.array(
        col((u) => u.row.duration ?? 0),
        'int4',
      )},
      ${times((u) => u.window.from)}, ${times((u) => u.window.start)}, ${times((u) => u.window.end)})
      AS u(id, old_end, rrule, timezone, start_time, end_time, duration, wf, ws, we)
    WHERE a.id = u.id AND a.rrule = u.rrule AND a.timezone = u.timezone AND a.duration = u.duration
      AND date_trunc('milliseconds', a.window_end) = u.old_end
      AND date_trunc('milliseconds', a.start_time) = u.start_time
      AND date_trunc('milliseconds', a.end_time) = u.end_time
    RETURNING a.id::text AS id`);
  return changed.length;
}

/**
 * The blackouts' change counter (migration 0057's triggers bump it with every statement that
 * changes a row); 0 when its row is missing (the table emptied: the next change writes it back).
 */
export function readVersion(db: CommonQueryMethods): Promise<number> {
  return db.oneFirst(sql.type(z.object({ version: z.number() }))`
    SELECT COALESCE((SELECT version FROM blackouts_version WHERE id = 1), 0) AS version`);
}
