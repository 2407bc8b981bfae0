import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { FieldRef } from '../domain/query/fields.ts';
import { column, TRUE, whereOf, type Selection } from './alert-query.ts';
import { eventTallyRows, tallyPlan, tallyRows } from './alert-tally.ts';
import { planWith } from './planner.ts';
import { finiteTime } from './pool.ts';

export type TopVariant = 'count' | 'flapping' | 'standing';

const TopRowSchema = z.object({
  grp: z.string().nullable(),
  count: z.number(),
  environments: z.array(z.string()),
  services: z.array(z.string()),
  /**
   * The group's alerts, each once: ids and resources in the same order, and their duplicate counts'
   * sum. The two lists come as JSON: JSON.parse reads 10,000 names in a fraction of the time pg's
   * text-array parser took (37 → 22 ms for the query at 100,000 alerts, `query.ts --only top10`).
   */
  ids: z.array(z.string()),
  resources: z.array(z.string()),
  duplicates: z.number(),
  /** The earliest creation among the group's alerts (epoch ms): how long the group has stood. */
  first_create: z.number(),
});

export interface TopRow {
  grp: string | null;
  count: number;
  duplicateCount: number;
  environments: string[];
  services: string[];
  resources: { id: string; resource: string }[];
  firstCreateTime: number;
}

/**
 * Group-by columns that are never NULL (0001_init.sql): their top groups are joined on plain
 * equality, which an index on the column can serve (event's). NULL-able columns (value, customer)
 * are joined null-safely.
 */
const NOT_NULL = new Set([
  'resource',
  'event',
  'environment',
  'severity',
  'status',
  'group',
  'origin',
  'type',
]);

/**
 * Top-N groups (api.md §5): rows are alert × service pairs (× real severity changes for flapping, ×
 * history entries typed `severity` for standing, as the established server counts them: the
 * creation entry, typed `new`, is not one), grouped by `groupBy` (a text column, or `service`).
 * The top groups are found first on counts alone; only their rows are then collected for the
 * lists. Ties rank by group value (NULL as the empty text, just after it). Grouping by the column
 * itself (not an expression of it) lets the `(event)` index serve both passes without reading the
 * table (tests/api/top-n-answers.test.ts checks the answers; `scripts/bench/query.ts --only top10`
 * measures them).
 */
/** Grouping columns a tally holds: alert_tally's key, and event in alert_event_tally. */
const TALLY_KEYS = new Set(['customer', 'environment', 'service', 'severity', 'status']);

/**
 * The tally rows to count a grouping's groups from, and their WHERE clause, or null when the
 * filters need a scan (tallyPlan: only key columns; a `to-date` bound is left to the scan).
 */
function tallyFor(s: Selection, groupBy: string) {
  if (groupBy !== 'event' && !TALLY_KEYS.has(groupBy)) return null;
  const plan = tallyPlan(s.where);
  if (!plan || plan.after) return null;
  return {
    rows: groupBy === 'event' ? eventTallyRows : tallyRows,
    where: whereOf({ where: plan.keyed, customers: s.customers }),
  };
}

/** localeCompare's order, made once: a collator costs more to make than 10,000 comparisons. */
const collator = new Intl.Collator();

const byCodeUnit = (x: { id: string; resource: string }, y: { id: string; resource: string }) =>
  x.resource < y.resource ? -1 : x.resource > y.resource ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0;

