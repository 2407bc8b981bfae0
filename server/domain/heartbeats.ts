import type { Heartbeat } from '../../shared/heartbeats.ts';
import { upsertHeartbeat, type HeartbeatInput, type HeartbeatRecord } from '../db/heartbeats.ts';
import type { Deps } from '../deps.ts';

/** A heartbeat as the API shows it: latency, since and status are worked out at read time. */
export function presentHeartbeat(
  h: HeartbeatRecord,
  baseUrl: string,
  maxLatency: number,
  now: number,
): Heartbeat {
  const latency = Math.max(0, h.receiveTime - h.createTime);
  const since = Math.max(0, Math.floor((now - h.receiveTime) / 1000));
  const status = since > h.timeout ? 'expired' : latency > maxLatency ? 'slow' : 'ok';
  return {
    id: h.id,
    href: `${baseUrl}/heartbeat/${h.id}`,
    origin: h.origin,
    tags: h.tags,
    attributes: h.attributes,
    type: h.type,
    createTime: new Date(h.createTime).toISOString(),
    timeout: h.timeout,
    customer: h.customer,
    receiveTime: new Date(h.receiveTime).toISOString(),
    latency,
    maxLatency,
    since,
    status,
  };
}

/** Records that an origin is alive, then tells live clients. */
export async function receiveHeartbeat(
  deps: Deps,
  input: HeartbeatInput,
  baseUrl: string,
): Promise<Heartbeat> {
  const now = deps.clock.now();
  const record = await upsertHeartbeat(deps.db, input, now);
  const heartbeat = presentHeartbeat(record, baseUrl, deps.config.HEARTBEAT_MAX_LATENCY, now);
  await deps.bus.publish({ type: 'heartbeat.updated', heartbeat });
  return heartbeat;
}
