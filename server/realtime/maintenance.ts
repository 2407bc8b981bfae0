import type { Server } from 'socket.io';
import type { ClientToServerEvents, LiveEvent, ServerToClientEvents } from '../../shared/events.ts';
import * as blackoutsDb from '../db/blackouts.ts';
import type { BlackoutRow } from '../db/blackouts.ts';
import { alertsAt, type BlackoutFields } from '../db/maintenance.ts';
import type { Deps } from '../deps.ts';
import { isInForce, matchesBlackout } from '../domain/blackout-status.ts';
import { NONE, seriesOf, windowAt } from '../domain/recurrence.ts';
import type { LiveSocket, SocketData, View } from './view.ts';

type Io = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** How often the blackouts' change counter is read while a view is watched (another instance's change shows within it). */
const VERSION_MS = 1000;
/** The longest wait for a window edge: past it the set is computed again anyway. */
const EDGE_MAX_MS = 60_000;

/**
 * When the blackout next starts or ends after `now` (null: never again). Only when to look again:
 * whether it covers an alert is `matchesBlackout`'s. A recurring blackout's occurrence in force
 * or next is its stored window when that knows `now`, else the rule's.
 */
export function nextEdge(b: BlackoutRow, now: number): number | null {
  const series = seriesOf(b);
  let start = b.startTime;
  let end = b.endTime;
  if (series) {
    const stored = b.windowFrom != null && b.windowStart != null && b.windowEnd != null;
    const w =
      stored && b.windowFrom! <= now && now < b.windowEnd!
        ? { start: b.windowStart!, end: b.windowEnd! }
        : windowAt(series, now);
    if (w.end === NONE) return null;
    ({ start, end } = w);
  }
  if (start > now) return start;
  return end > now ? end : null;
}

/** The blackout check's view of an alert at `now`: in force now, not at the alert's createTime. */
const atNow = (alert: Omit<BlackoutFields, 'id'>, now: number) => ({ ...alert, createTime: now });

/**
 * The wall's "in maintenance" (docs/ui-wall.md, docs/live.md "maintenance"): for each live view
 * this instance serves, the ids of its alerts that a blackout in force now covers, pushed to the
 * view's sockets as `maintenance` when a socket joins the view and whenever the set changes. The
 * decision is `matchesBlackout` with the alert's createTime taken as now, the same function the
 * receive path asks. The set is computed afresh at each window edge (a timer set to the soonest
 * start or end of any blackout), when the blackouts change (their change counter, read once a
 * second while a view is watched, so any instance's change shows), and after a break of the bus;
 * in between, each alert the bus says changed is matched in process against the blackouts in
 * force (tests/api/live-maintenance.test.ts, tests/browser/wall-maintenance.test.ts).
 */
