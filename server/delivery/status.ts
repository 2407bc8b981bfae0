import type { StatusMetric } from '../metrics.ts';
import type { LaneState } from './queue.ts';

// What /management/status shows of a delivery queue (forwarding's destinations, notifications'
// receivers): each lane's queue, shared by every instance, and this instance's backoff and counts.

/** Epoch ms as ISO text; null for none. */
export const isoTime = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);

/** One lane's rows in the queue table, as its `depths` query reports them. */
interface Depth {
  queued: number;
  oldest: number | null;
  lastError: string | null;
}

/** How many rows wait for a lane, and since when. */
export const queuedStatus = (depth: Depth | undefined) => ({
  queued: depth?.queued ?? 0,
  oldestQueuedTime: isoTime(depth?.oldest),
});

/** A lane's backoff and last error: this instance's, else the last error stored with its rows. */
export const retryStatus = (depth: Depth | undefined, state: LaneState | undefined, now: number) => ({
  retryingUntil: state && state.pausedUntil > now ? isoTime(state.pausedUntil) : null,
  lastError: state?.lastError ?? depth?.lastError ?? null,
  lastErrorTime: isoTime(state?.lastErrorTime),
});

/**
 * Sums a counter's series for one outcome: over every lane (`lane` null), or over those whose
 * label `laneLabel` is `lane`.
 */
export const outcomeCounter =
  (
    values: readonly { labels: Partial<Record<string, string | number>>; value: number }[],
    laneLabel: string,
  ) =>
  (lane: string | null, outcome: string) =>
    values
      .filter((v) => v.labels.outcome === outcome && (lane === null || v.labels[laneLabel] === lane))
      .reduce((sum, v) => sum + v.value, 0);

/**
 * A queue's entries in the established `metrics` list: what waits over all lanes, then a counter
 * per outcome (titled `<countTitle> <outcome>`).
 */
export function queueMetrics<O extends string>(queue: {
  group: string;
  queuedTitle: string;
  queuedDescription: string;
  queued: number;
  countTitle: string;
  outcomes: readonly O[];
  descriptions: Record<O, string>;
  count: (outcome: O) => number;
}): StatusMetric[] {
  const { group } = queue;
  return [
    {
      group,
      name: 'queued',
      title: queue.queuedTitle,
      description: queue.queuedDescription,
      type: 'gauge',
      value: queue.queued,
    },
    ...queue.outcomes.map((o): StatusMetric => ({
      group,
      name: o,
      title: `${queue.countTitle} ${o}`,
      description: queue.descriptions[o],
      type: 'counter',
      count: queue.count(o),
    })),
  ];
}
