import type { LiveAlert } from '../../../../shared/alerts.ts';
import type { GroupField, Position, SubscribeAnswer, ViewCounts } from '../../../../shared/events.ts';
import { api } from '../api.ts';
import { SentAlerts } from './sent-alerts.ts';
import { connectErrorMessage, isRefused, openLiveSocket, type LiveSocket } from './socket.ts';

export { UI_ONLY, viewQuery } from '../ui-params.ts';

/** How often the REST fallback reloads the view when the socket never connects. */
export const POLL_INTERVAL_MS = 30_000;

export interface LiveOptions {
  /**
   * When the socket never manages to connect (a proxy that blocks it), load the view over REST
   * every POLL_INTERVAL_MS instead, until the socket connects after all.
   */
  restFallback?: boolean;
  /** Subscribe as a grouped view (docs/live.md): the counts then carry `groups` and `groupTotal`. */
  groupBy?: GroupField | null;
  groupLimit?: number;
}

/** The counts of an answer or message, groups included when the view is grouped. */
const countsOf = (c: ViewCounts): ViewCounts => ({
  total: c.total,
  severityCounts: c.severityCounts,
  statusCounts: c.statusCounts,
  ...(c.groups ? { groups: c.groups, groupTotal: c.groupTotal } : {}),
});

type Compare = (a: LiveAlert, b: LiveAlert) => number;

/** The same state, as far as a reader can tell (snapshots after a reconnect count differences). */
const same = (a: LiveAlert, b: LiveAlert) => JSON.stringify(a) === JSON.stringify(b);

