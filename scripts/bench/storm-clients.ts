/**
 * scripts/bench/storm.ts's screens, in a worker thread: walls and consoles subscribed as the web UI
 * subscribes them (web/src/lib/live/alerts.svelte.ts, web/src/routes/wall/live-counts.svelte.ts),
 * each keeping what it was sent of its view as the page does (SentAlerts: full states and patches
 * applied in arrival order, removals, counts taken by `seq`), but only the fields the bench compares.
 * On `check` each screen is compared with the database's final state of its view until it matches.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { LiveAlert } from '../../shared/alerts.ts';
import type { AlertPatch } from '../../shared/live-patch.ts';
import type { SubscribeAnswer, SubscribeRequest, ViewCounts } from '../../shared/events.ts';
import { SENT_LIMIT } from '../../web/src/lib/live/sent-alerts.ts';
import { clock } from './push-shared.ts';
import { openSocket, type BenchSocket } from './socket.ts';

export type ScreenKind = 'wall' | 'console';
export interface Queries {
  wall: string;
  wallAcked: string;
  console: string;
}
/** The compared fields of an alert, as one string. */
export type Digest = string;
export interface Expected {
  /** Per view query: [id, digest] of every alert in it, and its counts. */
  views: Record<string, { alerts: [string, Digest][]; counts: ViewCounts }>;
  /** Stop looking after this (clock ms). */
  until: number;
}
export interface ScreenResult {
  kind: ScreenKind;
  converged: boolean;
  /** When the screen last changed (clock ms): at convergence, when it reached the final state. */
  lastChange: number;
  messages: number;
  fulls: number;
  patches: number;
  bytes: number;
  disconnects: number;
  resyncs: number;
  /** Patches for a state it did not hold (the page then subscribes again). */
  patchMisses: number;
  /** When not converged: how it differs. */
  problem?: string;
}

const { origin, queries, kinds } = workerData as { origin: string; queries: Queries; kinds: ScreenKind[] };

const FIELDS = ['severity', 'status', 'duplicateCount', 'lastReceiveId', 'lastReceiveTime'] as const;
type State = (string | number)[];
const stateOf = (a: Partial<LiveAlert>, base?: State): State =>
  FIELDS.map((f, i) => (a[f] === undefined ? base![i]! : (a[f] as string | number)));
export const digestOf = (a: Partial<LiveAlert>): Digest => stateOf(a).join('|');

const countsKey = (c: ViewCounts) =>
  JSON.stringify([c.total, Object.entries(c.severityCounts).sort(), Object.entries(c.statusCounts).sort()]);

/** One subscription on a socket, kept as the page keeps it. */
class ViewState {
  view = '';
  seq = -1;
  counts = '';
  readonly sent = new Map<string, State>();
  readonly screen: Screen;
  readonly socket: BenchSocket;
  readonly request: SubscribeRequest;
  /** False for the tiles' counts (LiveCounts keeps no alerts). */
  readonly keepsAlerts: boolean;
  constructor(screen: Screen, socket: BenchSocket, request: SubscribeRequest, keepsAlerts: boolean) {
    this.screen = screen;
    this.socket = socket;
    this.request = request;
    this.keepsAlerts = keepsAlerts;
  }

  answer(a: SubscribeAnswer) {
    if (a.status !== 'ok') throw new Error(`subscribe refused: ${a.message}`);
    this.view = a.view;
    if (a.mode === 'snapshot') {
      this.sent.clear();
      for (const alert of a.alerts) this.keep(alert.id, stateOf(alert));
    }
    this.counts = countsKey(a);
    if (a.position.seq >= this.seq) this.seq = a.position.seq;
    this.screen.changed();
  }

  keep(id: string, state: State) {
    this.sent.delete(id);
    this.sent.set(id, state);
    if (this.sent.size > SENT_LIMIT) this.sent.delete(this.sent.keys().next().value!);
  }

  accept(view: string, seq: number) {
    if (view !== this.view) return false;
    if (seq < this.seq) return false;
    this.seq = seq;
    return true;
  }

  subscribe() {
    this.socket.emit('subscribe', this.request, (a) => this.answer(a));
  }

