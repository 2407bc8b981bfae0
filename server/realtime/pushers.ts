import type { Server } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '../../shared/events.ts';
import type { Deps } from '../deps.ts';
import { pushMaintenance } from './maintenance.ts';
import { pushNotificationHealth } from './notification-health.ts';
import type { SocketData } from './view.ts';

type Io = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/**
 * What the hub pushes to its sockets beside the views' alerts, each from the bus on its own:
 * notification health (notification-health.ts) and the views' alerts in maintenance (maintenance.ts).
 */
export function startPushers(deps: Deps, io: Io): { close(): void } {
  const pushers = [pushNotificationHealth(deps, io), pushMaintenance(deps, io)];
  return {
    close() {
      for (const pusher of pushers) pusher.close();
    },
  };
}
