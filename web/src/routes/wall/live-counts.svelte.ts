import type { SubscribeAnswer, ViewCounts } from '../../../../shared/events.ts';
import { openLiveSocket, type LiveSocket } from '../../lib/live/socket.ts';

/**
 * The live counts of several queries over one socket (docs/ui-wall.md): the wall's tiles. Each query
 * is a view of its own (docs/live.md) subscribed with a one-alert page, since only its counts are
 * read; the server pushes them on every change, so there is no timer. One socket for all tiles keeps
 * a wall that falls back to long-polling within the browser's six connections per host.
 */
export class LiveCounts {
  /** Counts by query; absent until the first answer. */
  counts = $state<Record<string, ViewCounts>>({});
  connected = $state(false);

  private socket: LiveSocket | null = null;
  private readonly queries = new Set<string>();
  /** Server view id → the queries it answers, and the last seq applied per view. */
  private readonly views = new Map<string, { queries: string[]; seq: number }>();

  /** Follows `query` (a GET /alerts query string), now or as soon as the socket connects. */
  watch(query: string): void {
    if (this.queries.has(query)) return;
    this.queries.add(query);
    if (this.socket?.connected) this.subscribe(this.socket, query);
  }

  start(): void {
    // The same socket set-up as the wall's list (credentials, login on refusal, server-side retry).
    const socket = openLiveSocket();
    this.socket = socket;
    socket.on('connect', () => {
      this.connected = true;
      this.views.clear();
      for (const query of this.queries) this.subscribe(socket, query);
    });
    socket.on('disconnect', () => (this.connected = false));
    socket.on('counts', (m) => this.apply(m.view, m.seq, m));
    socket.on('alert.updated', (m) => m.counts && this.apply(m.view, m.seq, m.counts));
    socket.on('alert.removed-from-view', (m) => m.counts && this.apply(m.view, m.seq, m.counts));
    socket.on('resync', (m) => {
      const known = this.views.get(m.view);
      this.views.delete(m.view);
      for (const query of known?.queries ?? []) this.subscribe(socket, query);
    });
  }

  private subscribe(socket: LiveSocket, query: string): void {
    const params = new URLSearchParams(query);
    params.set('page-size', '1');
    socket.emit('subscribe', { query: params.toString() }, (a: SubscribeAnswer) => {
      if (a.status !== 'ok') return;
      const view = this.views.get(a.view) ?? { queries: [], seq: 0 };
      if (!view.queries.includes(query)) view.queries.push(query);
      view.seq = Math.max(view.seq, a.position.seq);
      this.views.set(a.view, view);
      this.counts[query] = { total: a.total, severityCounts: a.severityCounts, statusCounts: a.statusCounts };
    });
  }

  private apply(id: string, seq: number, counts: ViewCounts): void {
    const view = this.views.get(id);
    if (!view || seq < view.seq) return;
    view.seq = seq;
    const copy = {
      total: counts.total,
      severityCounts: counts.severityCounts,
      statusCounts: counts.statusCounts,
    };
    for (const query of view.queries) this.counts[query] = copy;
  }

  stop(): void {
    this.socket?.close();
    this.socket = null;
  }
}
