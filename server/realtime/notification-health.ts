import type { Server } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '../../shared/events.ts';
import type { NotificationHealth } from '../../shared/notifications.ts';
import { isGranted } from '../auth/scopes.ts';
import type { Deps } from '../deps.ts';
import type { LiveSocket, SocketData } from './view.ts';

/** The least time between two `notifications:activity` pushes of one instance. */
export const ACTIVITY_MS = 1000;

type Io = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** Whether a socket's credentials may read notification health (GET /notifications/health's scope). */
const mayRead = (socket: LiveSocket, deleteScopes: readonly string[]) =>
  socket.data.auth.unrestricted || isGranted(socket.data.auth.scopes, 'read:notifications', deleteScopes);

/**
 * Pushes `notifications:health` (docs/notifications.md, "Health") to this instance's sockets whose
 * credentials hold read:notifications, each with the receivers of its customers, whenever the bus
 * says that health changed: any instance's delivery worker saw a receiver's state change, or
 * receivers or rules were changed. The health is read from the database after the message is
 * heard, so whichever instance made the change, the last push tells the last state; messages heard
 * during a read are answered by one more read after it. After a break of the bus (messages may
 * have been missed) it is read and pushed again (tests/api/notification-health.test.ts).
 *
 * An attempt that changed no state is told as `notifications:activity`, without a body, at most
 * once per `ACTIVITY_MS` (the first at once, the rest of a burst once at its end) to the readers
 * that see one of those receivers, so a receivers page stays current by push however many messages
 * are sent (tests/api/notification-health.test.ts).
 */
export function pushNotificationHealth(deps: Deps, io: Io): { close(): void } {
  const { log, config } = deps;
  let reading = false;
  let again = false;
  let closed = false;

  async function push() {
    const sockets = [...io.sockets.sockets.values()].filter((s) => mayRead(s, config.DELETE_SCOPES));
    if (sockets.length === 0) return;
    const healthFor = await deps.notifier.healthFor();
    const bodies = new Map<string, NotificationHealth>();
    for (const socket of sockets) {
      if (!socket.connected) continue;
      const customers = socket.data.caller.customers;
      const key = customers === null ? '' : JSON.stringify([...customers].sort());
      let body = bodies.get(key);
      if (!body) bodies.set(key, (body = healthFor(customers)));
      socket.emit('notifications:health', body);
    }
  }

  async function refresh() {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        await push();
      } while (again && !closed);
    } catch (err) {
      log.warn({ error: (err as Error).message }, 'live.notification_health_failed');
    } finally {
      reading = false;
    }
  }

  /** Receivers with attempts not yet told; null: one not known here (every reader is told). */
  let active: Set<string> | null = new Set();
  let activityTimer: NodeJS.Timeout | undefined;
  function activity(receiver: string | null) {
    if (receiver === null) active = null;
    else active?.add(receiver);
    if (!activityTimer) tellActivity();
  }
  function tellActivity() {
    const told = active;
    active = new Set();
    if (told !== null && told.size === 0) return;
    for (const s of io.sockets.sockets.values()) {
      if (!s.connected || !mayRead(s, config.DELETE_SCOPES)) continue;
      const customers = s.data.caller.customers;
      if (told === null || [...told].some((id) => deps.notifier.sees(customers, id)))
        s.emit('notifications:activity');
    }
    activityTimer = setTimeout(() => {
      activityTimer = undefined;
      if (!closed) tellActivity();
    }, ACTIVITY_MS);
    activityTimer.unref();
  }

  const unsubscribe = deps.bus.subscribe((event) => {
    if (event.type !== 'notifications.health' || closed) return;
    if (event.changed) void refresh();
    else activity(event.receiver);
  });
  const stopResuming = deps.bus.onResume(() => void refresh());
  return {
    close() {
      closed = true;
      clearTimeout(activityTimer);
      unsubscribe();
      stopResuming();
    },
  };
}