/**
 * One live view of alerts (docs/live.md): a snapshot on subscribe, then pushed deltas; after a
 * reconnect, a catch-up from the last position (or a fresh snapshot). No polling, unless the
 * socket cannot connect at all and the page asked for the REST fallback.
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
   * The rows in a stable order (docs/ui.md): as the server sorted the snapshot, then a changed
   * alert keeps its place and a new one is inserted where it sorts, so nothing jumps under the reader.
   */
  order: LiveAlert[] = [];
  private compare: Compare | null = null;
  counts = $state<ViewCounts>({ total: 0, severityCounts: {}, statusCounts: {} });
  connected = $state(false);
  /** When the connection was lost (browser clock), or null while connected or before the first. */
  lostAt = $state<number | null>(null);
  loaded = $state(false);
  /** When the last tick or message arrived (browser clock), for the data-age badge. */
  heardAt = $state(0);
  /** Ids that changed recently (when), for the highlight. */
  readonly fresh = new Map<string, number>();
  error = $state<string | null>(null);
  /** The token ran out: the socket stays down until the user logs in again. */
  expired = $state(false);
  /**
   * Changes since the last sort that the stable order does not reflect: alerts whose new state
   * sorts elsewhere, and new alerts that belong on another page. The "re-sort" chip shows it.
   */
  unsorted = $state(0);
  /** The page the snapshot was (1 when not paged) and its size, as the server answered. */
  page = $state(1);
  pageSize = $state(0);
  /** The socket never connected; the view is loaded over REST every POLL_INTERVAL_MS. */
  polling = $state(false);
  /** Updates held back while the reader is reading (hold): alerts that changed or left. */
  waiting = $state(0);
  /** Set after a reconnect: when, and how many changes the catch-up or new snapshot brought. */
  reconnected = $state<{ at: number; changes: number } | null>(null);
  /**
   * Ids of the view's alerts that a blackout in force now covers, as the server decides and pushes
   * them (`maintenance`, docs/live.md): the wall shows them "in maintenance". Empty over REST.
   */
  maintenance = $state.raw<ReadonlySet<string>>(new Set());
  /** Ids whose changes apply even while held: the reader's own actions confirm at once. */
  passThrough: (id: string) => boolean = () => false;
  /** Ids whose pushed changes are not marked `fresh`: the reader's own bulk action (no highlight). */
  quiet: (id: string) => boolean = () => false;

  private readonly listeners = new Set<(alert: LiveAlert, previous: LiveAlert | undefined) => void>();
  private readonly removalListeners = new Set<(id: string) => void>();
  private socket: LiveSocket | null = null;
  /** The socket, once started: heartbeats may be followed on it too (they reach every socket). */
  get liveSocket(): LiveSocket | null {
    return this.socket;
  }
  private view = '';
  private position: Position | null = null;
  private readonly query: string;
  private readonly options: LiveOptions;
  private everConnected = false;
  private lostConnection = false;
  private bounded = false;
  private held = false;
  private readonly heldChanges = new Map<string, LiveAlert | null>();
  private heldSnapshot: LiveAlert[] | null = null;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  /** What the server sent this view, which its patches apply to. */
  private readonly sent = new SentAlerts();
  /** The last `maintenance` message, kept until its view is the one answered (it may come first). */
  private maintenanceOf: { view: string; ids: string[] } | null = null;

  constructor(query: string, options: LiveOptions = {}) {
    this.query = query;
    this.options = options;
  }

  /**
   * Calls `listener` for every pushed alert as it is applied (not snapshots), with the state it
   * replaces in this view (undefined when the alert is new to the view): sound on new alerts,
   * escalation flashes. Returns the unsubscribe function.
   */
  onAlert(listener: (alert: LiveAlert, previous: LiveAlert | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls `listener` with the id of every alert that leaves the view (deleted or no longer matching). */
  onRemoved(listener: (id: string) => void): () => void {
    this.removalListeners.add(listener);
    return () => this.removalListeners.delete(listener);
  }

  /** Sets the order new and changed alerts are placed by, without moving the rows already shown. */
  setOrder(compare: Compare): void {
    this.compare = compare;
  }

  /** Sets the row order and re-sorts (on load, or when the reader asks). */
  sortBy(compare: Compare): void {
    this.compare = compare;
    this.order = [...this.byId.values()].sort(compare);
    this.unsorted = 0;
    this.version++;
  }

  /**
   * Restores the strict order: a local re-sort when every alert of the view is here, else a fresh
   * snapshot of the page (alerts may have moved to or from other pages).
   */
  resort(): void {
    if (this.bounded && this.socket?.connected) this.resubscribe();
    else if (this.compare) this.sortBy(this.compare);
  }

  /**
   * While held (a drawer open, text selected, a menu open), pushed changes wait instead of changing
   * the rows under the reader; releasing applies them (wall-display.md §3 "Pause while reading").
   */
  hold(on: boolean): void {
    if (this.held === on) return;
    this.held = on;
    if (!on) this.flush();
  }

  /** Applies the changes held back so far (the hold stays as it is). */
  flush(): void {
    if (this.heldSnapshot) this.replace(this.heldSnapshot);
    this.heldSnapshot = null;
    const now = Date.now();
    for (const [id, alert] of this.heldChanges) {
      if (alert) this.update(alert, now);
      else this.remove(id);
    }
    this.heldChanges.clear();
    this.waiting = 0;
    this.version++;
  }

  private holding(id: string): boolean {
    return this.held && !this.passThrough(id);
  }

  private update(alert: LiveAlert, now: number): void {
    const previous = this.byId.get(alert.id);
    this.place(alert, previous);
    if (this.quiet(alert.id)) this.fresh.delete(alert.id);
    else this.fresh.set(alert.id, now);
    for (const listener of this.listeners) listener(alert, previous);
  }

  private remove(id: string): void {
    this.drop(id);
    for (const listener of this.removalListeners) listener(id);
  }

  private place(alert: LiveAlert, previous: LiveAlert | undefined): void {
    const compare = this.compare;
    if (previous) {
      const i = this.order.findIndex((a) => a.id === alert.id);
      if (i >= 0) {
        this.byId.set(alert.id, alert);
        this.order[i] = alert;
        const before = this.order[i - 1];
        const after = this.order[i + 1];
        if (compare && ((before && compare(before, alert) > 0) || (after && compare(alert, after) > 0)))
          this.unsorted++;
        return;
      }
    }
    if (!compare) {
      this.byId.set(alert.id, alert);
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
    // On a page of a longer list, an alert that sorts before the first row or after the last
    // belongs on another page: count it for the re-sort chip rather than show it here.
    if (this.bounded && ((this.page > 1 && lo === 0) || lo === this.order.length)) {
      this.unsorted++;
      return;
    }
    this.byId.set(alert.id, alert);
    this.order.splice(lo, 0, alert);
  }

  private drop(id: string): void {
    if (!this.byId.delete(id)) return;
    const i = this.order.findIndex((a) => a.id === id);
    if (i >= 0) this.order.splice(i, 1);
  }

  /** Replaces the whole state with a snapshot (in the server's order); returns how many alerts differ. */
  private replace(alerts: LiveAlert[]): number {
    let changes = 0;
    const next = new Map(alerts.map((a) => [a.id, a]));
    for (const [id, old] of this.byId) {
      const now = next.get(id);
      if (!now || !same(old, now)) changes++;
    }
    for (const id of next.keys()) if (!this.byId.has(id)) changes++;
    this.byId.clear();
    for (const alert of alerts) this.byId.set(alert.id, alert);
    this.order = [...this.byId.values()];
    this.unsorted = 0;
    this.version++;
    return changes;
  }

  start(): void {
    // No retry once the session ended: the server would only refuse again.
    const socket = openLiveSocket(() => !this.expired);
    this.socket = socket;
    socket.on('connect', () => {
      this.connected = true;
      this.lostAt = null;
      this.everConnected = true;
      this.stopPolling();
      this.heardAt = Date.now();
      socket.emit('subscribe', this.request(this.position), (a) => this.answer(a));
    });
    socket.on('disconnect', () => {
      this.connected = false;
      this.lostAt ??= Date.now();
      this.lostConnection = true;
    });
    socket.on('session.expired', (m) => {
      this.expired = true;
      this.error = m.message;
    });
    socket.on('connect_error', (err) => {
      this.connected = false;
      if (this.everConnected) this.lostAt ??= Date.now();
      // A refusal goes to the login page (openLiveSocket); polling would be refused as well.
      if (!isRefused(err) && this.options.restFallback && !this.everConnected) this.startPolling();
      // A transport failure ("xhr poll error") is the connection banner's business, not a message.
      else this.error = connectErrorMessage(err);
    });
    socket.on('tick', (t) => {
      this.heardAt = Date.now();
      if (this.position && t.epoch !== this.position.epoch) this.position = null;
    });
    socket.on('alert.updated', (m) => {
      if (m.view !== this.view) return;
      for (const a of m.alerts) this.sent.full(a);
      const patched: LiveAlert[] = [];
      for (const p of m.patches ?? []) {
        const next = this.sent.patch(p);
        // Not expected: a patch for a state never sent here. A fresh snapshot puts it right.
        if (!next) return this.resubscribe();
        patched.push(next);
      }
      if (!this.accept(m.view, m.seq)) return;
      const now = Date.now();
      let applied = false;
      for (const a of patched.length ? [...m.alerts, ...patched] : m.alerts) {
        if (this.holding(a.id)) {
          this.heldChanges.set(a.id, a);
        } else {
          this.update(a, now);
          applied = true;
        }
      }
      this.afterMessage(applied);
      if (m.counts) this.counts = countsOf(m.counts);
    });
    socket.on('alert.removed-from-view', (m) => {
      if (m.view === this.view) for (const id of m.ids) this.sent.remove(id);
      if (!this.accept(m.view, m.seq)) return;
      let applied = false;
      for (const id of m.ids) {
        if (this.holding(id)) {
          this.heldChanges.set(id, null);
        } else {
          this.remove(id);
          applied = true;
        }
      }
      this.afterMessage(applied);
      if (m.counts) this.counts = countsOf(m.counts);
    });
    socket.on('counts', (m) => {
      if (!this.accept(m.view, m.seq)) return;
      this.counts = countsOf(m);
    });
    socket.on('resync', () => this.resubscribe());
    socket.on('maintenance', (m) => {
      this.maintenanceOf = m;
      if (m.view === this.view) this.maintenance = new Set(m.ids);
    });
  }

  private afterMessage(applied: boolean): void {
    if (applied) this.version++;
    this.waiting = this.heldChanges.size + (this.heldSnapshot ? 1 : 0);
  }

  private resubscribe(): void {
    this.position = null;
    this.socket?.emit('subscribe', this.request(null), (a) => this.answer(a));
  }

  private request(since: Position | null) {
    const { groupBy, groupLimit } = this.options;
    // Changed alerts as patches: this store keeps every state it was sent (`sent`).
    return { query: this.query, since, patches: true, ...(groupBy ? { groupBy, groupLimit } : {}) };
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
    if (this.maintenanceOf?.view === a.view) this.maintenance = new Set(this.maintenanceOf.ids);
    let changes = a.mode === 'catch-up' ? a.replayed : 0;
    if (a.mode === 'snapshot') {
      this.page = a.page;
      this.pageSize = a.pageSize;
      // A full page means the view may go on beyond it. Not `total`: it is counted after the page was
      // read, so an alert arriving meanwhile would make a complete view look bounded, and its push
      // would be filed as "on another page" and lost from the screen.
      this.bounded = a.page > 1 || a.alerts.length >= a.pageSize;
      this.sent.reset(a.alerts);
      changes = this.snapshot(a.alerts);
    }
    this.counts = countsOf(a);
    if (!this.position || a.position.seq >= this.position.seq) this.position = a.position;
    if (this.lostConnection) this.reconnected = { at: Date.now(), changes };
    this.lostConnection = false;
    this.loaded = true;
  }

  /** A snapshot replaces the rows, unless held: then it waits like any other change. */
  private snapshot(alerts: LiveAlert[]): number {
    if (this.held && this.loaded) {
      this.heldSnapshot = alerts;
      this.heldChanges.clear();
      this.afterMessage(false);
      return 0;
    }
    return this.replace(alerts);
  }

  private startPolling(): void {
    if (this.pollTimer) return;
    this.polling = true;
    void this.poll();
    this.pollTimer = setInterval(() => void this.poll(), POLL_INTERVAL_MS);
  }

  private stopPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
    this.polling = false;
  }

  /** The REST fallback: GET /alerts with the view's query, applied as a snapshot. */
  private async poll(): Promise<void> {
    try {
      const list = await api<
        {
          alerts: (LiveAlert & { rawData?: unknown; history?: unknown })[];
          page: number;
          pageSize: number;
        } & ViewCounts
      >('GET', `/alerts?${this.query}`);
      if (!this.polling) return;
      const alerts = list.alerts.map(({ rawData: _r, history: _h, ...alert }) => alert as LiveAlert);
      this.page = list.page;
      this.pageSize = list.pageSize;
      this.bounded = list.page > 1 || alerts.length >= list.pageSize;
      this.snapshot(alerts);
      this.counts = {
        total: list.total,
        severityCounts: list.severityCounts,
        statusCounts: list.statusCounts,
      };
      this.heardAt = Date.now();
      this.error = null;
      this.loaded = true;
    } catch (err) {
      this.error = (err as Error).message;
    }
  }

  stop(): void {
    this.stopPolling();
    this.socket?.close();
    this.socket = null;
  }
}
