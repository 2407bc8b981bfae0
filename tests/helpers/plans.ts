/** Reading `EXPLAIN (ANALYZE, FORMAT JSON)` output in plan tests. */
import type pg from 'pg';
import { numbered, type Captured } from './receive-statements.ts';

export type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
};

/**
 * Rows of `relation` that the scans of `node`'s tree read (returned or filtered out) over all
 * their loops, and the kinds of scan that read them.
 */
export function rowsRead(node: PlanNode, relation: string): { rows: number; kinds: Set<string> } {
  const mine = node['Relation Name'] === relation && node['Node Type'].endsWith('Scan');
  let rows = mine ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'] : 0;
  const kinds = new Set<string>(mine ? [node['Node Type']] : []);
  for (const child of node.Plans ?? []) {
    const sub = rowsRead(child, relation);
    rows += sub.rows;
    for (const k of sub.kinds) kinds.add(k);
  }
  return { rows, kinds };
}

/**
 * Captured statements run in a transaction that is rolled back, the last under `EXPLAIN (ANALYZE,
 * FORMAT JSON)`: those before it are what the function sets first (planner settings), as in its
 * own transaction.
 */
export async function explainAnalyzed(client: pg.Client, statements: readonly Captured[]): Promise<PlanNode> {
  const last = statements.at(-1)!;
  await client.query('BEGIN');
  try {
    for (const q of statements.slice(0, -1)) await client.query(numbered(q), [...q.values]);
    const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${numbered(last)}`,
      [...last.values],
    );
    return rows[0]!['QUERY PLAN'][0]!.Plan;
  } finally {
    await client.query('ROLLBACK');
  }
}

/** What the scans of one table read: sequential scans, rows they read, rows fetched through indexes. */
export interface TableReads {
  seqScans: number;
  seqRows: number;
  fetched: number;
  /** `seqRows + fetched`. */
  rows: number;
}

/**
 * Runs `text` on `client` in a transaction that is rolled back, and what the scans of each of
 * `tables` read meanwhile, counted from `pg_stat_xact_user_tables` (which sees the scans of the
 * functions and triggers it calls too). Nothing is flushed within a transaction, so two readings in
 * it differ by exactly what ran between them.
 */
export async function readsOf<R extends pg.QueryResultRow>(
  client: pg.Client,
  tables: readonly string[],
  text: string,
  values: unknown[] = [],
): Promise<{ rows: R[]; reads: Record<string, TableReads> }> {
  const now = async () => {
    const { rows } = await client.query<{ relname: string; seq: string; seq_rows: string; fetched: string }>(
      `SELECT relname, seq_scan AS seq, seq_tup_read AS seq_rows, coalesce(idx_tup_fetch, 0) AS fetched
       FROM pg_stat_xact_user_tables WHERE relname = ANY($1)`,
      [tables],
    );
    return new Map(
      rows.map((r) => [r.relname, [Number(r.seq), Number(r.seq_rows), Number(r.fetched)] as const]),
    );
  };
  await client.query('BEGIN');
  try {
    const before = await now();
    const result = await client.query<R>(text, values);
    const after = await now();
    const reads: Record<string, TableReads> = {};
    for (const t of tables) {
      const [s0, r0, f0] = before.get(t) ?? [0, 0, 0];
      const [s1, r1, f1] = after.get(t) ?? [0, 0, 0];
      reads[t] = { seqScans: s1 - s0, seqRows: r1 - r0, fetched: f1 - f0, rows: r1 - r0 + (f1 - f0) };
    }
    return { rows: result.rows, reads };
  } finally {
    await client.query('ROLLBACK');
  }
}
