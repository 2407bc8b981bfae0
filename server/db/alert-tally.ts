import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { and, type Cond } from '../domain/query/conditions.ts';
import * as query from './alert-query.ts';
import { planWith } from './planner.ts';

/**
 * Counts from the tally (migration 0031): alerts per (customer, environment, service list,
 * severity, status), kept by triggers as alert_tally plus signed rows in alert_tally_delta. A
 * condition that names only those columns has the same value for every alert of a tally row, so
 * summing the rows it accepts counts exactly the alerts a scan would (tests/api/alert-tally.test.ts
 * compares every answer with the tally on and off). Anything else (q on free text, resources, tags,
 * attributes, ids, lower time bounds) is left to the scans in alert-query.ts.
 */

/** The tally's key columns, as fields of the query language (all stored under the same name). */
const KEY_COLUMNS = new Set(['customer', 'environment', 'service', 'severity', 'status']);

/** True when `c` reads nothing but key columns. */
export function keyOnly(c: Cond): boolean {
  switch (c.kind) {
    case 'all':
      return true;
    case 'and':
    case 'or':
      return c.items.every(keyOnly);
    case 'not':
      return keyOnly(c.item);
    case 'in':
    case 'like':
    case 'match':
    case 'range':
    case 'present':
      return c.ref.key === undefined && KEY_COLUMNS.has(c.ref.field.column);
    case 'exists':
    case 'idPrefix':
      return false;
  }
}

type Range = Extract<Cond, { kind: 'range' }>;
const isUpperTimeBound = (c: Cond): c is Range =>
  c.kind === 'range' &&
  c.ref.key === undefined &&
  c.ref.field.name === 'lastReceiveTime' &&
  c.lower === undefined &&
  c.upper !== undefined;

/**
 * How a selection is answered from the tally, or null when it cannot be: `keyed` is the part the
 * tally answers; `after`, when set, selects the alerts received after the list's upper time bound
 * (`to-date`, which GET /alerts sets to the request's time), to be taken off again.
 */
export interface TallyPlan {
  keyed: Cond;
  after: Cond | null;
}

/**
 * Whether counts come from the tally at all: tests turn it off to compare its answers with the
 * scans' through the same endpoints (tests/api/alert-tally.test.ts).
 */
export const tallySwitch = { on: true };

export function tallyPlan(where: Cond): TallyPlan | null {
  if (!tallySwitch.on) return null;
  const items = where.kind === 'and' ? where.items : [where];
  const bounds = items.filter(isUpperTimeBound);
  const rest = items.filter((c) => !isUpperTimeBound(c));
  if (bounds.length > 1 || !rest.every(keyOnly)) return null;
  const keyed = and(rest);
  const bound = bounds[0];
  if (!bound) return { keyed, after: null };
  // The alerts past `<= t` are those `> t` (and past `< t` those `>= t`): times are never null.
  const after: Cond = {
    kind: 'range',
    ref: bound.ref,
    lower: { value: bound.upper!.value, inclusive: !bound.upper!.inclusive },
  };
  return { keyed, after };
}

/**
 * Past this many alerts after the time bound, taking them off costs more than it saves (a `to-date`
 * well in the past): the caller scans instead. Normally there are none — lastReceiveTime is the
 * receiving instance's clock, so only clocks ahead of this one's put alerts there.
 */
export const MAX_AFTER = 1000;

/**
 * The WHERE clause of a selection over the tally: the tally has the alerts' key columns under the
 * same names, so `whereOf` (customer restriction included) reads them as it reads alerts.
 */
const scopeOf = (customers: readonly string[] | null) => query.whereOf({ where: { kind: 'all' }, customers });

/** Every tally row: the compacted counts and the deltas since, as one relation. */
const tallyRows = sql.fragment`(
  SELECT customer, environment, service, severity, status, n FROM alert_tally
  UNION ALL
  SELECT customer, environment, service, severity, status, n FROM alert_tally_delta
)`;

/** Every row of the event tally (migration 0038): alert_tally's key plus `event`. */
export const eventTallyRows = sql.fragment`(
  SELECT customer, environment, service, severity, status, event, n FROM alert_event_tally
  UNION ALL
  SELECT customer, environment, service, severity, status, event, n FROM alert_event_tally_delta
)`;

/** The tally's rows, for readers outside this module (top-N). */
export { tallyRows };

const PairRowSchema = z.object({
  severity: z.string(),
  status: z.string(),
  n: z.number(),
  after: z.number(),
});

