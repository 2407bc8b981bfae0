import { z } from 'zod';
import { appError } from '../errors.ts';
import type { AlarmModel } from '../domain/alarm-model.ts';
import { firstOf, parsePayload } from './payload.ts';
import type { Webhook } from './types.ts';

const TargetSchema = z.object({
  name: z.string().nullish(),
  type: z.string().nullish(),
  labels: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullish(),
});

/** New Relic Alerts' webhook body (the current format; it always has `version`). */
const IncidentSchema = z.object({
  version: z.union([z.string(), z.number()]),
  current_state: z.string(),
  severity: z.string(),
  condition_name: z.string().nullish(),
  account_name: z.string(),
  event_type: z.string(),
  details: z.string().nullish(),
  incident_url: z.string().nullish(),
  runbook_url: z.string().nullish(),
  // Only targets[0] is read; other targets are not checked.
  targets: firstOf(TargetSchema).nullish(),
});

/** New Relic names severities in capitals and says INFO; anything the model lacks is `unknown`. */
function severityOf(name: string, model: AlarmModel): string {
  const lower = name.toLowerCase();
  if (lower === 'info') return 'informational';
  return model.isSeverity(lower) ? lower : 'unknown';
}

/** New Relic incidents: open, acknowledged (status ack) and closed (severity ok) (reference §4). */
export const newrelic: Webhook = {
  name: 'newrelic',
  incoming({ payload }, { deps }) {
    if (payload !== null && typeof payload === 'object' && !Array.isArray(payload) && !('version' in payload))
      throw appError('newrelic_legacy');
    const incident = parsePayload(IncidentSchema, payload, 'New Relic');
    const state = incident.current_state.toLowerCase();
    const severity = state === 'closed' ? 'ok' : severityOf(incident.severity, deps.model);
    const status = state === 'acknowledged' ? 'ack' : state === 'closed' ? 'closed' : 'open';
    const target = incident.targets?.[0];
    const attributes: Record<string, unknown> = {};
    if (incident.incident_url) attributes.incident_url = incident.incident_url;
    if (incident.runbook_url) attributes.runbook_url = incident.runbook_url;
    return {
      alerts: [
        {
          resource: target?.name || 'unknown',
          event: incident.condition_name || 'unknown',
          severity,
          status,
          service: [incident.account_name],
          group: target?.type ?? null,
          text: incident.details ?? '',
          tags: Object.entries(target?.labels ?? {}).map(([k, v]) => `${k}:${String(v)}`),
          attributes,
          origin: `New Relic/v${incident.version}`,
          type: incident.event_type.toLowerCase(),
          rawData: JSON.stringify(payload),
        },
      ],
    };
  },
};
