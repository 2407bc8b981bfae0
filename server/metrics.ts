import { Counter, Gauge, Histogram, Registry, Summary, collectDefaultMetrics } from 'prom-client';

/** The established server's application metrics (api.md §11), shown by /management/status too. */
export const APP_METRICS = {
  total: { type: 'gauge', title: 'Total alerts', description: 'Total number of alerts in the database' },
  rejected: { type: 'counter', title: 'Rejected alerts', description: 'Number of rejected alerts' },
  ratelimited: {
    type: 'counter',
    title: 'Rate-limited alerts',
    description: 'Number of rate-limited alerts',
  },
  blackout: {
    type: 'counter',
    title: 'Blackout alerts',
    description: 'Number of suppressed alerts during blackout period',
  },
  received: {
    type: 'timer',
    title: 'Received alerts',
    description: 'Total time and number of received alerts',
  },
  queries: { type: 'timer', title: 'Alert queries', description: 'Total time and number of alert queries' },
  counts: { type: 'timer', title: 'Count alerts', description: 'Total time and number of count queries' },
  status: {
    type: 'timer',
    title: 'Alert status change',
    description: 'Total time and number of alerts with status changed',
  },
  tagged: { type: 'timer', title: 'Tagging alerts', description: 'Total time and number of tagged alerts' },
  untagged: {
    type: 'timer',
    title: 'Removing tags from alerts',
    description: 'Total time and number of untagged alerts',
  },
  attributes: {
    type: 'timer',
    title: 'Alert attributes change',
    description: 'Total time and number of alerts with attributes changed',
  },
  deleted: { type: 'timer', title: 'Deleted alerts', description: 'Total time and number of deleted alerts' },
} as const;
export type AppMetricName = keyof typeof APP_METRICS;
export type TimerName = {
  [K in AppMetricName]: (typeof APP_METRICS)[K]['type'] extends 'timer' ? K : never;
}[AppMetricName];
export type CounterName = {
  [K in AppMetricName]: (typeof APP_METRICS)[K]['type'] extends 'counter' ? K : never;
}[AppMetricName];

/** One item of /management/status `metrics` (api.md §11). */
export type StatusMetric =
  | { group: string; name: string; title: string; description: string; type: 'gauge'; value: number }
  | { group: string; name: string; title: string; description: string; type: 'counter'; count: number }
  | {
      group: string;
      name: string;
      title: string;
      description: string;
      type: 'timer';
      count: number;
      totalTime: number;
    };

/**
 * A Summary of a sum and a count only, as the application timers are (no percentiles), exposed as
 * prom-client's Summary exposes one: that still feeds every observation to a t-digest for the
 * percentiles, a few µs of every receipt for nothing. Only observe(value), get and reset are kept up.
 */