/**
 * Matches per (severity, status) from the tally, or null when the selection needs a scan (or too
 * many alerts lie past its time bound). Same rows as a scan's grouping (groups with none left out).
 */
export async function tallyBySeverityAndStatus(
  db: CommonQueryMethods,
  s: query.Selection,
): Promise<{ severity: string; status: string; n: number }[] | null> {
  const plan = tallyPlan(s.where);
  if (!plan) return null;
  const where = query.whereOf({ where: plan.keyed, customers: s.customers });
  // The alerts past the bound come from the time index (normally an empty range) in the same
  // statement, so the same snapshot: the tally counts them, the answer must not.
  const after: FragmentSqlToken = plan.after
    ? sql.fragment`SELECT a.severity, a.status FROM alerts a
        WHERE ${query.whereOf({ where: and([plan.after, plan.keyed]), customers: s.customers })}
        LIMIT ${MAX_AFTER + 1}`
    : sql.fragment`SELECT NULL::text AS severity, NULL::text AS status WHERE false`;
  const rows = await db.any(sql.type(PairRowSchema)`/* ad hoc */
    WITH late AS MATERIALIZED (${after})
    SELECT g.severity, g.status, sum(g.n)::int8 AS n, (SELECT count(*) FROM late)::int8 AS after FROM (
      SELECT a.severity, a.status, a.n FROM ${tallyRows} a WHERE ${where}
      UNION ALL
      SELECT l.severity, l.status, -1 FROM late l
    ) g
    GROUP BY g.severity, g.status`);
  if (rows.some((r) => r.after > MAX_AFTER)) return null;
  return rows.filter((r) => r.n !== 0).map(({ severity, status, n }) => ({ severity, status, n }));
}

/** Per (environment, severity, status): matches, and every alert of the caller's (`scoped`). */
const EnvRowSchema = query.EnvCountRowSchema.extend({ scoped: z.number() });

/**
 * /environments from the tally, or null when the filters need a scan: matches per (environment,
 * severity, status), and every environment of the caller's alerts (whatever the filters).
 */
export async function tallyByEnvironment(db: CommonQueryMethods, s: query.Selection) {
  const plan = tallyPlan(s.where);
  if (!plan || plan.after) return null;
  const rows = await db.any(sql.type(EnvRowSchema)`/* ad hoc */
    SELECT a.environment, a.severity, a.status, COALESCE(sum(a.n) FILTER (WHERE ${query.conditionSql(plan.keyed)}), 0)::int8 AS n,
      sum(a.n)::int8 AS scoped
    FROM ${tallyRows} a WHERE ${scopeOf(s.customers)}
    GROUP BY a.environment, a.severity, a.status`);
  return {
    counts: rows
      .filter((r) => r.n !== 0)
      .map(({ environment, severity, status, n }) => ({ environment, severity, status, n })),
    known: [...new Set(rows.filter((r) => r.scoped !== 0).map((r) => r.environment))].sort(),
  };
}

/**
 * /services from the tally, or null when the filters need a scan: every (environment, service) pair
 * of the caller's alerts per (severity, status), n 0 where none match (as countByService).
 */
export async function tallyByService(db: CommonQueryMethods, s: query.Selection) {
  const plan = tallyPlan(s.where);
  if (!plan || plan.after) return null;
  return db.any(sql.type(query.ServiceCountRowSchema)`/* ad hoc */
    SELECT g.environment, svc AS service, g.severity, g.status, sum(g.n)::int8 AS n FROM (
      SELECT a.environment, a.service, a.severity, a.status,
        COALESCE(sum(a.n) FILTER (WHERE ${query.conditionSql(plan.keyed)}), 0) AS n, sum(a.n) AS scoped
      FROM ${tallyRows} a WHERE ${scopeOf(s.customers)}
      GROUP BY a.environment, a.service, a.severity, a.status
    ) g CROSS JOIN LATERAL unnest(g.service) AS svc
    WHERE g.scoped <> 0
    GROUP BY 1, 2, 3, 4`);
}

