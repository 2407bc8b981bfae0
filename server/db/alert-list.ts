import { sql, type CommonQueryMethods, type FragmentSqlToken, type IdentifierSqlToken } from 'slonik';
import { AlertRowSchema } from '../domain/alert-fields.ts';
import type { Cond } from '../domain/query/conditions.ts';
import type { SortKey } from '../domain/query/params.ts';
import { columns } from './alert-columns.ts';
import { column, whereOf, type Selection, type sumPairs } from './alert-query.ts';

/** Orders for the severity and status sort keys: the alarm model's. */
export interface SortOrders {
  severity: readonly string[];
  status: readonly string[];
}

/** Sort keys that rank by the alarm model's order rather than by the stored text. */
const RANKED = new Set(['severity', 'status']);

/** A ranked column's position in the alarm model's order; names it does not know tie at the end. */
const rankOf = (names: readonly string[], value: FragmentSqlToken | IdentifierSqlToken) =>
  sql.fragment`COALESCE(array_position(${sql.array([...names], 'text')}, ${value}), ${names.length})`;

const namesOf = (ref: SortKey['ref'], orders: SortOrders) =>
  ref.field.name === 'severity' ? orders.severity : orders.status;

const dirOf = (k: SortKey) => (k.descending ? sql.fragment`DESC` : sql.fragment`ASC`);

function orderOf(sort: readonly SortKey[], orders: SortOrders): FragmentSqlToken {
  const keys = sort.map((k) => {
    if (k.ref.key === undefined && RANKED.has(k.ref.field.name))
      return sql.fragment`${rankOf(namesOf(k.ref, orders), column(k.ref))} ${dirOf(k)}`;
    return sql.fragment`${column(k.ref)} ${dirOf(k)}`;
  });
  return sql.fragment`${sql.join([...keys, sql.fragment`a.id ASC`], sql.fragment`, `)}`;
}

/**
 * Past this many rows (offset + page size) one sort of every match is cheaper than merging the
 * partitions (each of which then reads that many rows).
 */
export const MERGE_MAX_ROWS = 1000;

/** Columns whose filters keep most of a partition: merging stays cheap under them. */
const BROAD = new Set(['environment', 'severity', 'status', 'customer']);

/**
 * Conditions under which each partition's first rows are found by walking an index in order:
 * exact values of few-valued columns and time ranges. Anything more selective (q on free text,
 * resources, attributes) could make every partition read all its rows; those sort once instead.
 */
export function mergeable(c: Cond): boolean {
  switch (c.kind) {
    case 'all':
      return true;
    case 'and':
      return c.items.every(mergeable);
    case 'in':
      return c.ref.key === undefined && BROAD.has(c.ref.field.name);
    case 'range':
      return c.ref.key === undefined && c.ref.field.type === 'time';
    default:
      return false;
  }
}

/**
 * The column a page is merged by: the first sort key when it ranks severities (the web console's
 * default order is severity, then newest), null when the plain sort is used.
 */
export function mergeColumn(s: Selection, sort: readonly SortKey[], rows: number): string | null {
  const first = sort[0];
  // Severity only: its partitions walk the (severity, last_receive_time) index. No index leads
  // with (status, last_receive_time), so status-first pages sort once, as before.
  if (!first || first.ref.key !== undefined || first.ref.field.name !== 'severity') return null;
  if (rows > MERGE_MAX_ROWS || !mergeable(s.where)) return null;
  return first.ref.field.column;
}

/**
 * The leading keys a page sorted status first is merged by: status, and severity when it comes
 * next (the console's "sort by status"); null when the page is sorted otherwise. No index follows
 * the alarm model's status order, so a plain ORDER BY reads every match (60 ms for the console's
 * open + ack at 100,000 alerts, `query.ts --only 'sort by status'`).
 */
export function rankedLead(s: Selection, sort: readonly SortKey[], rows: number): SortKey[] | null {
  const [first, second] = sort;
  if (!first || first.ref.key !== undefined || first.ref.field.name !== 'status') return null;
  if (rows > MERGE_MAX_ROWS || !mergeable(s.where)) return null;
  return second && second.ref.key === undefined && second.ref.field.name === 'severity'
    ? [first, second]
    : [first];
}

/** Matches per severity, per status and per (severity, status) pair, as the page's counts found them. */
export type Counted = ReturnType<typeof sumPairs>;

/** A column's distinct stored values, by a loose scan of an index that leads with it. */
const distinctValues = (name: string) => {
  const col = sql.identifier(['a', name]);
  const cte = sql.identifier([`d_${name}`]);
  return sql.fragment`${cte}(v) AS (
      (SELECT ${col} FROM alerts a ORDER BY ${col} LIMIT 1)
      UNION ALL
      SELECT (SELECT ${col} FROM alerts a WHERE ${col} > d.v ORDER BY ${col} LIMIT 1) FROM ${cte} d WHERE d.v IS NOT NULL
    )`;
};

