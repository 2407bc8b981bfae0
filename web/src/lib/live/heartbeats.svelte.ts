import { SvelteMap } from 'svelte/reactivity';
import { heartbeatStatus, type Heartbeat, type HeartbeatStatus } from '../../../../shared/heartbeats.ts';
import { api } from '../api.ts';
import { connectErrorMessage, openLiveSocket, type LiveSocket } from './socket.ts';

type Change = { type: 'updated'; heartbeat: Heartbeat } | { type: 'deleted'; id: string };

/**
 * Every heartbeat this browser may see, kept current by push (docs/live.md: `heartbeat.updated` and
 * `heartbeat.deleted` reach every socket): a snapshot from GET /heartbeats after each (re)connect,
 * then the pushed changes. No polling: a heartbeat's status ages on the client (statusAt).
 */
export class LiveHeartbeats {
  readonly byId = new SvelteMap<string, Heartbeat>();
  connected = $state(false);
  loaded = $state(false);
  /** When the last tick or change arrived (browser clock), for the connection banner. */
  heardAt = $state(0);
  error = $state<string | null>(null);
  /** The server's clock minus this browser's (from ticks), so ages are measured as the server does. */
  private skew = 0;
  private socket: LiveSocket | null = null;
  /** Changes pushed while a snapshot is on its way, applied on top of it. */
  private held: Change[] | null = null;

  start(): void {
    const socket = openLiveSocket();
    this.socket = socket;
    this.attach(socket);
  }

  /**
   * Follows the heartbeats on a socket opened by someone else (the wall's list), so a screen keeps
   * to one connection; `stop` then leaves that socket alone.
   */
  attach(socket: LiveSocket): void {
    if (socket.connected) {
      this.connected = true;
      this.heardAt = Date.now();
      void this.snapshot();
    }
    socket.on('connect', () => {
      this.connected = true;
      this.heardAt = Date.now();
      void this.snapshot();
    });
    socket.on('disconnect', () => (this.connected = false));
    socket.on('connect_error', (err) => {
      this.connected = false;
      this.error = connectErrorMessage(err);
    });
    socket.on('session.expired', (m) => (this.error = m.message));
    socket.on('tick', (t) => {
      this.heardAt = Date.now();
      this.skew = t.time - Date.now();
    });
    socket.on('heartbeat.updated', (m) => this.change({ type: 'updated', heartbeat: m.heartbeat }));
    socket.on('heartbeat.deleted', (m) => this.change({ type: 'deleted', id: m.id }));
  }

  stop(): void {
    this.socket?.close();
    this.socket = null;
  }

  /** The server's time now, by this browser's clock corrected with the last tick. */
  serverNow(browserNow: number): number {
    return browserNow + this.skew;
  }

  /** A heartbeat's status at `browserNow` (heartbeats-blackouts.md §1), and its age in whole seconds. */
  statusAt(hb: Heartbeat, browserNow: number): { status: HeartbeatStatus; since: number } {
    const ageMs = this.serverNow(browserNow) - Date.parse(hb.receiveTime);
    return {
      status: heartbeatStatus({ ageMs, timeout: hb.timeout, latency: hb.latency, maxLatency: hb.maxLatency }),
      since: Math.max(0, Math.floor(ageMs / 1000)),
    };
  }

  private change(c: Change): void {
    this.heardAt = Date.now();
    if (this.held) this.held.push(c);
    else this.apply(c);
  }

  private apply(c: Change): void {
    if (c.type === 'deleted') {
      this.byId.delete(c.id);
      return;
    }
    const current = this.byId.get(c.heartbeat.id);
    // A snapshot can be newer than a change held while it loaded.
    if (!current || current.receiveTime <= c.heartbeat.receiveTime)
      this.byId.set(c.heartbeat.id, c.heartbeat);
  }

  /** Replaces everything with GET /heartbeats; changes pushed meanwhile are applied after it. */
  private async snapshot(): Promise<void> {
    this.held = [];
    try {
      const { heartbeats } = await api<{ heartbeats: Heartbeat[] }>('GET', '/heartbeats');
      this.byId.clear();
      for (const hb of heartbeats) this.byId.set(hb.id, hb);
      this.error = null;
      this.loaded = true;
    } catch (err) {
      this.error = (err as Error).message;
    } finally {
      const held = this.held ?? [];
      this.held = null;
      for (const c of held) this.apply(c);
    }
  }
}
