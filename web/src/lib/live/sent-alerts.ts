import type { LiveAlert } from '../../../../shared/alerts.ts';
import { applyPatch, type AlertPatch } from '../../../../shared/live-patch.ts';

/**
 * States kept at most: more than the server's change buffer holds by default (LIVE_BUFFER_SIZE,
 * 10,000), and the server patches only against a state still in its buffer, so the oldest ones can
 * go: a wall left open for weeks on a view of 100,000 alerts must not end up holding all of them.
 * A patch whose base was let go makes the page resubscribe (correct, only slower).
 */
export const SENT_LIMIT = 20_000;

/**
 * The states the server sent a view for this client, on the page shown or not, until the alert
 * leaves the view (the most recently sent SENT_LIMIT): what patches apply to (docs/live.md,
 * "Patches"). It follows the messages as they arrive, whatever the page does with them (held,
 * filed on another page, stale by `seq`), since that is what the server counts on the socket holding.
 */
export class SentAlerts {
  private readonly byId = new Map<string, LiveAlert>();
  private readonly limit: number;

  constructor(limit = SENT_LIMIT) {
    this.limit = limit;
  }

  /** Keeps `alert` as the most recently sent state (a Map iterates in insertion order). */
  private keep(alert: LiveAlert): void {
    this.byId.delete(alert.id);
    this.byId.set(alert.id, alert);
    if (this.byId.size > this.limit) this.byId.delete(this.byId.keys().next().value!);
  }

  /** A snapshot: the client holds exactly its alerts. */
  reset(alerts: readonly LiveAlert[]): void {
    this.byId.clear();
    for (const a of alerts) this.keep(a);
  }

  /** A full state. */
  full(alert: LiveAlert): void {
    this.keep(alert);
  }

  /** The state a patch describes, or null when no state it applies to was sent (then resubscribe). */
  patch(patch: AlertPatch): LiveAlert | null {
    const base = this.byId.get(patch.id);
    if (!base) return null;
    const next = applyPatch(base, patch);
    this.keep(next);
    return next;
  }

  /** The alert left the view. */
  remove(id: string): void {
    this.byId.delete(id);
  }

  get size(): number {
    return this.byId.size;
  }
}
