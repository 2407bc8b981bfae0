import { recordKeyUses } from '../db/keys.ts';
import type { Base, KeyUsage } from '../deps.ts';

/** How often the uses of API keys are written (count, lastUsedTime), so requests never wait on it. */
const FLUSH_MS = 1000;

/** Starts batching this instance's key uses (deps.keyUsage); `stop` writes what is left. */
export function startKeyUsage(
  deps: Pick<Base, 'db' | 'log' | 'clock'>,
): KeyUsage & { stop(): Promise<void> } {
  const uses = new Map<string, { count: number; last: number }>();
  let stopped = false;
  const flush = async () => {
    if (uses.size === 0) return;
    const batch = [...uses].map(([id, u]) => ({ id, ...u }));
    uses.clear();
    try {
      await recordKeyUses(deps.db, batch);
    } catch (err) {
      deps.log.warn({ err: (err as Error).message, keys: batch.length }, 'keys.usage_not_recorded');
    }
  };
  const timer = setInterval(() => void flush(), FLUSH_MS);
  timer.unref();
  return {
    note(keyId) {
      // After stop the last flush has run: a use noted then would never be written.
      if (stopped) return;
      const u = uses.get(keyId);
      const now = deps.clock.now();
      if (u) {
        u.count += 1;
        u.last = Math.max(u.last, now);
      } else uses.set(keyId, { count: 1, last: now });
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await flush();
    },
  };
}
