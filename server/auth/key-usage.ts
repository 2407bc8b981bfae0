import { recordKeyUses } from '../db/keys.ts';
import type { Deps } from '../deps.ts';

/** How often the uses of API keys are written (count, lastUsedTime), so requests never wait on it. */
const FLUSH_MS = 1000;

interface Buffer {
  uses: Map<string, { count: number; last: number }>;
  timer: NodeJS.Timeout;
}
const buffers = new WeakMap<Deps, Buffer>();

async function flush(deps: Deps, buffer: Buffer): Promise<void> {
  if (buffer.uses.size === 0) return;
  const uses = [...buffer.uses].map(([id, u]) => ({ id, ...u }));
  buffer.uses.clear();
  try {
    await recordKeyUses(deps.db, uses);
  } catch (err) {
    deps.log.warn({ err: (err as Error).message, keys: uses.length }, 'keys.usage_not_recorded');
  }
}

/** Starts batching key uses for this app; `stop` writes what is left. */
export function startKeyUsage(deps: Deps): { stop(): Promise<void> } {
  const buffer: Buffer = {
    uses: new Map(),
    timer: setInterval(() => void flush(deps, buffer), FLUSH_MS),
  };
  buffer.timer.unref();
  buffers.set(deps, buffer);
  return {
    stop: async () => {
      clearInterval(buffer.timer);
      await flush(deps, buffer);
      buffers.delete(deps);
    },
  };
}

/** Counts one use of a key (written within a second). */
export function noteKeyUse(deps: Deps, keyId: string): void {
  const buffer = buffers.get(deps);
  if (!buffer) return;
  const u = buffer.uses.get(keyId);
  const now = deps.clock.now();
  if (u) {
    u.count += 1;
    u.last = Math.max(u.last, now);
  } else buffer.uses.set(keyId, { count: 1, last: now });
}
