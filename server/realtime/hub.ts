import { createHash } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import {
  SubscribeSchema,
  type GroupField,
  type Position,
  type SubscribeAnswer,
  type ViewCounts,
} from '../../shared/events.ts';
import { viewMembers } from '../db/alert-query.ts';
import { isUnreachable } from '../db/unavailable.ts';
import type { Deps } from '../deps.ts';
import type { Caller } from '../domain/caller.ts';
import { alertQueryOf, listViewPage, selectionFor } from '../domain/search.ts';
import { AppError, appError, databaseUnavailable, invalidRegexFromDb } from '../errors.ts';
import type { BusPosition } from './bus.ts';
import { deltaSpan, missedChanges } from './change-log.ts';
import { TICK_MS } from './liveness.ts';
import { compileMatcher } from './matcher.ts';
import { createSessions } from './sessions.ts';
import { createSharedEncoding, preEncodeSharedAck } from './shared-encoding.ts';
import { startPushers } from './pushers.ts';
import { createSocketServer } from './socket-server.ts';
import { countsOfView, View, waiting, type LiveSocket, type Logged } from './view.ts';

/**
 * Deltas are sent at most this often per hub (latest state of each alert wins). A change that comes
 * after a quiet spell is sent at once (on the next turn of the event loop, with whatever else
 * arrived in that turn); changes that follow within FLUSH_MS of a flush wait for the next one.
 */
const FLUSH_MS = 10;
/** How long a snapshot page stays shared by later subscribers at the same position. */
const PAGE_REUSE_MS = 2000;
/** Groups a grouped view's counts carry unless the subscription asks for another number. */
const GROUP_LIMIT = 100;

/** The room of a view's sockets that take full alerts, or of those that take patches. */
const roomOf = (view: View, patches: boolean) => (patches ? `view:${view.id}:patches` : `view:${view.id}`);

export interface Hub {
  close(): Promise<void>;
}

/**
 * The live hub (docs/live.md): Socket.IO on the API's HTTP server. It hears every change on the bus,
 * keeps the changes of the last LIVE_BUFFER_SIZE positions for catch-up, keeps each distinct view's
 * membership and counts, and sends only to this instance's own sockets.
 */
