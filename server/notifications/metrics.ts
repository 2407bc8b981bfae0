import { Counter, Gauge, Histogram } from 'prom-client';
import type { Base } from '../deps.ts';
import * as store from '../db/notifications.ts';

/**
 * notification_* metrics in the instance's registry, made by its one notification engine (a second
 * set in the same registry would be refused by prom-client).
 */
export function createNotificationMetrics(
  deps: Pick<Base, 'metrics' | 'db'>,
  receiverType: (id: string) => string,
) {
  const registers = [deps.metrics.registry];
  return {
    sent: new Counter({
      name: 'notifications_sent_total',
      help:
        'Alert notifications by receiver type and outcome: sent, failed (an attempt to be retried), ' +
        'rejected (refused by the service), expired (out of attempts), suppressed (dropped before ' +
        'sending: acked, closed, shelved or blacked out meanwhile), lost (could not be queued)',
      labelNames: ['receiver_type', 'outcome'] as const,
      registers,
    }),
    duration: new Histogram({
      name: 'notification_request_duration_seconds',
      help: 'Time a notification service took to answer (or to fail)',
      labelNames: ['receiver_type'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    queued: new Gauge({
      name: 'notifications_queued',
      help: 'Notifications waiting in the queue (every instance), by receiver type',
      labelNames: ['receiver_type'] as const,
      registers,
      async collect() {
        const depths = await store.depths(deps.db);
        this.reset();
        for (const d of depths) this.inc({ receiver_type: receiverType(d.receiverId) }, d.queued);
      },
    }),
  };
}
export type NotificationMetrics = ReturnType<typeof createNotificationMetrics>;
