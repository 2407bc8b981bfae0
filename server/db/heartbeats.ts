import { randomUUID } from 'node:crypto';
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const HeartbeatRowSchema = z.object({
  id: z.string(),
  origin: z.string(),
  tags: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  type: z.string(),
  createTime: z.number(), // timestamptz arrives as epoch ms
  receiveTime: z.number(),
  timeout: z.number().int(),
  customer: z.string().nullable(),
});
export type HeartbeatRow = z.infer<typeof HeartbeatRowSchema>;

export const heartbeatColumns = sql.fragment`
  id, origin, tags, attributes, type, create_time AS "createTime", receive_time AS "receiveTime",
  timeout, customer`;

export interface HeartbeatWrite {
  origin: string;
  tags: readonly string[];
  attributes: Record<string, unknown>;
  /** Used only when the heartbeat is new: a repeat keeps the stored type. */
  type?: string;
  createTime: number;
  receiveTime: number;
  timeout: number;
  customer: string | null;
}

const ts = (ms: number) => sql.timestamp(new Date(ms));

/**
 * One heartbeat per (origin, customer), null customer counting as '': inserts, or replaces tags,
 * attributes, times and timeout while keeping the id and type (heartbeats-blackouts.md §1).
 */
export function upsertHeartbeat(db: CommonQueryMethods, hb: HeartbeatWrite): Promise<HeartbeatRow> {
  return db.one(sql.type(HeartbeatRowSchema)`
    INSERT INTO heartbeats (id, origin, tags, attributes, type, create_time, receive_time, timeout, customer)
    VALUES (${randomUUID()}, ${hb.origin}, ${sql.array(hb.tags, 'text')}, ${sql.jsonb(hb.attributes)},
      ${hb.type ?? 'Heartbeat'}, ${ts(hb.createTime)}, ${ts(hb.receiveTime)}, ${hb.timeout}, ${hb.customer})
    ON CONFLICT (origin, (COALESCE(customer, ''))) DO UPDATE SET
      tags = EXCLUDED.tags,
      attributes = EXCLUDED.attributes,
      create_time = EXCLUDED.create_time,
      receive_time = EXCLUDED.receive_time,
      timeout = EXCLUDED.timeout
    RETURNING ${heartbeatColumns}`);
}