export async function createHub(deps: Deps, server: HttpServer): Promise<Hub> {
  const { config, log, metrics } = deps;
  const encoding = createSharedEncoding();
  const io = createSocketServer(config, server, encoding);

  const log_: Logged[] = [];
  let epoch = '';
  let lastSeq = 0;
  /** The position the views were last reloaded at: no catch-up reaches back to it (see dropViews). */
  let reloadedAt = 0;
  const views = new Map<string, View>();
  /** The latest snapshot page read of each view and base URL, and the position it reflects (see subscribe). */
  const pageReads = new Map<string, { from: number; read: ReturnType<typeof listViewPage> }>();
  /** Cancels the flush that is due, if one is. */
  let cancelFlush: (() => void) | null = null;
  let lastFlush = 0;
  const position = (): Position => ({ epoch, seq: lastSeq });

  /** What a socket is told of a failure, as HTTP would answer it: the detail is only logged. */
  const answerFor = (err: unknown, what: string): AppError => {
    if (err instanceof AppError) return err;
    const regex = invalidRegexFromDb(err);
    if (regex) return regex;
    if (isUnreachable(err)) {
      log.warn({ err }, `${what}: database unavailable`);
      return databaseUnavailable();
    }
    log.error({ err }, what);
    return appError('internal_error');
  };

  const sessions = createSessions(deps, answerFor);
  const pushers = startPushers(deps, io);
  io.use((socket, next) => void sessions.authenticate(socket, next));

  io.on('connection', (raw) => {
    const socket = raw as LiveSocket;
    metrics.liveSockets.inc();
    socket.conn.on('packetCreate', preEncodeSharedAck);
    const customers = socket.data.caller.customers;
    void socket.join(customers ? customers.map((c) => `customer:${c}`) : ['unrestricted']);
    sessions.watch(socket);
    socket.on('subscribe', (req, ack) => {
      void subscribe(socket, req).then(
        (answer) => (typeof ack === 'function' ? ack(answer) : undefined),
        (err: unknown) => {
          const e = answerFor(err, 'live.subscribe_failed');
          if (typeof ack === 'function')
            ack({ status: 'error', message: e.message, code: e.status, errorCode: e.errorCode });
        },
      );
    });
    socket.on('unsubscribe', (id) => {
      for (const view of socket.data.views) if (view.id === id) leave(socket, view);
    });
    socket.conn.on('drain', () => catchUpSlow(socket));
    socket.on('disconnect', () => {
      metrics.liveSockets.dec();
      sessions.forget(socket);
      for (const view of [...socket.data.views]) leave(socket, view);
    });
  });

  function leave(socket: LiveSocket, view: View) {
    socket.data.views.delete(view);
    socket.data.behind.delete(view);
    view.sockets.delete(socket);
    if (view.patching.delete(socket) && view.patching.size === 0) view.sent.clear();
    void socket.leave(roomOf(view, false));
    void socket.leave(roomOf(view, true));
    if (view.sockets.size > 0) return;
    // (A view left by its last socket while another was still subscribing may already be replaced.)
    if (views.get(viewKey(view)) === view) views.delete(viewKey(view));
    view.close();
  }

  const viewKey = (view: Pick<View, 'query' | 'customers' | 'groupBy' | 'groupLimit'>) =>
    JSON.stringify([
      view.query,
      view.customers ? [...view.customers].sort() : null,
      ...(view.groupBy ? [view.groupBy, view.groupLimit] : []),
    ]);

  /** The view for this query, these customers and this grouping, loading its membership on first use. */
  async function viewFor(
    query: string,
    caller: Caller,
    grouping: { by: GroupField | null; limit: number },
  ): Promise<View> {
    const key = viewKey({
      query,
      customers: caller.customers,
      groupBy: grouping.by,
      groupLimit: grouping.limit,
    });
    let view = views.get(key);
    if (!view) {
      // Live views have no implicit upper time bound: new alerts must enter them.
      const q = alertQueryOf(deps, new URLSearchParams(query));
      const id = createHash('sha1').update(key).digest('hex').slice(0, 12);
      const created = new View(id, query, caller.customers, compileMatcher(q.where), grouping);
      views.set(key, created);
      created.ready = (async () => {
        const from = lastSeq;
        const selection = await selectionFor(deps, q.where, caller);
        const rows = await viewMembers(deps.db, selection, grouping.by);
        // Dropped while loading (changes were missed, see missed()): its subscribers ask again.
        if (views.get(key) !== created) return;
        for (const r of rows) {
          const groups = grouping.by === 'service' && !r.groups?.length ? [''] : [...new Set(r.groups ?? [])];
          created.add(r.id, { severity: r.severity, status: r.status, groups });
        }
        created.seq = from;
        // Changes heard while loading: apply them on top (they may repeat what the query saw).
        for (const entry of log_) if (entry.gseq > from) created.apply(entry);
        created.updated.clear();
        created.removed.clear();
        created.countsChanged = false;
      })();
      created.ready.catch(() => {
        views.delete(key);
        created.close();
      });
      view = created;
    }
    await view.ready;
    // Dropped meanwhile (by its last socket leaving, or changes missed): a fresh one is loaded.
    if (views.get(key) !== view) return viewFor(query, caller, grouping);
    return view;
  }

  /** Sends what a socket missed of a view since `seq`; false when the buffer no longer reaches back. */
  function replay(socket: LiveSocket, view: View, seq: number): number | null {
    const m = missedChanges(log_, lastSeq, view, seq);
    if (!m) return null;
    if (m.updated.length) socket.emit('alert.updated', { view: view.id, seq: view.seq, alerts: m.updated });
    if (m.removed.length)
      socket.emit('alert.removed-from-view', { view: view.id, seq: view.seq, ids: m.removed });
    return m.updated.length + m.removed.length;
  }

  /** Adds a socket to a view's room: the patching sockets' room when it asked for patches. */
  function join(socket: LiveSocket, view: View, patches: boolean) {
    view.sockets.add(socket);
    socket.data.views.add(view);
    if (patches) {
      view.patching.add(socket);
      view.sent.rejoined();
    } else view.patching.delete(socket);
    void socket.leave(roomOf(view, !patches));
    void socket.join(roomOf(view, patches));
  }

  async function subscribe(socket: LiveSocket, raw: unknown): Promise<SubscribeAnswer> {
    const parsed = SubscribeSchema.safeParse(raw ?? {});
    if (!parsed.success)
      throw appError('invalid_subscription', parsed.error.issues[0]?.message ?? 'invalid subscription');
    const { query, since, groupBy, groupLimit } = parsed.data;
    const patches = parsed.data.patches === true;
    const caller = socket.data.caller;
    const view = await viewFor(query, caller, { by: groupBy ?? null, limit: groupLimit ?? GROUP_LIMIT });
    if (since && since.epoch === epoch && since.seq > reloadedAt) {
      const replayed = replay(socket, view, since.seq);
      if (replayed !== null) {
        join(socket, view, patches);
        return {
          status: 'ok',
          mode: 'catch-up',
          view: view.id,
          position: position(),
          replayed,
          ...snapshotCounts(view),
        };
      }
    }
    const from = view.seq;
    // Sockets subscribing to one view at one position (a wall of screens reconnecting together)
    // share one read of the page, for PAGE_REUSE_MS after it is read or until the view changes: a
    // page is 1,000 alerts, and reading and presenting it for each socket of a storm of subscriptions
    // made most of the garbage that set the heap's size (`scripts/bench/memory.ts`; tests/api/live.test.ts
    // checks the sharing and its end). The page's
    // JSON is encoded once too (shared-encoding.ts).
    const readKey = JSON.stringify([viewKey(view), caller.baseUrl]);
    let entry = pageReads.get(readKey);
    if (!entry || entry.from !== from) {
      const fresh = {
        from,
        read: listViewPage(deps, new URLSearchParams(query), caller, view.counts.total).then((list) => ({
          ...list,
          alerts: encoding.share(list.alerts),
        })),
      };
      pageReads.set(readKey, fresh);
      const forget = () => pageReads.get(readKey) === fresh && pageReads.delete(readKey);
      fresh.read.then(() => setTimeout(forget, PAGE_REUSE_MS).unref(), forget);
      entry = fresh;
    }
    const read = entry.read;
    const list = await read;
    // Changes made while the page was read are sent right after it; then the socket follows the view.
    const answer: SubscribeAnswer = {
      status: 'ok',
      mode: 'snapshot',
      view: view.id,
      position: { epoch, seq: from },
      alerts: list.alerts,
      page: list.page,
      pageSize: list.pageSize,
      ...snapshotCounts(view),
    };
    // A socket subscribing again is still in the room until it joins: it replaces what it holds
    // with this answer, so what the view sent before cannot be patched for it from here on.
    if (view.patching.has(socket)) view.sent.rejoined();
    setImmediate(() => {
      if (!socket.connected) return;
      if (views.get(viewKey(view)) !== view) {
        socket.emit('resync', { view: view.id, reason: 'changes missed' });
        return;
      }
      if (replay(socket, view, from) === null)
        socket.emit('resync', { view: view.id, reason: 'too far behind' });
      if (view.seq > from) socket.emit('counts', { view: view.id, seq: view.seq, ...snapshotCounts(view) });
      join(socket, view, patches);
    });
    return answer;
  }

  const snapshotCounts = (view: View): ViewCounts => countsOfView(view, deps.model.severityRank);

  /** A socket that was too slow for some deltas: once it drains, send it what it missed. */
  function catchUpSlow(socket: LiveSocket) {
    if (socket.data.behind.size === 0) return;
    if (waiting(socket) > config.LIVE_SLOW_SOCKET_PACKETS / 2) return;
    for (const [view, seq] of [...socket.data.behind]) {
      socket.data.behind.delete(view);
      // What it holds now is the replay's (or, after a resync, the next snapshot's): patch nothing older.
      if (view.patching.has(socket)) view.sent.rejoined();
      if (replay(socket, view, seq) === null)
        socket.emit('resync', { view: view.id, reason: 'too far behind' });
      socket.emit('counts', { view: view.id, seq: view.seq, ...snapshotCounts(view) });
    }
  }

  function scheduleFlush() {
    if (cancelFlush) return;
    const wait = lastFlush + FLUSH_MS - Date.now();
    if (wait > 0) {
      const timer = setTimeout(flush, wait);
      cancelFlush = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(flush);
      cancelFlush = () => clearImmediate(immediate);
    }
  }

  function flush() {
    cancelFlush = null;
    const now = Date.now();
    lastFlush = now;
    // The whole flush runs in one turn of the event loop, writing to every socket (docs/live.md, "Metrics").
    const timer = metrics.liveFlush.startTimer();
    for (const view of views.values()) {
      if (!view.updated.size && !view.removed.size && !view.countsChanged) continue;
      const slow = [...view.sockets].filter(
        (s) => s.data.behind.has(view) || waiting(s) > config.LIVE_SLOW_SOCKET_PACKETS,
      );
      for (const s of slow)
        if (!s.data.behind.has(view)) s.data.behind.set(view, view.seq - deltaSpan(log_, view));
      const except = slow.map((s) => s.id);
      const target = io.to([roomOf(view, false), roomOf(view, true)]).except(except);
      const delivered = view.updated.size + view.removed.size;
      // The counts ride along with the batch's first message; alone only when no alert moved.
      let counts = view.countsChanged ? snapshotCounts(view) : undefined;
      if (view.updated.size) {
        const updates = [...view.updated.values()];
        const batch = { view: view.id, seq: view.seq, ...(counts ? { counts } : {}) };
        // Encoded once per view and kind: full alerts for the others, patches where a patching
        // socket holds the state they apply to (patches.ts).
        if (view.sockets.size > view.patching.size)
          io.to(roomOf(view, false))
            .except(except)
            .emit('alert.updated', { ...batch, alerts: updates.map((u) => u.alert) });
        if (view.patching.size) {
          const { alerts, patches } = view.sent.split(updates, log_[0]?.gseq ?? 0);
          io.to(roomOf(view, true))
            .except(except)
            .emit('alert.updated', { ...batch, alerts, ...(patches.length ? { patches } : {}) });
        }
        counts = undefined;
        for (const u of updates) metrics.livePushLatency.observe(Math.max(0, now - u.time) / 1000);
      }
      for (const id of view.removed.keys()) view.sent.forget(id);
      if (view.removed.size) {
        target.emit('alert.removed-from-view', {
          view: view.id,
          seq: view.seq,
          ids: [...view.removed.keys()],
          ...(counts ? { counts } : {}),
        });
        counts = undefined;
      }
      if (counts) target.emit('counts', { view: view.id, seq: view.seq, ...counts });
      metrics.liveEvents.inc({ outcome: 'delivered' }, delivered * (view.sockets.size - slow.length));
      metrics.liveEvents.inc({ outcome: 'coalesced' }, delivered * slow.length);
      view.updated.clear();
      view.removed.clear();
      view.countsChanged = false;
    }
    timer();
  }

  /**
   * Changes numbered between `heard` and `next` never reached this instance: a message this
   * instance could not read is dropped, and Redis pub/sub drops what is published while a
   * subscriber reconnects (a reconnection itself reloads everything, see `resumed`). Every view may
   * be wrong from here on, and the change log has a hole a catch-up must not cross.
   */
  function missed(heard: number, next: number) {
    log.warn({ heard, next, views: views.size }, 'live.changes_missed');
    metrics.liveChangesMissed.inc(next - heard - 1);
    dropViews('changes missed', next - 1);
  }

  /**
   * The views are dropped, their sockets told to resync (and, subscribing again, given views loaded
   * afresh from the database), and the log starts again; no catch-up is served from `upTo` or
   * before (a socket at that position may lack changes this instance never heard).
   */
  function dropViews(reason: string, upTo: number) {
    log_.length = 0;
    pageReads.clear();
    reloadedAt = upTo;
    for (const view of [...views.values()]) {
      views.delete(viewKey(view));
      // Its last socket leaving closes it; one no socket has joined yet (still loading) is closed here.
      if (view.sockets.size === 0) view.close();
      for (const socket of [...view.sockets]) {
        socket.emit('resync', { view: view.id, reason });
        leave(socket, view);
      }
    }
  }

  /**
   * The bus listens again after a break (Redis was unreachable, or this instance started without
   * it): whatever was published meanwhile was not heard, and an instance stopped during the break
   * never published its last changes at all. So every view is reloaded from the database and
   * every socket resyncs; numbering goes on from where the sequence stands now
   * (tests/api/redis-outage.test.ts).
   */
  function resumed(at: BusPosition) {
    log.info({ epoch: at.epoch, seq: at.seq, views: views.size }, 'live.bus_resumed');
    dropViews('bus reconnected', at.seq);
    epoch = at.epoch;
    lastSeq = at.seq;
  }

  const unsubscribe = deps.bus.subscribe((event, info) => {
    if (info.epoch && info.epoch !== epoch) {
      // A new sequence (Redis lost its counter, or an instance dropped changes from its full
      // outbox): what the views hold no longer lines up. Views made before any position was known
      // (started without Redis) cannot tell what they missed either.
      if (epoch || views.size) dropViews('sequence restarted', info.gseq - 1);
      epoch = info.epoch;
      lastSeq = info.gseq - 1;
    } else if (info.gseq > 0 && info.gseq <= lastSeq) {
      // Published before the position a resume read: the views reloaded since then include it.
      return;
    } else if (lastSeq > 0 && info.gseq > lastSeq + 1) missed(lastSeq, info.gseq);
    lastSeq = Math.max(lastSeq, info.gseq);
    // An import's rows: every view loads afresh (import-alerta-live.test.ts); health: notification-health.ts.
    if (event.type === 'views.reload') return dropViews(event.reason, info.gseq);
    if (event.type === 'notifications.health') return;
    const entry: Logged = { gseq: info.gseq, time: info.time, event };
    log_.push(entry);
    // Trimmed in chunks: keeping at least LIVE_BUFFER_SIZE changes without moving the array every time.
    if (log_.length > config.LIVE_BUFFER_SIZE * 1.1) {
      log_.splice(0, log_.length - config.LIVE_BUFFER_SIZE);
      for (const view of views.values()) view.sent.prune(log_[0]!.gseq);
    }
    if (event.type === 'heartbeat.updated' || event.type === 'heartbeat.deleted') {
      const customer = event.type === 'heartbeat.updated' ? event.heartbeat.customer : event.customer;
      const rooms = customer ? ['unrestricted', `customer:${customer}`] : ['unrestricted'];
      if (event.type === 'heartbeat.updated')
        io.to(rooms).emit('heartbeat.updated', { seq: info.gseq, heartbeat: event.heartbeat });
      else io.to(rooms).emit('heartbeat.deleted', { seq: info.gseq, id: event.id });
      return;
    }
    let touched = false;
    for (const view of views.values()) {
      if (view.ready === null) continue;
      touched = view.apply(entry) || touched;
    }
    if (touched) scheduleFlush();
  });

  const tick = setInterval(() => {
    io.emit('tick', { time: Date.now(), ...position() });
    void sessions.check();
  }, TICK_MS);
  tick.unref();

  const stopResuming = deps.bus.onResume(resumed);

  // Where the shared sequence stands now: snapshots taken before the next change refer to it. Not
  // waited for (Redis may be unreachable; its return is a resume, above).
  deps.bus.position().then(
    (start) => {
      if (epoch) return;
      epoch = start.epoch;
      lastSeq = Math.max(lastSeq, start.seq);
    },
    (err: unknown) => log.info({ err: (err as Error).message }, 'live.position_unknown'),
  );

  return {
    async close() {
      clearInterval(tick);
      sessions.close();
      pushers.close();
      cancelFlush?.();
      unsubscribe();
      stopResuming();
      // Closing the connections (not a Socket.IO disconnect) lets clients reconnect on their own,
      // to this instance once it is back or to another one behind the same address.
      io.engine.close();
      io.removeAllListeners();
      for (const view of views.values()) view.close();
      views.clear();
    },
  };
}
