import type { NotificationHealth } from '../../shared/notifications.ts';
import type { QueuedRow } from '../db/forward-queue.ts';
import type { StatusMetric } from '../metrics.ts';
import type { LaneState } from './queue.ts';

// What the rest of the server may ask of the two delivery services, as fields of Deps
// (`deps.forwarder`, `deps.notifier`). The implementations sit above the layers that call them
// (server/forwarding/worker.ts, server/notifications/engine.ts) and are built in boot.ts; declaring
// the interfaces here keeps server/deps.ts below them, as PluginPipeline does for the plugins.

/** Forwarding's delivery side on this instance (only when forwarding is on). */
export interface Forwarder {
  /** Marks the rows this instance leases (an inline delivery's rows are inserted leased by it). */
  readonly owner: string;
  /** This instance's view of one destination, for /management/status. */
  stateOf(destination: string): LaneState | undefined;
  /** Looks for work now: for one destination, or for all. */
  kick(destination?: string): void;
  /** How long to lease a new event of `destination` to send it inline; 0 when it should just be queued. */
  inlineLeaseMs(destination: string): number;
  /**
   * Sends rows enqueued leased by this instance, one after the other in the order of
   * FWD_DESTINATIONS, and waits for them, at most FWD_INLINE_TIMEOUT: a request that waits longer
   * returns anyway, its attempt in flight goes on (up to the destination's timeout) with the usual
   * outcome — delivered, or back in the queue with its backoff — and the rows not sent yet go back
   * to the queue.
   */
  deliverInline(rows: readonly QueuedRow[]): Promise<void>;
  /** Rows delivered or given up on: removed soon, in batches. */
  settle(rows: readonly QueuedRow[]): void;
  /**
   * Before an event of `alertId` is queued: when a settled row of that alert is still waiting to
   * be removed (an inline delivery's, usually the previous request's), removes it now and gives
   * the promise to wait for, so that the new event finds nothing queued before it and is sent
   * inline too instead of after the gathered removal. Undefined (nothing to wait for) otherwise.
   */
  removedBefore(alertId: string): Promise<void> | undefined;
}

/** One receiver in the `notifications` section of /management/status. */
export interface ReceiverStatus {
  name: string;
  type: string;
  source: string;
  enabled: boolean;
  queued: number;
  oldestQueuedTime: string | null;
  retryingUntil: string | null;
  lastError: string | null;
  lastErrorTime: string | null;
  lastSentTime: string | null;
}

/** The `notifications` section of /management/status, and its entries in the `metrics` list. */
export interface NotificationStatus {
  notifications: { receivers: ReceiverStatus[]; rules: number; queued: number; sent: number; failed: number };
  metrics: StatusMetric[];
}

/** The notifications engine on this instance: routing, scheduling and delivery (always running). */
export interface Notifier {
  /** Reads receivers and rules again, after a change made on this instance (others poll a version). */
  reload(): Promise<void>;
  /** What /management/status shows, for a caller restricted to `customers` (null: every receiver). */
  status(customers: readonly string[] | null): Promise<NotificationStatus>;
  /**
   * Reads every receiver's health once (catching up with another instance's change of receivers
   * or rules first) and gives GET /notifications/health's body for a caller's `customers`.
   */
  healthFor(): Promise<(customers: readonly string[] | null) => NotificationHealth>;
  /** Whether a caller restricted to `customers` (null: none) sees the receiver `id` in this copy. */
  sees(customers: readonly string[] | null, id: string): boolean;
}
