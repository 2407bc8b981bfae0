import type { LiveAlert } from '../../../../shared/alerts.ts';
import { applyPatch, type AlertPatch } from '../../../../shared/live-patch.ts';

/**
 * Every state the server sent a view for this client, on the page shown or not, until the alert
 * leaves the view: what patches apply to (docs/live.md, "Patches"). It follows the messages as they
 * arrive, whatever the page does with them (held, filed on another page, stale by `seq`), since
 * that is what the server counts on the socket holding.
 */
export class SentAlerts {
  private readonly byId = new Map<string, LiveAlert>();

  /** A snapshot: the client holds exactly its alerts. */
  reset(alerts: readonly LiveAlert[]): void {
    this.byId.clear();
    for (const a of alerts) this.byId.set(a.id, a);
  }

  /** A full state. */
  full(alert: LiveAlert): void {
    this.byId.set(alert.id, alert);
  }

  /** The state a patch describes, or null when no state it applies to was sent (then resubscribe). */
  patch(patch: AlertPatch): LiveAlert | null {
    const base = this.byId.get(patch.id);
    if (!base) return null;
    const next = applyPatch(base, patch);
    this.byId.set(next.id, next);
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