/**
 * A page sorted by status (then severity) first, merged from partitions: each pair of stored
 * values of the leading keys (the matched ones when known, else every stored one) is one
 * partition, whose first `offset + limit` rows in the remaining keys' order are read by a lateral
 * subquery. The pairs are walked in the alarm model's order, so the rows come out ordered by the
 * leading keys' ranks: an incremental sort orders each rank's rows by the remaining keys, and the
 * walk stops once the page is full (the console's first page reads one partition of open critical
 * alerts instead of every open and acked one). Values the model does not know share the last rank
 * and so one group of the incremental sort, as they tie in the plain order. Every row of the page
 * is among the partitions' first rows, so pages, ties and order are the plain query's
 * (tests/api/alerts-status-order.test.ts and alerts-merged-order.test.ts compare them).
 *
 * A partition is read whole, through the (status, severity, …) index, and sorted: `OFFSET 0` keeps
 * the planner from walking an index in the remaining keys' order (the primary key's, for ties)
 * and filtering it by the partition, which read the whole table for each empty pair of values
 * the walk reached (a status and a severity each with matches, but none together). So a page
 * costs at most the rows of the partitions it reaches.
 */
function listByRank(
  db: CommonQueryMethods,
  s: Selection,
  page: { sort: readonly SortKey[]; limit: number; offset: number },
  orders: SortOrders,
  lead: readonly SortKey[],
  raw: FragmentSqlToken,
  counted?: Counted,
) {
  const names = lead.map((k) => k.ref.field.name as 'status' | 'severity');
  const reach = page.offset + page.limit;
  let source: FragmentSqlToken;
  let ctes: FragmentSqlToken[] = [];
  if (counted) {
    const parts = reachedPartitions(lead, orders, counted, reach);
    if (parts.length === 0) return Promise.resolve([]);
    const arrays = names.map((_, i) =>
      sql.array(
        parts.map((p) => p[i]!),
        'text',
      ),
    );
    source = sql.fragment`unnest(${sql.join(arrays, sql.fragment`, `)}) AS s(${sql.join(
      names.map((_, i) => sql.identifier([`v${i}`])),
      sql.fragment`, `,
    )})`;
  } else {
    ctes = names.map(distinctValues);
    const cols = names.map(
      (n, i) => sql.fragment`${sql.identifier([`d_${n}`, 'v'])} AS ${sql.identifier([`v${i}`])}`,
    );
    source = sql.fragment`(SELECT ${sql.join(cols, sql.fragment`, `)}
      FROM ${sql.join(
        names.map((n) => sql.identifier([`d_${n}`])),
        sql.fragment` CROSS JOIN `,
      )}
      WHERE ${sql.join(
        names.map((n) => sql.fragment`${sql.identifier([`d_${n}`, 'v'])} IS NOT NULL`),
        sql.fragment` AND `,
      )}) s`;
  }
  const pick = names.map((_, i) => {
    const v = sql.identifier(['s', `v${i}`]);
    return sql.fragment`${v}, ${rankOf(namesOf(lead[i]!.ref, orders), v)} AS ${sql.identifier([`r${i}`])}`;
  });
  const ranks = (table: string | null) =>
    sql.join(
      lead.map((k, i) => {
        const r = table ? sql.identifier([table, `r${i}`]) : sql.identifier([`r${i}`]);
        return sql.fragment`${r} ${dirOf(k)}`;
      }),
      sql.fragment`, `,
    );
  const inPartition = names.map(
    (n, i) => sql.fragment`${sql.identifier(['a', n])} = ${sql.identifier(['p', `v${i}`])}`,
  );
  const rest = orderOf(page.sort.slice(lead.length), orders);
  return db.any(sql.type(AlertRowSchema)`/* ad hoc */
    ${ctes.length ? sql.fragment`WITH RECURSIVE ${sql.join(ctes, sql.fragment`, `)}` : sql.fragment``}
    SELECT ${columns} ${raw} FROM (
      SELECT ${sql.join(pick, sql.fragment`, `)} FROM ${source}
      ORDER BY ${ranks(null)}
    ) p CROSS JOIN LATERAL (
      SELECT a.* FROM (
        SELECT a.* FROM alerts a
        WHERE ${sql.join(inPartition, sql.fragment` AND `)} AND ${whereOf(s)}
        OFFSET 0
      ) a
      ORDER BY ${rest}
      LIMIT ${reach}
    ) a
    ORDER BY ${ranks('p')}, ${rest}
    LIMIT ${page.limit} OFFSET ${page.offset}`);
}

/**
 * The counted partitions (values of the leading keys, with matches) a page can reach, in rank
 * order: every partition of each group of equal ranks up to the group in which the page's last
 * row falls by the counts. Values of equal rank (those the model does not know) form one group,
 * all kept or all left out, since their rows interleave.
 */
