import { z } from 'zod';
import {
  AttributesSchema,
  CustomerNameSchema,
  IsoInputTimeSchema,
  IsoTimeSchema,
  limitedList,
  MAX_LENGTH,
  TimeoutSchema,
  tooLong,
} from './alerts.ts';

export const HEARTBEAT_STATUSES = ['ok', 'slow', 'expired'] as const;
export type HeartbeatStatus = (typeof HEARTBEAT_STATUSES)[number];

/** A heartbeat as the API returns it. */
export const HeartbeatSchema = z.object({
  id: z.string(),
  href: z.string(),
  origin: z.string(),
  tags: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  type: z.string(),
  createTime: IsoTimeSchema,
  timeout: z.number().int(),
  customer: z.string().nullable(),
  receiveTime: IsoTimeSchema,
  latency: z.number().int(),
  maxLatency: z.number().int(),
  since: z.number().int(),
  status: z.string(),
});
export type Heartbeat = z.infer<typeof HeartbeatSchema>;

/**
 * `expired` once more than `timeout` seconds have passed since receipt, else `slow` when the
 * latency (ms) exceeds maxLatency, else `ok` (heartbeats-blackouts.md §1). The age is compared
 * exactly, as the list filter does in SQL, not in the whole seconds `since` shows.
 */
export function heartbeatStatus(hb: {
  ageMs: number;
  timeout: number;
  latency: number;
  maxLatency: number;
}): HeartbeatStatus {
  if (hb.ageMs > hb.timeout * 1000) return 'expired';
  return hb.latency > hb.maxLatency ? 'slow' : 'ok';
}

// Real clients send null for "not given": every field accepts null and treats it as absent.
const optionalString = (name: string, max = 1024) =>
  z
    .string({ error: `${name} must be a string` })
    .max(max, tooLong(name, max))
    .nullish();

/** POST /heartbeat, before server defaults (heartbeats-blackouts.md §1). Unknown fields (and `id`) are ignored. */
export const HeartbeatInputSchema = z.object(
  {
    // Indexed with customer; the same limit as an alert's origin (the heartbeat plugin copies it).
    origin: optionalString('origin', MAX_LENGTH.origin),
    tags: limitedList('tags', z.string({ error: 'tags must be a list of strings' })).nullish(),
    attributes: AttributesSchema.nullish(),
    type: optionalString('type'),
    createTime: IsoInputTimeSchema.nullish(),
    timeout: TimeoutSchema.nullish(),
    customer: CustomerNameSchema.nullish(),
  },
  { error: 'expected a JSON object' },
);
export type HeartbeatInputBody = z.infer<typeof HeartbeatInputSchema>;
