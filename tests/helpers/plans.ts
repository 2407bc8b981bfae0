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
