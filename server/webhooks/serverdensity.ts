import { z } from 'zod';
import { parsePayload } from './payload.ts';
import type { Webhook } from './types.ts';

/** Server Density's alert webhook body. */
const AlertSchema = z.object({
  alert_id: z.union([z.string(), z.number()]).nullish(),
  alert_type: z.string().min(1, 'must not be empty'),
  alert_section: z.string().nullish(),
  configured_trigger_value: z.union([z.string(), z.number()]).nullish(),
  fixed: z.boolean().nullish(),
  item_id: z.union([z.string(), z.number()]).nullish(),
  item_name: z.string().min(1, 'must not be empty'),
  item_type: z.string(),
  item_cloud: z.boolean().nullish(),
});

/** Server Density alerts: critical until `fixed` (reference §4). */
export const serverdensity: Webhook = {
  name: 'serverdensity',
  incoming({ payload }) {
    const alert = parsePayload(AlertSchema, payload, 'Server Density');
    return {
      alerts: [
        {
          resource: alert.item_name,
          event: alert.alert_type,
          severity: alert.fixed ? 'ok' : 'critical',
          service: [alert.item_type],
          group: alert.alert_section ?? null,
          value: alert.configured_trigger_value ?? null,
          text: `Alert created for ${alert.item_type}:${alert.item_name}`,
          tags: alert.item_cloud ? ['cloud'] : [],
          attributes: { alertId: alert.alert_id ?? null, itemId: alert.item_id ?? null },
          origin: 'ServerDensity',
          type: 'serverDensityAlert',
          rawData: JSON.stringify(payload),
        },
      ],
    };
  },
};
