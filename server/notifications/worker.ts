import { randomUUID } from 'node:crypto';
import { NOTICE_KINDS, type NoticeKind } from '../../shared/notifications.ts';
import type { Config } from '../config.ts';
import type { Base } from '../deps.ts';
import { endingAfter } from '../db/blackouts.ts';
import { matchesBlackout } from '../domain/blackouts.ts';
import * as store from '../db/notifications.ts';
import type { NotifiedAlert, QueuedRow } from '../db/notifications.ts';
import {
  DeliveryQueue,
  LEASE_MS,
  type Attempt,
  type Claim,
  type Lane,
  retryPolicy,
  type RetryPolicy,
} from '../delivery/queue.ts';
import type { AttemptRecord, DeliveryEntry } from '../db/notification-deliveries.ts';
import { deliveryKind, noteAttempt } from './health.ts';
import { deliverNotices } from './notice-delivery.ts';
import type { NotificationMetrics } from './metrics.ts';
import { CAPABILITIES, wants, type ReceiverDef } from './receivers.ts';
import { isAlarm, linksOf, type Item, type Message } from './render/common.ts';
import type { Routing } from './routing.ts';
import { statusClass } from './rules.ts';
import { Agents, requestsFor, sendMessage, type Sent } from './senders/index.ts';

/** How often the queue is looked at for due messages (other instances' rows, retries, group waits). */
const POLL_MS = 1000;
/** Alerts in one grouped message, and requests leased at once for a paging service. */
const GROUP_LIMIT = 200;
const PER_ALERT_LIMIT = 50;

/** NOTIFY_RETRY_DELAY, NOTIFY_RETRY_MAX_DELAY and NOTIFY_MAX_ATTEMPTS as the delivery queue takes them. */
export const notifyRetry = (
  config: Pick<Config, 'NOTIFY_RETRY_DELAY' | 'NOTIFY_RETRY_MAX_DELAY' | 'NOTIFY_MAX_ATTEMPTS'>,
): RetryPolicy =>
  retryPolicy(config.NOTIFY_RETRY_DELAY, config.NOTIFY_RETRY_MAX_DELAY, config.NOTIFY_MAX_ATTEMPTS);

/**
 * Which alerts a blackout covers now: the blackouts in force are read once (outside any
 * transaction) and matched in memory, as the receive path does.
 */
export async function blackoutsNow(
  deps: Pick<Base, 'db' | 'config'>,
): Promise<(alert: NotifiedAlert) => boolean> {
  const now = Date.now();
  const rows = (await endingAfter(deps.db, now)).filter((b) => b.startTime <= now);
  if (!rows.length) return () => false;
  return (alert) =>
    rows.some((b) => matchesBlackout(b, { ...alert, createTime: now }, deps.config.CUSTOMER_VIEWS));
}

/**
 * A message's delivery id (the webhook's `deliveryId` and X-Alertwall-Delivery, the e-mail's
 * Message-ID): the oldest queue row it tells, so a message sent again — retried, or after the
 * instance that sent it crashed — carries the same id and receivers can drop the duplicate.
 */
export function deliveryIdOf(
  receiver: Pick<ReceiverDef, 'id'>,
  items: readonly { rows: readonly QueuedRow[] }[],
) {
  const first = Math.min(...items.flatMap((i) => i.rows.map((r) => r.id)));
  return `${receiver.id}:${first}`;
}

/** A claimed group: one message's worth of a receiver's rows. */
interface Claimed {
  receiver: ReceiverDef;
  rows: readonly QueuedRow[];
}

/**
 * The delivery side of notifications for one instance, on the durable delivery queue: a lane per
 * receiver that sends one message at a time and backs the receiver off as a whole on failure.
 */
export class Worker {
  readonly queue: DeliveryQueue<Claimed>;
  readonly agents = new Agents();
  private readonly deps: Base;
  private readonly routing: Routing;
  private readonly metrics: NotificationMetrics;