export function reachedPartitions(
  lead: readonly SortKey[],
  orders: SortOrders,
  counted: Counted,
  reach: number,
): string[][] {
  const names = lead.map((k) => k.ref.field.name as 'status' | 'severity');
  const parts =
    names.length === 1
      ? counted[names[0]!].map((r) => ({ values: [r.name], n: r.n }))
      : counted.pairs.map((r) => ({ values: names.map((n) => r[n]), n: r.n }));
  const position = (i: number, value: string) => {
    const list = namesOf(lead[i]!.ref, orders);
    const at = list.indexOf(value);
    return at < 0 ? list.length : at + 1;
  };
  const ranked = parts
    .filter((p) => p.n > 0)
    .map((p) => ({ ...p, ranks: p.values.map((v, i) => position(i, v)) }));
  const compare = (x: number[], y: number[]) => {
    for (let i = 0; i < lead.length; i++) {
      const d = (x[i]! - y[i]!) * (lead[i]!.descending ? -1 : 1);
      if (d !== 0) return d;
    }
    return 0;
  };
  ranked.sort((x, y) => compare(x.ranks, y.ranks));
  const kept: string[][] = [];
  let before = 0;
  for (let i = 0; i < ranked.length && before < reach;) {
    let j = i;
    while (j < ranked.length && compare(ranked[j]!.ranks, ranked[i]!.ranks) === 0) {
      kept.push(ranked[j]!.values);
      before += ranked[j]!.n;
      j++;
    }
    i = j;
  }
  return kept;
}

/**
 * One page of matching alerts, in the requested order; rawData only when asked for.
 *
 * Severity order is the alarm model's, which no index follows, so a plain ORDER BY reads every
 * match to find the first page. When the first key is severity, the page is
 * merged instead: the column's distinct stored values come from a loose index scan (one probe of
 * its index per value), each value's partition gives its first `offset + limit` rows in the
 * remaining keys' order (an index walk: `(severity, last_receive_time)` for the console's
 * default), and the same ORDER BY as the plain query sorts those few rows. Every row of the page
 * is among them — a partition's rows before it in the full order all come before it in the
 * merged order too — so pages, ties and order are the plain query's (tests/api/alerts-merged-order.test.ts
 * compares them with one plain sort; `query.ts --only 'web UI default'` measures it).
 */
export function listAlerts(
  db: CommonQueryMethods,
  s: Selection,
  page: { sort: readonly SortKey[]; limit: number; offset: number; rawData: boolean },
  orders: SortOrders,
  /** The matches per severity, status and pair, when counted (else values come from loose index scans). */
  counted?: Counted,
) {
  const raw = page.rawData ? sql.fragment`` : sql.fragment`, NULL::text AS "rawData"`;
  const order = orderOf(page.sort, orders);
  const ranked = rankedLead(s, page.sort, page.offset + page.limit);
  if (ranked) return listByRank(db, s, page, orders, ranked, raw, counted);
  const by = mergeColumn(s, page.sort, page.offset + page.limit);
  if (by === null) {
    return db.any(sql.type(AlertRowSchema)`/* ad hoc */
      SELECT ${columns} ${raw} FROM alerts a
      WHERE ${whereOf(s)}
      ORDER BY ${order}
      LIMIT ${page.limit} OFFSET ${page.offset}`);
  }
  const col = sql.identifier(['a', by]);
  // Within a partition the column is one value, so leading the order with it changes nothing but
  // the plan: the planner then walks the index that leads with the column and last_receive_time
  // (backwards for the console's newest first) rather than a time index it would filter row by
  // row. The value is bound as a row range, `(col, time) BETWEEN (v, -infinity) AND (v, infinity)`
  // — exactly the rows where col = v, time being never null — because with `= v` the planner drops
  // the leading key as constant and walks the time index, and with `>= v AND <= v` it reads the
  // whole partition through the (status, severity, …) index to sort it; a row comparison only
  // the (col, last_receive_time) index can serve.
  const rest = page.sort.slice(1);
  const lead = rest[0]?.descending ? sql.fragment`DESC` : sql.fragment`ASC`;
  const values = counted?.severity.filter((r) => r.n > 0).map((r) => r.name);
  if (values && values.length === 0) return Promise.resolve([]);
  const d = values
    ? sql.fragment`d(v) AS (SELECT unnest(${sql.array([...values], 'text')}))`
    : sql.fragment`d(v) AS (
      (SELECT ${col} FROM alerts a ORDER BY ${col} LIMIT 1)
      UNION ALL
      SELECT (SELECT ${col} FROM alerts a WHERE ${col} > d.v ORDER BY ${col} LIMIT 1) FROM d WHERE d.v IS NOT NULL
    )`;
  return db.any(sql.type(AlertRowSchema)`/* ad hoc */
    WITH RECURSIVE ${d}
    SELECT ${columns} ${raw} FROM d CROSS JOIN LATERAL (
      SELECT a.* FROM alerts a
      WHERE (${col}, a.last_receive_time) >= (d.v, '-infinity'::timestamptz)
        AND (${col}, a.last_receive_time) <= (d.v, 'infinity'::timestamptz)
        AND ${whereOf(s)}
      ORDER BY ${col} ${lead}, ${orderOf(rest, orders)}
      LIMIT ${page.offset + page.limit}
    ) a
    ORDER BY ${order}
    LIMIT ${page.limit} OFFSET ${page.offset}`);
}
