import { MAX_TIME_MS } from '../../../shared/alerts.ts';
import type { BlackoutNotice } from '../../db/blackout-notices.ts';
import type { SettingsOf } from '../receivers.ts';
import { escapeMarkup, JSON_HEADERS, postJson, type HttpRequest, type Links } from './common.ts';
import type { Mail } from './email.ts';
import { OPSGENIE_API_URL, PAGERDUTY_EVENTS_URL } from './paging.ts';
import { DELIVERY_HEADER, SIGNATURE_HEADER, signatureOf, TIMESTAMP_HEADER } from './webhook.ts';

// Blackout notices as each receiver type takes them (docs/notifications.md, "Blackout notices"):
// "maintenance started: Production/db01, until 02:00 Europe/Berlin", "maintenance ended: …".

/** A message of one or more notices to one receiver, of one rule. */
export interface NoticeMessage {
  notices: BlackoutNotice[];
  rule: string | null;
  receiver: string;
  deliveryId: string;
  links: Links;
}

/** What a blackout covers: `Production/db01`, with what else narrows it in parentheses. */
export function scopeOf(n: BlackoutNotice): string {
  const b = n.blackout;
  const place = b.resource ?? (b.service.length ? b.service.join(', ') : null);
  const more: string[] = [];
  if (b.resource && b.service.length) more.push(`service ${b.service.join(', ')}`);
  if (b.event) more.push(`event ${b.event}`);
  if (b.group) more.push(`group ${b.group}`);
  if (b.tags.length) more.push(`tags ${b.tags.join(', ')}`);
  if (b.origin) more.push(`origin ${b.origin}`);
  return `${b.environment}${place ? `/${place}` : ''}${more.length ? ` (${more.join('; ')})` : ''}`;
}

const zoneOf = (n: BlackoutNotice) => n.blackout.timezone ?? 'UTC';

/**
 * A time in the blackout's zone (UTC for a one-off blackout): `02:00` on the day of `day`, else
 * with its date (`Tue 7 Jan 02:00`); the zone is named after it.
 */
export function localTime(ms: number, zone: string, day: number): string {
  const parts = (t: number) =>
    Object.fromEntries(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      })
        .formatToParts(new Date(t))
        .map((p) => [p.type, p.value]),
    ) as Record<string, string>;
  const p = parts(ms);
  const d = parts(day);
  const clock = `${p.hour}:${p.minute}`;
  const sameDay = p.day === d.day && p.month === d.month && p.year === d.year;
  const date =
    p.year === d.year ? `${p.weekday} ${p.day} ${p.month}` : `${p.weekday} ${p.day} ${p.month} ${p.year}`;
  return `${sameDay ? clock : `${date} ${clock}`} ${zone}`;
}

/** `maintenance started: Production/db01, until 02:00 Europe/Berlin` or `maintenance ended: Production/db01`. */
export function noticeLine(n: BlackoutNotice): string {
  if (n.kind === 'blackoutEnd') return `maintenance ended: ${scopeOf(n)}`;
  const until =
    n.endTime >= MAX_TIME_MS
      ? 'until further notice'
      : `until ${localTime(n.endTime, zoneOf(n), n.startTime)}`;
  return `maintenance started: ${scopeOf(n)}, ${until}`;
}

/** When the notice's edge was: the window's start or end. */
const edgeTime = (n: BlackoutNotice) => (n.kind === 'blackoutStart' ? n.startTime : n.endTime);
const iso = (ms: number) => new Date(Math.min(ms, MAX_TIME_MS)).toISOString();

/** The message's title: its one notice's line, or how many windows started and ended. */
export function noticeSummary(m: NoticeMessage): string {
  if (m.notices.length === 1) return noticeLine(m.notices[0]!);
  const started = m.notices.filter((n) => n.kind === 'blackoutStart').length;
  const ended = m.notices.length - started;
  const parts = [started ? `${started} started` : '', ended ? `${ended} ended` : ''].filter(Boolean);
  return `${m.notices.length} maintenance windows${m.rule ? ` (${m.rule})` : ''}: ${parts.join(', ')}`;
}

