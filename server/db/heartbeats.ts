import { randomUUID } from 'node:crypto';
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const HeartbeatRowSchema = z.object({
  id: z.string(),
  origin: z.string(),
  tags: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  type: z.string(),
  createTime: z.number(),
  receiveTime: z.number(),
  timeout: z.number(),
  customer: z.string().nullable(),
});
export type HeartbeatRecord = z.infer<typeof HeartbeatRowSchema>;

export interface HeartbeatInput {
  origin: string;
  tags: string[];
  attributes: Record<string, unknown>;
  createTime: number;
  timeout: number;
  customer: string | null;
}

/** One heartbeat per origin and customer: insert, or update keeping id and type. */
export function upsertHeartbeat(
  db: CommonQueryMethods,
  h: HeartbeatInput,
  now: number,
): Promise<HeartbeatRecord> {
  return db.one(sql.type(HeartbeatRowSchema)`
    INSERT INTO heartbeats AS hb (id, origin, tags, attributes, type, create_time, receive_time, timeout, customer)
    VALUES (${randomUUID()}, ${h.origin}, ${sql.array(h.tags, 'text')}, ${sql.jsonb(h.attributes as never)}, 'Heartbeat',
      ${sql.timestamp(new Date(h.createTime))}, ${sql.timestamp(new Date(now))}, ${h.timeout}, ${h.customer})
    ON CONFLICT (origin, (COALESCE(customer, ''))) DO UPDATE SET
      tags = EXCLUDED.tags, attributes = EXCLUDED.attributes, create_time = EXCLUDED.create_time,
      receive_time = EXCLUDED.receive_time, timeout = EXCLUDED.timeout
    RETURNING hb.id::text AS id, hb.origin, hb.tags, hb.attributes, hb.type, hb.create_time AS "createTime",
      hb.receive_time AS "receiveTime", hb.timeout, hb.customer`);
}
