import type { SettingsOf } from '../receivers.ts';
import {
  colorOf,
  escapeMarkup,
  factsOf,
  listedOf,
  postJson,
  offersActions,
  summaryOf,
  titleOf,
  type HttpRequest,
  type Item,
  type Message,
} from './common.ts';

/**
 * The buttons POST /webhooks/slack understands: `callback_id` is the alert id, the pressed
 * button's value the action (reference §4).
 */
const BUTTONS = [
  { name: 'ack', text: 'Ack', type: 'button', value: 'ack' },
  { name: 'close', text: 'Close', type: 'button', value: 'close' },
];

function attachmentOf(m: Message, item: Item, buttons: boolean) {
  const a = item.alert;
  const link = m.links.alert(a.id);
  return {
    fallback: titleOf(item),
    color: colorOf(item),
    title: titleOf(item),
    ...(link ? { title_link: link } : {}),
    text: escapeMarkup(a.text),
    fields: factsOf(a)
      .filter(([name]) => name !== 'Event' && name !== 'Resource')
      .map(([title, value]) => ({ title, value: escapeMarkup(value), short: true })),
    ...(buttons && offersActions(item)
      ? { callback_id: a.id, attachment_type: 'default', actions: BUTTONS }
      : {}),
  };
}

/** The message body both services take: text plus one attachment per alert (the first LISTED). */
function chatBody(m: Message, buttons: boolean) {
  const { listed, rest } = listedOf(m);
  const attachments: Record<string, unknown>[] = listed.map((i) => attachmentOf(m, i, buttons));
  if (rest > 0) {
    attachments.push({
      fallback: `and ${rest} more`,
      color: '#808080',
      text: m.links.console ? `and ${rest} more: <${m.links.console}|all alerts>` : `and ${rest} more`,
    });
  }
  return { text: escapeMarkup(summaryOf(m)), attachments };
}

/** Slack incoming webhook (or chat.postMessage with a token): Ack / Close buttons unless turned off. */
export function slackRequest(m: Message, s: SettingsOf<'slack'>): HttpRequest {
  const body = {
    ...chatBody(m, s.buttons !== false),
    ...(s.channel ? { channel: s.channel } : {}),
    ...(s.username ? { username: s.username } : {}),
    ...(s.iconEmoji ? { icon_emoji: s.iconEmoji } : {}),
  };
  return postJson(s.url, body, s.token ? { Authorization: `Bearer ${s.token}` } : {});
}

/** Mattermost incoming webhook: the same attachments, links instead of buttons. */
export function mattermostRequest(m: Message, s: SettingsOf<'mattermost'>): HttpRequest {
  const body = {
    ...chatBody(m, false),
    ...(s.channel ? { channel: s.channel } : {}),
    ...(s.username ? { username: s.username } : {}),
    ...(s.iconUrl ? { icon_url: s.iconUrl } : {}),
  };
  return postJson(s.url, body);
}
