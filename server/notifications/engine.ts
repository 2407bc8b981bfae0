import type { NotificationHealth } from '../../shared/notifications.ts';
import type { Base } from '../deps.ts';
import type { NotificationStatus, Notifier } from '../delivery/services.ts';
import * as store from '../db/notifications.ts';
import type { Trigger } from '../db/notifications.ts';
import { notifiedAlert } from '../domain/alert-fields.ts';
import type { AlertRecord } from '../domain/alert-types.ts';
import { KeyedBatcher } from '../domain/keyed-batcher.ts';
import type { ReceiptAlong, TriggerAlong } from '../domain/plugin-hooks.ts';
import { isVisible } from './catalog.ts';
import { healthOfReceivers, summarize } from './health.ts';
import { createNotificationMetrics, type NotificationMetrics } from './metrics.ts';
import { Routing } from './routing.ts';
import type { StatusClass } from './rules.ts';
import { Scheduler } from './schedule.ts';
import { NoticeWatch } from './notices.ts';
import { notificationStatus } from './status.ts';
import { Worker } from './worker.ts';

/**
 * Notifications on one instance (`deps.notifier`, built in boot.ts): the routing copy, the trigger
 * writer, the scheduler and the delivery worker.
 */
export class Engine implements Notifier {
  readonly routing: Routing;
  readonly metrics: NotificationMetrics;
  readonly worker: Worker;
  readonly scheduler: Scheduler;
  readonly notices: NoticeWatch;
  private readonly deps: Base;
  /**
   * Triggers written apart from the receipt (only when another plugin's post-receive hook runs
   * before ours): awaited by the receipt, and those that arrive while one write runs go together
   * in the next, so an alert's changes keep their order and nothing waits in memory unwritten.
   */
  private readonly writer = new KeyedBatcher<Trigger[], void>(async (batches) => {
    await this.write(batches.flat());
    return batches.map(() => undefined);
  });

  constructor(deps: Base, routing: Routing) {
    this.deps = deps;
    this.routing = routing;
    this.metrics = createNotificationMetrics(deps, (id) => routing.receivers.get(id)?.type ?? 'unknown');
    this.worker = new Worker(deps, routing, this.metrics);
    this.scheduler = new Scheduler(deps, routing, (id) => this.worker.kick(id));
    this.notices = new NoticeWatch(deps, routing, (id) => this.worker.kick(id));
  }

  /**
   * The rules that fire for an alert as a receipt will store it (new, severity or status changed,
   * and open): matched in memory, and written by the receipt's own statement with the alert
   * (db/receipt-along.ts), so they commit together. Nothing at all when no rule matches.
   */
  plan(record: AlertRecord, cls: StatusClass): TriggerAlong[] {
    if (this.routing.isIdle || cls !== 'open') return [];
    return this.routing.triggersFor(notifiedAlert(record)).map(({ alert: _alert, ...t }) => t);
  }

  /** After the receipt's statement: rows due at once go now; acks and closes go to the scheduler. */
  followed(record: AlertRecord, cls: StatusClass, along: ReceiptAlong): void {
    if (cls === 'ack' || cls === 'closed') {
      if (!this.routing.isIdle) this.scheduler.changed(record.id);
      return;
    }
    for (const t of along.triggers)
      for (const target of t.targets) if (target.waitMs === 0) this.worker.kick(target.receiverId);
  }

  /**
   * A stored alert changed in a way people may need to hear about, told after its write (another
   * plugin's post-receive hook ran first). Open alerts go through the rules in memory and a match is
   * written before the receipt answers; acked or closed alerts go to the scheduler.
   */
  async alertChanged(record: AlertRecord, cls: StatusClass): Promise<void> {
    // Without rules there is nothing routed, and nothing remembered to ack or resolve.
    if (this.routing.isIdle) return;
    if (cls === 'ack' || cls === 'closed') return this.scheduler.changed(record.id);
    if (cls !== 'open') return;
    const triggers = this.routing.triggersFor(notifiedAlert(record));
    if (!triggers.length) return;
    await this.writer.submit('fire', triggers);
  }

  private async write(triggers: Trigger[]): Promise<void> {
    // One row per rule and alert in a statement: the newest change of an alert wins.
    const latest = new Map(triggers.map((t) => [`${t.ruleId} ${t.alert.id}`, t]));
    try {
      await store.fire(this.deps.db, [...latest.values()]);
    } catch (err) {
      for (const t of latest.values()) {
        for (const target of t.targets) {
          const type = this.routing.receivers.get(target.receiverId)?.type ?? 'unknown';
          this.metrics.sent.inc({ receiver_type: type, outcome: 'lost' });
        }
      }
      this.deps.log.error({ err, alerts: latest.size }, 'notify.lost: could not queue notifications');
      return;
    }
    // Rows due at once (no group wait) go now; the rest are found by the worker's poll when due.
    for (const t of latest.values())
      for (const target of t.targets) if (target.waitMs === 0) this.worker.kick(target.receiverId);
  }

  /** Starts delivery, the scheduler and the routing copy's version poll. */
  start(): void {
    this.routing.start();
    this.worker.start();
    this.scheduler.start();
    this.notices.start();
  }

  reload(): Promise<void> {
    return this.routing.load();
  }

  status(customers: readonly string[] | null): Promise<NotificationStatus> {
    return notificationStatus(
      this.deps.db,
      { routing: this.routing, queue: this.worker.queue, metrics: this.metrics },
      customers,
    );
  }

  sees(customers: readonly string[] | null, id: string): boolean {
    if (customers === null) return true;
    const owner = this.routing.receivers.get(id)?.customer ?? null;
    return owner !== null && customers.includes(owner);
  }

  async healthFor(): Promise<(customers: readonly string[] | null) => NotificationHealth> {
    await this.routing.refresh();
    const receivers = [...this.routing.receivers.values()];
    const health = await healthOfReceivers(
      this.deps.db,
      receivers,
      this.routing.rules.map((r) => r.def),
    );
    return (customers) =>
      summarize(
        receivers.filter((r) => isVisible({ customers }, r.customer)),
        health,
      );
  }

  async stop(): Promise<void> {
    this.routing.stop();
    await this.notices.stop();
    await this.scheduler.stop();
    await this.worker.stop();
  }
}

/**
 * Loads receivers and rules (refusing bad settings-made ones) and builds the engine; nothing is
 * sent or scheduled before `start()`.
 */
export async function createNotifier(deps: Base): Promise<Engine> {
  const routing = new Routing(deps);
  await routing.load();
  return new Engine(deps, routing);
}