/** The number of alerts (every customer), from the tally. */
export function tallyTotal(db: CommonQueryMethods): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT COALESCE(sum(a.n), 0)::int8 AS n FROM ${tallyRows} a`);
}

/** Compaction's advisory lock (also taken by the TRUNCATE trigger of migration 0031). */
export const LOCK_CLASS = 72_643_511;

/** The tallies: alert_tally (migration 0031) and alert_event_tally, its key plus `event` (0038). */
const TALLIES = [
  { table: 'alert_tally', keys: ['customer', 'environment', 'service', 'severity', 'status'] },
  { table: 'alert_event_tally', keys: ['customer', 'environment', 'service', 'severity', 'status', 'event'] },
] as const;

/**
 * Moves every delta into its tally, one row per key, dropping keys whose count is 0; returns the
 * number of delta rows moved (0 when another compaction holds the lock). One statement: the deltas
 * it deletes and the rows it writes become visible together, and the sum over both tables is the
 * same before and after, so readers never see a partial move — even if two compactions overlapped
 * (each only moves the rows its own DELETE removed). Writers never wait on it: they only insert
 * deltas, which it leaves for the next round.
 */
export async function compactTally(db: CommonQueryMethods): Promise<number> {
  const parts = TALLIES.map(({ table, keys }, i) => {
    const delta = sql.identifier([`${table}_delta`]);
    const tally = sql.identifier([table]);
    const cols = sql.join(
      keys.map((k) => sql.identifier([k])),
      sql.fragment`, `,
    );
    const on = sql.join(
      keys.map((k) =>
        k === 'customer'
          ? sql.fragment`t.customer IS NOT DISTINCT FROM k.customer`
          : sql.fragment`t.${sql.identifier([k])} = k.${sql.identifier([k])}`,
      ),
      sql.fragment` AND `,
    );
    const [moved, keyed, old, added] = ['moved', 'keys', 'old', 'added'].map((x) =>
      sql.identifier([`${x}${i}`]),
    );
    return {
      moved: moved!,
      ctes: sql.fragment`${moved!} AS (
        DELETE FROM ${delta} WHERE (SELECT ok FROM lock)
        RETURNING ${cols}, n
      ),
      ${keyed!} AS (
        SELECT DISTINCT ${cols} FROM ${moved!}
      ),
      ${old!} AS (
        DELETE FROM ${tally} t USING ${keyed!} k WHERE ${on}
        RETURNING ${sql.join(
          keys.map((k) => sql.fragment`t.${sql.identifier([k])}`),
          sql.fragment`, `,
        )}, t.n
      ),
      ${added!} AS (
        INSERT INTO ${tally} (${cols}, n)
        SELECT ${cols}, sum(n) FROM (
          SELECT * FROM ${moved!} UNION ALL SELECT * FROM ${old!}
        ) x
        GROUP BY ${cols}
        HAVING sum(n) <> 0
      )`,
    };
  });
  const statement = sql.type(z.object({ moved: z.number() }))`
    WITH lock AS MATERIALIZED (
      SELECT pg_try_advisory_xact_lock(${LOCK_CLASS}::int, hashtext(current_schema())) AS ok
    ),
    ${sql.join(
      parts.map((p) => p.ctes),
      sql.fragment`,
    `,
    )}
    SELECT (${sql.join(
      parts.map((p) => sql.fragment`(SELECT count(*) FROM ${p.moved})`),
      sql.fragment` + `,
    )})::int8 AS moved`;
  // Driven by the keys: each is looked up in the key index (migration 0040). The planner cannot
  // know how few deltas there are (the delta tables change every second, their statistics never
  // fit), and on its estimate it hashed or sorted the whole tally, 34,000 rows at 100,000 alerts,
  // on every fold. Looked up one by one, a fold costs what its deltas are, not what the tally is.
  return db.transaction(async (tx) => {
    await planWith(tx, 'tallyFold');
    return tx.oneFirst(statement);
  });
}

/** Matches per severity and per status: from the tally when it can answer, else by a scan. */
export async function countBySeverityAndStatus(db: CommonQueryMethods, s: query.Selection) {
  const rows = await tallyBySeverityAndStatus(db, s);
  return rows ? query.sumPairs(rows) : query.countBySeverityAndStatus(db, s);
}

/** /environments' counts and known environments: from the tally when it can answer, else scans. */
export async function environmentCounts(db: CommonQueryMethods, s: query.Selection) {
  const tallied = await tallyByEnvironment(db, s);
  if (tallied) return tallied;
  const [counts, known] = await Promise.all([
    query.countByEnvironment(db, s),
    query.knownEnvironments(db, s.customers),
  ]);
  return { counts, known };
}

/** /services' counts: from the tally when it can answer, else a scan. */
export async function serviceCounts(db: CommonQueryMethods, s: query.Selection) {
  return (await tallyByService(db, s)) ?? query.countByService(db, s);
}