export function pushMaintenance(deps: Deps, io: Io): { close(): void } {
  const { db, clock, config, log } = deps;
  const customerViews = config.CUSTOMER_VIEWS;
  /** The blackouts in force at the last computation. */
  let inForce: BlackoutRow[] = [];
  /** Ids of the alerts (of any view) those blackouts cover. */
  const covered = new Set<string>();
  /** What each view's sockets were last sent (sorted ids, joined). */
  const sent = new WeakMap<View, string>();
  let version: number | null = null;
  let computing: Promise<void> | null = null;
  let again = false;
  let closed = false;
  let edgeTimer: ReturnType<typeof setTimeout> | undefined;
  let pushPending = false;
  /** Alerts the bus told of while a computation ran: matched again on top of its result. */
  let heardMeanwhile: (() => void)[] | null = null;

  const watchedViews = (): Set<View> => {
    const views = new Set<View>();
    for (const socket of io.sockets.sockets.values())
      for (const v of (socket as LiveSocket).data.views ?? []) views.add(v);
    return views;
  };

  const idsOf = (view: View): string[] => [...covered].filter((id) => view.has(id)).sort();

  function send(view: View, socket?: LiveSocket) {
    const ids = idsOf(view);
    const key = ids.join('\n');
    if (!socket) {
      if (sent.get(view) === key) return;
      sent.set(view, key);
    }
    const body = { view: view.id, ids };
    if (socket) socket.emit('maintenance', body);
    else for (const s of view.sockets) s.emit('maintenance', body);
  }

  /** After this turn (when the hub has applied the same bus message to its views), sends what changed. */
  function pushChanged() {
    if (pushPending || closed) return;
    pushPending = true;
    setImmediate(() => {
      pushPending = false;
      for (const view of watchedViews()) send(view);
    });
  }

  async function compute() {
    const now = clock.now();
    heardMeanwhile = [];
    version = await blackoutsDb.readVersion(db);
    const rows = await blackoutsDb.endingAfter(db, now);
    inForce = rows.filter((b) => isInForce(b, now));
    // Where the blackouts in force could match: an environment, and its resources unless one names none.
    const places = new Map<string, string[] | null>();
    for (const b of inForce) {
      const known = places.get(b.environment);
      if (b.resource === null || known === null) places.set(b.environment, null);
      else places.set(b.environment, [...(known ?? []), b.resource]);
    }
    const alerts = await alertsAt(db, places);
    covered.clear();
    for (const a of alerts)
      if (inForce.some((b) => matchesBlackout(b, atNow(a, now), customerViews))) covered.add(a.id);
    for (const apply of heardMeanwhile) apply();
    heardMeanwhile = null;
    const edge = rows.reduce((t, b) => Math.min(t, nextEdge(b, now) ?? Infinity), Infinity);
    clearTimeout(edgeTimer);
    if (!closed) {
      edgeTimer = setTimeout(refresh, Math.max(0, Math.min(edge - clock.now() + 1, EDGE_MAX_MS)));
      edgeTimer.unref();
    }
    pushChanged();
  }

  /** Computes the set afresh; a request while one runs is answered by one more run after it. */
  function refresh(): Promise<void> {
    if (computing) {
      again = true;
      return computing;
    }
    computing = (async () => {
      try {
        do {
          again = false;
          await compute();
        } while (again && !closed);
      } catch (err) {
        log.warn({ error: (err as Error).message }, 'live.maintenance_failed');
      } finally {
        heardMeanwhile = null;
        computing = null;
      }
    })();
    return computing;
  }

  // The blackouts' change counter (bumped by any instance's write, migration 0057), read only while watched.
  const versionCheck = setInterval(() => {
    if (computing || version === null || watchedViews().size === 0) return;
    blackoutsDb.readVersion(db).then(
      (v) => v !== version && void refresh(),
      (err: unknown) => log.warn({ error: (err as Error).message }, 'live.maintenance_failed'),
    );
  }, VERSION_MS);
  versionCheck.unref();

  // A socket joining a view (hub.ts join) is sent the view's set once the join is done.
  const adapter = io.of('/').adapter;
  const joined = (room: string, sid: string) => {
    if (!room.startsWith('view:') || closed) return;
    setImmediate(() => {
      const socket = io.sockets.sockets.get(sid) as LiveSocket | undefined;
      const viewId = room.split(':')[1];
      const view = socket && [...socket.data.views].find((v) => v.id === viewId);
      if (!socket?.connected || !view) return;
      if (version === null) void refresh().then(() => socket.connected && send(view, socket));
      else send(view, socket);
    });
  };
  adapter.on('join-room', joined);

  /** Follows one alert the bus told of: covered or not by the blackouts in force now. */
  function heard(event: LiveEvent) {
    if (event.type === 'alert.deleted') {
      if (covered.delete(event.id)) pushChanged();
      return;
    }
    if (event.type !== 'alert.received' && event.type !== 'alert.updated') return;
    const { alert } = event;
    const now = clock.now();
    const had = covered.has(alert.id);
    const is = inForce.some((b) => matchesBlackout(b, atNow(alert, now), customerViews));
    if (is) covered.add(alert.id);
    else covered.delete(alert.id);
    // Also when it stays covered: the change may have brought it into a view.
    if (had || is) pushChanged();
  }
  const unsubscribe = deps.bus.subscribe((event) => {
    if (closed || version === null) return;
    heard(event);
    heardMeanwhile?.push(() => heard(event));
  });
  const stopResuming = deps.bus.onResume(() => void refresh());

  return {
    close() {
      closed = true;
      clearTimeout(edgeTimer);
      clearInterval(versionCheck);
      adapter.off('join-room', joined);
      unsubscribe();
      stopResuming();
    },
  };
}
