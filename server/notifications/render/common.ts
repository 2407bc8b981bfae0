import type { NotificationKind } from '../../../shared/notifications.ts';
import type { Config } from '../../config.ts';
import type { NotifiedAlert } from '../../db/notifications.ts';
import { build } from '../../version.ts';

/** One alert in a message, and why it is there. */
export interface Item {
  kind: NotificationKind;
  alert: NotifiedAlert;
}

/** Where people look at alerts: the UI's alert page and its console, when the server knows its address. */
export interface Links {
  alert(id: string): string | null;
  console: string | null;
  /** The UI's blackouts page (blackout notices). */
  blackouts: string | null;
}

/** A message to one receiver: one or more alerts of one rule. */
export interface Message {
  items: Item[];
  /** The rule that routed them (null for a test message). */
  rule: string | null;
  /** Receiver name, for the generic webhook's body. */
  receiver: string;
  /** Unique per message; the same on every retry. */
  deliveryId: string;
  links: Links;
}

/** An HTTP request to a service. */
export interface HttpRequest {
  method: 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body: string;
}

export const USER_AGENT = `${build.name}-notifier/${build.version}`;
export const JSON_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json',
  'User-Agent': USER_AGENT,
};

/** A POST of `body` as JSON to a service: JSON_HEADERS, then the service's own `headers`. */
export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}): HttpRequest => ({
  method: 'POST',
  url,
  headers: { ...JSON_HEADERS, ...headers },
  body: JSON.stringify(body),
});

/**
 * The UI's address: DASHBOARD_URL (as the established plugins link to it), else BASE_URL without
 * the API prefix plus the UI's path. Without either, messages carry no links.
 */
export function linksOf(config: Pick<Config, 'DASHBOARD_URL' | 'BASE_URL' | 'API_PREFIX'>): Links {
  let ui: string | null = null;
  if (config.DASHBOARD_URL) ui = config.DASHBOARD_URL.replace(/\/+$/, '');
  else if (config.BASE_URL) {
    const api = config.BASE_URL.replace(/\/+$/, '');
    const prefix = config.API_PREFIX;
    const root = prefix && api.endsWith(prefix) ? api.slice(0, -prefix.length) : api;
    ui = prefix ? root : `${root}/ui`;
  }
  return {
    alert: (id) => (ui ? `${ui}/alert/${encodeURIComponent(id)}` : null),
    console: ui ? `${ui}/alerts` : null,
    blackouts: ui ? `${ui}/blackouts` : null,
  };
}

const LABELS: Record<NotificationKind, string> = {
  trigger: 'FIRING',
  repeat: 'STILL FIRING',
  escalate: 'ESCALATED',
  ack: 'ACKNOWLEDGED',
  resolve: 'RESOLVED',
  test: 'TEST',
};
export const labelOf = (kind: NotificationKind) => LABELS[kind];

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
export const shortId = (id: string) => id.slice(0, 8);

/** `[Critical] Production web01: HttpDown` */
export const headline = (a: NotifiedAlert) =>
  `[${capitalize(a.severity)}] ${a.environment} ${a.resource}: ${a.event}`;

/** The facts every message gives about an alert, in order. */
export function factsOf(a: NotifiedAlert): [string, string][] {
  const facts: [string, string][] = [
    ['Severity', a.severity],
    ['Status', a.status],
    ['Environment', a.environment],
    ['Resource', a.resource],
    ['Event', a.event],
  ];
  if (a.service.length) facts.push(['Service', a.service.join(', ')]);
  if (a.group) facts.push(['Group', a.group]);
  if (a.value) facts.push(['Value', a.value]);
  if (a.customer) facts.push(['Customer', a.customer]);
  return facts;
}

/** Resolved and acknowledged items are "over"; the rest want attention. */
/**
 * Free text escaped for Slack's, Mattermost's and Telegram's markup, which need only &, < and >
 * escaped (tests/unit/notifications.test.ts).
 */
export const escapeMarkup = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export const isAlarm = (kind: NotificationKind) => kind !== 'resolve' && kind !== 'ack';

/** Whether a service may offer Ack / Close for an item: an alarm, and not a test message's. */
export const offersActions = (item: Item) => isAlarm(item.kind) && item.kind !== 'test';

/** `FIRING: [Critical] Production web01: HttpDown`: what happened to one alert. */
export const titleOf = (item: Item) => `${labelOf(item.kind)}: ${headline(item.alert)}`;

/** The message's item when it carries exactly one, else null. */
export const singleOf = (m: Message): Item | null => (m.items.length === 1 ? m.items[0]! : null);

/** One line for a message's title: what happened to how many alerts. */
export function summaryOf(m: Message): string {
  const single = singleOf(m);
  if (single) return titleOf(single);
  const counts = new Map<string, number>();
  for (const i of m.items) counts.set(labelOf(i.kind), (counts.get(labelOf(i.kind)) ?? 0) + 1);
  const parts = [...counts].map(([label, n]) => `${n} ${label.toLowerCase()}`).join(', ');
  return `${m.items.length} alerts${m.rule ? ` (${m.rule})` : ''}: ${parts}`;
}

/** How many alerts a grouped message lists one by one; the rest are counted and linked. */
const LISTED = 20;

/** The items a message lists one by one, and how many more it only counts. */
export function listedOf(m: Message): { listed: Item[]; rest: number } {
  const listed = m.items.slice(0, LISTED);
  return { listed, rest: m.items.length - listed.length };
}

/** Per-severity colours (the established Slack plugin's), and green for what is over. */
const COLORS: Record<string, string> = {
  security: '#000000',
  critical: '#FF0000',
  major: '#FFA500',
  minor: '#FFFF00',
  warning: '#1E90FF',
  informational: '#808080',
  debug: '#808080',
  trace: '#808080',
};
export const colorOf = (item: Item) =>
  item.kind === 'resolve'
    ? '#00CC00'
    : item.kind === 'ack'
      ? '#808080'
      : (COLORS[item.alert.severity] ?? '#00CC00');

/** A test message's alert: made up, never stored. */
export function testAlert(now: number, receiver: string): NotifiedAlert {
  return {
    id: `test-${now.toString(36)}`,
    resource: 'alertwall',
    event: 'NotificationTest',
    environment: 'Test',
    severity: 'informational',
    status: 'open',
    service: ['alertwall'],
    group: 'Notifications',
    value: null,
    text: `Test message for receiver ${receiver}: if you can read this, notifications reach you.`,
    tags: [],
    attributes: {},
    origin: 'alertwall',
    type: 'notificationTest',
    customer: null,
    duplicateCount: 0,
    createTime: now,
    lastReceiveTime: now,
  };
}
