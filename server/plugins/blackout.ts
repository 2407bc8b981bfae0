import type { BuiltinInit, BuiltinPlugin } from './internal.ts';
import { PluginSignal, suppressedStatus } from './types.ts';

/**
 * blackout: an alert matching an active blackout is dropped with 202, or, with
 * NOTIFICATION_BLACKOUT, kept with the suppressed status (the pipeline then skips the remaining
 * hooks). BLACKOUT_ACCEPT severities are never dropped, so clears still close alerts.
 */
const blackout = ({ config, blackouts }: Pick<BuiltinInit, 'config' | 'blackouts'>): BuiltinPlugin => {
  const suppressed = suppressedStatus(config);
  const accepted = new Set(config.BLACKOUT_ACCEPT);
  return {
    name: 'blackout',
    async preReceive(alert, ctx) {
      if (!config.NOTIFICATION_BLACKOUT && accepted.has(alert.severity)) return;
      const match = await blackouts.findActive(alert);
      if (!match) return;
      if (config.NOTIFICATION_BLACKOUT) {
        ctx.log.debug({ id: alert.id, blackout: match.id }, 'blackout.notification');
        alert.status = suppressed;
        return;
      }
      ctx.log.debug({ id: alert.id, blackout: match.id }, 'blackout.suppressed');
      throw new PluginSignal(202, 'Suppressed alert during blackout period', { id: alert.id });
    },
  };
};

export default blackout;
