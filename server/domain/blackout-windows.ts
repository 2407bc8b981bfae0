import * as blackoutsDb from '../db/blackouts.ts';
import type { BlackoutRow } from '../db/blackouts.ts';
import type { Base } from '../deps.ts';
import { seriesOf, windowSince, type Window } from './recurrence.ts';

/** How often an instance looks for windows another instance's writes made due sooner. */
const WATCH_MS = 60_000;

type WindowDeps = Pick<Base, 'db' | 'clock' | 'log'>;

/**
 * Stores the next window of every recurring blackout whose stored one has passed by `now`, computed
 * from where the passed one ended; rows with the same series are computed once. Any instance may do
 * it: the result is the same and `storeWindows` keeps the first (tests/api/blackouts-recurring.test.ts).
 */
export async function refreshWindows(deps: WindowDeps, now: number): Promise<number> {
  const rows = await blackoutsDb.passedWindows(deps.db, now);
  if (!rows.length) return 0;
  const computed = new Map<string, Window>();
  const updates: { row: BlackoutRow; window: Window }[] = [];
  for (const row of rows) {
    const series = seriesOf(row);
    if (!series) continue;
    const key = JSON.stringify([series, row.windowEnd]);
    let window = computed.get(key);
    try {
      window ??= windowSince(series, row.windowEnd ?? now, now);
    } catch (err) {
      deps.log.warn({ id: row.id, err: (err as Error).message }, 'blackout.window_failed');
      continue;
    }
    computed.set(key, window);
    updates.push({ row, window });
  }
  return blackoutsDb.storeWindows(deps.db, updates);
}

/**
 * Keeps this instance's recurring windows current without receipts to prompt it: wakes when the
 * soonest stored window ends (or every WATCH_MS, for other instances' writes) and refreshes.
 */
export function startWindowWatch(deps: WindowDeps): { kick(): void; stop(): Promise<void> } {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(tick, Math.max(0, Math.min(ms, WATCH_MS)));
    timer.unref();
  };
  const tick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        await refreshWindows(deps, deps.clock.now());
        const next = await blackoutsDb.nextWindowEnd(deps.db);
        schedule(next === null ? WATCH_MS : next - deps.clock.now() + 1);
      } catch (err) {
        deps.log.warn({ err: (err as Error).message }, 'blackout.window_refresh_failed');
        schedule(WATCH_MS);
      }
    })().finally(() => {
      running = null;
      if (again) {
        again = false;
        schedule(0);
      }
    });
  };
  schedule(0);
  return {
    kick: () => schedule(0),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
