import { toDestinations } from '../forwarding/destinations.ts';
import type { Base } from '../deps.ts';
import type { Forwarder } from '../delivery/services.ts';
import { followForwards, forwardedAlert, planForwards, queueForwards } from '../forwarding/enqueue.ts';
import type { BuiltinInit, BuiltinPlugin, ForwardQueue } from './internal.ts';

/** This instance's forward queue, as the forwarder plugin is made with it (boot.ts); null forwarder: forwarding is off. */
export const forwardQueue = (deps: Base, forwarder: Forwarder | null): ForwardQueue => ({
  plan: (destinations, request, alertId) => planForwards(deps, forwarder, destinations, request, alertId),
  follow: (written) => followForwards(deps, forwarder, written),
  queue: (log, destinations, request, target) =>
    queueForwards(deps, forwarder, log, destinations, request, target),
});

/**
 * forwarder: federation to FWD_DESTINATIONS (spec "Events", docs/forwarding.md). Received alerts,
 * actions that took effect and deletions are queued in Postgres per destination, tried once before
 * the hook returns (at most FWD_INLINE_TIMEOUT), and otherwise delivered in the background;
 * heartbeats, notes, status, tags and attributes are never forwarded. Requests whose
 * loop header names this server never get here (server/http/middleware/loop-guard.ts answers them).
 * List it last, so that a later hook cannot veto a deletion already forwarded.
 */
const forwarder = ({
  config,
  log,
  clock,
  forwards,
}: Pick<BuiltinInit, 'config' | 'log' | 'clock' | 'forwards'>): BuiltinPlugin => {
  const destinations = toDestinations(config.FWD_DESTINATIONS);
  log.debug({ plugin: 'forwarder', destinations: destinations.map((d) => d.url) }, 'plugin.forwarder: ready');
  if (destinations.length === 0) return { name: 'forwarder' };
  return {
    name: 'forwarder',
    // Received alerts are queued by the receipt's own statement (committed with the alert), then
    // sent inline; postReceive stays for when another plugin's post-receive hook runs before ours.
    receiptAlong(alert, ctx) {
      return forwards.plan(destinations, ctx.request, alert.id);
    },
    // The same rows, which need nothing of the alert but its id.
    plainAlong(alertId, ctx) {
      return forwards.plan(destinations, ctx.request, alertId);
    },
    afterReceipt(_alert, written) {
      return forwards.follow(written);
    },
    async postReceive(alert, ctx) {
      const body = forwardedAlert(alert, clock.now());
      await forwards.queue(ctx.log, destinations, ctx.request, {
        kind: 'alert',
        alertId: alert.id,
        body,
      });
    },
    // After the action is stored, not before as the established server does: an action this server
    // refused (409) is not sent on. The remote applies its own timeouts, so none is sent.
    async postAction(alert, action, text, _timeout, ctx) {
      await forwards.queue(ctx.log, destinations, ctx.request, {
        kind: 'action',
        alertId: alert.id,
        body: { action, text, timeout: null },
        action,
      });
    },
    async delete(alert, ctx) {
      await forwards.queue(ctx.log, destinations, ctx.request, {
        kind: 'delete',
        alertId: alert.id,
        body: null,
      });
      return true;
    },
  };
};

export default forwarder;
