import type { Heartbeat } from '../../shared/heartbeats.ts';
import { upsertHeartbeat } from '../db/heartbeats.ts';
import { presentHeartbeat } from '../present.ts';
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