/** The facts a message gives about a notice's blackout, in order. */
export function noticeFacts(n: BlackoutNotice): [string, string][] {
  const b = n.blackout;
  const zone = zoneOf(n);
  const facts: [string, string][] = [
    ['Environment', b.environment],
    [
      'Window',
      `${localTime(n.startTime, zone, n.startTime).replace(` ${zone}`, '')} – ${n.endTime >= MAX_TIME_MS ? 'open' : localTime(n.endTime, zone, n.startTime)}`,
    ],
  ];
  if (b.resource) facts.push(['Resource', b.resource]);
  if (b.service.length) facts.push(['Service', b.service.join(', ')]);
  if (b.event) facts.push(['Event', b.event]);
  if (b.group) facts.push(['Group', b.group]);
  if (b.tags.length) facts.push(['Tags', b.tags.join(', ')]);
  if (n.description) facts.push(['Repeats', n.description]);
  if (b.customer) facts.push(['Customer', b.customer]);
  return facts;
}

const colorOf = (n: BlackoutNotice) => (n.kind === 'blackoutStart' ? '#808080' : '#00CC00');

/** Slack or Mattermost: the summary and an attachment per notice (no buttons: nothing to ack). */
export function chatNotice(
  m: NoticeMessage,
  s: SettingsOf<'slack'> | SettingsOf<'mattermost'>,
  icon: Record<string, string>,
): HttpRequest {
  const link = m.links.blackouts;
  const body = {
    text: escapeMarkup(noticeSummary(m)),
    attachments: m.notices.map((n) => ({
      fallback: noticeLine(n),
      color: colorOf(n),
      title: noticeLine(n),
      ...(link ? { title_link: link } : {}),
      text: escapeMarkup(n.blackout.text),
      fields: noticeFacts(n).map(([title, value]) => ({ title, value: escapeMarkup(value), short: true })),
    })),
    ...(s.channel ? { channel: s.channel } : {}),
    ...(s.username ? { username: s.username } : {}),
    ...icon,
  };
  const token = 'token' in s && s.token ? { Authorization: `Bearer ${s.token}` } : undefined;
  return postJson(s.url, body, token);
}

/** A Microsoft Teams connector card: a section per notice and a link to the blackouts page. */
export function teamsNotice(m: NoticeMessage, s: SettingsOf<'msteams'>): HttpRequest {
  const link = m.links.blackouts;
  return postJson(s.url, {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    summary: noticeSummary(m),
    title: noticeSummary(m),
    themeColor: colorOf(m.notices[0]!).replace('#', ''),
    sections: m.notices.map((n) => ({
      activityTitle: noticeLine(n),
      activitySubtitle: n.blackout.text,
      facts: noticeFacts(n).map(([name, value]) => ({ name, value })),
    })),
    ...(link
      ? {
          potentialAction: [
            { '@type': 'OpenUri', name: 'Open blackouts', targets: [{ os: 'default', uri: link }] },
          ],
        }
      : {}),
  });
}

/**
 * The generic webhook: `status: "maintenance"`, `alerts` empty and `blackouts` listing each notice,
 * signed and identified as alert messages are.
 */
export function webhookNotice(m: NoticeMessage, s: SettingsOf<'webhook'>, now: number): HttpRequest {
  const body = JSON.stringify({
    version: '1',
    deliveryId: m.deliveryId,
    receiver: m.receiver,
    rule: m.rule,
    status: 'maintenance',
    summary: noticeSummary(m),
    alerts: [],
    blackouts: m.notices.map((n) => ({
      kind: n.kind,
      ...n.blackout,
      summary: noticeLine(n),
      description: n.description,
      startTime: iso(n.startTime),
      endTime: iso(n.endTime),
      href: m.links.blackouts,
    })),
    sentAt: new Date(now).toISOString(),
  });
  const timestamp = String(Math.floor(now / 1000));
  const headers: Record<string, string> = {
    ...JSON_HEADERS,
    [DELIVERY_HEADER]: m.deliveryId,
    [TIMESTAMP_HEADER]: timestamp,
  };
  if (s.secret) headers[SIGNATURE_HEADER] = signatureOf(s.secret, timestamp, body);
  return { method: 'POST', url: s.url, headers, body };
}

