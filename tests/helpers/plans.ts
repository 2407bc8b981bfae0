/** Reading `EXPLAIN (ANALYZE, FORMAT JSON)` output in plan tests. */

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
