import { z } from 'zod';
import { IsoTimeSchema } from './alerts.ts';

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
