import { AlertInputSchema, type AlertInput } from '../../shared/alerts.ts';
import type { Deps } from '../deps.ts';
import type { Caller } from '../domain/caller.ts';
import { appError } from '../errors.ts';
import { zodIssues } from '../http/middleware/errors.ts';

export interface WebhookReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * Validates what a receiver built exactly as POST /alert validates a body. Every alert is checked
 * before any is stored, so a bad one in a batch leaves nothing half-done. Alerts that name no
 * environment get DEFAULT_ENVIRONMENT, as webhooks do in the established server.
 */
export function webhookAlertInputs(deps: Deps, webhook: string, alerts: unknown[]): AlertInput[] {
  return alerts.map((alert, i) => {
    const parsed = AlertInputSchema.safeParse(alert);
    if (!parsed.success) {
      const issues = zodIssues(parsed.error);
      const where = alerts.length > 1 ? ` (alert ${i + 1} of ${alerts.length})` : '';
      throw appError('webhook_invalid_alert', webhook, where, parsed.error.issues[0]!.message).with({
        errors: issues,
      });
    }
    return { ...parsed.data, environment: parsed.data.environment || deps.config.DEFAULT_ENVIRONMENT };
  });
}

/**
 * Receives webhook alerts one after another through POST /alert's path (customer, plugins,
 * de-duplication, blackouts, live events). A plugin that stops one (heartbeat, blackout,
 * forwarding loop: 202) ends the request with its answer, as a reject (403) or rate limit (429) does.
 * One alert answers `{status, id, alert}`; none or several `{status, ids}`.
 */
export async function receiveWebhookAlerts(
  deps: Deps,
  inputs: AlertInput[],
  caller: Caller,
): Promise<WebhookReply> {
  const stored = [];
  for (const input of inputs) {
    const outcome = await deps.receiver.receiveAlert(input, caller);
    if (outcome.kind === 'signal') return { status: outcome.status, body: outcome.body };
    stored.push(outcome.alert);
  }
  if (stored.length === 1)
    return { status: 201, body: { status: 'ok', id: stored[0]!.id, alert: stored[0] } };
  return { status: 201, body: { status: 'ok', ids: stored.map((a) => a.id) } };
}
