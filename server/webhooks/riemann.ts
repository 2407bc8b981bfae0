import { z } from 'zod';
import { parsePayload } from './payload.ts';
import type { Webhook } from './types.ts';

/** A Riemann event as its HTTP forwarder posts it. */
const EventSchema = z.object({
  host: z.string().min(1, 'must not be empty'),
  service: z.string().min(1, 'must not be empty'),
  event: z.string().nullish(),
  environment: z.string().nullish(),
  state: z.string().nullish(),
  group: z.string().nullish(),
  description: z.string().nullish(),
  metric: z.union([z.number(), z.string()]).nullish(),
  tags: z.array(z.string()).nullish(),
});

/** Riemann events: resource is host and service, severity is the event's state (reference §4). */
export const riemann: Webhook = {
  name: 'riemann',
  incoming({ payload }, { config }) {
    const event = parsePayload(EventSchema, payload, 'Riemann');
    return {
      alerts: [
        {
          resource: `${event.host}-${event.service}`,
          event: event.event || event.service,
          environment: event.environment || config.DEFAULT_ENVIRONMENT,
          severity: event.state || 'unknown',
          service: [event.service],
          group: event.group || 'Performance',
          text: event.description ?? '',
          value: event.metric ?? null,
          tags: event.tags ?? [],
          origin: 'Riemann',
          rawData: JSON.stringify(payload),
        },
      ],
    };
  },
};
