import { randomUUID } from 'node:crypto';
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { HeartbeatStatus } from '../../shared/heartbeats.ts';
import { finiteTime } from './pool.ts';
import { deleteByUuid, ts } from './rows.ts';

export const HeartbeatRowSchema = z.object({
  id: z.string(),
  origin: z.string(),
  tags: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  type: z.string(),
  createTime: z.number(), // timestamptz arrives as epoch ms
  receiveTime: z.number(),
  timeout: z.number().int(),
  customer: z.string().nullable(),
});
export type HeartbeatRow = z.infer<typeof HeartbeatRowSchema>;

export const heartbeatColumns = sql.fragment`
  id, origin, tags, attributes, type, create_time AS "createTime", receive_time AS "receiveTime",
  timeout, customer`;

export interface HeartbeatWrite {
  origin: string;
  tags: readonly string[];
  attributes: Record<string, unknown>;
  /** Used only when the heartbeat is new: a repeat keeps the stored type. */
  type?: string;
  createTime: number;
  receiveTime: number;
  timeout: number;
  customer: string | null;
}

const TRUE = sql.fragment`true`;
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One heartbeat per (origin, customer), null customer counting as '': inserts, or replaces tags,
 * attributes, times and timeout while keeping the id and type (heartbeats-blackouts.md §1).
 */
export function upsertHeartbeat(db: CommonQueryMethods, hb: HeartbeatWrite): Promise<HeartbeatRow> {
  return db.one(sql.type(HeartbeatRowSchema)`
    INSERT INTO heartbeats (id, origin, tags, attributes, type, create_time, receive_time, timeout, customer)
    VALUES (${randomUUID()}, ${hb.origin}, ${sql.array(hb.tags, 'text')}, ${sql.jsonb(hb.attributes)},
      ${hb.type ?? 'Heartbeat'}, ${ts(hb.createTime)}, ${ts(hb.receiveTime)}, ${hb.timeout}, ${hb.customer})
    ON CONFLICT (origin, (COALESCE(customer, ''))) DO UPDATE SET
      tags = EXCLUDED.tags,
      attributes = EXCLUDED.attributes,
      create_time = EXCLUDED.create_time,
      receive_time = EXCLUDED.receive_time,
      timeout = EXCLUDED.timeout
    RETURNING ${heartbeatColumns}`);
}

// ---- selection --------------------------------------------------------------------------------

/** Heartbeat fields a list may filter or sort on, and their columns. */
export const HEARTBEAT_FIELDS = {
  origin: { column: 'origin', type: 'text' },
  type: { column: 'type', type: 'text' },
  customer: { column: 'customer', type: 'text' },
  createTime: { column: 'create_time', type: 'time' },
  receiveTime: { column: 'receive_time', type: 'time' },
  timeout: { column: 'timeout', type: 'int' },
} as const;
export type HeartbeatField = keyof typeof HEARTBEAT_FIELDS;

/** One list filter, its values already typed (time fields as epoch ms). */
export type HeartbeatFilter =
  | { kind: 'in'; field: HeartbeatField; values: (string | number)[]; negated: boolean }
  /** Case-insensitive substring of a text field (any of the values). */
  | { kind: 'like'; field: HeartbeatField; values: string[]; negated: boolean }
  /** Has any of the tags (`contains`: substring of any tag). */
  | { kind: 'tag'; values: string[]; contains: boolean; negated: boolean }
  | { kind: 'attribute'; key: string; values: string[]; contains: boolean; negated: boolean }
  | { kind: 'idPrefix'; prefixes: string[] };

export interface HeartbeatSelection {
  filters: readonly HeartbeatFilter[];
  /** The caller's customers; null = every customer. */
  customers: readonly string[] | null;
}

/** What the status of a heartbeat is measured against (the same rules as `heartbeatStatus`). */
export interface StatusBasis {
  now: number;
  maxLatency: number;
}

export interface HeartbeatSort {
  field: HeartbeatField;
  descending: boolean;
}

const col = (field: HeartbeatField) => sql.identifier([HEARTBEAT_FIELDS[field].column]);

function value(field: HeartbeatField, v: string | number): FragmentSqlToken {
  switch (HEARTBEAT_FIELDS[field].type) {
    case 'int':
      return sql.fragment`${Number(v)}::bigint`;
    case 'time':
      return sql.fragment`${ts(Number(v))}`;
    default:
      return sql.fragment`${String(v)}::text`;
  }
}

const anyOf = (parts: FragmentSqlToken[]) => sql.fragment`(${sql.join(parts, sql.fragment` OR `)})`;
const allOf = (parts: FragmentSqlToken[]) =>
  parts.length ? sql.fragment`(${sql.join(parts, sql.fragment` AND `)})` : TRUE;
const containsText = (expr: FragmentSqlToken, v: string) =>
  sql.fragment`strpos(lower(${expr}), ${v.toLowerCase()}) > 0`;

