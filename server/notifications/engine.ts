import type { Deps } from '../deps.ts';
import * as store from '../db/notifications.ts';
import type { NotifiedAlert, Trigger } from '../db/notifications.ts';
import type { AlertRecord } from '../domain/alert-types.ts';
import { notificationMetrics, type NotificationMetrics } from './metrics.ts';
import { Routing } from './routing.ts';
import { Scheduler } from './schedule.ts';
import { Worker } from './worker.ts';

/** The alert as messages tell it, from a stored record. */
export function notifiedAlert(a: AlertRecord): NotifiedAlert {
  return {
    id: a.id,
    resource: a.resource,
    event: a.event,
    environment: a.environment,
    severity: a.severity,
    status: a.status,
    service: a.service,
    group: a.group,
    value: a.value,
    text: a.text,
    tags: a.tags,
    attributes: a.attributes,
    origin: a.origin,
    type: a.type,
    customer: a.customer,
    duplicateCount: a.duplicateCount,
    createTime: a.createTime,
    lastReceiveTime: a.lastReceiveTime,
  };
}

/**
 * Triggers wait this long in memory to be written together: at saturation one statement carries a
 * few dozen alerts instead of one, and receipts never wait for it.
 */
const FLUSH_MS = 25;

/** Notifications on one instance: the routing copy, the trigger writer, the scheduler and the delivery worker. */
export class Engine {
  readonly routing: Routing;
  readonly metrics: NotificationMetrics;
  readonly worker: Worker;
  readonly scheduler: Scheduler;
  private readonly deps: Deps;
  private buffer: Trigger[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  /** The write in progress: writes run one after another, so an alert's changes keep their order. */
  private writing: Promise<void> = Promise.resolve();

  constructor(deps: Deps, routing: Routing) {
    this.deps = deps;
    this.routing = routing;
    this.metrics = notificationMetrics(deps, (id) => routing.receivers.get(id)?.type ?? 'unknown');
    this.worker = new Worker(deps, routing, this.metrics);
    this.scheduler = new Scheduler(deps, routing, (id) => this.worker.kick(id));
  }

  /**
   * A stored alert changed in a way people may need to hear about (new, severity or status
   * changed). Open alerts go through the rules in memory — nothing touches the database unless a
   * rule matches, and then not on the receipt's time: triggers are written FLUSH_MS later, together.
   * Acked or closed alerts go to the scheduler, which knows what was said about them.
   */
  alertChanged(record: AlertRecord, cls: 'open' | 'ack' | 'closed' | 'quiet'): void {
    // Without rules there is nothing routed, and nothing remembered to ack or resolve.
    if (this.routing.isIdle) return;
    if (cls === 'ack' || cls === 'closed') return this.scheduler.changed(record.id);
    if (cls !== 'open') return;
    const triggers = this.routing.triggersFor(notifiedAlert(record));
    if (!triggers.length) return;
    this.buffer.push(...triggers);
    this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what is buffered (after any write in progress). */
  flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(() => (batch.length ? this.write(batch) : undefined));
    return this.writing;
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

  async stop(): Promise<void> {
    await this.flush();
    this.routing.stop();
    await this.scheduler.stop();
    await this.worker.stop();
  }
}

const running = new WeakMap<Deps, Engine>();

/** This instance's notifications, once started. */
export const engineOf = (deps: Deps): Engine | undefined => running.get(deps);

/** Loads receivers and rules (refusing bad settings-made ones) and starts delivery and the scheduler. */
export async function startNotifications(deps: Deps): Promise<{ stop(): Promise<void> }> {
  const routing = new Routing(deps);
  await routing.load();
  routing.start();
  const engine = new Engine(deps, routing);
  running.set(deps, engine);
  engine.worker.kick();
  engine.scheduler.kick();
  return {
    stop: async () => {
      running.delete(deps);
      await engine.stop();
    },
  };
}
