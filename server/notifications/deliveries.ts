import type { DeliveriesPage, DeliveriesQuery } from '../../shared/notifications.ts';
import type { Deps } from '../deps.ts';
import { listDeliveries as readDeliveries, type DeliveryFilter } from '../db/notification-deliveries.ts';
import type { Caller } from '../domain/caller.ts';
import { allRules, visibleReceivers } from './catalog.ts';

const DEFAULT_PAGE_SIZE = 50;

/**
 * GET /notifications/deliveries: the delivery history, newest first, a page at a time. `receiver`
 * and `rule` name one by id or name: the entries of the one that has it now, and those written
 * under that name before (a deleted or renamed one). A caller restricted to customers reads only
 * the entries of its customers' receivers, as it sees only those receivers
 * (tests/api/notification-deliveries.test.ts).
 */
export async function listDeliveries(
  deps: Deps,
  caller: Caller,
  q: DeliveriesQuery,
): Promise<DeliveriesPage> {
  const filter: DeliveryFilter = {
    alertId: q.alert,
    outcome: q.outcome,
    from: q.from,
    to: q.to,
    customers: caller.customers,
  };
  if (q.receiver !== undefined) {
    const found = (await visibleReceivers(deps, caller)).filter(
      (r) => r.id === q.receiver || r.name === q.receiver,
    );
    filter.receiver = { ids: [q.receiver, ...found.map((r) => r.id)], name: q.receiver };
  }
  if (q.rule !== undefined) {
    const found = (await allRules(deps)).filter((r) => r.id === q.rule || r.name === q.rule);
    filter.rule = { ids: [q.rule, ...found.map((r) => r.id)], name: q.rule };
  }
  const pageSize = q['page-size'] ?? DEFAULT_PAGE_SIZE;
  const page = q.page ?? 1;
  const { rows, total } = await readDeliveries(deps.db, filter, {
    limit: pageSize,
    offset: (page - 1) * pageSize,
  });
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return {
    status: 'ok',
    deliveries: rows.map((r) => ({
      id: r.id,
      time: new Date(r.time).toISOString(),
      receiver: { id: r.receiverId, name: r.receiverName, type: r.receiverType },
      rule: r.ruleId === null ? null : { id: r.ruleId, name: r.ruleName ?? r.ruleId },
      alertId: r.alertId,
      blackoutId: r.blackoutId,
      resource: r.resource,
      event: r.event,
      kind: r.kind,
      outcome: r.outcome,
      attempt: r.attempt,
      error: r.error,
    })),
    total,
    page,
    pageSize,
    pages,
    more: page < pages,
  };
}
