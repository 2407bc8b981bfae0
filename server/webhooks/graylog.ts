import { z } from 'zod';
import { parsePayload, queryParam } from './payload.ts';
import type { Webhook } from './types.ts';

/** Graylog's HTTP alarm callback body (the parts the mapping reads). */
const AlarmSchema = z.object({
  stream: z.object({ title: z.string().min(1, 'must not be empty') }),
  check_result: z.object({
    result_description: z.string().nullish(),
    triggered_condition: z.object({ id: z.union([z.string(), z.number()]).nullish() }).nullish(),
  }),
});

/** Graylog stream alerts; routing fields come from the query string (reference §4). */
export const graylog: Webhook = {
  name: 'graylog',
  incoming({ payload, query }, { config }) {
    const alarm = parsePayload(AlarmSchema, payload, 'Graylog');
    return {
      alerts: [
        {
          resource: alarm.stream.title,
          event: queryParam(query, 'event', 'Alert'),
          environment: queryParam(query, 'environment', config.DEFAULT_ENVIRONMENT),
          service: queryParam(query, 'service', 'test').split(','),
          severity: queryParam(query, 'severity', 'critical'),
          value: 'n/a',
          text: alarm.check_result.result_description ?? '',
          attributes: { checkId: alarm.check_result.triggered_condition?.id ?? null },
          origin: 'Graylog',
          type: queryParam(query, 'event_type', 'performanceAlert'),
          rawData: JSON.stringify(payload),
        },
      ],
    };
  },
};
