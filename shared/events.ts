import { z } from 'zod';
import { LiveAlertSchema } from './alerts.ts';
import { HeartbeatSchema } from './heartbeats.ts';
import type { AlertPatch } from './live-patch.ts';
import type { NotificationHealth } from './notifications.ts';
import { AlertCountsShape } from './queries.ts';

/**
 * The only shapes that travel over the event bus and the live socket. Every instance hears
 * every message; receivers validate with this schema and drop what does not fit.
 */
export const LiveEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('alert.received'), alert: LiveAlertSchema }),
  z.object({ type: z.literal('alert.updated'), alert: LiveAlertSchema }),
  z.object({ type: z.literal('alert.deleted'), id: z.string(), customer: z.string().nullable() }),
  z.object({ type: z.literal('heartbeat.updated'), heartbeat: HeartbeatSchema }),
  z.object({ type: z.literal('heartbeat.deleted'), id: z.string(), customer: z.string().nullable() }),
  // Many rows changed at once outside the receive path (an import): every screen loads afresh.
  z.object({ type: z.literal('views.reload'), reason: z.string().max(200) }),
  // A delivery attempt was recorded, or what makes a receiver paging changed: when `changed` (a
  // receiver's state changed, or receivers or rules did) each instance reads the health afresh and
  // pushes `notifications:health` to its sockets, else only `notifications:activity`
  // (server/realtime/notification-health.ts). Senders before `changed` existed meant a change.
  z.object({
    type: z.literal('notifications.health'),
    receiver: z.string().max(100).nullable(),
    changed: z.boolean().default(true),
  }),
]);
export type LiveEvent = z.infer<typeof LiveEventSchema>;
/** A change of one alert or heartbeat: what views apply and the change log keeps. */
export type ChangeEvent = Exclude<LiveEvent, { type: 'views.reload' | 'notifications.health' }>;
export type LiveEventType = LiveEvent['type'];

/**
 * The envelope a bus message travels in: who sent it, its place in that sender's sequence, and
 * its place in the sequence shared by every instance (`gseq`, within `epoch`), with the publish
 * time in epoch ms (for push latency).
 */
export const BusEnvelopeSchema = z.object({
  v: z.literal(1),
  origin: z.string(),
  seq: z.number().int().nonnegative(),
  gseq: z.number().int().nonnegative().optional(),
  epoch: z.string().optional(),
  time: z.number().optional(),
  event: LiveEventSchema,
});
export type BusEnvelope = z.infer<typeof BusEnvelopeSchema>;

// ---- the live socket (docs/live.md) ---------------------------------------------------------

/** Where a client is in the event sequence: events are numbered within an epoch. */
export const PositionSchema = z.object({ epoch: z.string(), seq: z.number().int().nonnegative() });
export type Position = z.infer<typeof PositionSchema>;

/** Fields a view's alerts may be grouped by (the wall's `group-by`, docs/live.md). */
export const GROUP_FIELDS = ['event', 'service', 'environment', 'resource'] as const;
export type GroupField = (typeof GROUP_FIELDS)[number];

/** `subscribe`: a view of alerts, in the query language of GET /alerts. */
export const SubscribeSchema = z.object({
  /** The query string GET /alerts takes (filters, q, sort-by, page, page-size), without the leading `?`. */
  query: z.string().max(8000).default(''),
  /** After a reconnect: the position of the last event applied, to be caught up from there. */
  since: PositionSchema.nullish(),
  /**
   * Also count the view's alerts per value of this field (an alert with several services counts in
   * each): the counts then carry the `groups` that come first and `groupTotal`.
   */
  groupBy: z.enum(GROUP_FIELDS).nullish(),
  /** How many groups the counts carry (default 100). */
  groupLimit: z.number().int().min(1).max(1000).nullish(),
  /**
   * Changed alerts may come as patches (`patches` of `alert.updated`): only the fields that changed
   * since the state this socket was last sent of the alert. The client must keep every state it was
   * sent for the view, on its page or not, until the alert leaves the view (docs/live.md, "Patches").
   */
  patches: z.boolean().nullish(),
});
export type SubscribeRequest = z.input<typeof SubscribeSchema>;

