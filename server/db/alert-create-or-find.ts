import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { AlertRowSchema } from '../domain/alert-fields.ts';
import { columns } from './alert-columns.ts';
import {
  candidateOfWanted,
  heldBack,
  newAlertsWritten,
  recentSeverityChanges,
  recentStatuses,
  type Candidate,
  type NewAlert,
  type ReceiptWritten,
} from './alert-receive.ts';
import { alongWrites, LeasedColumn } from './receipt-along.ts';
import { texts } from './rows.ts';

// A receipt most likely new (its identity not written here lately, and most such receipts were
// new: domain/receive/batch.ts) is inserted in the statement that would otherwise only have read
// its candidate: one round trip instead of two. What `insertNew` writes and guarantees is unchanged
// (the same claim, insert, first history entry and rows written along); a receipt whose claim
// fails gets the candidate `findForReceive` would have read, from the same statement.

/** One receipt's outcome: its alert created, the stored alert it is decided against, or null (decided again). */
export type CreatedOrFound = { created: ReceiptWritten } | { found: Candidate } | null;

/** Written rows and found candidates in one answer: `wanted` (the found receipt's position) tells them apart. */
const MixedRowSchema = AlertRowSchema.extend({
  wanted: z.number().nullable(),
  recentStatuses: z.array(z.string().nullable()).nullable(),
  recentSeverityChanges: z.number().nullable(),
  leased: LeasedColumn.leased.unwrap().nullish(),
});

/**
 * Creates the alerts of `all` that are new, as `insertNew` does, and reads, as `findForReceive`
 * does, the stored alert of each one whose claim failed (an alert it de-duplicates or correlates
 * with exists). The candidate is read on the statement's snapshot, taken before the claim's locks:
 * an alert a concurrent receipt committed in between is missed, and that receipt, like one held
 * back (heldBack) or one whose id another alert has, comes back null and is decided again.
 * tests/api/receive-create-or-find.test.ts.
 */
export async function createOrFind(
  db: CommonQueryMethods,
  all: readonly NewAlert[],
  flapSince: number,
): Promise<CreatedOrFound[]> {
  const held = heldBack(all);
  const items = all.filter((_, i) => !held.has(i));
  const alerts = items.map((item) => item.alert);
  const withs = items.flatMap((x) => (x.with ? [{ alertId: x.alert.id, ...x.with }] : []));
  const along = alongWrites(withs);
  const leased = withs.some((x) => x.along.forwards.length)
    ? sql.fragment`, NULL::json AS leased`
    : sql.fragment``;
  const col = (pick: (a: (typeof alerts)[number]) => string) => texts(alerts.map(pick));
  const environments = col((a) => a.environment);
  const resources = col((a) => a.resource);
  const customers = col((a) => a.customer ?? '');
  const events = col((a) => a.event);
  const written = await db.any(sql.type(MixedRowSchema)`
    WITH ${newAlertsWritten(items)},
    found AS (
      SELECT ${columns}, v.i::int - 1 AS wanted, ${recentStatuses}, ${recentSeverityChanges(flapSince)}
      FROM receive_wanted(${environments}, ${resources}, ${customers}, ${events}) AS v
      ${candidateOfWanted}
      WHERE v.i::int NOT IN (SELECT i FROM claimed)
    )${along.ctes}
    SELECT w.*, NULL::int AS wanted, NULL::text[] AS "recentStatuses", NULL::int AS "recentSeverityChanges"${along.leased}
    FROM w
    UNION ALL
    SELECT found.*${leased} FROM found`);
  const created = new Map<string, ReceiptWritten>();
  const found = new Map<number, Candidate>();
  for (const {
    wanted,
    recentStatuses: statuses,
    recentSeverityChanges: changes,
    leased: rows,
    ...row
  } of written) {
    if (wanted === null) created.set(row.id, { ...row, history: [], ...(rows ? { leased: rows } : {}) });
    else found.set(wanted, { ...row, recentStatuses: statuses ?? [], recentSeverityChanges: changes ?? 0 });
  }
  let k = 0;
  return all.map(({ alert }, i) => {
    if (held.has(i)) return null;
    const at = k++;
    const row = created.get(alert.id);
    if (row) return { created: row };
    const candidate = found.get(at);
    return candidate ? { found: candidate } : null;
  });
}
