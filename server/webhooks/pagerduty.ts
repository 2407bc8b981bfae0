import { z } from 'zod';
import { getAlert, setAlertStatus } from '../domain/alerts.ts';
import { appError } from '../errors.ts';
import { parsePayload } from './payload.ts';
import type { Webhook } from './types.ts';

/**
 * PagerDuty v2 incident webhooks: `incident_key` is the id of the alert that opened the incident.
 * Only what the established receiver reads is checked. The users are read leniently: PagerDuty
 * sends `null` or even the string `"null"` for an unassigned or unresolved incident.
 */
const MessageSchema = z.object({
  type: z.string(),
  data: z.object({
    incident: z.object({
      // Any non-empty key: one that names no alert is 404, as the established server answers.
      incident_key: z.string().min(1, 'must not be empty'),
      incident_number: z.union([z.number(), z.string()]),
      html_url: z.string(),
      assigned_to_user: z.unknown().optional(),
      resolved_by_user: z.unknown().optional(),
    }),
  }),
});
const NotificationSchema = z.object({ messages: z.array(MessageSchema) });
type Message = z.infer<typeof MessageSchema>;

/** A user object's `name`; 'n/a' for anything else (null, "null", missing, no name). */
function nameOf(user: unknown): string {
  const name = user !== null && typeof user === 'object' ? (user as { name?: unknown }).name : null;
  return typeof name === 'string' && name !== '' ? name : 'n/a';
}

/** The status an incident event sets and the history text that says why. */
function statusChangeOf(message: Message): { status: string; text: string } {
  const incident = message.data.incident;
  const link = `<a href="${incident.html_url}">#${incident.incident_number}</a>`;
  const assignee = nameOf(incident.assigned_to_user);
  switch (message.type) {
    case 'incident.trigger':
      return { status: 'open', text: `Incident ${link} assigned to ${assignee}` };
    case 'incident.acknowledge':
      return { status: 'ack', text: `Incident ${link} acknowledged by ${assignee}` };
    case 'incident.unacknowledge':
      return { status: 'open', text: `Incident ${link} unacknowledged due to timeout` };
    case 'incident.resolve':
      return {
        status: 'closed',
        text: `Incident ${link} resolved by ${nameOf(incident.resolved_by_user)}`,
      };
    case 'incident.assign':
      return { status: 'assign', text: `Incident ${link} manually assigned to ${assignee}` };
    case 'incident.escalate':
      return { status: 'open', text: `Incident ${link} escalated to ${assignee}` };
    case 'incident.delegate':
      return { status: 'open', text: `Incident ${link} reassigned due to escalation to ${assignee}` };
    default:
      return { status: 'unknown', text: message.type };
  }
}

/** PagerDuty incident events set the status of existing alerts; nothing is created (reference §4). */
export const pagerduty: Webhook = {
  name: 'pagerduty',
  async incoming({ payload }, { deps, caller }) {
    if (payload === null || typeof payload !== 'object' || !('messages' in payload))
      throw appError('pagerduty_no_messages');
    const { messages } = parsePayload(NotificationSchema, payload, 'PagerDuty');
    // Every incident must name a known alert before any status changes: all or nothing.
    for (const message of messages) await getAlert(deps, message.data.incident.incident_key, caller);
    for (const message of messages) {
      await setAlertStatus(deps, message.data.incident.incident_key, statusChangeOf(message), caller);
    }
    return { reply: { status: 200, body: { status: 'ok' } } };
  },
};
