import * as queue from '../db/forward-queue.ts';
import type { Deps } from '../deps.ts';
import type { StatusMetric } from '../metrics.ts';
import { isoTime, outcomeCounter, queueMetrics, queuedStatus, retryStatus } from '../delivery/status.ts';
import { isForwardingOn } from '../config/destinations.ts';
import { toDestinations } from './destinations.ts';

const OUTCOMES = ['delivered', 'failed', 'rejected', 'expired', 'lost'] as const;
type Outcome = (typeof OUTCOMES)[number];

const DESCRIPTIONS: Record<Outcome, string> = {
  delivered: 'Forwarded events the destination took',
  failed: 'Forwarding attempts that failed and will be retried',
  rejected: 'Forwarded events the destination refused (not retried)',
  expired: 'Forwarded events given up after FWD_MAX_ATTEMPTS',
  lost: 'Events that could not be queued for forwarding',
};

/** Reads the queue depth per destination and sets the `forward_queue_events` gauge from it (forwarding on only). */
export async function refreshQueueGauge(deps: Deps) {
  if (!isForwardingOn(deps.config)) return [];
  const depths = await queue.depths(deps.db);
  deps.metrics.forwardQueued.reset();
  for (const d of toDestinations(deps.config.FWD_DESTINATIONS))
    deps.metrics.forwardQueued.set({ destination: d.url }, 0);
  for (const d of depths) deps.metrics.forwardQueued.set({ destination: d.destination }, d.queued);
  return depths;
}

/**
 * What /management/status shows of forwarding: per destination the queue (shared by every instance)
 * and this instance's counts since it started, its backoff and last error; plus totals in the
 * established `metrics` list shape (group `forwarding`).
 */
export async function forwardingStatus(deps: Deps) {
  const { config } = deps;
  const baseUrl = config.BASE_URL || null;
  if (!isForwardingOn(config)) {
    return { forwarding: { enabled: false, baseUrl, destinations: [] }, metrics: [] as StatusMetric[] };
  }
  const destinations = toDestinations(config.FWD_DESTINATIONS);
  const depths = await refreshQueueGauge(deps);
  const countOf = outcomeCounter((await deps.metrics.forwardEvents.get()).values, 'destination');

  const forwarding = {
    enabled: true,
    baseUrl,
    destinations: destinations.map((d) => {
      const depth = depths.find((q) => q.destination === d.url);
      const state = deps.forwarder?.stateOf(d.url);
      const now = Date.now();
      return {
        url: d.url,
        auth: d.auth.kind,
        filter: [...d.filter],
        ...queuedStatus(depth),
        ...Object.fromEntries(OUTCOMES.map((o) => [o, countOf(d.url, o)])),
        ...retryStatus(depth, state, now),
        lastDeliveryTime: isoTime(state?.lastDeliveryTime),
      };
    }),
  };

  const metrics = queueMetrics({
    group: 'forwarding',
    queuedTitle: 'Queued forwards',
    queuedDescription: 'Events waiting to be forwarded, all destinations',
    queued: depths.reduce((sum, d) => sum + d.queued, 0),
    countTitle: 'Forwards',
    outcomes: OUTCOMES,
    descriptions: DESCRIPTIONS,
    count: (o) => countOf(null, o),
  });
  return { forwarding, metrics };
}