/** The alerts of one group of a grouped view. */
export const GroupCountsSchema = z.object({
  key: z.string(),
  total: z.number().int(),
  ...AlertCountsShape,
});
export type GroupCounts = z.infer<typeof GroupCountsSchema>;

/** The counts of a whole view (not just its first page). */
export const ViewCountsSchema = z.object({
  total: z.number().int(),
  ...AlertCountsShape,
  /**
   * Grouped views only: the first `groupLimit` groups — those with unacknowledged alerts (neither
   * ack nor shelved) first, then by their most severe alert, then by size, then by key.
   */
  groups: z.array(GroupCountsSchema).optional(),
  /** Grouped views only: how many groups there are in all. */
  groupTotal: z.number().int().optional(),
});
export type ViewCounts = z.infer<typeof ViewCountsSchema>;

/** The answer to `subscribe`: a fresh snapshot, or (with `since`) the missed events were replayed. */
export type SubscribeAnswer =
  | ({
      status: 'ok';
      mode: 'snapshot';
      view: string;
      position: Position;
      /** The first page, as GET /alerts answers it. */
      alerts: z.infer<typeof LiveAlertSchema>[];
      page: number;
      pageSize: number;
    } & ViewCounts)
  | ({ status: 'ok'; mode: 'catch-up'; view: string; position: Position; replayed: number } & ViewCounts)
  | { status: 'error'; message: string; code: number; errorCode?: string };

export interface ViewAlerts {
  view: string;
  seq: number;
  alerts: z.infer<typeof LiveAlertSchema>[];
  /** Subscriptions with `patches` only: alerts the socket holds, as the fields that changed. */
  patches?: AlertPatch[];
  /** The view's counts when they changed with this batch (saves a separate `counts` message). */
  counts?: ViewCounts;
}
export interface ViewRemovals {
  view: string;
  seq: number;
  ids: string[];
  counts?: ViewCounts;
}

export interface ServerToClientEvents {
  /** Alerts of a view that are new or changed (coalesced: the latest state of each). */
  'alert.updated': (m: ViewAlerts) => void;
  /** Alerts that left a view: deleted, or changed so that they no longer match. */
  'alert.removed-from-view': (m: ViewRemovals) => void;
  /** The view's counts, whenever they change. */
  counts: (m: { view: string; seq: number } & ViewCounts) => void;
  'heartbeat.updated': (m: { seq: number; heartbeat: z.infer<typeof HeartbeatSchema> }) => void;
  'heartbeat.deleted': (m: { seq: number; id: string }) => void;
  /** The client fell too far behind (or the sequence restarted): take a new snapshot. */
  resync: (m: { view: string; reason: string }) => void;
  /** The token the socket connected with expired: the server disconnects it right after. */
  'session.expired': (m: { message: string }) => void;
  /** Every few seconds: the server's time and position, so screens can show how fresh they are. */
  tick: (m: { time: number } & Position) => void;
  /**
   * The view's alerts that a blackout in force now covers (docs/live.md, "Maintenance"): every id,
   * sent when the socket joins the view and again whenever the set changes (a window starts or ends,
   * blackouts or alerts change).
   */
  maintenance: (m: { view: string; ids: string[] }) => void;
  /**
   * Sockets whose credentials hold read:notifications: a receiver's health changed; the body is
   * GET /notifications/health's for the socket's customers.
   */
  'notifications:health': (m: NotificationHealth) => void;
  /**
   * Sockets whose credentials hold read:notifications: delivery attempts were recorded without a
   * change of state (last success, queue and attempts moved); at most one a second per socket.
   * Pages that show those facts read them again (the receivers list).
   */
  'notifications:activity': () => void;
}

export interface ClientToServerEvents {
  subscribe: (req: SubscribeRequest, ack: (answer: SubscribeAnswer) => void) => void;
  unsubscribe: (view: string) => void;
}
