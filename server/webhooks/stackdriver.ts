import { z } from 'zod';
import { htmlLink, isoDate, parsePayload } from './payload.ts';
import type { Webhook } from './types.ts';

const IncidentSchema = z
  .object({
    incident_id: z.string().nullish(),
    resource_id: z.string().nullish(),
    resource_name: z.string().min(1, 'must not be empty'),
    state: z.string(),
    started_at: z.number().nullish(),
    ended_at: z.number().nullish(),
    policy_name: z.string(),
    condition_name: z.string().min(1, 'must not be empty'),
    url: z.string().nullish(),
    summary: z.string().nullish(),
    severity: z.string().nullish(),
    environment: z.string().nullish(),
    group: z.string().nullish(),
    customer: z.string().nullish(),
    origin: z.string().nullish(),
  })
  .loose();

/** Google Cloud Monitoring's webhook body: everything sits in `incident`. */
const NotificationSchema = z.object({
  incident: z
    .object({ documentation: z.object({ content: z.string().nullish() }).loose().nullish() })
    .loose(),
});

/**
 * The incident with the JSON an alert policy's documentation may hold merged in: policies use it
 * to pass fields (severity, environment, group, customer, origin) the incident lacks.
 */
function withDocumentation(incident: Record<string, unknown>, content: string | null | undefined) {
  if (!content) return incident;
  try {
    const extra: unknown = JSON.parse(content);
    if (extra && typeof extra === 'object' && !Array.isArray(extra)) return { ...incident, ...extra };
  } catch {
    // Plain-text documentation is just documentation.
  }
  return incident;
}

/** Google Cloud Monitoring (Stackdriver) incidents: open, acknowledged and closed (reference §4). */
export const stackdriver: Webhook = {
  name: 'stackdriver',
  incoming({ payload }, { config }) {
    const { incident: raw } = parsePayload(NotificationSchema, payload, 'Stackdriver');
    const merged = withDocumentation(raw, raw.documentation?.content);
    const incident = parsePayload(
      z.object({ incident: IncidentSchema }),
      { incident: merged },
      'Stackdriver',
    ).incident;
    const open = incident.severity || 'critical';
    const severity =
      incident.state === 'open' || incident.state === 'acknowledged'
        ? open
        : incident.state === 'closed'
          ? 'ok'
          : 'indeterminate';
    const attributes: Record<string, unknown> = {
      incidentId: incident.incident_id ?? null,
      resourceId: incident.resource_id ?? null,
      startedAt: isoDate(incident.started_at),
      endedAt: isoDate(incident.ended_at),
    };
    if (incident.url) attributes.moreInfo = htmlLink(incident.url, 'Stackdriver Console');
    return {
      alerts: [
        {
          resource: incident.resource_name,
          event: incident.condition_name,
          environment: incident.environment || config.DEFAULT_ENVIRONMENT,
          severity,
          ...(incident.state === 'acknowledged' ? { status: 'ack' } : {}),
          service: [incident.policy_name],
          group: incident.group || 'Cloud',
          text: incident.summary ?? '',
          attributes,
          customer: incident.customer || null,
          origin: incident.origin || 'Stackdriver',
          type: 'stackdriverAlert',
          rawData: JSON.stringify(payload),
        },
      ],
    };
  },
};
