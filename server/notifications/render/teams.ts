import type { SettingsOf } from '../receivers.ts';
import {
  colorOf,
  factsOf,
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
 * A Microsoft Teams connector card (MessageCard, as the established msteams plugin sends): one
 * section per alert, a link to its page, and — for a single alert, when `actionUrl` names our
 * POST /webhooks/msteams — Ack and Close buttons that post `{action, alert_id}` there.
 */
export function teamsRequest(m: Message, s: SettingsOf<'msteams'>): HttpRequest {
  const { listed, rest } = listedOf(m);
  const sections: Record<string, unknown>[] = listed.map((item) => {
    const link = m.links.alert(item.alert.id);
    return {
      activityTitle: titleOf(item),
      activitySubtitle: item.alert.text,
      facts: factsOf(item.alert).map(([name, value]) => ({ name, value })),
      ...(link
        ? {
            potentialAction: [
              { '@type': 'OpenUri', name: 'Open alert', targets: [{ os: 'default', uri: link }] },
            ],
          }
        : {}),
    };
  });
  if (rest > 0) sections.push({ text: `and ${rest} more` });
  const actions: Record<string, unknown>[] = [];
  const single = singleOf(m);
  if (single && s.actionUrl && offersActions(single)) {
    const headers = s.actionKey ? [{ name: 'X-API-Key', value: s.actionKey }] : [];
    for (const action of ['ack', 'close']) {
      actions.push({
        '@type': 'HttpPOST',
        name: action === 'ack' ? 'Ack' : 'Close',
        target: s.actionUrl,
        headers,
        body: JSON.stringify({ action, alert_id: single.alert.id }),
      });
    }
  }
  if (m.links.console) {
    actions.push({
      '@type': 'OpenUri',
      name: 'Open console',
      targets: [{ os: 'default', uri: m.links.console }],
    });
  }
  const first = m.items[0];
  const card = {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    summary: summaryOf(m),
    title: summaryOf(m),
    themeColor: (first ? colorOf(first) : '#808080').replace('#', ''),
    sections,
    ...(actions.length ? { potentialAction: actions } : {}),
  };
  return postJson(s.url, card);
}
