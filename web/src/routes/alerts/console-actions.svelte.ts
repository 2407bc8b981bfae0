import { SvelteMap } from 'svelte/reactivity';
import type { LiveAlert } from '../../../../shared/alerts.ts';
import { api } from '../../lib/api.ts';
import { actionLabel } from './actions.ts';

/** A row with an action on its way, until the pushed change (or an error) arrives. */
export interface Pending {
  action: string;
  since: number;
  answered: boolean;
}

/**
 * What the reader does to alerts (docs/ui-console.md "Actions"): row actions marked pending until
 * the push confirms them (reverted with the error on failure), the selection and bulk actions, and
 * the message above the list.
 */
export class ConsoleActions {
  readonly pending = new SvelteMap<string, Pending>();
  readonly rowErrors = new SvelteMap<string, string>();
  readonly selected = new SvelteMap<string, true>();
  allMatching = $state(false);
  message = $state<{ text: string; error: boolean } | null>(null);
  private readonly watchTag: string | null;
  /** The view's filter, for "all matching" bulk actions. */
  private readonly filters: () => URLSearchParams;

  constructor(watchTag: string | null, filters: () => URLSearchParams) {
    this.watchTag = watchTag;
    this.filters = filters;
  }

  toggle(id: string) {
    this.allMatching = false;
    if (this.selected.has(id)) this.selected.delete(id);
    else this.selected.set(id, true);
  }

  toggleAll() {
    this.allMatching = !this.allMatching;
    this.selected.clear();
  }

  clearSelection() {
    this.selected.clear();
    this.allMatching = false;
  }

  /** Watch or unwatch, for someone logged in; null for anyone else. */
  watchOf = (a: LiveAlert): 'watch' | 'unwatch' | null =>
    this.watchTag ? (a.tags.includes(this.watchTag) ? 'unwatch' : 'watch') : null;

  async bulk(action: string, timeout?: number) {
    this.message = null;
    const q = this.allMatching
      ? this.filters().toString()
      : [...this.selected.keys()].map((id) => `id=${encodeURIComponent(id)}`).join('&');
    if (!q && !this.allMatching) return;
    try {
      let answer: { message?: string; count?: number };
      if (action === 'delete') answer = await api('DELETE', `/_bulk/alerts?${q}`);
      else if (action === 'watch' || action === 'unwatch')
        answer = await api('PUT', `/_bulk/alerts/${action === 'watch' ? 'tag' : 'untag'}?${q}`, {
          tags: [this.watchTag],
        });
      else
        answer = await api('PUT', `/_bulk/alerts/action?${q}`, {
          action,
          text: `${actionLabel(action)} from the console (bulk)`,
          ...(timeout ? { timeout } : {}),
        });
      this.message = { text: answer.message ?? `${answer.count ?? 0} alerts changed`, error: false };
      this.clearSelection();
    } catch (err) {
      this.message = { text: (err as Error).message, error: true };
    }
  }

  async act(a: LiveAlert, action: string, timeout?: number) {
    if (this.pending.has(a.id)) return;
    this.rowErrors.delete(a.id);
    this.pending.set(a.id, { action, since: Date.now(), answered: false });
    try {
      if (action === 'delete') await api('DELETE', `/alert/${a.id}`);
      else if (action === 'watch' || action === 'unwatch')
        await api('PUT', `/alert/${a.id}/${action === 'watch' ? 'tag' : 'untag'}`, { tags: [this.watchTag] });
      else
        await api('PUT', `/alert/${a.id}/action`, {
          action,
          text: `${actionLabel(action)} from the console`,
          ...(timeout ? { timeout } : {}),
        });
      const p = this.pending.get(a.id);
      if (p) this.pending.set(a.id, { ...p, since: Date.now(), answered: true });
    } catch (err) {
      this.pending.delete(a.id);
      const text = `${actionLabel(action)} ${a.resource}: ${(err as Error).message}`;
      this.rowErrors.set(a.id, text);
      this.message = { text, error: true };
    }
  }

  /** The push for an alert arrived (or it left the view): its row is no longer pending. */
  settled(id: string) {
    if (this.pending.has(id)) this.pending.delete(id);
  }

  /** Lets go of rows whose action was answered but whose change never came (it may change nothing). */
  expire(now: number) {
    for (const [id, p] of this.pending) if (p.answered && now - p.since > 10_000) this.pending.delete(id);
  }
}
