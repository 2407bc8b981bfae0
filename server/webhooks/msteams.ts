import { z } from 'zod';
import { BlackoutInputSchema } from '../../shared/blackouts.ts';
import { getAlert, takeAlertAction } from '../domain/alerts.ts';
import { createBlackout } from '../domain/blackouts.ts';
import { appError, AppError } from '../errors.ts';
import type { Webhook, WebhookContext, WebhookResult } from './types.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CARD_STATUS = 'CARD-ACTION-STATUS';

const nonEmpty = z.string().min(1);
const BlackoutParamsSchema = z.object({
  environment: nonEmpty,
  resource: nonEmpty,
  event: nonEmpty,
  duration: z.number().int().positive().nullish(),
});

/** ack/close on an existing alert, through the same path as PUT /alert/:id/action. */
async function changeStatus(
  ctx: WebhookContext,
  action: 'ack' | 'close',
  alertId: unknown,
): Promise<WebhookResult> {
  if (typeof alertId !== 'string' || !UUID.test(alertId)) throw appError('msteams_invalid_alert_id');
  try {
    await getAlert(ctx.deps, alertId, ctx.caller);
  } catch (err) {
    if (err instanceof AppError && err.status === 404) throw appError('msteams_invalid_alert_id');
    throw err;
  }
  await takeAlertAction(
    ctx.deps,
    alertId,
    { action, text: 'status changed via MS Teams webhook' },
    ctx.caller,
  );
  return {
    reply: {
      status: 200,
      body: { status: 'ok', message: 'status changed' },
      headers: { [CARD_STATUS]: action === 'ack' ? 'Alert Acked' : 'Alert Closed' },
    },
  };
}

/** A blackout for one environment, resource and event, for `duration` seconds (BLACKOUT_DURATION by default). */
async function blackout(ctx: WebhookContext, body: Record<string, unknown>): Promise<WebhookResult> {
  const params = BlackoutParamsSchema.safeParse(body);
  if (!params.success)
    throw appError('blackout_params_missing').with({
      errors: ['environment, resource and event are required; duration is a positive integer'],
    });
  const { environment, resource, event } = params.data;
  const duration = params.data.duration ?? ctx.config.BLACKOUT_DURATION;
  await createBlackout(
    ctx.deps,
    BlackoutInputSchema.parse({ environment, resource, event, duration }),
    ctx.caller,
  );
  return {
    reply: {
      status: 201,
      body: { status: 'ok', message: 'blackout created' },
      headers: { [CARD_STATUS]: `Blackout created for ${(duration / 3600).toFixed(1)} hours` },
    },
  };
}

/**
 * The generic receiver the spec describes (`action` and `alert_id`), as Microsoft Teams action
 * cards post it: ack or close an alert, or black out an environment/resource/event (reference §4).
 */
export const msteams: Webhook = {
  name: 'msteams',
  incoming({ payload }, ctx) {
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
      throw appError('msteams_invalid_action').with({
        errors: ['payload must be a JSON object with action and alert_id'],
      });
    const body = payload as Record<string, unknown>;
    const action = body.action;
    if (action === 'ack' || action === 'close') return changeStatus(ctx, action, body.alert_id);
    if (action === 'blackout') return blackout(ctx, body);
    throw appError('msteams_invalid_action').with({ errors: ['action must be one of ack, close, blackout'] });
  },
};
