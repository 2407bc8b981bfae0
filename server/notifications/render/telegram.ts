import type { SettingsOf } from '../receivers.ts';
import {
  escapeMarkup,
  listedOf,
  postJson,
  offersActions,
  singleOf,
  summaryOf,
  titleOf,
  type HttpRequest,
  type Message,
} from './common.ts';

/**
 * A Telegram bot message (HTML). A single alert gets the buttons POST /webhooks/telegram
 * understands (`/ack <id>`, `/close <id>`, `/blackout <id>`), unless turned off.
 */
export function telegramRequest(m: Message, s: SettingsOf<'telegram'>, defaultApi: string): HttpRequest {
  const lines: string[] = [];
  const single = singleOf(m);
  const { listed, rest } = listedOf(m);
  if (!single) lines.push(`<b>${escapeMarkup(summaryOf(m))}</b>`);
  for (const item of listed) {
    const link = m.links.alert(item.alert.id);
    const title = escapeMarkup(titleOf(item));
    lines.push(link ? `<a href="${escapeMarkup(link)}">${title}</a>` : `<b>${title}</b>`);
    if (single && item.alert.text) lines.push(escapeMarkup(item.alert.text));
  }
  if (rest > 0) lines.push(`and ${rest} more`);
  const body: Record<string, unknown> = {
    chat_id: s.chatId,
    text: lines.join('\n'),
    parse_mode: 'HTML',
    disable_web_page_preview: true,
  };
  if (single && s.buttons !== false && offersActions(single)) {
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
  return postJson(`${api}/bot${s.token}/sendMessage`, body);
}