export class SumCountSummary extends Summary {
  // Plain fields, not #private: prom-client's constructor calls reset() before they would exist.
  private total = 0;
  private observations = 0;
  constructor(config: { name: string; help: string; registers: Registry[] }) {
    super({ ...config, percentiles: [] });
  }
  override observe(...args: [value: number] | [labels: object, value: number]): void {
    const value = args.length === 1 ? args[0] : args[1];
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${String(value)}`);
    this.total += value;
    this.observations += 1;
  }
  override async get() {
    const { name, help, type, aggregator } = this as unknown as Awaited<ReturnType<Summary['get']>>;
    return {
      name,
      help,
      type,
      values: [
        { metricName: `${name}_sum`, labels: {}, value: this.total },
        { metricName: `${name}_count`, labels: {}, value: this.observations },
      ],
      aggregator,
    } as Awaited<ReturnType<Summary['get']>>;
  }
  override reset(): void {
    this.total = 0;
    this.observations = 0;
  }
}

/** One series of a prom-client Histogram, as its `hashMap` holds it (prom-client 15). */
interface HistogramSeries {
  labels: Record<string, string | number>;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

/**
 * A Histogram whose `observe(labels, value)` finds its series by the labels object itself, for
 * callers that make each label set once and never change it (the HTTP and plugin timers, several
 * times a receipt): prom-client checks and hashes the labels on every call (about half a µs each).
 * The first observation of a label set goes through prom-client, which checks the labels and
 * creates the series; the same series, buckets and exposition as a Histogram
 * (tests/unit/keyed-histogram.test.ts compares the two).
 */
export class KeyedHistogram<T extends string = string> extends Histogram<T> {
  // Assigned by reset(), which prom-client's constructor calls before any field initialiser runs.
  declare private known: WeakMap<object, HistogramSeries>;
  declare private bounds: { bound: number; key: string }[] | undefined;

  // prom-client's constructor sets `this.observe` to this method (without exemplars), so this is
  // what `observe(labels, value)` and `observe(value)` call.
  observeWithoutExemplar(labels: unknown, value?: unknown): void {
    if (
      typeof labels === 'object' &&
      labels !== null &&
      typeof value === 'number' &&
      Number.isFinite(value)
    ) {
      const series = this.known.get(labels);
      if (series) {
        series.sum += value;
        series.count += 1;
        // The smallest upper bound the value is within, as prom-client counts it; above all of them
        // only the count (+Inf) moves. The bounds' keys as text, made once: a number key is
        // turned into text on every access.
        const bounds = (this.bounds ??= (this as unknown as { upperBounds: number[] }).upperBounds.map(
          (b) => ({
            bound: b,
            key: String(b),
          }),
        ));
        for (const { bound, key } of bounds)
          if (value <= bound) {
            (series.bucketValues as Record<string, number>)[key]! += 1;
            break;
          }
        return;
      }
    }
    (
      Histogram.prototype as unknown as { observeWithoutExemplar: (l: unknown, v?: unknown) => void }
    ).observeWithoutExemplar.call(this, labels, value);
    if (typeof labels === 'object' && labels !== null) {
      const given = labels as Record<string, string | number>;
      const all = Object.values((this as unknown as { hashMap: Record<string, HistogramSeries> }).hashMap);
      const series =
        all.find((s) => s.labels === given) ??
        all.find(
          (s) =>
            Object.keys(s.labels).length === Object.keys(given).length &&
            Object.entries(given).every(([k, v]) => s.labels[k] === v),
        );
      if (series) this.known.set(given, series);
    }
  }

  override reset(): void {
    super.reset();
    this.known = new WeakMap();
  }

  override zero(labels: Partial<Record<T, string | number>>): void {
    super.zero(labels);
    this.known = new WeakMap();
  }

  override remove(...args: unknown[]): void {
    (super.remove as (...a: unknown[]) => void)(...args);
    this.known = new WeakMap();
  }
}

/**
 * The application metrics under `<prefix>_alerts_*` (METRICS_PREFIX, `service` by default as the
 * spec names them; `alerta` keeps the established server's names), plus `<prefix>_uptime_msecs`.
 * Timers are summaries in milliseconds (`_count`, `_sum`), as the established server writes them.
 */
function createAppMetrics(registry: Registry, prefix: string, startedAt: number) {
  const gauges = new Map<string, Gauge>();
  const counters = new Map<string, Counter>();
  const timers = new Map<string, SumCountSummary>();
  for (const [name, def] of Object.entries(APP_METRICS)) {
    const metric = `${prefix}_alerts_${name}`;
    if (def.type === 'gauge')
      gauges.set(name, new Gauge({ name: metric, help: def.description, registers: [registry] }));
    else if (def.type === 'counter')
      counters.set(
        name,
        new Counter({ name: `${metric}_total`, help: def.description, registers: [registry] }),
      );
    else
      timers.set(name, new SumCountSummary({ name: metric, help: def.description, registers: [registry] }));
  }
  new Counter({
    name: `${prefix}_uptime_msecs`,
    help: 'Time since the server started, in milliseconds',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(Date.now() - startedAt);
    },
  });
  const used = new Set<string>();
  return {
    /** Adds one to a counter (rejected, ratelimited, blackout). */
    count(name: CounterName): void {
      counters.get(name)!.inc();
      used.add(name);
    },
    /** Records one timed operation, in milliseconds. */
    time(name: TimerName, ms: number): void {
      timers.get(name)!.observe(ms);
      used.add(name);
    },
    setTotal(n: number): void {
      gauges.get('total')!.set(n);
    },
    /** The /management/status list: gauges always, counters and timers once used. */
    async snapshot(): Promise<StatusMetric[]> {
      const out: StatusMetric[] = [];
      for (const [name, def] of Object.entries(APP_METRICS)) {
        const base = { group: 'alerts', name, title: def.title, description: def.description };
        if (def.type === 'gauge') {
          const v = (await gauges.get(name)!.get()).values[0]?.value ?? 0;
          out.push({ ...base, type: 'gauge', value: v });
        } else if (!used.has(name)) continue;
        else if (def.type === 'counter') {
          out.push({
            ...base,
            type: 'counter',
            count: (await counters.get(name)!.get()).values[0]?.value ?? 0,
          });
        } else {
          const values = (await timers.get(name)!.get()).values;
          const pick = (suffix: string) => values.find((v) => v.metricName?.endsWith(suffix))?.value ?? 0;
          out.push({ ...base, type: 'timer', count: pick('_count'), totalTime: Math.round(pick('_sum')) });
        }
      }
      return out;
    },
  };
}
export type AppMetrics = ReturnType<typeof createAppMetrics>;

/** Each app owns its registry, so tests can run several apps in one process. */
export function createMetrics(options: { defaults?: boolean; prefix?: string; startedAt?: number } = {}) {
  const registry = new Registry();
  if (options.defaults) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  // Every metric below is registered in this app's registry; label names are typed for their callers.
  const counter = <L extends string = string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers });
  const gauge = <L extends string = string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers });
  const histogram = <L extends string = string>(
    name: string,
    help: string,
    buckets: number[],
    labelNames: readonly L[] = [],
  ) => new Histogram<L>({ name, help, buckets, labelNames, registers });
  const keyedHistogram = <L extends string>(
    name: string,
    help: string,
    buckets: number[],
    labelNames: readonly L[],
  ) => new KeyedHistogram<L>({ name, help, buckets, labelNames, registers });
  const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
  return {
    registry,
    app: createAppMetrics(registry, options.prefix ?? 'service', options.startedAt ?? Date.now()),
    httpRequests: counter('http_requests_total', 'HTTP requests answered, by method and status class', [
      'method',
      'status',
    ]),
    httpDuration: keyedHistogram(
      'http_request_duration_seconds',
      'Time to answer an HTTP request',
      latencyBuckets,
      ['method'],
    ),
    busPublished: counter('bus_messages_published_total', 'Messages published on the event bus', ['type']),
    busReceived: counter('bus_messages_received_total', 'Valid messages received from the event bus', [
      'type',
    ]),
    pluginDuration: keyedHistogram(
      'plugin_duration_seconds',
      'Time spent in plugin hooks',
      [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
      ['plugin', 'hook'],
    ),
    pluginErrors: counter('plugin_errors_total', 'Plugin hook calls that failed', ['plugin', 'hook']),
    liveSockets: gauge('live_sockets', 'Live sockets connected to this instance'),
    liveEvents: counter(
      'live_events_total',
      'Alert changes sent to live sockets, or folded into a later state for a slow socket',
      ['outcome'],
    ),
    liveChangesMissed: counter(
      'live_changes_missed_total',
      'Changes this instance never heard on the bus (a gap in the shared sequence): its views were reloaded',
    ),
    livePushLatency: histogram(
      'live_push_latency_seconds',
      'Time from publishing a change to sending it to live sockets',
      latencyBuckets,
    ),
    liveFlush: histogram(
      'live_flush_seconds',
      'Time one flush of live deltas takes, writing to every socket (the event loop waits meanwhile)',
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    ),
    receiveDirect: counter(
      'receive_direct_total',
      'Receipts tried as plain duplicates written without reading the alert first: written, or ' +
        'missed (the alert had changed or was gone; decided the usual way)',
      ['outcome'],
    ),
    receiveCreateOrFind: counter(
      'receive_create_or_find_total',
      'Receipts most likely new, created without a read first: created, found (an alert matched; ' +
        'decided against it as after a read), or again (decided again with a read)',
      ['outcome'],
    ),
    busDropped: counter(
      'bus_messages_dropped_total',
      'Bus messages dropped because they did not match the event schema',
    ),
    busOutbox: gauge(
      'bus_outbox_messages',
      'Changes committed and waiting in this instance to be published on the bus (Redis unreachable or slow)',
    ),
    busOutboxDropped: counter(
      'bus_outbox_dropped_total',
      'Changes dropped from a full outbox (BUS_OUTBOX_SIZE): every live view was reloaded instead',
    ),
    busConnected: gauge(
      'bus_connected',
      '1 when this instance publishes to and hears from the bus (Redis), 0 while it cannot',
    ),
    forwardEvents: counter(
      'forward_events_total',
      'Forwarded events by destination, kind (alert, action, delete) and outcome: queued, delivered, ' +
        'failed (an attempt that will be retried), rejected (refused by the destination), expired ' +
        '(out of attempts), lost (could not be queued)',
      ['destination', 'kind', 'outcome'],
    ),
    forwardDuration: histogram(
      'forward_request_duration_seconds',
      'Time a destination took to answer a forwarded request (or to fail)',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      ['destination'],
    ),
    forwardQueued: gauge(
      'forward_queue_events',
      'Events waiting for each destination (every instance), as of the last status or metrics request',
      ['destination'],
    ),
    forwardLoops: counter(
      'forward_loops_total',
      'Requests not processed because their loop header named this server',
    ),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