  constructor(deps: Base, routing: Routing, metrics: NotificationMetrics) {
    this.deps = deps;
    this.routing = routing;
    this.metrics = metrics;
    this.queue = new DeliveryQueue<Claimed>(
      {
        name: 'notify',
        laneField: 'receiver',
        retry: notifyRetry(deps.config),
        claim: (lane) => this.claim(lane),
        deliver: (lane, { receiver, rows }) => this.deliver(lane, receiver, rows),
        renew: (ids, leaseMs) => store.renewLease(deps.db, { ids, owner: this.queue.owner, leaseMs }),
        // The receivers that have rows due, in one query for all of them.
        due: async (lanes) => {
          const now = Date.now();
          const due = await store.dueReceivers(deps.db, lanes);
          return due.filter((d) => d.dueAt <= now).map((d) => d.receiverId);
        },
      },
      { log: deps.log, pollMs: POLL_MS },
    );
    this.sync();
    routing.onChange(() => this.sync());
  }

  /** Starts polling and looks at every receiver once. */
  start(): void {
    this.queue.start();
  }

  kick(receiverId?: string): void {
    this.queue.kick(receiverId);
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    this.agents.drop();
  }

  /** One lane per known receiver; a receiver that changed gets fresh connections. */
  private sync(): void {
    this.agents.drop();
    this.queue.setLanes(this.routing.receivers.keys());
  }

  /**
   * Leases the receiver's next message (within its rate limit) under its advisory lock, so two
   * instances never split one group.
   */
  private async claim(lane: Lane): Promise<Claim<Claimed>> {
    const { db } = this.deps;
    const receiver = this.routing.receivers.get(lane.key);
    if (!receiver) return null;
    const perAlert = CAPABILITIES[receiver.type].perAlert;
    const claimed = await db.transaction(async (tx) => {
      if (!(await store.lockReceiver(tx, receiver.id)))
        return { rows: [] as readonly QueuedRow[], waitMs: 0 };
      let limit = perAlert ? (lane.isProbing ? 1 : PER_ALERT_LIMIT) : GROUP_LIMIT;
      if (receiver.enabled && receiver.rateLimit !== null) {
        const recent = await store.recentSends(tx, receiver.id);
        const budget = receiver.rateLimit - recent.n;
        if (budget <= 0)
          return { rows: [], waitMs: Math.max(100, (recent.freeAt ?? Date.now()) - Date.now()) };
        if (perAlert) limit = Math.min(limit, budget);
      }
      const rows = await store.claim(tx, {
        receiverId: receiver.id,
        owner: this.queue.owner,
        limit,
        leaseMs: LEASE_MS,
      });
      if (rows.length && receiver.enabled && receiver.rateLimit !== null)
        await store.recordSends(tx, receiver.id, requestsFor(receiver, rows.length));
      return { rows, waitMs: 0 };
    });
    if (claimed.waitMs > 0) return { waitMs: claimed.waitMs };
    if (claimed.rows.length === 0) return null;
    return { work: { receiver, rows: claimed.rows }, ids: claimed.rows.map((r) => r.id) };
  }

