import { io, type Socket } from 'socket.io-client';
import type { LiveAlert } from '../../../../shared/alerts.ts';
import type {
  ClientToServerEvents,
  Position,
  ServerToClientEvents,
  SubscribeAnswer,
  ViewCounts,
} from '../../../../shared/events.ts';
import { API, loginRequired, socketAuth } from '../api.ts';

/** Parameters that configure the page, never the query (docs/ui.md). */
const UI_ONLY = new Set(['kiosk', 'theme', 'scale', 'density', 'api-key']);

/** The view's query string from the page's URL, without the UI-only parameters. */
export function viewQuery(search: string): string {
  const params = new URLSearchParams(search);
  for (const k of [...params.keys()]) if (UI_ONLY.has(k)) params.delete(k);
  return params.toString();
}

/**
 * One live view of alerts (docs/live.md): a snapshot on subscribe, then pushed deltas; after a
 * reconnect, a catch-up from the last position (or a fresh snapshot). No polling.
 */
export class LiveAlerts {
  /**
   * The view's alerts. A plain map with one `version` signal rather than a reactive map: a
   * reactive map makes every reader depend on each of 10,000 entries (docs/ui.md).
   */
  readonly byId = new Map<string, LiveAlert>();
  /** Bumped on every change to `byId` or `fresh`: what pages derive their rows from. */
  version = $state(0);
  /**
   * The rows in a stable order (docs/ui.md): sorted when a snapshot arrives, then a changed alert
   * keeps its place and a new one is inserted where it sorts, so nothing jumps under the reader.
   */
  order: LiveAlert[] = [];
  private compare: ((a: LiveAlert, b: LiveAlert) => number) | null = null;
  counts = $state<ViewCounts>({ total: 0, severityCounts: {}, statusCounts: {} });
  connected = $state(false);
  loaded = $state(false);
  /** When the last tick or message arrived (browser clock), for the data-age badge. */
  heardAt = $state(0);
  /** Ids that changed recently (when), for the highlight. */
  readonly fresh = new Map<string, number>();
  error = $state<string | null>(null);
  /** The token ran out: the socket stays down until the user logs in again. */
  expired = $state(false);

  private readonly listeners = new Set<(alert: LiveAlert, previous: LiveAlert | undefined) => void>();
  private socket: Socket<ServerToClientEvents, ClientToServerEvents> | null = null;
  private view = '';
  private position: Position | null = null;
  private readonly query: string;

  constructor(query: string) {
    this.query = query;
  }

  /**
   * Calls `listener` for every pushed alert (not snapshots), with the state it replaces in this view
   * (undefined when the alert is new to the view): sound on new alerts, escalation flashes. Returns
   * the unsubscribe function.
   */
  onAlert(listener: (alert: LiveAlert, previous: LiveAlert | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sets the row order and re-sorts (on load, or when the reader asks). */
  sortBy(compare: (a: LiveAlert, b: LiveAlert) => number): void {
    this.compare = compare;
    this.order = [...this.byId.values()].sort(compare);
    this.version++;
  }

  private place(alert: LiveAlert): void {
    const existing = this.byId.has(alert.id);
    this.byId.set(alert.id, alert);
    if (existing) {
      const i = this.order.findIndex((a) => a.id === alert.id);
      if (i >= 0) {
        this.order[i] = alert;
        return;
      }
    }
    const compare = this.compare;
    if (!compare) {
      this.order.push(alert);
      return;
    }
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(this.order[mid]!, alert) <= 0) lo = mid + 1;
      else hi = mid;
    }
    this.order.splice(lo, 0, alert);
  }

  private drop(id: string): void {
    if (!this.byId.delete(id)) return;
    const i = this.order.findIndex((a) => a.id === id);
    if (i >= 0) this.order.splice(i, 1);
  }

  start(): void {
    const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io({
      path: `${API}/socket.io`,
      auth: socketAuth(),
    });
    this.socket = socket;
    socket.on('connect', () => {
      this.connected = true;
      this.heardAt = Date.now();
      socket.emit('subscribe', { query: this.query, since: this.position }, (a) => this.answer(a));
    });
    socket.on('disconnect', (reason) => {
      this.connected = false;
      // A server-side disconnect is not retried by Socket.IO itself; try again unless the session ended.
      if (reason === 'io server disconnect' && !this.expired) setTimeout(() => socket.connect(), 2000);
    });
    socket.on('session.expired', (m) => {
      this.expired = true;
      this.error = m.message;
    });
    socket.on('connect_error', (err) => {
      this.connected = false;
      this.error = err.message;
      const code = (err as Error & { data?: { code?: number } }).data?.code;
      if (code === 401) loginRequired();
    });
    socket.on('tick', (t) => {
      this.heardAt = Date.now();
      if (this.position && t.epoch !== this.position.epoch) this.position = null;
    });
    socket.on('alert.updated', (m) => {
      if (!this.accept(m.view, m.seq)) return;
      const now = Date.now();
      for (const a of m.alerts) {
        const previous = this.byId.get(a.id);
        this.place(a);
        this.fresh.set(a.id, now);
        for (const listener of this.listeners) listener(a, previous);
      }
      this.version++;
      if (m.counts) this.counts = m.counts;
    });
    socket.on('alert.removed-from-view', (m) => {
      if (!this.accept(m.view, m.seq)) return;
      for (const id of m.ids) this.drop(id);
      this.version++;
      if (m.counts) this.counts = m.counts;
    });
    socket.on('counts', (m) => {
      if (!this.accept(m.view, m.seq)) return;
      this.counts = { total: m.total, severityCounts: m.severityCounts, statusCounts: m.statusCounts };
    });
    socket.on('resync', () => {
      this.position = null;
      socket.emit('subscribe', { query: this.query }, (a) => this.answer(a));
    });
  }

  /** A message for this view at or after the applied position (docs/live.md). */
  private accept(view: string, seq: number): boolean {
    if (view !== this.view) return false;
    this.heardAt = Date.now();
    if (this.position && seq < this.position.seq) return false;
    if (this.position) this.position = { ...this.position, seq };
    return true;
  }

  private answer(a: SubscribeAnswer): void {
    if (a.status !== 'ok') {
      this.error = a.message;
      return;
    }
    this.error = null;
    this.view = a.view;
    if (a.mode === 'snapshot') {
      this.byId.clear();
      for (const alert of a.alerts) this.byId.set(alert.id, alert);
      this.order = [...this.byId.values()];
      if (this.compare) this.order.sort(this.compare);
      this.version++;
    }
    this.counts = { total: a.total, severityCounts: a.severityCounts, statusCounts: a.statusCounts };
    if (!this.position || a.position.seq >= this.position.seq) this.position = a.position;
    this.loaded = true;
  }

  stop(): void {
    this.socket?.close();
    this.socket = null;
  }
}