  listen() {
    const s = this.socket;
    const screen = this.screen;
    s.on('alert.updated', (m) => {
      if (m.view !== this.view) return;
      screen.messages++;
      if (this.keepsAlerts) {
        for (const a of m.alerts) this.keep(a.id, stateOf(a));
        screen.fulls += m.alerts.length;
        for (const p of (m.patches ?? []) as AlertPatch[]) {
          const base = this.sent.get(p.id);
          if (!base) {
            screen.patchMisses++;
            this.subscribe();
            return;
          }
          this.keep(p.id, stateOf(p, base));
          screen.patches++;
        }
        screen.changed();
      }
      if (this.accept(m.view, m.seq) && m.counts) this.setCounts(m.counts);
    });
    s.on('alert.removed-from-view', (m) => {
      if (m.view !== this.view) return;
      screen.messages++;
      if (this.keepsAlerts) {
        for (const id of m.ids) this.sent.delete(id);
        screen.changed();
      }
      if (this.accept(m.view, m.seq) && m.counts) this.setCounts(m.counts);
    });
    s.on('counts', (m) => {
      screen.messages++;
      if (this.accept(m.view, m.seq)) this.setCounts(m);
    });
    s.on('resync', (m) => {
      if (m.view !== this.view) return;
      screen.resyncs++;
      this.subscribe();
    });
  }

  setCounts(c: ViewCounts) {
    const key = countsKey(c);
    if (key === this.counts) return;
    this.counts = key;
    this.screen.changed();
  }

  /** How this view differs from `expected`, or null when it holds exactly that. */
  differs(expected: Expected['views'][string]): string | null {
    if (this.counts !== countsKey(expected.counts))
      return `counts ${this.counts} ≠ ${countsKey(expected.counts)}`;
    if (!this.keepsAlerts) return null;
    let wrong = 0;
    for (const [id, digest] of expected.alerts) if (this.sent.get(id)?.join('|') !== digest) wrong++;
    if (wrong || this.sent.size !== expected.alerts.length)
      return `${wrong} of ${expected.alerts.length} alerts differ; holds ${this.sent.size}`;
    return null;
  }
}

/** A wall (its list and, on a socket of its own, the severity tiles' acked counts) or a console. */
class Screen {
  messages = 0;
  fulls = 0;
  patches = 0;
  bytes = 0;
  disconnects = 0;
  resyncs = 0;
  patchMisses = 0;
  lastChange = 0;
  readonly views: { query: string; state: ViewState }[] = [];
  readonly kind: ScreenKind;
  constructor(kind: ScreenKind) {
    this.kind = kind;
  }
  changed() {
    this.lastChange = clock();
  }

  async open(query: string, request: SubscribeRequest, keepsAlerts: boolean) {
    const socket = openSocket(origin, 30_000);
    const state = new ViewState(this, socket, request, keepsAlerts);
    state.listen();
    socket.on('disconnect', () => this.disconnects++);
    await new Promise<void>((ok, fail) => {
      socket.once('connect_error', (err) =>
        fail(new Error(`${this.kind} could not connect: ${err.message}`)),
      );
      socket.once('connect', () => {
        socket.io.engine.on('packet', (p) => {
          if (typeof p.data === 'string') this.bytes += p.data.length;
        });
        socket.emit('subscribe', request, (a) => {
          state.answer(a);
          ok();
        });
      });
    });
    this.views.push({ query, state });
  }

  result(converged: boolean, problem?: string): ScreenResult {
    const { kind, lastChange, messages, fulls, patches, bytes, disconnects, resyncs, patchMisses } = this;
    return {
      kind,
      converged,
      lastChange,
      messages,
      fulls,
      patches,
      bytes,
      disconnects,
      resyncs,
      patchMisses,
      ...(problem ? { problem } : {}),
    };
  }
}

const screens = kinds.map((k) => new Screen(k));
async function openScreen(screen: Screen) {
  if (screen.kind === 'wall') {
    await screen.open(queries.wall, { query: queries.wall, since: null, patches: true }, true);
    await screen.open(queries.wallAcked, { query: queries.wallAcked }, false);
  } else {
    await screen.open(queries.console, { query: queries.console, since: null, patches: true }, true);
  }
}
for (let i = 0; i < screens.length; i += 10) await Promise.all(screens.slice(i, i + 10).map(openScreen));

parentPort!.postMessage({ type: 'ready' });
parentPort!.on('message', async (m: { type: 'check'; expected: Expected } | { type: 'close' }) => {
  if (m.type === 'close') {
    for (const s of screens) for (const v of s.views) v.state.socket.close();
    parentPort!.close();
    return;
  }
  const { expected } = m;
  const results: ScreenResult[] = [];
  for (const screen of screens) {
    let problem: string | null;
    for (;;) {
      problem = null;
      for (const { query, state } of screen.views) problem ??= state.differs(expected.views[query]!);
      if (!problem || clock() > expected.until) break;
      await new Promise((ok) => setTimeout(ok, 50));
    }
    results.push(screen.result(!problem, problem ?? undefined));
  }
  parentPort!.postMessage({ type: 'checked', results });
});
