import type { Db } from '../db/pool.ts';
import * as store from '../db/notifications.ts';
import type { DeliveryQueue } from '../delivery/queue.ts';
import type { NotificationStatus } from '../delivery/services.ts';
import { isoTime, outcomeCounter, queueMetrics, queuedStatus, retryStatus } from '../delivery/status.ts';
import type { NotificationMetrics } from './metrics.ts';
import type { Routing } from './routing.ts';

const OUTCOMES = ['sent', 'failed', 'rejected', 'expired', 'suppressed', 'lost'] as const;
const DESCRIPTIONS: Record<(typeof OUTCOMES)[number], string> = {
  sent: 'Alert notifications a service took',
  failed: 'Notification attempts that failed and will be retried',
  rejected: 'Notifications a service refused (not retried)',
  expired: 'Notifications given up after NOTIFY_MAX_ATTEMPTS',
  suppressed: 'Notifications dropped before sending (acked, closed, shelved or blacked out meanwhile)',
  lost: 'Notifications that could not be queued',
};

/**
 * The `notifications` section of /management/status: per receiver the queue (shared by every
 * instance) and this instance's counts, backoff and last error; totals in the `metrics` list. A
 * caller restricted to `customers` is told only about its customers' receivers, as the API lists
 * them (tests/api/notifications-tenancy.test.ts).
 */
export async function notificationStatus(
  db: Db,
  engine: { routing: Routing; queue: DeliveryQueue<unknown>; metrics: NotificationMetrics },
  customers: readonly string[] | null,
): Promise<NotificationStatus> {
  const { routing, queue, metrics: m } = engine;
  const depths = await store.depths(db);
  const countOf = outcomeCounter((await m.sent.get()).values, 'receiver_type');
  const now = Date.now();
  const visible = [...routing.receivers.values()].filter(
    (r) => customers === null || (r.customer !== null && customers.includes(r.customer)),
  );
  const receivers = visible.map((r) => {
    const depth = depths.find((d) => d.receiverId === r.id);
    const state = queue.lane(r.id)?.state;
    return {
      name: r.name,
      type: r.type,
      source: r.source,
      enabled: r.enabled,
      ...queuedStatus(depth),
      ...retryStatus(depth, state, now),
      lastSentTime: isoTime(state?.lastDeliveryTime),
    };
  });
  const queued = depths.reduce((sum, d) => sum + d.queued, 0);
  const metrics = queueMetrics({
    group: 'notifications',
    queuedTitle: 'Queued notifications',
    queuedDescription: 'Notifications waiting to be sent, all receivers',
    queued,
    countTitle: 'Notifications',
    outcomes: OUTCOMES,
    descriptions: DESCRIPTIONS,
    count: (o) => countOf(null, o),
  });
  return {
    notifications: {
      receivers,
      rules: routing.rules.length,
      queued,
      sent: countOf(null, 'sent'),
      failed: countOf(null, 'failed') + countOf(null, 'expired') + countOf(null, 'rejected'),
    },
    metrics,
  };
}
