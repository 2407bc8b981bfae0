import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { endingAfter } from '../db/blackouts.ts';
import { matchesBlackout } from '../domain/blackouts.ts';
import * as store from '../db/notifications.ts';
import type { NotifiedAlert, QueuedRow } from '../db/notifications.ts';
import type { Attempt } from '../forwarding/outbound.ts';
import type { NotificationMetrics } from './metrics.ts';
import { CAPABILITIES, wants, type ReceiverDef } from './receivers.ts';
import { isAlarm, linksOf, type Item, type Message } from './render/common.ts';
import type { Routing } from './routing.ts';
import { statusClass } from './rules.ts';
import { Agents, requestsFor, sendMessage, type Sent } from './senders/index.ts';

/** How often the queue is looked at for due messages (other instances' rows, retries, group waits). */
const POLL_MS = 1000;
/**
 * How long claimed rows stay this instance's without a word from it. The worker renews the lease
 * every RENEW_MS while it sends, so a slow send is never taken over by another instance; a crashed
 * instance's rows come due again within one lease (and the next poll): that is how long a receiver
 * may wait for a message sent again after a crash (tests/api/notifications-redelivery.test.ts).
 */
export const LEASE_MS = 6_000;
const RENEW_MS = LEASE_MS / 3;
/** Alerts in one grouped message, and requests leased at once for a paging service. */
const GROUP_LIMIT = 200;
const PER_ALERT_LIMIT = 50;

/** Delay before attempt `n + 1` after `n` failures: doubling from NOTIFY_RETRY_DELAY up to NOTIFY_RETRY_MAX_DELAY. */
export function backoffMs(failures: number, config: Deps['config']): number {
  const base = config.NOTIFY_RETRY_DELAY * 1000;
  const max = config.NOTIFY_RETRY_MAX_DELAY * 1000;
  return Math.round(Math.min(max, base * 2 ** Math.max(0, Math.min(failures - 1, 30))));
}

/**
 * Which alerts a blackout covers now: the blackouts in force are read once (outside any
 * transaction) and matched in memory, as the receive path does.
 */
