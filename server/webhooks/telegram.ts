import { z } from 'zod';
import type { Alert } from '../../shared/alerts.ts';
import { BlackoutInputSchema } from '../../shared/blackouts.ts';
import { createBlackout } from '../domain/blackouts.ts';
import { appError } from '../errors.ts';
import { applyChatAction, capitalize, findChatAlert, isChatAction, isWatchAction } from './chat-actions.ts';
import { parsePayload, shortId } from './payload.ts';
import type { Webhook, WebhookContext } from './types.ts';

/**
 * A Telegram bot update; only callback queries (inline keyboard presses) mean anything here. The
 * established receiver reads `data` and the presser's names; the message is used only to edit the
 * bot's reply (best effort), so its shape is never a reason to refuse the press.
 */
const UpdateSchema = z.object({
  callback_query: z
    .object({
      data: z.string().regex(/^\/?\w+ \S+$/, "must be '/<command> <alert id>'"),
      from: z.unknown().optional(),
      message: z.unknown().optional(),
    })
    .nullish(),
});
type CallbackQuery = NonNullable<z.infer<typeof UpdateSchema>['callback_query']>;

const NOT_FOUND = 'alert not found for Telegram message';

/** A string field of an object Telegram sent, or null when absent or of another type. */
function textOf(value: unknown, key: string): string | null {
  if (value === null || typeof value !== 'object') return null;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === 'string' && field !== '' ? field : null;
}

/** The bot message a button sat under, when it can be edited (it has a numeric id). */
function messageOf(query: CallbackQuery): { id: number; text: string } | null {
  const message = query.message;
  if (message === null || typeof message !== 'object') return null;
  const id = (message as { message_id?: unknown }).message_id;
  return typeof id === 'number' ? { id, text: textOf(message, 'text') ?? '' } : null;
}

const REPLY_TIMEOUT_MS = 5000;

/**
 * Rewrites the bot's message to show what happened, when TELEGRAM_TOKEN, TELEGRAM_CHAT_ID and
 * DASHBOARD_URL are set. Telegram being unreachable must not undo the action: failures are logged.
 */
async function editMessage(
  ctx: WebhookContext,
  query: CallbackQuery,
  alert: Alert,
  action: string,
  user: string,
) {
  const { TELEGRAM_TOKEN: token, TELEGRAM_CHAT_ID: chatId, DASHBOARD_URL: dashboard } = ctx.config;
  const message = messageOf(query);
  if (!token || !chatId || !dashboard || !message) return;
  const short = shortId(alert.id);
  let reply = `The status of alert ${short} is *${action}* now!`;
  let keyboard: { text: string; callback_data: string }[][] = [];
  if (isWatchAction(action)) {
    const next = action === 'watch' ? 'unwatch' : 'watch';
    reply = `User \`${user}\` is _${action}ing_ alert ${short}`;
    keyboard = [
      [
        { text: capitalize(next), callback_data: `/${next} ${alert.id}` },
        { text: 'Ack', callback_data: `/ack ${alert.id}` },
        { text: 'Close', callback_data: `/close ${alert.id}` },
      ],
    ];
  }
  const log = message.text.split('\n').slice(1).join('\n');
  const link = `[${short}](${dashboard.replace(/\/+$/, '')}/alert/${alert.id})`;
  const text = `${link} *${capitalize(alert.severity)} - ${alert.event} on ${alert.resource}*\n${log}\n${reply}`;
  const url = `${ctx.config.TELEGRAM_API_URL.replace(/\/+$/, '')}/bot${token}/editMessageText`;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        chat_id: chatId,
        message_id: message.id,
        text,
        parse_mode: 'Markdown',
        reply_markup: { inline_keyboard: keyboard },
      }),
      signal: AbortSignal.timeout(REPLY_TIMEOUT_MS),
    });
    if (!res.ok) ctx.log.warn({ webhook: 'telegram', status: res.status }, 'webhook.telegram_reply_failed');
  } catch (err) {
    ctx.log.warn({ webhook: 'telegram', error: (err as Error).message }, 'webhook.telegram_reply_failed');
  }
}

/** Telegram bot buttons: open, ack, close, watch, unwatch and blackout on the alert (reference §4). */
export const telegram: Webhook = {
  name: 'telegram',
  async incoming({ payload }, ctx) {
    const query = parsePayload(UpdateSchema, payload, 'Telegram').callback_query;
    if (!query)
      return {
        reply: { status: 200, body: { status: 'ok', message: 'no callback_query in Telegram message' } },
      };
    const [command = '', alertId = ''] = query.data.split(' ', 2);
    const action = command.replace(/^\//, '');
    if (action !== 'blackout' && !isChatAction(action))
      throw appError('telegram_unsupported_command', command);
    const alert = await findChatAlert(ctx, alertId);
    // As the established receiver: an unknown alert is answered 200 with an error status.
    if (!alert) return { reply: { status: 200, body: { status: 'error', message: NOT_FOUND } } };
    const user =
      [textOf(query.from, 'first_name'), textOf(query.from, 'last_name')].filter(Boolean).join(' ') ||
      textOf(query.from, 'username') ||
      'unknown';
    let current = alert;
    if (action === 'blackout') {
      const input = BlackoutInputSchema.parse({
        environment: alert.environment,
        resource: alert.resource,
        event: alert.event,
      });
      await createBlackout(ctx.deps, input, ctx.caller);
    } else if (isChatAction(action)) {
      current = await applyChatAction(ctx, alert, action, user, 'status change via Telegram');
    }
    await editMessage(ctx, query, current, action, user);
    return { reply: { status: 200, body: { status: 'ok' } } };
  },
};
