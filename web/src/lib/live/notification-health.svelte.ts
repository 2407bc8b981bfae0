import type { NotificationHealth } from '../../../../shared/notifications.ts';
import { api } from '../api.ts';
import { openLiveSocket, type LiveSocket } from './socket.ts';

/**
 * How the notification receivers are doing, kept current by push: GET /notifications/health after
 * each (re)connect, then every `notifications:health` event (sent when a receiver starts or stops
 * failing, only to sockets whose user holds read:notifications). `health` stays null for a user
 * without that scope (the GET is refused), so whatever shows it stays hidden.
 */
export class LiveNotificationHealth {
  health = $state<Omit<NotificationHealth, 'status'> | null>(null);
  /**
   * Counts every change heard, and every `notifications:activity` (attempts that changed no
   * state), for pages that read their own lists again on it (the receivers page).
   */
  version = $state(0);
  private socket: LiveSocket | null = null;
  private owned = false;

  /** With a socket of its own (pages without one). */
  start(): void {
    this.owned = true;
    this.attach(openLiveSocket());
  }

  /** Follows the health on a socket opened by someone else (the wall's list); `stop` leaves it open. */
  attach(socket: LiveSocket): void {
    this.socket = socket;
    socket.on('connect', this.onConnect);
    socket.on('notifications:health', this.onHealth);
    socket.on('notifications:activity', this.onActivity);
    if (socket.connected) void this.fetch();
  }

  /** Stops following: closes its own socket, or leaves another's with its listeners removed. */
  stop(): void {
    if (this.owned) this.socket?.close();
    else {
      this.socket?.off('connect', this.onConnect);
      this.socket?.off('notifications:health', this.onHealth);
      this.socket?.off('notifications:activity', this.onActivity);
    }
    this.socket = null;
  }

  private readonly onConnect = () => void this.fetch();
  private readonly onHealth = (body: NotificationHealth) => this.set(body);
  private readonly onActivity = () => void this.version++;

  private set(body: NotificationHealth): void {
    this.health = { receivers: body.receivers, pagingFailing: body.pagingFailing };
    this.version++;
  }

  private async fetch(): Promise<void> {
    try {
      this.set(await api<NotificationHealth>('GET', '/notifications/health'));
    } catch {
      this.health = null;
    }
  }
}