export async function blackoutsNow(deps: Deps): Promise<(alert: NotifiedAlert) => boolean> {
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

/** This instance's view of a receiver, for /management/status. */
export interface ReceiverState {
  failures: number;
  pausedUntil: number;
  lastError: string | null;
  lastErrorTime: number | null;
  lastSentTime: number | null;
}

/** Delivers one receiver's queue: one message at a time, backing the receiver off as a whole on failure. */
class ReceiverLoop {
  readonly state: ReceiverState = {
    failures: 0,
    pausedUntil: 0,
    lastError: null,
    lastErrorTime: null,
    lastSentTime: null,
  };
  private running: Promise<void> | null = null;
  private again = false;
  private wake: NodeJS.Timeout | null = null;
  private readonly worker: Worker;
  readonly receiverId: string;

  constructor(worker: Worker, receiverId: string) {
    this.worker = worker;
    this.receiverId = receiverId;
  }

  kick(): void {
    if (this.worker.stopping.aborted) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((err: unknown) =>
        this.worker.deps.log.error({ err, receiver: this.receiverId }, 'notify.loop_failed'),
      )
      .finally(() => {
        this.running = null;
      });
  }

  async stop(): Promise<void> {
    if (this.wake) clearTimeout(this.wake);
    await this.running;
  }

  private wakeIn(ms: number) {
    if (this.wake) clearTimeout(this.wake);
    this.wake = setTimeout(() => {
      this.wake = null;
      this.kick();
    }, ms);
    this.wake.unref();
  }

  private async drain(): Promise<void> {
    const { deps, owner, stopping, routing } = this.worker;
    do {
      this.again = false;
      for (;;) {
        if (stopping.aborted) return;
        const waitMs = this.state.pausedUntil - Date.now();
        if (waitMs > 0) return this.wakeIn(waitMs);
        const receiver = routing.receivers.get(this.receiverId);
        if (!receiver) return;
        const perAlert = CAPABILITIES[receiver.type].perAlert;
        const probing = this.state.failures > 0;
        const claimed = await deps.db.transaction(async (tx) => {
          if (!(await store.lockReceiver(tx, receiver.id)))
            return { rows: [] as readonly QueuedRow[], waitMs: 0 };
          let limit = perAlert ? (probing ? 1 : PER_ALERT_LIMIT) : GROUP_LIMIT;
          if (receiver.enabled && receiver.rateLimit !== null) {
            const recent = await store.recentSends(tx, receiver.id);
            const budget = receiver.rateLimit - recent.n;
            if (budget <= 0)
              return { rows: [], waitMs: Math.max(100, (recent.freeAt ?? Date.now()) - Date.now()) };
            if (perAlert) limit = Math.min(limit, budget);
          }
          const rows = await store.claim(tx, {
            receiverId: receiver.id,
            owner,
            limit,
            leaseMs: LEASE_MS,
          });
          if (rows.length && receiver.enabled && receiver.rateLimit !== null)
            await store.recordSends(tx, receiver.id, requestsFor(receiver, rows.length));
          return { rows, waitMs: 0 };
        });
        if (claimed.waitMs > 0) return this.wakeIn(claimed.waitMs);
        if (claimed.rows.length === 0) break;
        const renewing = this.keepLeased(claimed.rows.map((r) => r.id));
        try {
          await this.deliver(receiver, claimed.rows);
        } finally {
          clearInterval(renewing);
        }
      }
    } while (this.again);
  }

  /** Renews the lease on `ids` every RENEW_MS until the caller clears the timer (one renewal at a time). */
  private keepLeased(ids: readonly number[]): NodeJS.Timeout {
    const { deps, owner } = this.worker;
    let renewing = false;
    const timer = setInterval(() => {
      if (renewing) return;
      renewing = true;
      store
        .renewLease(deps.db, { ids, owner, leaseMs: LEASE_MS })
        .catch((err: unknown) =>
          deps.log.warn({ error: (err as Error).message, receiver: this.receiverId }, 'notify.renew_failed'),
        )
        .finally(() => (renewing = false));
    }, RENEW_MS);
    timer.unref();
    return timer;
  }

  /**
   * Sends one claimed group. Per alert only the newest row counts (earlier ones are folded into
   * it); an alert acknowledged or resolved before its first message went out is not mentioned at
   * all, and alarms about alerts that are no longer open — acked, closed, shelved, blacked out or
   * deleted meanwhile — are dropped.
   */
  private async deliver(receiver: ReceiverDef, rows: readonly QueuedRow[]): Promise<void> {
    const { deps, owner, routing, metrics } = this.worker;
    const now = Date.now();
    // Each row's alert as it was when claimed (null once deleted).
    const current = new Map<string, NotifiedAlert>();
    for (const row of rows) if (row.current) current.set(row.alertId, row.current);
    const byAlert = new Map<string, QueuedRow[]>();
    for (const row of rows) byAlert.set(row.alertId, [...(byAlert.get(row.alertId) ?? []), row]);
    const items: { item: Item; rows: QueuedRow[] }[] = [];
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
    if (dropped.length) {
      await store.remove(deps.db, dropped, owner);
      metrics.sent.inc({ receiver_type: receiver.type, outcome: 'suppressed' }, dropped.length);
    }
    if (!items.length) return;
    const ruleId = rows[0]!.ruleId;
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
        stop: this.worker.stopping,
        agents: this.worker.agents,
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
      await this.settle(receiver, message, own, attempt);
    }
  }

  private async settle(
    receiver: ReceiverDef,
    message: Message,
    own: { item: Item; rows: QueuedRow[] }[],
    attempt: Attempt,
  ): Promise<void> {
    const { deps, owner, metrics } = this.worker;
    const { db, config, log } = deps;
    const ids = own.flatMap((i) => i.rows.map((r) => r.id));
    if (attempt.outcome === 'stopped') return store.release(db, ids, owner);
    const now = Date.now();
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
    switch (attempt.outcome) {
      case 'delivered':
        await history((i) => `${who}: ${i.kind} sent`);
        count('sent');
        this.state.failures = 0;
        this.state.pausedUntil = 0;
        this.state.lastSentTime = now;
        log.debug(facts, 'notify.sent');
        return;
      case 'rejected':
        await history((i) => `${who}: ${i.kind} rejected (${attempt.error}), not retried`);
        count('rejected');
        this.noteError(attempt.error, now);
        log.warn({ ...facts, error: attempt.error }, 'notify.rejected: the service refused the message');
        return;
      case 'failed': {
        const attempts = Math.max(...own.flatMap((i) => i.rows.map((r) => r.attempts))) + 1;
        if (this.state.pausedUntil <= now) {
          this.state.failures += 1;
          this.state.pausedUntil = now + backoffMs(this.state.failures, config);
        }
        this.noteError(attempt.error, now);
        if (attempts >= config.NOTIFY_MAX_ATTEMPTS) {
          await history(
            (i) => `${who}: ${i.kind} failed (${attempt.error}), gave up after ${attempts} attempts`,
          );
          count('expired');
          log.warn(
            { ...facts, attempts, error: attempt.error },
            'notify.expired: gave up after NOTIFY_MAX_ATTEMPTS',
          );
          return;
        }
        await store.retryLater(db, {
          ids,
          owner,
          delayMs: backoffMs(attempts, config),
          error: attempt.error,
        });
        count('failed');
        // One entry when delivery starts failing, one for the outcome: retries do not fill the history.
        if (attempts === 1)
          await history((i) => `${who}: ${i.kind} failed (${attempt.error}), retrying`, false);
        log.info({ ...facts, attempts, error: attempt.error }, 'notify.failed: will retry');
        return;
      }
    }
  }

  private noteError(error: string, now: number) {
    this.state.lastError = error;
    this.state.lastErrorTime = now;
  }
}

