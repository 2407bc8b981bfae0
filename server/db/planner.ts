/**
 * Every planner setting the server makes at run time, by name. Each forces a plan the planner would
 * not choose on its estimates, for statements whose tables swing in size faster than their
 * statistics follow; each names the test that fails without it. Anything forcing a plan goes here.
 *
 * Settings in applied migrations stay there (migrations are never edited, see migrations/README.md).
 * They are function `SET` clauses, which hold for the call only:
 * - `alert_claim_new`: `plan_cache_mode = force_generic_plan` (0010: a custom plan per call cost
 *   three times the probe) and `enable_seqscan = off` (0045: a generic plan made on a few alerts
 *   scanned the table for good). Test: tests/api/claim-new-plan.test.ts.
 * - `notification_state_mark`, `forward_settle`, `alert_history_recount`: `enable_seqscan = off`
 *   (0046: their look-ups by key, planned generically on small tables, stayed sequential scans);
 *   `alert_history_recount(NULL)`, which reads every alert, turns it back on with `SET LOCAL`.
 *   Test: tests/api/function-plans-growth.test.ts.
 */
import { sql, type CommonQueryMethods } from 'slonik';

/**
 * Set on every connection of the pool (pool.ts `connectionUrl`). `jit = off`: compiling costs tens of
 * milliseconds on the grouped counts over every alert and never pays off on statements this short.
 * Test: tests/api/connection-settings.test.ts.
 */
export const CONNECTION_SETTINGS = { jit: 'off' } as const;

/** Settings for one kind of statement, made for the rest of its transaction by `planWith`. */
const PLANS = {
  /**
   * notifications.ts `claim`: planned afresh on every call, since the queue swings from empty to a
   * storm's backlog and a generic plan made on a few rows read all of them; no bitmap scans, so the
   * rows are taken in the due-order index's order and the scan stops at the limit.
   * Test: tests/api/notification-claim-plan.test.ts.
   */
  notificationClaim: { plan_cache_mode: 'force_custom_plan', enable_bitmapscan: 'off' },
  /**
   * notifications.ts `lockDueStates`: no sequential scans, so statistics taken while the states were
   * few cannot make a sweep read every state. Test: tests/api/notification-sweep.test.ts.
   */
  notificationSweep: { enable_seqscan: 'off' },
  /**
   * notifications.ts `addHistory`: no bitmap scans, so each alert's entries are read newest first
   * from the index instead of all read and sorted. Test: tests/api/notification-delivery-plans.test.ts.
   */
  notificationHistory: { enable_bitmapscan: 'off' },
  /**
   * alert-tally.ts `compactTally`: nested loops only, so each delta's key is looked up in the key
   * index instead of the whole tally hashed or sorted on an estimate of the deltas that never fits.
   * Test: tests/api/tally-compaction-plan.test.ts.
   */
  tallyFold: { enable_hashjoin: 'off', enable_mergejoin: 'off' },
  /**
   * top-n.ts `topN` by event: index pages cost what table pages do (the data is in memory), so the
   * counts read the event index, a third of the table's size, instead of the table.
   * Test: tests/api/top-n-plan.test.ts.
   */
  topByEvent: { random_page_cost: '1.1' },
  /**
   * top-n.ts `topN` by resource: the same for its counts (the event index holds resource and every
   * column the counts read; 15-20% less than the table's scan at 100,000 alerts), and its pass 2
   * finds the top resources' alerts through the identity index. Test: tests/api/top-n-resource-plan.test.ts.
   */
  topByResource: { random_page_cost: '1.1' },
} as const satisfies Record<string, Record<string, string>>;

export type PlanName = keyof typeof PLANS;

/**
 * Makes the named settings for the rest of the caller's transaction (`set_config(…, true)`) in one
 * round trip before the statement they are for: a setting made inside a statement does not reach
 * its plan.
 */
export async function planWith(db: CommonQueryMethods, name: PlanName): Promise<void> {
  const items = Object.entries(PLANS[name]).map(
    ([setting, value]) => sql.fragment`set_config(${setting}, ${value}, true)`,
  );
  await db.query(sql.unsafe`SELECT ${sql.join(items, sql.fragment`, `)}`);
}