export async function topN(
  db: CommonQueryMethods,
  s: Selection,
  variant: TopVariant,
  groupBy: FieldRef,
  n: number,
): Promise<TopRow[]> {
  const byService = groupBy.field.name === 'service';
  const grp = byService ? sql.fragment`u.svc` : sql.fragment`(${column(groupBy)})::text`;
  // Rows per alert and service: 1 for count; for flapping its real severity changes (`severity`
  // entries that changed the severity of the `new` or `severity` entry before them); for standing
  // its `severity` entries. The alert keeps the last two as counts of its own (migrations 0041,
  // 0054), so neither report reads the history: joining it cost 190–370 ms at 100,000 alerts.
  const weight =
    variant === 'flapping'
      ? sql.fragment`a.flaps`
      : variant === 'standing'
        ? sql.fragment`a.severity_entries`
        : sql.fragment`1`;
  // Whether an alert has any rows (pass 2: its lists need each alert once).
  const hasHistory = variant === 'count' ? TRUE : sql.fragment`${weight} > 0`;
  // Standing's summed lifetime of `rows` rows per alert; 0 for the others, which rank by count.
  const lifeOf = (rows: ReturnType<typeof sql.fragment>) =>
    variant === 'standing'
      ? sql.fragment`sum(${rows} * extract(epoch FROM ${finiteTime('a', 'last_receive_time')} - ${finiteTime('a', 'create_time')})::float8)`
      : sql.fragment`0::float8`;
  const order = sql.fragment`${variant === 'standing' ? sql.fragment`t.life DESC, t.count DESC` : sql.fragment`t.count DESC`},
    COALESCE(t.grp, ''), t.grp IS NULL`;
  // Counting alert × service rows of a column other than service needs no unnest: each alert
  // gives as many rows as it has services (none when it has none).
  // Counted from a tally where one holds the grouping column and the filters name only its key
  // columns: the same alerts in the same snapshot (one statement), in a few thousand rows instead
  // of one per alert. Deltas can leave a key at 0, hence HAVING.
  const tallied = variant === 'count' ? tallyFor(s, groupBy.field.name) : null;
  const counted = tallied
    ? byService
      ? sql.fragment`SELECT ${grp} AS grp, sum(a.n::float8)::int8 AS count, 0::float8 AS life
        FROM ${tallied.rows} a CROSS JOIN LATERAL unnest(a.service) AS u(svc)
        WHERE ${tallied.where}
        GROUP BY 1 HAVING sum(a.n::float8) <> 0`
      : sql.fragment`SELECT ${grp} AS grp, sum((a.n * cardinality(a.service))::float8)::int8 AS count, 0::float8 AS life
        FROM ${tallied.rows} a
        WHERE ${tallied.where} AND cardinality(a.service) > 0
        GROUP BY 1 HAVING sum((a.n * cardinality(a.service))::float8) <> 0`
    : !byService
      ? sql.fragment`SELECT ${grp} AS grp, sum(${weight} * cardinality(a.service)) AS count,
          ${lifeOf(sql.fragment`${weight} * cardinality(a.service)`)} AS life
        FROM alerts a
        WHERE ${whereOf(s)} AND cardinality(a.service) > 0 AND ${hasHistory}
        GROUP BY 1`
      : sql.fragment`SELECT ${grp} AS grp, sum(${weight}) AS count, ${lifeOf(weight)} AS life
        FROM alerts a CROSS JOIN LATERAL unnest(a.service) AS u(svc)
        WHERE ${whereOf(s)} AND ${hasHistory}
        GROUP BY 1`;
  const joined =
    byService || NOT_NULL.has(groupBy.field.name)
      ? sql.fragment`${grp} = t.grp`
      : sql.fragment`COALESCE(${grp}, '') = COALESCE(t.grp, '') AND (${grp} IS NULL) = (t.grp IS NULL)`;
  // Only the top groups' rows, stated on the alert itself where an index can find them: the
  // service GIN index (event's groups are each read from their own range, below). Other columns
  // have none, and the extra test only made the planner scan every alert in parallel (slower here
  // than the hash join alone).
  // Grouped by resource, the identity index (environment, resource, …) finds them once the
  // environment is bound too: to every stored environment (`envs`, a loose scan of the same index
  // in the same snapshot), which every alert has, so the rows are the same. Pass 2 was a second
  // scan of every alert (38 of 109 ms at 100,000, `query.ts --only 'grouped by resource'`).
  const byResource = groupBy.field.name === 'resource' && groupBy.key === undefined;
  const only = byService
    ? sql.fragment`a.service && ARRAY(SELECT t.grp FROM top t)`
    : byResource
      ? sql.fragment`a.environment = ANY(ARRAY(SELECT e.v FROM envs e WHERE e.v IS NOT NULL))
        AND a.resource = ANY(ARRAY(SELECT t.grp FROM top t))`
      : TRUE;
  // Each alert once per group: its row of its first service (grouped by service, of the first
  // occurrence of that service in its list).
  const first = byService ? sql.fragment`array_position(a.service, u.svc) = u.n` : sql.fragment`u.n = 1`;
  const lists = sql.fragment`array_agg(DISTINCT a.environment ORDER BY a.environment) AS environments,
      array_agg(DISTINCT u.svc ORDER BY u.svc) AS services,
      to_json(array_agg(a.id) FILTER (WHERE ${first})) AS ids,
      to_json(array_agg(a.resource) FILTER (WHERE ${first})) AS resources,
      COALESCE(sum(a.duplicate_count) FILTER (WHERE ${first}), 0) AS duplicates,
      min(a.create_time) AS first_create`;
  // Grouped by event, each top group's lists come from its own range of the event index (one
  // aggregate per group, no sort of all their rows to group them: pass 2 took 29 → 21 ms for the
  // top ten's 10,310 alerts at 100,000, `query.ts --only top10`). Other columns have no index to look a
  // group up by, so their rows are found in one pass and grouped.
  const listed =
    groupBy.field.name === 'event'
      ? sql.fragment`SELECT t.grp, t.count, l.environments, l.services, l.ids, l.resources, l.duplicates, l.first_create
        FROM top t CROSS JOIN LATERAL (
          SELECT ${lists}
          FROM alerts a CROSS JOIN LATERAL unnest(a.service) WITH ORDINALITY AS u(svc, n)
          WHERE ${grp} = t.grp AND ${whereOf(s)} AND ${hasHistory}
        ) l
        WHERE l.ids IS NOT NULL
        ORDER BY ${order}`
      : sql.fragment`SELECT t.grp, t.count, ${lists}
        FROM alerts a CROSS JOIN LATERAL unnest(a.service) WITH ORDINALITY AS u(svc, n)
          JOIN top t ON ${joined}
        WHERE ${whereOf(s)} AND ${only} AND ${hasHistory}
        GROUP BY t.grp, t.count, t.life
        ORDER BY ${order}`;
  const envs = byResource
    ? sql.fragment`envs(v) AS (
        (SELECT a.environment FROM alerts a ORDER BY a.environment LIMIT 1)
        UNION ALL
        SELECT (SELECT a.environment FROM alerts a WHERE a.environment > e.v ORDER BY a.environment LIMIT 1)
        FROM envs e WHERE e.v IS NOT NULL
      ), `
    : sql.fragment``;
  const statement = sql.type(TopRowSchema)`/* ad hoc */
    WITH RECURSIVE ${envs}t AS (
      ${counted}
    ), top AS (
      SELECT * FROM t ORDER BY ${order} LIMIT ${n}
    )
    ${listed}`;
  // Reading the whole event index costs the planner random_page_cost per page, so it prefers the
  // table, three times larger and slower to read (planner.ts).
  const plan =
    groupBy.field.name === 'event' ? 'topByEvent' : byResource && !tallied ? 'topByResource' : null;
  const rows = plan
    ? await db.transaction(async (tx) => {
        await planWith(tx, plan);
        return tx.any(statement);
      })
    : await db.any(statement);
  return rows.map((r) => {
    const alerts = r.ids.map((id, i) => ({ id, resource: r.resources[i]! }));
    // The same order as localeCompare (one collator rather than one lookup per comparison). Sorted
    // by code unit first, which is cheap and for the usual lower-case names (host12, web-3.lan)
    // already the collator's order, so that the collator's sort, which alone decides, finds one
    // run and compares each neighbour once instead of n log n times (tests/api/top-n-answers.test.ts
    // has mixed-case and punctuated resources, where the two orders differ).
    alerts.sort(byCodeUnit);
    alerts.sort((x, y) => collator.compare(x.resource, y.resource) || collator.compare(x.id, y.id));
    return {
      grp: r.grp,
      count: r.count,
      duplicateCount: r.duplicates,
      environments: r.environments,
      services: r.services,
      resources: alerts,
      firstCreateTime: r.first_create,
    };
  });
}