/** Whether a receiver may hear of an alert: a global one of any, a customer's of its customer's only. */
const isOwnAlert = (receiver: ReceiverDef, alert: NotifiedAlert) =>
  receiver.customer === null || receiver.customer === alert.customer;

/** The delivery side for one instance: a loop per receiver, polled and kicked. */
export class Worker {
  readonly owner = randomUUID();
  private readonly controller = new AbortController();
  readonly stopping = this.controller.signal;
  readonly loops = new Map<string, ReceiverLoop>();
  readonly agents = new Agents();
  private readonly timer: NodeJS.Timeout;
  readonly deps: Deps;
  readonly routing: Routing;
  readonly metrics: NotificationMetrics;

  constructor(deps: Deps, routing: Routing, metrics: NotificationMetrics) {
    this.deps = deps;
    this.routing = routing;
    this.metrics = metrics;
    this.sync();
    routing.onChange(() => this.sync());
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  /** One loop per known receiver; a receiver that changed gets fresh connections. */
  private sync(): void {
    for (const [id, loop] of this.loops) {
      if (!this.routing.receivers.has(id)) {
        void loop.stop();
        this.loops.delete(id);
      }
    }
    this.agents.drop();
    for (const id of this.routing.receivers.keys()) {
      if (!this.loops.has(id)) this.loops.set(id, new ReceiverLoop(this, id));
    }
  }

  /** Kicks the receivers that have rows due (one query for all of them). */
  private async poll(): Promise<void> {
    if (this.stopping.aborted) return;
    try {
      const now = Date.now();
      for (const { receiverId, dueAt } of await store.dueReceivers(this.deps.db, [...this.loops.keys()])) {
        if (dueAt <= now) this.kick(receiverId);
      }
    } catch (err) {
      this.deps.log.warn({ error: (err as Error).message }, 'notify.poll_failed');
    }
  }

  kick(receiverId?: string): void {
    if (receiverId !== undefined) this.loops.get(receiverId)?.kick();
    else for (const loop of this.loops.values()) loop.kick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.controller.abort();
    await Promise.all([...this.loops.values()].map((l) => l.stop()));
    this.agents.drop();
  }
}
