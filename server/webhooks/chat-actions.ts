import type { Alert } from '../../shared/alerts.ts';
import { getAlert, tagAlert, takeAlertAction } from '../domain/alerts.ts';
import { appError, AppError } from '../errors.ts';
import type { WebhookContext } from './types.ts';

/** Buttons chat messages offer on an alert: three operator actions and watching. */
export const CHAT_ACTIONS = ['open', 'ack', 'close', 'watch', 'unwatch'] as const;
export type ChatAction = (typeof CHAT_ACTIONS)[number];
export const isChatAction = (action: string): action is ChatAction =>
  (CHAT_ACTIONS as readonly string[]).includes(action);
export const isWatchAction = (action: string) => action === 'watch' || action === 'unwatch';

export const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The alert a chat button names (the caller may see), or null. */
export async function findChatAlert(ctx: WebhookContext, id: string): Promise<Alert | null> {
  try {
    return await getAlert(ctx.deps, id, ctx.caller);
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
}

/** The alert a chat button names, or a 404 naming the chat (`source`, e.g. '#slack') it came from. */
export async function chatAlert(ctx: WebhookContext, id: string, source: string): Promise<Alert> {
  const alert = await findChatAlert(ctx, id);
  if (!alert) throw appError('chat_alert_not_found', source);
  return alert;
}

/**
 * Applies a chat button to an alert and returns the alert as it now is. open/ack/close go through
 * PUT /action's path (plugins, state machine, history); watch/unwatch add or remove the tag
 * `watch:<user>` that the web UI and the acked_by plugin use. (The established server removes
 * `<action>:<user>` in both cases, so watching never worked there.)
 */
export async function applyChatAction(
  ctx: WebhookContext,
  alert: Alert,
  action: ChatAction,
  user: string,
  text: string,
): Promise<Alert> {
  const { deps, caller } = ctx;
  if (isWatchAction(action)) await tagAlert(deps, alert.id, [`watch:${user}`], action === 'unwatch', caller);
  else await takeAlertAction(deps, alert.id, { action, text }, caller);
  return getAlert(deps, alert.id, caller);
}
