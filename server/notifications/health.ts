import type {
  DeliveryKind,
  NotificationHealth,
  NotificationKind,
  ReceiverHealth,
} from '../../shared/notifications.ts';
import type { Base } from '../deps.ts';
import type { Db } from '../db/pool.ts';
import { healthOf, recordAttempt, type AttemptRecord } from '../db/notification-deliveries.ts';
import type { ReceiverDef } from './receivers.ts';
import type { RuleDef } from './rules.ts';

/** Services that page people by their nature. */
const PAGING_TYPES: ReadonlySet<string> = new Set(['pagerduty', 'opsgenie']);

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Whether a receiver pages people: a PagerDuty or Opsgenie receiver, or one an enabled rule with
 * `paging` names among its receivers or escalation steps (tests/api/notification-health.test.ts).
 */
export function pagingOf(rules: readonly RuleDef[]): (r: Pick<ReceiverDef, 'type' | 'name'>) => boolean {
  const named = new Set(
    rules
      .filter((rule) => rule.enabled && rule.paging)
      .flatMap((rule) => [...rule.receivers, ...rule.escalations.flatMap((e) => e.receivers)]),
  );
  return (r) => PAGING_TYPES.has(r.type) || named.has(r.name);
}

/**
 * Each receiver's health (contract of GET /notifications/receivers): its state and the facts the
 * delivery worker of every instance recorded (db/notification-deliveries.ts), with what the queue
 * holds for it now.
 */
export async function healthOfReceivers(
  db: Db,
  receivers: readonly ReceiverDef[],
  rules: readonly RuleDef[],
): Promise<Map<string, ReceiverHealth>> {
  const isPaging = pagingOf(rules);
  const byId = new Map(receivers.map((r) => [r.id, r]));
  const rows = await healthOf(db, [...byId.keys()]);
  return new Map(
    rows.map((h) => {
      const failing = h.state === 'failing';
      return [
        h.receiverId,
        {
          state: h.state ?? 'unknown',
          paging: isPaging(byId.get(h.receiverId)!),
          lastSuccessTime: iso(h.lastSuccessTime),
          lastErrorTime: iso(h.lastErrorTime),
          lastError: h.lastError,
          failingSince: failing ? iso(h.stateSince) : null,
          failedAttempts: h.failedAttempts,
          queued: h.queued,
          nextAttemptTime: iso(h.nextAttemptTime),
        },
      ];
    }),
  );
}

/**
 * GET /notifications/health and the `notifications:health` event: each receiver's state, and how
 * many paging receivers fail now — enabled ones only: one switched off is not expected to page.
 */
export function summarize(
  receivers: readonly ReceiverDef[],
  health: ReadonlyMap<string, ReceiverHealth>,
): NotificationHealth {
  let pagingFailing = 0;
  const listed = receivers.map((r) => {
    const h = health.get(r.id)!;
    if (r.enabled && h.paging && h.state === 'failing') pagingFailing += 1;
    return {
      id: r.id,
      name: r.name,
      type: r.type,
      paging: h.paging,
      state: h.state,
      failingSince: h.failingSince,
      lastError: h.lastError,
    };
  });
  return { status: 'ok', receivers: listed, pagingFailing };
}

/** The health summary of `receivers` (those a caller sees), read now. */
export async function healthSummary(
  db: Db,
  receivers: readonly ReceiverDef[],
  rules: readonly RuleDef[],
): Promise<NotificationHealth> {
  return summarize(receivers, await healthOfReceivers(db, receivers, rules));
}

const KINDS: Record<NotificationKind, DeliveryKind> = {
  trigger: 'alert',
  repeat: 'reminder',
  escalate: 'escalation',
  ack: 'ack',
  resolve: 'resolve',
  test: 'test',
};

/** A message kind as the delivery history names it. */
export const deliveryKind = (kind: NotificationKind): DeliveryKind => KINDS[kind];

/**
 * Records an attempt in the delivery history and the receiver's health, and tells every instance
 * on the bus, saying whether the receiver's state changed. Never throws: a failure to record is logged and
 * delivery goes on as if it had been recorded.
 */
export async function noteAttempt(
  deps: Pick<Base, 'db' | 'bus' | 'log'>,
  attempt: AttemptRecord,
): Promise<void> {
  try {
    const changed = await recordAttempt(deps.db, attempt);
    await deps.bus.publish({
      type: 'notifications.health',
      receiver: attempt.receiver.id.slice(0, 100),
      changed,
    });
  } catch (err) {
    deps.log.warn(
      { receiver: attempt.receiver.name, outcome: attempt.outcome, error: (err as Error).message },
      'notify.record_failed: the delivery history or health was not written',
    );
  }
}