  /**
   * Sends one claimed group. Per alert only the newest row counts (earlier ones are folded into
   * it); an alert acknowledged or resolved before its first message went out is not mentioned at
   * all, and alarms about alerts that are no longer open — acked, closed, shelved, blacked out or
   * deleted meanwhile — are dropped.
   */
  private async deliver(lane: Lane, receiver: ReceiverDef, claimed: readonly QueuedRow[]): Promise<void> {
    const { deps, routing, metrics } = this;
    const { owner } = this.queue;
    // Blackout notices claimed with a rule's alerts go as a message of their own (notice-delivery.ts).
    const notices = claimed.filter((r) => isNoticeKind(r.kind));
    if (notices.length) {
      const { agents } = this;
      await deliverNotices(
        { deps, routing, metrics, owner, agents, stopping: this.queue.stopping },
        lane,
        receiver,
        notices,
      );
    }
    const rows = claimed.filter((r): r is AlertRow => !isNoticeKind(r.kind));
    if (!rows.length) return;
    const now = Date.now();
    // Each row's alert as it was when claimed (null once deleted).
    const current = new Map<string, NotifiedAlert>();
    for (const row of rows) if (row.current) current.set(row.alertId, row.current);
    const byAlert = new Map<string, AlertRow[]>();
    for (const row of rows) byAlert.set(row.alertId, [...(byAlert.get(row.alertId) ?? []), row]);
    const items: { item: Item; rows: AlertRow[] }[] = [];
    const dropped: number[] = [];
    const isBlackedOut = await blackoutsNow(deps);
    for (const [alertId, group] of byAlert) {
      const last = group.at(-1)!;
      const alert = current.get(alertId) ?? group.findLast((r) => r.alert)?.alert;
      if (!alert) {
        dropped.push(...group.map((r) => r.id));
        continue;
      }
      // A customer's receiver hears only of that customer's alerts, even of rows queued before it
      // moved to that customer (tests/api/notifications-tenancy.test.ts).
      let keep = receiver.enabled && wants(receiver, last.kind) && isOwnAlert(receiver, alert);
      if (keep && !isAlarm(last.kind) && group.some((r) => r.kind === 'trigger')) keep = false;
      if (keep && isAlarm(last.kind)) {
        keep = current.has(alertId) && statusClass(alert.status) === 'open' && !isBlackedOut(alert);
      }
      if (keep) items.push({ item: { kind: last.kind, alert }, rows: group });
      else dropped.push(...group.map((r) => r.id));
    }
    const ruleId = rows[0]!.ruleId;
    if (dropped.length) {
      await store.remove(deps.db, dropped, owner);
      metrics.sent.inc({ receiver_type: receiver.type, outcome: 'suppressed' }, dropped.length);
      const gone = new Set(dropped);
      const entries = [...byAlert.values()]
        .filter((group) => gone.has(group[0]!.id))
        .map((group) => {
          const alert = current.get(group[0]!.alertId) ?? group.findLast((r) => r.alert)?.alert;
          return entryOf(group, alert ?? null, 0);
        });
      await noteAttempt(deps, this.attemptOf(receiver, ruleId, entries, 'suppressed', null));
    }
    if (!items.length) return;
    const message: Message = {
      items: items.map((i) => i.item),
      rule: routing.rulesById.get(ruleId)?.name ?? null,
      receiver: receiver.name,
      deliveryId: deliveryIdOf(receiver, items),
      links: linksOf(deps.config),
    };
    const endTimer = metrics.duration.startTimer({ receiver_type: receiver.type });
    let results: Sent[];
    try {
      results = await sendMessage(receiver, message, {
        config: deps.config,
        timeoutMs: deps.config.NOTIFY_TIMEOUT * 1000,
        stop: this.queue.stopping,
        agents: this.agents,
        now,
      });
    } catch (err) {
      // Settings that no longer parse (edited by hand in the database): nothing would ever send.
      results = [
        { items: message.items, attempt: { outcome: 'rejected', status: 0, error: (err as Error).message } },
      ];
    }
    endTimer();
    for (const { items: sentItems, attempt } of results) {
      const own = items.filter((i) => sentItems.includes(i.item));
      await this.settle(lane, receiver, message, own, attempt);
    }
  }

  /** What the delivery history and the receiver's health are told of an attempt (or of a suppression). */
  private attemptOf(
    receiver: ReceiverDef,
    ruleId: string,
    entries: DeliveryEntry[],
    outcome: AttemptRecord['outcome'],
    error: string | null,
  ): AttemptRecord {
    const rule = this.routing.rulesById.get(ruleId);
    return {
      receiver: { id: receiver.id, name: receiver.name, type: receiver.type, customer: receiver.customer },
      rule: { id: ruleId, name: rule?.name ?? ruleId },
      outcome,
      error,
      entries,
      health: outcome === 'suppressed' ? null : outcome === 'sent' ? 'success' : 'failure',
    };
  }

