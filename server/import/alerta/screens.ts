/**
 * After an import, the servers' open screens (wall, console, `alerta watch`) are told to load their
 * views afresh: the rows were written outside the receive path, so no change on the bus describes
 * them. Servers that share Redis hear it on their bus (`views.reload`); a single server with its
 * in-process bus cannot be reached from this process, and its screens show the imported rows once
 * they reload. Redis is for fan-out only: if it is down, the import has still succeeded.
 * tests/api/import-alerta-live.test.ts.
 */
import type { Config } from '../../config.ts';
import type { Log } from '../../log.ts';
import { createMetrics } from '../../metrics.ts';
import { createRedisBus } from '../../realtime/redis-bus.ts';

/** True when the servers were told, false when Redis could not be reached, null without Redis. */
export async function tellScreens(config: Config, log: Log): Promise<boolean | null> {
  if (!config.REDIS_URL) return null;
  const bus = await createRedisBus(
    { log, metrics: createMetrics({ defaults: false }) },
    { url: config.REDIS_URL, channel: config.BUS_CHANNEL, connectWaitMs: 3000 },
  );
  try {
    if (!bus.state().connected) return false;
    await bus.publish({ type: 'views.reload', reason: 'data imported' });
    return true;
  } finally {
    await bus.close();
  }
}
