import type { Base } from '../deps.ts';
import * as store from '../db/notifications.ts';
import type { Enqueued, StateRow } from '../db/notifications.ts';
import type { Routing } from './routing.ts';
import { statusClass } from './rules.ts';
import { blackoutsNow } from './worker.ts';

/** States handled per transaction. */
const BATCH = 200;
/** While an alert is shelved or blacked out, its due reminders and escalations are looked at again after this. */
const SUPPRESSED_RETRY_MS = 60_000;

/**
 * Keeps each rule's record of an alert in step with the alert (docs/notifications.md, "After the
 * first message"): an ack passes on the ack and stops reminders and escalation, a close or a
 * deletion passes on a resolve and forgets the alert, an unack starts them again; reminders and
 * escalation steps go out when due. Alerts changed through a hook are handled at once; a sweep
 * every NOTIFY_SWEEP_INTERVAL seconds finds what is due and the states of alerts whose status
 * changed or that were deleted (marked in the database by migration 0043's triggers), so also what
 * changed without a hook. Every state row is locked while it is handled, so instances never handle
 * one twice.
 */
export class Scheduler {
  private readonly pending = new Set<string>();
  private running: Promise<void> | null = null;
  private again = false;
  private sweepDue = true;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly deps: Base;
  private readonly routing: Routing;
  private readonly kickReceiver: (id: string) => void;

  constructor(deps: Base, routing: Routing, kickReceiver: (id: string) => void) {
    this.deps = deps;
    this.routing = routing;
    this.kickReceiver = kickReceiver;
  }

  /** Sweeps now and every NOTIFY_SWEEP_INTERVAL seconds. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      this.sweepDue = true;
      this.kick();
    }, this.deps.config.NOTIFY_SWEEP_INTERVAL * 1000);
    this.timer.unref();
    this.kick();
  }

  /** An alert changed (an action, a closing receipt, a deletion): look at its states soon. */
  changed(alertId: string): void {
    this.pending.add(alertId);
    this.kick();
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run()
      .catch((err: unknown) => this.deps.log.error({ err }, 'notify.schedule_failed'))
      .finally(() => {
        this.running = null;
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      while (this.pending.size && !this.stopped) {
        const ids = [...this.pending].slice(0, BATCH);
        for (const id of ids) this.pending.delete(id);
        await this.handle((tx) => store.lockStatesOf(tx, ids));
      }
      if (this.sweepDue && !this.stopped) {
        this.sweepDue = false;
        let n: number;
        do {
          n = await this.handle((tx) => store.lockDueStates(tx, { limit: BATCH }));
        } while (n === BATCH && !this.stopped);
      }
    } while (this.again && !this.stopped);
  }

  /** Locks some states, applies each, queues the messages; gives how many were looked at. */
  private async handle(
    select: (tx: Parameters<Parameters<Base['db']['transaction']>[0]>[0]) => Promise<readonly StateRow[]>,
  ): Promise<number> {
    const queued: Enqueued[] = [];
    const isBlackedOut = await blackoutsNow(this.deps);
    const n = await this.deps.db.transaction(async (tx) => {
      const states = await select(tx);
      for (const s of states) await this.apply(tx, s, queued, isBlackedOut);
      await store.enqueue(tx, queued);
      return states.length;
    });
    for (const id of new Set(queued.map((q) => q.receiverId))) this.kickReceiver(id);
    return n;
  }

  private async apply(
    tx: Parameters<Parameters<Base['db']['transaction']>[0]>[0],
    s: StateRow,
    queued: Enqueued[],
    isBlackedOut: (alert: NonNullable<StateRow['alert']>) => boolean,
  ): Promise<void> {
    const rule = this.routing.rulesById.get(s.ruleId);
    if (!rule) return store.deleteState(tx, s.ruleId, s.alertId);
    const alert = s.current ?? s.alert;
    // Gone without a copy (alerts truncated: no row trigger wrote one): nothing to tell it from.
    if (!alert) return store.deleteState(tx, s.ruleId, s.alertId);
    const cls = s.current ? statusClass(s.current.status) : 'closed';
    const tell = (names: readonly string[], kind: Enqueued['kind'], waitMs = rule.groupWait * 1000) => {
      for (const r of this.routing.receiversFor(names, kind, alert.customer))
        queued.push({ receiverId: r.id, ruleId: rule.id, kind, alert, waitMs });
    };
    const left = (at: number | null) => (at === null ? null : Math.max(0, at - s.now));
    const isDue = (at: number | null) => at !== null && at <= s.now;
    const next = {
      receivers: s.receivers,
      step: s.step,
      repeatInMs: left(s.repeatAt),
      escalateInMs: left(s.escalateAt),
    };
    const save = (phase: 'firing' | 'acked') =>
      store.updateState(tx, { ruleId: s.ruleId, alertId: s.alertId, phase, alert, ...next });

    if (cls === 'closed') {
      tell(s.receivers, 'resolve');
      return store.deleteState(tx, s.ruleId, s.alertId);
    }
    if (cls === 'ack') {
      if (s.phase === 'firing') tell(s.receivers, 'ack');
      next.repeatInMs = null;
      next.escalateInMs = null;
      return save('acked');
    }
    const escalation = rule.escalations[s.step];
    if (s.phase === 'acked') {
      // Unacknowledged: paging services get the incident back; reminders and escalation restart.
      if (cls === 'open') tell(s.receivers, 'trigger', 0);
      next.repeatInMs = rule.repeatInterval > 0 ? rule.repeatInterval * 1000 : null;
      next.escalateInMs = escalation ? escalation.after * 1000 : null;
      return save('firing');
    }
    const repeatDue = isDue(s.repeatAt);
    const escalateDue = isDue(s.escalateAt);
    if (!repeatDue && !escalateDue) return save('firing');
    if (cls === 'quiet' || isBlackedOut(alert)) {
      if (repeatDue) next.repeatInMs = SUPPRESSED_RETRY_MS;
      if (escalateDue) next.escalateInMs = SUPPRESSED_RETRY_MS;
      return save('firing');
    }
    if (escalateDue) {
      if (escalation) {
        tell(escalation.receivers, 'escalate', 0);
        next.receivers = [...new Set([...s.receivers, ...escalation.receivers])];
        next.step = s.step + 1;
        const following = rule.escalations[next.step];
        next.escalateInMs = following ? Math.max(0, following.after - escalation.after) * 1000 : null;
      } else next.escalateInMs = null;
    }
    if (repeatDue) {
      if (rule.repeatInterval > 0) {
        tell(s.receivers, 'repeat', 0);
        next.repeatInMs = rule.repeatInterval * 1000;
      } else next.repeatInMs = null;
    }
    return save('firing');
  }
}