const html = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** An e-mail: the summary as subject, each notice with its facts in plain text and HTML. */
export function mailNotice(m: NoticeMessage): Mail {
  const text: string[] = [];
  const rows: string[] = [];
  for (const n of m.notices) {
    text.push(noticeLine(n), ...noticeFacts(n).map(([k, v]) => `  ${k}: ${v}`));
    if (n.blackout.text) text.push(`  ${n.blackout.text}`);
    text.push('');
    const facts = noticeFacts(n)
      .map(([k, v]) => `<tr><th align="left">${html(k)}</th><td>${html(v)}</td></tr>`)
      .join('');
    rows.push(
      `<h3>${html(noticeLine(n))}</h3>` +
        (n.blackout.text ? `<p>${html(n.blackout.text)}</p>` : '') +
        `<table>${facts}</table>`,
    );
  }
  const link = m.links.blackouts;
  if (link) text.push(`Blackouts: ${link}`);
  return {
    subject: `[alertwall] ${noticeSummary(m)}`,
    messageId: `<${m.deliveryId.replace(/[^A-Za-z0-9.-]/g, '.')}@alertwall>`,
    text: text.join('\n'),
    html:
      `<!doctype html><html><body><h2>${html(noticeSummary(m))}</h2>${rows.join('<hr>')}` +
      `${link ? `<p><a href="${html(link)}">Blackouts</a></p>` : ''}</body></html>`,
  };
}

/** A Telegram bot message (HTML), without buttons. */
export function telegramNotice(m: NoticeMessage, s: SettingsOf<'telegram'>, defaultApi: string): HttpRequest {
  const lines = m.notices.length > 1 ? [`<b>${escapeMarkup(noticeSummary(m))}</b>`] : [];
  for (const n of m.notices) {
    lines.push(`<b>${escapeMarkup(noticeLine(n))}</b>`);
    if (n.blackout.text) lines.push(escapeMarkup(n.blackout.text));
  }
  if (m.links.blackouts) lines.push(`<a href="${escapeMarkup(m.links.blackouts)}">Blackouts</a>`);
  const api = (s.apiUrl ?? defaultApi).replace(/\/+$/, '');
  return postJson(`${api}/bot${s.token}/sendMessage`, {
    chat_id: s.chatId,
    text: lines.join('\n'),
    parse_mode: 'HTML',
    disable_web_page_preview: true,
  });
}

/**
 * PagerDuty: a change event (Events API v2 `…/v2/change/enqueue`, beside the receiver's events URL),
 * which shows on the service's timeline and never pages anyone.
 */
export function pagerdutyNotice(n: BlackoutNotice, s: SettingsOf<'pagerduty'>, links: Links): HttpRequest {
  const url = (s.url ?? PAGERDUTY_EVENTS_URL).replace(/\/enqueue\/?$/, '/change/enqueue');
  return postJson(url, {
    routing_key: s.routingKey,
    payload: {
      summary: noticeLine(n).slice(0, 1024),
      timestamp: iso(edgeTime(n)),
      source: 'alertwall',
      custom_details: Object.fromEntries(noticeFacts(n)),
    },
    ...(links.blackouts ? { links: [{ href: links.blackouts, text: 'Blackouts in alertwall' }] } : {}),
  });
}

/**
 * Opsgenie: a P5 alert while the window lasts (alias `blackout-<id>-<window start>`, tag
 * `maintenance`), closed by alias when it ends.
 */
export function opsgenieNotice(n: BlackoutNotice, s: SettingsOf<'opsgenie'>, links: Links): HttpRequest {
  const base = `${(s.url ?? OPSGENIE_API_URL).replace(/\/+$/, '')}/v2/alerts`;
  const auth = { Authorization: `GenieKey ${s.apiKey}` };
  const alias = `blackout-${n.blackout.id}-${n.startTime}`;
  if (n.kind === 'blackoutEnd')
    return postJson(
      `${base}/${encodeURIComponent(alias)}/close?identifierType=alias`,
      { source: 'alertwall', note: noticeLine(n) },
      auth,
    );
  return postJson(
    base,
    {
      message: noticeLine(n).slice(0, 130),
      alias,
      description: [n.blackout.text, links.blackouts].filter(Boolean).join('\n\n').slice(0, 15_000),
      tags: ['maintenance', n.blackout.environment],
      details: Object.fromEntries(noticeFacts(n)),
      entity: n.blackout.resource ?? n.blackout.environment,
      source: 'alertwall',
      priority: 'P5',
    },
    auth,
  );
}
