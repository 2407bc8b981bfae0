import type { BuiltinInit, BuiltinPlugin } from './internal.ts';
import { PluginSignal } from './types.ts';

/** heartbeat: an alert whose event is in HEARTBEAT_EVENTS is stored as a heartbeat instead (202). */
const heartbeat = ({ config, heartbeats }: Pick<BuiltinInit, 'config' | 'heartbeats'>): BuiltinPlugin => {
  const events = new Set(config.HEARTBEAT_EVENTS);
  return {
    name: 'heartbeat',
    async preReceive(alert, ctx) {
      if (!events.has(alert.event)) return;
      const hb = await heartbeats.receive(
        {
          origin: alert.origin,
          tags: alert.tags,
          attributes: {
            environment: alert.environment,
            severity: alert.severity,
            service: alert.service,
            group: alert.group,
          },
          timeout: alert.timeout,
          customer: alert.customer,
          createTime: alert.createTime,
        },
        ctx.request.baseUrl,
      );
      throw new PluginSignal(202, 'Alert converted to Heartbeat', { id: hb.id });
    },
  };
};

export default heartbeat;
