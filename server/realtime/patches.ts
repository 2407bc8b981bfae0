import type { LiveAlert } from '../../shared/alerts.ts';
import { diffAlert, type AlertPatch } from '../../shared/live-patch.ts';

// Slim deltas (docs/live.md, "Patches"): what a view last sent of each alert, so that the next
// change to it can go to the view's patching sockets as only the fields that changed.

interface Sent {
  alert: LiveAlert;
  /** The change that produced this state (its place in the hub's change buffer). */
  gseq: number;
  /** The flush that sent it. */
  flush: number;
}

/**
 * The states one view sent to its patching sockets. A patch is safe only against a state every
 * such socket holds: one sent after the last of them joined or was caught up by replay (a replay
 * or a snapshot may leave a socket holding another state), while it is still in the change buffer
 * (which bounds what is kept). Anything else goes as the full alert.
 */
export class SentStates {
  private readonly sent = new Map<string, Sent>();
  /** Flushes that sent alerts to patching sockets. */
  private flushes = 0;
  /** `flushes` when a patching socket last joined, was caught up, or was told to resync. */
  private joinedAt = 0;

  /** A patching socket joined (or was caught up): states sent so far are not known to be held by it. */
  rejoined(): void {
    this.joinedAt = this.flushes;
  }

  /** The alert left the view: the client dropped it, so its next state goes in full. */
  forget(id: string): void {
    this.sent.delete(id);
  }

  /** Lets go of states older than the change buffer reaches back (`oldest` gseq). */
  prune(oldest: number): void {
    for (const [id, s] of this.sent) if (s.gseq < oldest) this.sent.delete(id);
  }

  clear(): void {
    this.sent.clear();
    this.rejoined();
  }

  /** How many states are kept (for tests). */
  get size(): number {
    return this.sent.size;
  }

  /**
   * Splits one flush's changes into full alerts and patches against what was sent before, and
   * records them as sent. `oldest` is the gseq of the oldest change the buffer still holds.
   */
  split(
    updates: Iterable<{ alert: LiveAlert; gseq: number }>,
    oldest: number,
  ): { alerts: LiveAlert[]; patches: AlertPatch[] } {
    this.flushes++;
    const alerts: LiveAlert[] = [];
    const patches: AlertPatch[] = [];
    for (const { alert, gseq } of updates) {
      const before = this.sent.get(alert.id);
      if (before && before.flush > this.joinedAt && before.gseq >= oldest)
        patches.push(diffAlert(before.alert, alert));
      else alerts.push(alert);
      this.sent.set(alert.id, { alert, gseq, flush: this.flushes });
    }
    return { alerts, patches };
  }
}
