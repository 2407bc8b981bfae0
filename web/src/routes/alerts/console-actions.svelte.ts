import { SvelteMap } from 'svelte/reactivity';
import type { LiveAlert } from '../../../../shared/alerts.ts';
import type { BulkTask } from '../../../../shared/queries.ts';
import { api } from '../../lib/api.ts';
import { actionLabel } from './actions.ts';

/** A row with an action on its way, until the pushed change (or an error) arrives. */
export interface Pending {
  action: string;
  since: number;
  answered: boolean;
}

/** A bulk action on its way and, once it ends, its outcome (the bulk bar shows it). */
export interface BulkProgress {
  action: string;
  /** Alerts the action was applied to so far, and in all (the tasks' own figures once known). */
  done: number;
  total: number;
  /** Alerts changed, once finished. */
  changed: number;
  errors: string[];
  finished: boolean;
  /** A request that failed outright. */
  failure: string | null;
}

/**
 * Ids per bulk request when the selection is a list of alerts: each is an `id=` parameter of the
 * URL, and 150 of them (about 6 kB) stay well within the server's header limit.
 */
const IDS_PER_REQUEST = 150;
/** How often a bulk task's progress is read (GET /_bulk/task/:id), and how many reads in a row may fail. */
const POLL_MS = 500;
const MAX_MISSES = 5;
/** How long after a bulk action ends its alerts' pushes still arrive without a highlight. */
const QUIET_AFTER_MS = 10_000;

type BulkAnswer = { id?: string; message?: string; count?: number; errors?: string[] };

/**
 * What the reader does to alerts (docs/ui-console.md "Actions"): row actions marked pending until
 * the push confirms them (reverted with the error on failure), the selection ("this page" or "all
 * matching") and bulk actions with their progress, and the message above the list.
 */
export class ConsoleActions {
  readonly pending = new SvelteMap<string, Pending>();
  readonly rowErrors = new SvelteMap<string, string>();
  readonly selected = new SvelteMap<string, true>();
  allMatching = $state(false);
  message = $state<{ text: string; error: boolean } | null>(null);
  progress = $state<BulkProgress | null>(null);
  private readonly watchTag: string | null;
  /** The view's filter, for "all matching" bulk actions. */
  private readonly filters: () => URLSearchParams;
  /** The alerts shown now: those an "all matching" action changes in sight. */
  private readonly shown: () => Iterable<string>;
  /**
   * Alerts of the reader's own bulk action, until when their pushes are not highlighted: the
   * list does not light up with the changes the reader just asked for (a plain map, read per push).
   */
  private readonly quiet = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;

  constructor(watchTag: string | null, filters: () => URLSearchParams, shown: () => Iterable<string>) {
    this.watchTag = watchTag;
    this.filters = filters;
    this.shown = shown;
  }

  toggle(id: string) {
    this.allMatching = false;
    if (this.selected.has(id)) this.selected.delete(id);
    else this.selected.set(id, true);
  }

  /** The header checkbox: clears any selection, else selects the alerts on this page. */
  toggleAll(pageIds: readonly string[]) {
    if (this.allMatching || this.selected.size) this.clearSelection();
    else this.selectPage(pageIds);
  }

  selectPage(pageIds: readonly string[]) {
    this.allMatching = false;
    this.selected.clear();
    for (const id of pageIds) this.selected.set(id, true);
  }

  selectAllMatching() {
    this.selected.clear();
    this.allMatching = true;
  }

  clearSelection() {
    this.selected.clear();
    this.allMatching = false;
  }

  /** Watch or unwatch, for someone logged in; null for anyone else. */
  watchOf = (a: LiveAlert): 'watch' | 'unwatch' | null =>
    this.watchTag ? (a.tags.includes(this.watchTag) ? 'unwatch' : 'watch') : null;

  /** Whether a pushed change to `id` is the reader's own bulk action (no highlight for it). */
  isQuiet = (id: string): boolean => {
    const until = this.quiet.get(id);
    if (until === undefined) return false;
    if (Date.now() < until) return true;
    this.quiet.delete(id);
    return false;
  };

