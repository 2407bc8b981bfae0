import type { Base } from '../deps.ts';
import type { Lane } from '../delivery/queue.ts';
import * as store from '../db/notifications.ts';
import type { QueuedRow } from '../db/notifications.ts';
import type { BlackoutNotice } from '../db/blackout-notices.ts';
import type { DeliveryEntry } from '../db/notification-deliveries.ts';
import { noteAttempt } from './health.ts';
import type { NotificationMetrics } from './metrics.ts';
import type { ReceiverDef } from './receivers.ts';
import { linksOf } from './render/common.ts';
import type { Routing } from './routing.ts';
import type { Agents } from './senders/index.ts';
import { sendNotices, type NoticesSent } from './senders/notices.ts';

/** What delivering notices needs of the worker (worker.ts). */
export interface NoticeDelivery {
  deps: Base;
  routing: Routing;
  metrics: NotificationMetrics;
  owner: string;
  agents: Agents;
  stopping: AbortSignal;
}

/** A notice's entry in the delivery history: the blackout, and which attempt it was. */
const entryOf = (row: QueuedRow, n: BlackoutNotice, next: number): DeliveryEntry => ({
  alertId: null,
  blackoutId: n.blackout.id,
  resource: n.blackout.resource,
  event: n.blackout.event,
  kind: n.kind,
  attempt: row.attempts + next,
});

/**
 * Sends a receiver's claimed blackout notices (rows of kind blackoutStart / blackoutEnd) as one
 * message, retried, rate-limited and recorded like alert messages; a disabled receiver's are dropped
 * as suppressed. Notices have no alert, so no alert history is written.
 */
export async function deliverNotices(
  w: NoticeDelivery,
  lane: Lane,
  receiver: ReceiverDef,
  rows: readonly QueuedRow[],
): Promise<void> {
  const { deps, metrics, owner } = w;
  const ruleId = rows[0]!.ruleId;
  const rule = { id: ruleId, name: w.routing.rulesById.get(ruleId)?.name ?? ruleId };
  const who = { id: receiver.id, name: receiver.name, type: receiver.type, customer: receiver.customer };
  const withNotice = rows.filter((r) => r.notice !== null);
  const byNotice = new Map(withNotice.map((r) => [r.notice!, r]));
  if (!receiver.enabled || withNotice.length < rows.length) {
    const dropped = receiver.enabled ? rows.filter((r) => r.notice === null) : rows;
    await store.remove(
      deps.db,
      dropped.map((r) => r.id),
      owner,
    );
    metrics.sent.inc({ receiver_type: receiver.type, outcome: 'suppressed' }, dropped.length);
    const entries = dropped.flatMap((r) => (r.notice ? [entryOf(r, r.notice, 0)] : []));
    if (entries.length)
      await noteAttempt(deps, {
        receiver: who,
        rule,
        outcome: 'suppressed',
        error: null,
        entries,
        health: null,
      });
    if (!receiver.enabled) return;
  }
  if (!withNotice.length) return;
  const now = Date.now();
  let results: NoticesSent[];
  const notices = withNotice.map((r) => r.notice!);
  try {
    results = await sendNotices(
      receiver,
      {
        notices,
        rule: w.routing.rulesById.get(ruleId)?.name ?? null,
        receiver: receiver.name,
        deliveryId: `${receiver.id}:${Math.min(...withNotice.map((r) => r.id))}`,
        links: linksOf(deps.config),
      },
      {
        config: deps.config,
        timeoutMs: deps.config.NOTIFY_TIMEOUT * 1000,
        stop: w.stopping,
        agents: w.agents,
        now,
      },
    );
  } catch (err) {
    results = [{ notices, attempt: { outcome: 'rejected', status: 0, error: (err as Error).message } }];
  }
  for (const { notices: sent, attempt } of results) {
    const own = sent.map((n) => byNotice.get(n)!);
    const ids = own.map((r) => r.id);
    const attempts = Math.max(...own.map((r) => r.attempts)) + 1;
    const verdict = lane.record(attempt, attempts);
    if (verdict.outcome === 'stopped') {
      await store.release(deps.db, ids, owner);
      continue;
    }
    const error = 'error' in attempt ? attempt.error : '';
    const outcome =
      verdict.outcome === 'delivered' ? 'sent' : verdict.outcome === 'retry' ? 'failed' : verdict.outcome;
    if (verdict.outcome === 'retry')
      await store.retryLater(deps.db, { ids, owner, delayMs: verdict.delayMs, error });
    else await store.remove(deps.db, ids, owner);
    await noteAttempt(deps, {
      receiver: who,
      rule,
      outcome,
      error: outcome === 'sent' ? null : error,
      entries: own.map((r) => entryOf(r, r.notice!, 1)),
      health: outcome === 'sent' ? 'success' : 'failure',
    });
    metrics.sent.inc({ receiver_type: receiver.type, outcome }, own.length);
    const facts = { receiver: receiver.name, type: receiver.type, rule: rule.name, notices: own.length };
    if (outcome === 'sent') deps.log.debug(facts, 'notify.sent');
    else deps.log.info({ ...facts, attempts, error }, `notify.${outcome}: blackout notices`);
  }
}