  private async settle(
    lane: Lane,
    receiver: ReceiverDef,
    message: Message,
    own: { item: Item; rows: AlertRow[] }[],
    attempt: Attempt,
  ): Promise<void> {
    const { deps, metrics } = this;
    const { owner } = this.queue;
    const { db, config, log } = deps;
    const ids = own.flatMap((i) => i.rows.map((r) => r.id));
    const attempts = Math.max(...own.flatMap((i) => i.rows.map((r) => r.attempts))) + 1;
    const verdict = lane.record(attempt, attempts);
    if (verdict.outcome === 'stopped') return store.release(db, ids, owner);
    const error = 'error' in attempt ? attempt.error : '';
    // The history and the receiver's health hear of every attempt, after its rows are settled.
    const outcome =
      verdict.outcome === 'delivered' ? 'sent' : verdict.outcome === 'retry' ? 'failed' : verdict.outcome;
    const entries = own.map(({ item, rows }) => entryOf(rows, item.alert, 1));
    const ruleId = own[0]!.rows[0]!.ruleId;
    const noted = () =>
      noteAttempt(
        deps,
        this.attemptOf(receiver, ruleId, entries, outcome, outcome === 'sent' ? null : error),
      );
    const who = `${receiver.name} (${receiver.type})`;
    const count = (outcome: string) =>
      metrics.sent.inc({ receiver_type: receiver.type, outcome }, own.length);
    /** The entries, and (`settled`) the rows removed from the queue in the same statement. */
    const history = (text: (item: Item) => string, settled = true) =>
      store.addHistory(
        db,
        own.map(({ item }) => ({ alertId: item.alert.id, id: randomUUID(), text: text(item) })),
        config.HISTORY_LIMIT,
        settled ? { ids, owner } : undefined,
      );
    const facts = { receiver: receiver.name, type: receiver.type, rule: message.rule, alerts: own.length };
    switch (verdict.outcome) {
      case 'delivered':
        await history((i) => `${who}: ${i.kind} sent`);
        await noted();
        count('sent');
        log.debug(facts, 'notify.sent');
        return;
      case 'rejected':
        await history((i) => `${who}: ${i.kind} rejected (${error}), not retried`);
        await noted();
        count('rejected');
        log.warn({ ...facts, error }, 'notify.rejected: the service refused the message');
        return;
      case 'expired':
        await history((i) => `${who}: ${i.kind} failed (${error}), gave up after ${attempts} attempts`);
        await noted();
        count('expired');
        log.warn({ ...facts, attempts, error }, 'notify.expired: gave up after NOTIFY_MAX_ATTEMPTS');
        return;
      case 'retry':
        await store.retryLater(db, { ids, owner, delayMs: verdict.delayMs, error });
        await noted();
        count('failed');
        // One entry when delivery starts failing, one for the outcome: retries do not fill the history.
        if (attempts === 1) await history((i) => `${who}: ${i.kind} failed (${error}), retrying`, false);
        log.info({ ...facts, attempts, error }, 'notify.failed: will retry');
        return;
    }
  }
}

/**
 * One alert's entry in the delivery history: its newest row's kind, and the attempt `next` after
 * those its rows had (1: the attempt just made; 0: none, for a message dropped before sending).
 */
function entryOf(rows: readonly AlertRow[], alert: NotifiedAlert | null, next: number): DeliveryEntry {
  const last = rows.at(-1)!;
  return {
    alertId: last.alertId,
    resource: alert?.resource ?? null,
    event: alert?.event ?? null,
    kind: deliveryKind(last.kind),
    attempt: Math.max(...rows.map((r) => r.attempts)) + next,
  };
}

const isNoticeKind = (kind: string) => (NOTICE_KINDS as readonly string[]).includes(kind);

/** A queued row about an alert (not a blackout notice). */
type AlertRow = QueuedRow & { kind: Exclude<QueuedRow['kind'], NoticeKind> };

/** Whether a receiver may hear of an alert: a global one of any, a customer's of its customer's only. */
const isOwnAlert = (receiver: ReceiverDef, alert: NotifiedAlert) =>
  receiver.customer === null || receiver.customer === alert.customer;
