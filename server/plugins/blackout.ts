import { findActiveBlackout } from '../domain/blackouts.ts';
import { PluginSignal, suppressedStatus, type PluginFactory } from './types.ts';

/** How the plugin finds the blackout an alert falls in; replaceable so the rules can be tested without a database. */
export type BlackoutFinder = typeof findActiveBlackout;

/**
 * blackout: an alert matching an active blackout is dropped with 202, or, with
 * NOTIFICATION_BLACKOUT, kept with the suppressed status (the pipeline then skips the remaining
 * hooks). BLACKOUT_ACCEPT severities are never dropped, so clears still close alerts.
 */
export const createBlackoutPlugin =
  (find: BlackoutFinder): PluginFactory =>
  ({ config }) => {
    const suppressed = suppressedStatus(config);
    const accepted = new Set(config.BLACKOUT_ACCEPT);
    return {
      name: 'blackout',
      async preReceive(alert, ctx) {
        if (!config.NOTIFICATION_BLACKOUT && accepted.has(alert.severity)) return;
        const match = await find(ctx.deps, alert);
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

export default createBlackoutPlugin(findActiveBlackout);
