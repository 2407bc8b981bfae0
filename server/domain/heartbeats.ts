import type { Heartbeat } from '../../shared/heartbeats.ts';
import { upsertHeartbeat, type HeartbeatRow } from '../db/heartbeats.ts';
import type { Deps } from '../deps.ts';

/** A heartbeat as a sender submits it, defaults applied (POST /heartbeat or the heartbeat plugin). */
export interface HeartbeatInput {
  origin: string;
  tags: string[];
  attributes: Record<string, unknown>;
  /** Kept from the first receipt; default 'Heartbeat'. */
  type?: string;
  /** Sender's clock, epoch ms. */
  createTime: number;
  timeout: number;
  customer: string | null;
}

export interface PresentOptions {
  baseUrl: string;
  /** HEARTBEAT_MAX_LATENCY, in ms. */
  maxLatency: number;
  /** Epoch ms to measure `since` from. */
  now: number;
}

/** The API shape: latency, since and status are worked out at read time (heartbeats-blackouts.md §1). */
export function presentHeartbeat(row: HeartbeatRow, { baseUrl, maxLatency, now }: PresentOptions): Heartbeat {
  const latency = Math.round(row.receiveTime - row.createTime); // negative when the sender's clock is ahead
  const since = Math.max(0, Math.floor((now - row.receiveTime) / 1000));
  const status = since > row.timeout ? 'expired' : latency > maxLatency ? 'slow' : 'ok';
  return {
    id: row.id,
    href: `${baseUrl}/heartbeat/${row.id}`,
    origin: row.origin,
    tags: row.tags,
    attributes: row.attributes,
    type: row.type,
    createTime: new Date(row.createTime).toISOString(),
    timeout: row.timeout,
    customer: row.customer,
    receiveTime: new Date(row.receiveTime).toISOString(),
    latency,
    maxLatency,
    since,
    status,
  };
}

/** Records that an origin is alive (one heartbeat per origin and customer), then tells live clients. */
export async function receiveHeartbeat(
  deps: Deps,
  input: HeartbeatInput,
  baseUrl: string,
): Promise<Heartbeat> {
  const receiveTime = deps.clock.now();
  const row = await upsertHeartbeat(deps.db, { ...input, receiveTime });
  const heartbeat = presentHeartbeat(row, {
    baseUrl,
    maxLatency: deps.config.HEARTBEAT_MAX_LATENCY,
    now: receiveTime,
  });
  await deps.bus.publish({ type: 'heartbeat.updated', heartbeat });
  return heartbeat;
}
