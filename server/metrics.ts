import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Each app owns its registry, so tests can run several apps in one process. */
export function createMetrics(options: { defaults?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaults) collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method and status class',
      labelNames: ['method', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request',
      labelNames: ['method'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    busPublished: new Counter({
      name: 'bus_messages_published_total',
      help: 'Messages published on the event bus',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
    busReceived: new Counter({
      name: 'bus_messages_received_total',
      help: 'Valid messages received from the event bus',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
    pluginDuration: new Histogram({
      name: 'plugin_duration_seconds',
      help: 'Time spent in plugin hooks',
      labelNames: ['plugin', 'hook'] as const,
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
      registers: [registry],
    }),
    pluginErrors: new Counter({
      name: 'plugin_errors_total',
      help: 'Plugin hook calls that failed',
      labelNames: ['plugin', 'hook'] as const,
      registers: [registry],
    }),
    busDropped: new Counter({
      name: 'bus_messages_dropped_total',
      help: 'Bus messages dropped because they did not match the event schema',
      registers: [registry],
    }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
