import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { Bound, Cond, Scalar } from '../domain/query/conditions.ts';
import { typeOf, type FieldRef } from '../domain/query/fields.ts';
import { AlertRowSchema, HistoryRowSchema, type HistoryRecord } from '../domain/alert-fields.ts';
import { historyColumns, historyColumnsOfH } from './alert-columns.ts';

/**
 * A selection of alerts: the translated filters and `q`, and the caller's customer restriction
 * (null = every customer). Every alert query in this module takes one, and `whereOf` always applies
 * both parts, so no endpoint can leave the restriction out.
 */
export interface Selection {
  readonly where: Cond;
  readonly customers: readonly string[] | null;
}

export const TRUE = sql.fragment`true`;

export const column = (ref: FieldRef): FragmentSqlToken =>
  ref.key !== undefined
    ? sql.fragment`(a.attributes ->> ${ref.key})`
    : sql.fragment`${sql.identifier(['a', ref.field.column])}`;

/** A value bound with the column's type, so Postgres never guesses (and never overflows an int4). */
function typed(ref: FieldRef, v: Scalar): FragmentSqlToken {
  switch (typeOf(ref)) {
    case 'int':
      return sql.fragment`${Number(v)}::bigint`;
    case 'time':
      return sql.fragment`${sql.timestamp(new Date(Number(v)))}`;
    case 'bool':
      return sql.fragment`${Boolean(v)}::boolean`;
    default:
      return sql.fragment`${String(v)}::text`;
  }
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `test` applied to each element of a list column: true when any element passes. */
const anyElement = (ref: FieldRef, test: (e: FragmentSqlToken) => FragmentSqlToken) =>
  sql.fragment`EXISTS (SELECT 1 FROM unnest(${column(ref)}) AS e(v) WHERE ${test(sql.fragment`e.v`)})`;

function compare(ref: FieldRef, bound: Bound, lower: boolean): FragmentSqlToken {
  const op = lower
    ? bound.inclusive
      ? sql.fragment`>=`
      : sql.fragment`>`
    : bound.inclusive
      ? sql.fragment`<=`
      : sql.fragment`<`;
  return sql.fragment`${column(ref)} ${op} ${typed(ref, bound.value)}`;
}

/** A condition as SQL; every value is a bound parameter. */
export function conditionSql(c: Cond): FragmentSqlToken {
  switch (c.kind) {
    case 'all':
      return TRUE;
    case 'and':
      return sql.fragment`(${sql.join(c.items.map(conditionSql), sql.fragment` AND `)})`;
    case 'or':
      return sql.fragment`(${sql.join(c.items.map(conditionSql), sql.fragment` OR `)})`;
    case 'not':
      // NULL fields count as "not matching", so their negation includes them.
      return sql.fragment`((${conditionSql(c.item)}) IS NOT TRUE)`;
    case 'in': {
      const type = typeOf(c.ref);
      if (c.values.length === 0) return sql.fragment`false`;
      if (type === 'list')
        return sql.fragment`${column(c.ref)} && ${sql.array(c.values.map(String), 'text')}`;
      if (c.values.length === 1) return sql.fragment`${column(c.ref)} = ${typed(c.ref, c.values[0]!)}`;
      if (type === 'text')
        return sql.fragment`${column(c.ref)} = ANY(${sql.array(c.values.map(String), 'text')})`;
      return sql.fragment`(${sql.join(
        c.values.map((v) => sql.fragment`${column(c.ref)} = ${typed(c.ref, v)}`),
        sql.fragment` OR `,
      )})`;
    }
    case 'like': {
      // strpos over lower() matches what ILIKE '%v%' does at a quarter of its cost (measured).
      const needle = sql.fragment`lower(${c.value}::text)`;
      const contains = (e: FragmentSqlToken) => sql.fragment`strpos(lower(${e}), ${needle}) > 0`;
      if (typeOf(c.ref) === 'list') return anyElement(c.ref, contains);
      return contains(column(c.ref));
    }
    case 'match':
      if (typeOf(c.ref) === 'list') return anyElement(c.ref, (e) => sql.fragment`${e} ~* ${c.pattern}`);
      return sql.fragment`${column(c.ref)} ~* ${c.pattern}`;
    case 'range': {
      const parts: FragmentSqlToken[] = [];
      if (c.lower) parts.push(compare(c.ref, c.lower, true));
      if (c.upper) parts.push(compare(c.ref, c.upper, false));
      return parts.length ? sql.fragment`(${sql.join(parts, sql.fragment` AND `)})` : TRUE;
    }
    case 'exists':
      return sql.fragment`(a.attributes ? ${c.key})`;
    case 'present':
      return c.ref.key !== undefined
        ? sql.fragment`(a.attributes ? ${c.ref.key})`
        : sql.fragment`${column(c.ref)} IS NOT NULL`;
    case 'idPrefix':
      return sql.fragment`(${sql.join(
        c.prefixes.map((p) => {
          const like = `${likeEscape(p.toLowerCase())}%`;
          return sql.fragment`lower(a.id) LIKE ${like} OR lower(a.last_receive_id) LIKE ${like}`;
        }),
        sql.fragment` OR `,
      )})`;
  }
}

/**
 * Columns with few distinct values and an index that leads with them: a substring or pattern
 * term on one of them is resolved to the matching values first, so the query can use the index
 * instead of testing every row (`scripts/bench/query.ts --only two-term` measures it).
 */
const FEW_VALUES = new Set(['environment', 'severity', 'status']);
/** Past this many distinct values a column is searched row by row after all. */
const MAX_DISTINCT = 1000;

type Resolvable = Extract<Cond, { kind: 'like' | 'match' }>;
const isResolvable = (c: Cond): c is Resolvable =>
  (c.kind === 'like' || c.kind === 'match') && c.ref.key === undefined && FEW_VALUES.has(c.ref.field.name);

function collect(c: Cond, out: Resolvable[]): void {
  if (isResolvable(c)) out.push(c);
  else if (c.kind === 'and' || c.kind === 'or') c.items.forEach((i) => collect(i, out));
  else if (c.kind === 'not') collect(c.item, out);
}

function replace(c: Cond, found: Map<Resolvable, string[]>): Cond {
  if (isResolvable(c)) {
    const values = found.get(c);
    return values ? { kind: 'in', ref: c.ref, values } : c;
  }
  if (c.kind === 'and' || c.kind === 'or') return { ...c, items: c.items.map((i) => replace(i, found)) };
  if (c.kind === 'not') return { kind: 'not', item: replace(c.item, found) };
  return c;
}

/**
 * Resolves substring and pattern terms on environment, severity and status to the stored values
 * they match, in one round trip: each column's distinct values come from a loose index scan (one
 * index probe per value). The result selects exactly the same alerts.
 */
export async function resolveSelection(db: CommonQueryMethods, s: Selection): Promise<Selection> {
  const terms: Resolvable[] = [];
  collect(s.where, terms);
  if (terms.length === 0) return s;
  const columns = [...new Set(terms.map((t) => t.ref.field.column))];
  const ctes = columns.map((name) => {
    const col = sql.identifier([name]);
    const cte = sql.identifier([`d_${name}`]);
    return sql.fragment`${cte}(v) AS (
      (SELECT ${col} FROM alerts ORDER BY ${col} LIMIT 1)
      UNION ALL
      SELECT (SELECT ${col} FROM alerts WHERE ${col} > d.v ORDER BY ${col} LIMIT 1) FROM ${cte} d WHERE d.v IS NOT NULL
    )`;
  });
  const picks = terms.map((t, i) => {
    const cte = sql.identifier([`d_${t.ref.field.column}`]);
    const test =
      t.kind === 'like'
        ? sql.fragment`strpos(lower(x.v), lower(${t.value}::text)) > 0`
        : sql.fragment`x.v ~* ${t.pattern}`;
    return sql.fragment`(SELECT CASE WHEN count(*) > ${MAX_DISTINCT} THEN NULL
        ELSE COALESCE(array_agg(x.v) FILTER (WHERE ${test}), '{}') END
      FROM (SELECT v FROM ${cte} WHERE v IS NOT NULL LIMIT ${MAX_DISTINCT + 1}) x) AS ${sql.identifier([`t${i}`])}`;
  });
  const row = await db.one(sql.type(z.record(z.string(), z.array(z.string()).nullable()))`/* ad hoc */
    WITH RECURSIVE ${sql.join(ctes, sql.fragment`, `)}
    SELECT ${sql.join(picks, sql.fragment`, `)}`);
  const found = new Map<Resolvable, string[]>();
  terms.forEach((t, i) => {
    const values = row[`t${i}`];
    if (values) found.set(t, values);
  });
  return { where: replace(s.where, found), customers: s.customers };
}

/** The WHERE clause of a selection: its condition and the customer restriction. */
export function whereOf(s: Selection): FragmentSqlToken {
  const scope = s.customers ? sql.fragment`a.customer = ANY(${sql.array([...s.customers], 'text')})` : TRUE;
  return sql.fragment`${conditionSql(s.where)} AND ${scope}`;
}

const PairCountRowSchema = z.object({ severity: z.string(), status: z.string(), n: z.number() });

/**
 * Matches per severity and per status, from one grouping by (status, severity): over the default
 * list view (only a time bound) and under status filters (the web console's open + ack) an
 * index-only scan of `(status, severity, environment, last_receive_time)` read in index order,
 * which beats two single-column groupings (`scripts/bench/query.ts --explain` shows the plan).
 */
export async function countBySeverityAndStatus(db: CommonQueryMethods, s: Selection) {
  const rows = await db.any(sql.type(PairCountRowSchema)`/* ad hoc */
    SELECT a.severity, a.status, count(*) AS n FROM alerts a WHERE ${whereOf(s)}
    GROUP BY a.status, a.severity`);
  return sumPairs(rows);
}

/**
 * Counts per (severity, status) summed per severity and per status; the pairs themselves too, for
 * pages merged from (status, severity) partitions (alert-list.ts `reachedPartitions`).
 */
export function sumPairs(rows: readonly { severity: string; status: string; n: number }[]) {
  const sum = (key: 'severity' | 'status') => {
    const by = new Map<string, number>();
    for (const r of rows) by.set(r[key], (by.get(r[key]) ?? 0) + r.n);
    return [...by].map(([name, n]) => ({ name, n }));
  };
  return { severity: sum('severity'), status: sum('status'), pairs: rows };
}

const AlertHistoryRowSchema = HistoryRowSchema.extend({ alertId: z.string() });

/** The stored history (newest first) of each of the given alerts. */
export async function historiesOf(db: CommonQueryMethods, ids: readonly string[]) {
  if (ids.length === 0) return new Map<string, HistoryRecord[]>();
  const rows = await db.any(sql.type(AlertHistoryRowSchema)`
    SELECT alert_id AS "alertId", ${historyColumns}
    FROM alert_history WHERE alert_id = ANY(${sql.array([...ids], 'text')}) ORDER BY alert_id, seq DESC`);
  const byAlert = new Map<string, HistoryRecord[]>();
  for (const { alertId, ...h } of rows) {
    const list = byAlert.get(alertId);
    if (list) list.push(h);
    else byAlert.set(alertId, [h]);
  }
  return byAlert;
}

const FlatHistoryRowSchema = HistoryRowSchema.extend(
  AlertRowSchema.pick({
    resource: true,
    environment: true,
    service: true,
    group: true,
    tags: true,
    attributes: true,
    origin: true,
    customer: true,
  }).shape,
);
export type FlatHistoryRow = z.infer<typeof FlatHistoryRowSchema>;

/** History entries of every matching alert, newest first, with the alert's fields as they are now. */
export function historyOfSelection(db: CommonQueryMethods, s: Selection, limit: number, offset: number) {
  return db.any(sql.type(FlatHistoryRowSchema)`/* ad hoc */
    SELECT ${historyColumnsOfH}, a.resource, a.environment, a.service, a."group", a.tags, a.attributes,
      a.origin, a.customer
    FROM alert_history h JOIN alerts a ON a.id = h.alert_id
    WHERE ${whereOf(s)}
    ORDER BY h.update_time DESC, h.seq DESC
    LIMIT ${limit} OFFSET ${offset}`);
}

/** The caller's customer restriction alone: what "every known" environment or service ranges over. */
const scopeOnly = (customers: readonly string[] | null) => whereOf({ where: { kind: 'all' }, customers });

/**
 * Every environment of the caller's alerts, whatever the filters, in order: a loose index scan
 * (one probe of the identity index per environment) rather than a scan of every alert.
 */
export async function knownEnvironments(
  db: CommonQueryMethods,
  customers: readonly string[] | null,
): Promise<string[]> {
  const rows = await db.any(sql.type(z.object({ environment: z.string() }))`
    WITH RECURSIVE e(v) AS (
      (SELECT a.environment FROM alerts a WHERE ${scopeOnly(customers)} ORDER BY a.environment LIMIT 1)
      UNION ALL
      SELECT (SELECT a.environment FROM alerts a WHERE a.environment > e.v AND ${scopeOnly(customers)}
        ORDER BY a.environment LIMIT 1)
      FROM e WHERE e.v IS NOT NULL
    )
    SELECT v AS environment FROM e WHERE v IS NOT NULL`);
  return rows.map((r) => r.environment);
}

export const EnvCountRowSchema = z.object({
  environment: z.string(),
  severity: z.string(),
  status: z.string(),
  n: z.number(),
});

/** Matches per (environment, severity, status). */
export function countByEnvironment(db: CommonQueryMethods, s: Selection) {
  return db.any(sql.type(EnvCountRowSchema)`/* ad hoc */
    SELECT a.environment, a.severity, a.status, count(*) AS n FROM alerts a
    WHERE ${whereOf(s)} GROUP BY a.status, a.severity, a.environment`);
}

export const ServiceCountRowSchema = EnvCountRowSchema.extend({ service: z.string() });

/**
 * Matches per (environment, service, severity, status); an alert counts once for each of its
 * services. Every pair of the caller's alerts comes back, with n 0 where none match, so /services
 * can list them all: one scan, which finding the distinct pairs would cost anyway. Alerts are first
 * counted per (status, severity, environment, service list), in the order of the index that holds
 * those columns (an index-only scan, no hashing), and only those few groups are unnested.
 */
export function countByService(db: CommonQueryMethods, s: Selection) {
  return db.any(sql.type(ServiceCountRowSchema)`/* ad hoc */
    SELECT g.environment, svc AS service, g.severity, g.status, sum(g.n)::int8 AS n FROM (
      SELECT a.status, a.severity, a.environment, a.service, count(*) FILTER (WHERE ${conditionSql(s.where)}) AS n
      FROM alerts a WHERE ${scopeOnly(s.customers)}
      GROUP BY a.status, a.severity, a.environment, a.service
    ) g CROSS JOIN LATERAL unnest(g.service) AS svc
    GROUP BY 1, 2, 3, 4`);
}

const GroupCountRowSchema = z.object({ environment: z.string(), name: z.string(), count: z.number() });

/** Matches per (environment, group). */
export function countByGroup(db: CommonQueryMethods, s: Selection) {
  return db.any(sql.type(GroupCountRowSchema)`/* ad hoc */
    SELECT a.environment, a."group" AS name, count(*) AS count FROM alerts a
    WHERE ${whereOf(s)} GROUP BY 1, 2 ORDER BY 1, 2`);
}

/** Matches per (environment, tag); an alert counts once for each of its tags. */
export function countByTag(db: CommonQueryMethods, s: Selection) {
  return db.any(sql.type(GroupCountRowSchema)`/* ad hoc */
    SELECT a.environment, t AS name, count(*) AS count
    FROM alerts a CROSS JOIN LATERAL unnest(a.tags) AS t
    WHERE ${whereOf(s)} GROUP BY 1, 2 ORDER BY 1, 2`);
}

/** Ids of matching alerts (at most `limit`), in id order. */
export async function selectIds(db: CommonQueryMethods, s: Selection, limit: number): Promise<string[]> {
  const rows = await db.any(sql.type(z.object({ id: z.string() }))`/* ad hoc */
    SELECT a.id FROM alerts a WHERE ${whereOf(s)} ORDER BY a.id LIMIT ${limit}`);
  return rows.map((r) => r.id);
}

const MemberRowSchema = z.object({
  id: z.string(),
  severity: z.string(),
  status: z.string(),
  groups: z.array(z.string()).nullable(),
});

const GROUP_COLUMNS = {
  event: sql.fragment`ARRAY[a.event]`,
  environment: sql.fragment`ARRAY[a.environment]`,
  resource: sql.fragment`ARRAY[a.resource]`,
  service: sql.fragment`a.service`,
} as const;

/**
 * Every matching alert's id, severity and status: the membership of a live view; with `groupBy`,
 * also the values of that field (several for `service`) the alert is counted under.
 */
export function viewMembers(
  db: CommonQueryMethods,
  s: Selection,
  groupBy?: keyof typeof GROUP_COLUMNS | null,
) {
  const groups = groupBy ? GROUP_COLUMNS[groupBy] : sql.fragment`NULL::text[]`;
  return db.any(sql.type(MemberRowSchema)`/* ad hoc */
    SELECT a.id, a.severity, a.status, ${groups} AS groups FROM alerts a WHERE ${whereOf(s)}`);
}