  private request(action: string, q: string, timeout?: number): Promise<BulkAnswer> {
    if (action === 'delete') return api('DELETE', `/_bulk/alerts?${q}`);
    if (action === 'watch' || action === 'unwatch')
      return api('PUT', `/_bulk/alerts/${action === 'watch' ? 'tag' : 'untag'}?${q}`, {
        tags: [this.watchTag],
      });
    return api('PUT', `/_bulk/alerts/action?${q}`, {
      action,
      text: `${actionLabel(action)} from the console (bulk)`,
      ...(timeout ? { timeout } : {}),
    });
  }

  /**
   * Applies `action` to the selection: the view's filter for "all matching", else the selected
   * ids, IDS_PER_REQUEST a request. Large selections and actions become server tasks (docs/queries.md
   * "Bulk operations"), whose progress is read until they end; `progress` follows it all.
   */
  async bulk(action: string, timeout?: number, matching = 0) {
    this.message = null;
    const ids = this.allMatching ? null : [...this.selected.keys()];
    if (ids && ids.length === 0) return;
    const queries = ids
      ? Array.from({ length: Math.ceil(ids.length / IDS_PER_REQUEST) }, (_, i) =>
          ids
            .slice(i * IDS_PER_REQUEST, (i + 1) * IDS_PER_REQUEST)
            .map((id) => `id=${encodeURIComponent(id)}`)
            .join('&'),
        )
      : [this.filters().toString()];
    for (const id of ids ?? this.shown()) this.quiet.set(id, Infinity);
    const total = ids?.length ?? matching;
    this.progress = { action, done: 0, total, changed: 0, errors: [], finished: false, failure: null };
    this.clearSelection();
    const tasks: string[] = [];
    let inline = { done: 0, changed: 0, errors: [] as string[] };
    try {
      for (const q of queries) {
        const answer = await this.request(action, q, timeout);
        if (answer.id && answer.count === undefined) tasks.push(answer.id);
        else {
          const errors = answer.errors ?? [];
          inline = {
            done: inline.done + (answer.count ?? 0) + errors.length,
            changed: inline.changed + (answer.count ?? 0),
            errors: [...inline.errors, ...errors],
          };
        }
      }
      this.progress = { ...this.progress, done: inline.done, changed: inline.changed, errors: inline.errors };
      if (tasks.length) await this.follow(tasks, inline, ids?.length ?? null);
      else this.finish({ total: ids?.length ?? inline.done });
    } catch (err) {
      this.finish({ failure: (err as Error).message });
    }
  }

  /** Reads the tasks' progress every POLL_MS until every one has ended. */
  private async follow(
    tasks: string[],
    inline: { done: number; changed: number; errors: string[] },
    known: number | null,
  ) {
    let misses = 0;
    for (;;) {
      if (this.stopped) return;
      await new Promise((resolve) => (this.timer = setTimeout(resolve, POLL_MS)));
      let read: BulkTask[];
      try {
        read = await Promise.all(tasks.map((id) => api<BulkTask>('GET', `/_bulk/task/${id}`)));
        misses = 0;
      } catch (err) {
        // The tasks run on regardless: a read that fails now and then only delays the figures.
        if (++misses < MAX_MISSES) continue;
        throw err;
      }
      const done = inline.done + read.reduce((n, t) => n + t.progress.done, 0);
      const total = known ?? inline.done + read.reduce((n, t) => n + t.progress.total, 0);
      const ended = read.every((t) => t.status === 'success' || t.status === 'failure');
      const changed = inline.changed + read.reduce((n, t) => n + (t.result?.count ?? 0), 0);
      const errors = [...inline.errors, ...read.flatMap((t) => t.result?.errors ?? [])];
      if (this.progress) this.progress = { ...this.progress, done, total, changed, errors };
      if (ended) return this.finish({ total });
    }
  }

  private finish(end: { total?: number; failure?: string }) {
    const until = Date.now() + QUIET_AFTER_MS;
    for (const [id, t] of this.quiet) if (t === Infinity) this.quiet.set(id, until);
    if (!this.progress) return;
    const total = end.total ?? this.progress.total;
    this.progress = {
      ...this.progress,
      total,
      done: end.failure ? this.progress.done : total,
      finished: true,
      failure: end.failure ?? null,
    };
  }

  dismissProgress() {
    if (this.progress?.finished) this.progress = null;
  }

  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
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
