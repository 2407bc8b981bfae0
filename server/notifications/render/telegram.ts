import type { SettingsOf } from '../receivers.ts';
import {
  escapeMarkup,
  headline,
  isAlarm,
  JSON_HEADERS,
  labelOf,
  LISTED,
  summaryOf,
  type HttpRequest,
  type Message,
} from './common.ts';

/**
 * A Telegram bot message (HTML). A single alert gets the buttons POST /webhooks/telegram
 * understands (`/ack <id>`, `/close <id>`, `/blackout <id>`), unless turned off.
 */
export function telegramRequest(m: Message, s: SettingsOf<'telegram'>, defaultApi: string): HttpRequest {
  const lines: string[] = [];
  const single = m.items.length === 1 ? m.items[0]! : null;
  if (!single) lines.push(`<b>${escapeMarkup(summaryOf(m))}</b>`);
  for (const item of m.items.slice(0, LISTED)) {
    const link = m.links.alert(item.alert.id);
    const title = escapeMarkup(`${labelOf(item.kind)}: ${headline(item.alert)}`);
    lines.push(link ? `<a href="${escapeMarkup(link)}">${title}</a>` : `<b>${title}</b>`);
    if (single && item.alert.text) lines.push(escapeMarkup(item.alert.text));
  }
  const rest = m.items.length - Math.min(m.items.length, LISTED);
  if (rest > 0) lines.push(`and ${rest} more`);
  const body: Record<string, unknown> = {
    chat_id: s.chatId,
    text: lines.join('\n'),
    parse_mode: 'HTML',
    disable_web_page_preview: true,
  };
  if (single && s.buttons !== false && isAlarm(single.kind) && single.kind !== 'test') {
    const id = single.alert.id;
    body.reply_markup = {
      inline_keyboard: [
        [
          { text: 'Ack', callback_data: `/ack ${id}` },
          { text: 'Close', callback_data: `/close ${id}` },
          { text: 'Blackout', callback_data: `/blackout ${id}` },
        ],
      ],
    };
  }
  const api = (s.apiUrl ?? defaultApi).replace(/\/+$/, '');
  return {
    method: 'POST',
    url: `${api}/bot${s.token}/sendMessage`,
    headers: { ...JSON_HEADERS },
    body: JSON.stringify(body),
  };
}
