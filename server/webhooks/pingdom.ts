import { z } from 'zod';
import { parsePayload } from './payload.ts';
import type { Webhook } from './types.ts';

/** Pingdom's state change webhook body. */
const StateChangeSchema = z.object({
  check_id: z.union([z.number(), z.string()]),
  check_name: z.string().min(1, 'must not be empty'),
  check_type: z.string(),
  current_state: z.string().min(1, 'must not be empty'),
  importance_level: z.string(),
  description: z.string().nullish(),
  long_description: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
});

/** Pingdom uptime checks: UP clears, DOWN (and the rest) raise by importance (reference §4). */
export const pingdom: Webhook = {
  name: 'pingdom',
  incoming({ payload }, { config, deps }) {
    const check = parsePayload(StateChangeSchema, payload, 'Pingdom');
    const severity =
      check.current_state === 'UP'
        ? deps.model.normalSeverity
        : check.importance_level === 'HIGH'
          ? 'critical'
          : 'warning';
    return {
      alerts: [
        {
          resource: check.check_name,
          event: check.current_state,
          correlate: ['UP', 'DOWN'],
          environment: config.DEFAULT_ENVIRONMENT,
          severity,
          service: [check.check_type],
          group: 'Network',
          value: check.description ?? null,
          text: `${check.importance_level}: ${check.long_description ?? ''}`,
          tags: check.tags ?? [],
          attributes: { checkId: check.check_id },
          origin: 'Pingdom',
          type: 'availabilityAlert',
          rawData: JSON.stringify(payload),
        },
      ],
    };
  },
};
