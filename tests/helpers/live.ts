import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import type { LiveAlert } from '../../shared/alerts.ts';
import { applyPatch } from '../../shared/live-patch.ts';
import type {
  ClientToServerEvents,
  Position,
  ServerToClientEvents,
  SubscribeAnswer,
  ViewCounts,
} from '../../shared/events.ts';

export type LiveSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
export type Credentials = { key: string } | { token: string } | Record<string, never>;

type Payload<E extends keyof ServerToClientEvents> = Parameters<ServerToClientEvents[E]>[0];
/** One message as the socket received it, in arrival order. */
export type Received = {
  [E in keyof ServerToClientEvents]: { event: E; data: Payload<E>; at: number };
}[keyof ServerToClientEvents];

const EVENTS: (keyof ServerToClientEvents)[] = [
  'alert.updated',
  'alert.removed-from-view',
  'counts',
  'heartbeat.updated',
  'heartbeat.deleted',
  'resync',
  'tick',
];
/** The messages that belong to one view and carry its `seq`. */
type ViewMessage = Extract<Received, { event: 'alert.updated' | 'alert.removed-from-view' | 'counts' }>;
const isViewMessage = (m: Received): m is ViewMessage =>
  m.event === 'alert.updated' || m.event === 'alert.removed-from-view' || m.event === 'counts';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `probe` until it returns something other than undefined; throws `what` after `timeoutMs`. */
export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string | (() => string),
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms: ${typeof what === 'string' ? what : what()}`);
    }
    await sleep(everyMs);
  }
}

/** Socket options that override the defaults below (transports, reconnection, an http agent). */
export type SocketChoices = Partial<ManagerOptions & SocketOptions>;

function open(origin: string, auth: Credentials, choices: SocketChoices = {}): LiveSocket {
  return io(origin, {
    path: '/api/socket.io',
    transports: ['websocket'],
    auth,
    reconnection: false,
    forceNew: true,
    timeout: 5000,
    ...choices,
  });
}

/**
 * A connection expected to be refused: resolves with the `connect_error`, rejects if the socket
 * connects instead.
 */
export function refused(origin: string, auth: Credentials, timeoutMs = 5000): Promise<Error> {
  const socket = open(origin, auth);
  return new Promise<Error>((ok, fail) => {
    const timer = setTimeout(() => {
      socket.disconnect();
      fail(new Error('neither connected nor refused'));
    }, timeoutMs);
    socket.on('connect', () => {
      clearTimeout(timer);
      socket.disconnect();
      fail(new Error('the socket was accepted'));
    });
    socket.on('connect_error', (err) => {
      clearTimeout(timer);
      socket.disconnect();
      ok(err);
    });
  });
}

/** One live socket: every message it receives is logged and handed to the views subscribed on it. */
export class LiveClient {
  readonly socket: LiveSocket;
  readonly received: Received[] = [];
  readonly views = new Map<string, LiveView>();

  private constructor(socket: LiveSocket) {
    this.socket = socket;
    for (const event of EVENTS) {
      const listener = (data: unknown) => {
        const m = { event, data, at: Date.now() } as Received;
        this.received.push(m);
        if (isViewMessage(m)) this.views.get(m.data.view)?.apply(m);
      };
      socket.on(event, listener as never);
    }
  }

  static connect(
    origin: string,
    auth: Credentials,
    timeoutMs = 5000,
    choices: SocketChoices = {},
  ): Promise<LiveClient> {
    const socket = open(origin, auth, choices);
    const client = new LiveClient(socket);
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => {
        socket.disconnect();
        fail(new Error(`no connection to ${origin} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        ok(client);
      });
      socket.once('connect_error', (err) => {
        clearTimeout(timer);
        socket.disconnect();
        fail(new Error(`connect_error: ${err.message}`));
      });
    });
  }

  /** The raw answer to `subscribe` (with `patches`, changed alerts may come as patches). */
  subscribe(
    query: string,
    since?: Position | null,
    timeoutMs = 10_000,
    patches = false,
  ): Promise<SubscribeAnswer> {
    return this.socket
      .timeout(timeoutMs)
      .emitWithAck('subscribe', { query, ...(since ? { since } : {}), ...(patches ? { patches } : {}) });
  }

  /**
   * Subscribes and builds the view from the answer. With `previous` (a view of the same query
   * kept from an earlier connection), subscribes with its position and, on a catch-up answer,
   * continues from its state.
   */
  async view(query: string, previous?: LiveView, options: { patches?: boolean } = {}): Promise<LiveView> {
    const from = this.received.length;
    const answer = await this.subscribe(query, previous?.position() ?? null, 10_000, options.patches);
    if (answer.status !== 'ok') throw new Error(`subscribe ${query}: ${JSON.stringify(answer)}`);
    const view = new LiveView(query, answer, answer.mode === 'catch-up' ? previous : undefined);
    // Messages for this view that came before the answer (a catch-up's replay, or changes racing
    // the snapshot) are applied by the same rule as later ones.
    for (const m of this.received.slice(from)) {
      if (isViewMessage(m) && m.data.view === view.name) view.apply(m);
    }
    view.settle(answer);
    this.views.set(view.name, view);
    return view;
  }

  /** Waits until a received message satisfies `pred`. */
  waitFor<T extends Received>(pred: (m: Received) => m is T, timeoutMs: number, what: string): Promise<T>;
  waitFor(pred: (m: Received) => boolean, timeoutMs: number, what: string): Promise<Received>;
  waitFor(pred: (m: Received) => boolean, timeoutMs: number, what: string): Promise<Received> {
    return until(() => this.received.find(pred), timeoutMs, what);
  }

  close(): void {
    this.socket.disconnect();
  }
}

