import { z } from 'zod';
import { LiveAlertSchema } from './alerts.ts';
import { HeartbeatSchema } from './heartbeats.ts';

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
]);
export type LiveEvent = z.infer<typeof LiveEventSchema>;
export type LiveEventType = LiveEvent['type'];

/** The envelope a bus message travels in: who sent it, and its place in that sender's sequence. */
export const BusEnvelopeSchema = z.object({
  v: z.literal(1),
  origin: z.string(),
  seq: z.number().int().nonnegative(),
  event: LiveEventSchema,
});
export type BusEnvelope = z.infer<typeof BusEnvelopeSchema>;

export interface ServerToClientEvents {
  live: (e: LiveEvent) => void;
}