function filterSql(f: HeartbeatFilter): FragmentSqlToken {
  let cond: FragmentSqlToken;
  switch (f.kind) {
    case 'idPrefix':
      return anyOf(f.prefixes.map((p) => sql.fragment`id::text LIKE ${`${likeEscape(p.toLowerCase())}%`}`));
    case 'in':
      cond = anyOf(f.values.map((v) => sql.fragment`${col(f.field)} = ${value(f.field, v)}`));
      break;
    case 'like':
      cond = anyOf(f.values.map((v) => containsText(sql.fragment`${col(f.field)}`, v)));
      break;
    case 'tag':
      cond = f.contains
        ? sql.fragment`EXISTS (SELECT 1 FROM unnest(tags) t WHERE ${anyOf(f.values.map((v) => containsText(sql.fragment`t`, v)))})`
        : sql.fragment`tags && ${sql.array(f.values, 'text')}`;
      break;
    case 'attribute': {
      const attr = sql.fragment`(attributes ->> ${f.key})`;
      cond = f.contains
        ? anyOf(f.values.map((v) => containsText(attr, v)))
        : sql.fragment`${attr} = ANY(${sql.array(f.values, 'text')})`;
      break;
    }
  }
  // NULL never matches, so its negation includes it.
  return f.negated ? sql.fragment`(${cond}) IS NOT TRUE` : cond;
}

const expiredSql = (now: number) =>
  sql.fragment`receive_time < ${ts(now)}::timestamptz - make_interval(secs => timeout)`;

function statusSql(statuses: readonly HeartbeatStatus[], basis: StatusBasis): FragmentSqlToken {
  const expired = expiredSql(basis.now);
  const slow = sql.fragment`extract(epoch FROM ${finiteTime('receive_time')} - ${finiteTime('create_time')}) * 1000 > ${basis.maxLatency}`;
  return anyOf(
    statuses.map((s) =>
      s === 'expired'
        ? expired
        : s === 'slow'
          ? sql.fragment`(NOT (${expired}) AND ${slow})`
          : sql.fragment`(NOT (${expired}) AND NOT (${slow}))`,
    ),
  );
}

function whereOf(selection: HeartbeatSelection, extra: FragmentSqlToken[] = []): FragmentSqlToken {
  const parts = selection.filters.map(filterSql);
  if (selection.customers) {
    parts.push(sql.fragment`customer = ANY(${sql.array([...selection.customers], 'text')})`);
  }
  return allOf([...parts, ...extra]);
}

/** How many heartbeats match the selection. */
export async function countHeartbeats(
  db: CommonQueryMethods,
  selection: HeartbeatSelection,
): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.coerce.number() }))`
    SELECT count(*) AS n FROM heartbeats WHERE ${whereOf(selection)}`);
}

/** One page of matching heartbeats; `statuses` (when not empty) keeps only those statuses. */
export function listHeartbeats(
  db: CommonQueryMethods,
  selection: HeartbeatSelection,
  options: {
    statuses: readonly HeartbeatStatus[];
    basis: StatusBasis;
    sort: readonly HeartbeatSort[];
    page: number;
    pageSize: number;
  },
): Promise<readonly HeartbeatRow[]> {
  const extra = options.statuses.length ? [statusSql(options.statuses, options.basis)] : [];
  const order = [
    ...options.sort.map(
      (s) => sql.fragment`${col(s.field)} ${s.descending ? sql.fragment`DESC` : sql.fragment`ASC`}`,
    ),
    sql.fragment`id`,
  ];
  return db.any(sql.type(HeartbeatRowSchema)`
    SELECT ${heartbeatColumns} FROM heartbeats
    WHERE ${whereOf(selection, extra)}
    ORDER BY ${sql.join(order, sql.fragment`, `)}
    LIMIT ${options.pageSize} OFFSET ${(options.page - 1) * options.pageSize}`);
}

/** The heartbeat whose id starts with `prefix` (case-insensitive), within the caller's customers. */
export function findHeartbeat(
  db: CommonQueryMethods,
  prefix: string,
  customers: readonly string[] | null,
): Promise<HeartbeatRow | null> {
  return db.maybeOne(sql.type(HeartbeatRowSchema)`
    SELECT ${heartbeatColumns} FROM heartbeats
    WHERE ${whereOf({ filters: [{ kind: 'idPrefix', prefixes: [prefix] }], customers })}
    ORDER BY id LIMIT 1`);
}

/** Deletes by exact id; false when it was already gone. */
export const deleteHeartbeat = (db: CommonQueryMethods, id: string) => deleteByUuid(db, 'heartbeats', id);

/** Origins of heartbeats last received more than `factor` × their timeout before `now`. */
export function staleOrigins(
  db: CommonQueryMethods,
  now: number,
  factor: number,
): Promise<readonly { origin: string }[]> {
  return db.any(sql.type(z.object({ origin: z.string() }))`
    SELECT origin FROM heartbeats
    WHERE receive_time < ${ts(now)}::timestamptz - make_interval(secs => ${factor}::float8 * timeout)
    ORDER BY receive_time, id`);
}
