import { compactTally } from '../db/alert-tally.ts';
import type { Deps } from '../deps.ts';

/**
 * How often each instance folds the tally's deltas into its counts (migration 0031). Readers sum
 * both tables, so answers are exact whenever this runs; it only keeps the deltas they read few.
 */
export const COMPACT_MS = 1000;

/** Compacts the alert tally every COMPACT_MS on this instance until stopped. */
export function startTallyCompaction(deps: Deps): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let failing = false;
  const round = async () => {
    try {
      await compactTally(deps.db);
      if (failing) deps.log.info('tally.compaction_resumed');
      failing = false;
    } catch (err) {
      // The database may be away (restart, failover): say so once, try again next round.
      if (!failing) deps.log.warn({ err: (err as Error).message }, 'tally.compaction_failed');
      failing = true;
    }
  };
  const timer = setInterval(() => {
    if (running) return;
    running = round().finally(() => (running = null));
  }, COMPACT_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