/**
 * The client side of one view (docs/live.md): the snapshot, then `alert.updated`,
 * `alert.removed-from-view` and `counts` messages applied in arrival order. A message whose `seq`
 * is below the last one applied is stale and skipped; one with an equal `seq` is applied too
 * (the messages one coalesced change produces may share a `seq`, and applying the same state twice
 * is harmless).
 */
export class LiveView {
  readonly query: string;
  readonly name: string;
  readonly epoch: string;
  readonly mode: 'snapshot' | 'catch-up';
  readonly answer: Extract<SubscribeAnswer, { status: 'ok' }>;
  /** The position of the last message (or answer) applied. */
  seq: number;
  readonly alerts: Map<string, LiveAlert>;
  counts: ViewCounts;
  private countsSeq: number;
  /** Every message this view got, applied or not, in arrival order. */
  readonly messages: ViewMessage[] = [];
  /** Messages skipped as stale. */
  skipped = 0;
  /** Patches applied, and patches for an alert this view was never sent (which must not happen). */
  patched = 0;
  readonly unknownPatches: string[] = [];

  constructor(query: string, answer: Extract<SubscribeAnswer, { status: 'ok' }>, previous?: LiveView) {
    this.query = query;
    this.answer = answer;
    this.name = answer.view;
    this.epoch = answer.position.epoch;
    this.mode = answer.mode;
    if (answer.mode === 'snapshot') {
      this.alerts = new Map(answer.alerts.map((a) => [a.id, a]));
      this.seq = answer.position.seq;
      this.counts = countsOf(answer);
      this.countsSeq = answer.position.seq;
    } else {
      if (!previous) throw new Error('a catch-up answer needs the previous state');
      this.alerts = new Map(previous.alerts);
      this.seq = previous.seq;
      this.counts = previous.counts;
      this.countsSeq = previous.seq;
    }
  }

  /** Where to resume from after a reconnect. */
  position(): Position {
    return { epoch: this.epoch, seq: this.seq };
  }

  apply(m: ViewMessage): void {
    this.messages.push(m);
    if (m.data.seq < this.seq) {
      this.skipped++;
      return;
    }
    this.seq = m.data.seq;
    if (m.event === 'alert.updated') {
      for (const a of m.data.alerts) this.alerts.set(a.id, a);
      // Every state sent is kept (page or not), so a patch always has its base here.
      for (const p of m.data.patches ?? []) {
        const base = this.alerts.get(p.id);
        if (!base) this.unknownPatches.push(p.id);
        else {
          this.alerts.set(p.id, applyPatch(base, p));
          this.patched++;
        }
      }
    } else if (m.event === 'alert.removed-from-view') for (const id of m.data.ids) this.alerts.delete(id);
    const counts = m.event === 'counts' ? m.data : m.data.counts;
    if (counts) {
      this.counts = countsOf(counts);
      this.countsSeq = m.data.seq;
    }
  }

  /** After the answer: its counts and position hold unless a message already went further. */
  settle(answer: Extract<SubscribeAnswer, { status: 'ok' }>): void {
    if (answer.position.seq >= this.countsSeq) {
      this.counts = countsOf(answer);
      this.countsSeq = answer.position.seq;
    }
    if (answer.position.seq > this.seq) this.seq = answer.position.seq;
  }

  /** The `seq` of every message in arrival order. */
  seqs(): number[] {
    return this.messages.map((m) => m.data.seq);
  }

  /** Resolves once `pred(this)` holds; throws after `timeoutMs` describing the state. */
  waitUntil(pred: (v: LiveView) => boolean, timeoutMs: number, what: string): Promise<void> {
    return until(
      () => (pred(this) ? true : undefined),
      timeoutMs,
      () => `${what} (view ${this.name}: ${this.alerts.size} alerts, counts ${JSON.stringify(this.counts)})`,
    ).then(() => undefined);
  }

  /** The state compared with the HTTP answers: id → status/severity, and the counts. */
  summary(): Record<string, string> {
    return Object.fromEntries(
      [...this.alerts.values()].map((a) => [a.id, `${a.status}/${a.severity}`] as const).sort(),
    );
  }
}

export const countsOf = (c: ViewCounts): ViewCounts => ({
  total: c.total,
  severityCounts: { ...c.severityCounts },
  statusCounts: { ...c.statusCounts },
});
