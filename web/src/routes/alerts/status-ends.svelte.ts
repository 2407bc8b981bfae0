import { SvelteMap } from 'svelte/reactivity';
import type { Alert, LiveAlert } from '../../../../shared/alerts.ts';
import { statusEnds } from '../../lib/alerts.ts';
import { api } from '../../lib/api.ts';

/** Alerts asked for at once (ids in the query string). */
const BATCH = 40;
/** Quiet time before asking: rows that only fly past while the list scrolls are not asked for. */
const SETTLE_MS = 150;
/** The most recently shown alerts asked for after a scroll: more than a screenful. */
const LATEST = 3 * BATCH;

/**
 * When the current ack or shelve of the alerts on screen ends (docs/ui-console.md, "Timeout
 * left"). Pushed alerts carry no history, so the history of acked and shelved alerts is asked for
 * when they are first shown, in batches (GET /alerts?id=…&show-history=true), and again only when
 * their status changes (a new `updateTime`). Nothing is polled. The asking waits until no new
 * alert has been shown for SETTLE_MS, and then asks only for the LATEST ones: scrolling through
 * thousands of alerts costs no request per row (those that scrolled away are asked for again if
 * they are shown again).
 */
export class StatusEnds {
  private readonly known = new SvelteMap<string, { updateTime: string; end: number | null | undefined }>();
  private readonly wanted = new Map<string, LiveAlert>();
  private readonly asked = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly fallback: () => { ack: number; shelve: number };

  constructor(fallback: () => { ack: number; shelve: number }) {
    this.fallback = fallback;
  }

  /**
   * The end of `a`'s ack or shelve (epoch ms, null: never), undefined when `a` is neither or it is
   * not known yet (then it is asked for). Safe to call while rendering: the answer comes later.
   */
  endOf(a: LiveAlert): number | null | undefined {
    if (a.status !== 'ack' && a.status !== 'shelved') return undefined;
    const k = this.known.get(a.id);
    if (k && k.updateTime === a.updateTime) return k.end;
    const key = `${a.id}@${a.updateTime}`;
    if (!this.asked.has(key)) {
      this.asked.add(key);
      this.wanted.delete(a.id);
      this.wanted.set(a.id, a);
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.load(), SETTLE_MS);
    }
    return undefined;
  }

  private async load(): Promise<void> {
    this.timer = null;
    const all = [...this.wanted.values()];
    this.wanted.clear();
    const batch = all.slice(-LATEST);
    for (const a of all.slice(0, -LATEST)) this.asked.delete(`${a.id}@${a.updateTime}`);
    for (let i = 0; i < batch.length; i += BATCH) {
      const part = batch.slice(i, i + BATCH);
      const q = new URLSearchParams(part.map((a) => ['id', a.id]));
      q.set('show-history', 'true');
      q.set('page-size', String(part.length));
      try {
        const { alerts } = await api<{ alerts: Alert[] }>('GET', `/alerts?${q}`);
        for (const a of alerts)
          this.known.set(a.id, {
            updateTime: a.updateTime,
            end: statusEnds(a.status, a.history, this.fallback()),
          });
      } catch {
        // Shown as unknown (empty); asked again when the alert next changes status.
      }
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
