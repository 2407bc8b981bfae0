/** Notifications without IO: rule matching and order, status classes, secrets, links and message rendering. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAlarmModel } from '../../server/domain/alarm-model.ts';
import type { NotifiedAlert } from '../../server/db/notifications.ts';
import { loadConfig } from '../../server/config.ts';
import { checkSettings, maskedSettings, mergeSettings, wants } from '../../server/notifications/receivers.ts';
import { slackRequest } from '../../server/notifications/render/chat.ts';
import { linksOf, summaryOf, type Message } from '../../server/notifications/render/common.ts';
import { renderMail } from '../../server/notifications/render/email.ts';
import { pagerdutyRequest } from '../../server/notifications/render/paging.ts';
import {
  compileRule,
  matchEveryAlert,
  routeAlert,
  statusClass,
  type RuleDef,
} from '../../server/notifications/rules.ts';
import { backoffMs } from '../../server/delivery/queue.ts';
import { notifyRetry } from '../../server/notifications/worker.ts';
import { openReceiver, sealSettings } from '../../server/notifications/sealed-settings.ts';
import { SecretBox } from '../../server/secret-box.ts';

const model = createAlarmModel(loadConfig({}, { systemFile: null }));
const rank = (s: string) => model.severityRank(s);

function rule(over: Partial<RuleDef>): RuleDef {
  return {
    id: over.name ?? 'r',
    name: 'r',
    priority: 0,
    enabled: true,
    ...matchEveryAlert(),
    receivers: ['x'],
    continue: false,
    groupWait: 30,
    repeatInterval: 0,
    escalations: [],
    paging: false,
    blackoutNotices: false,
    owner: null,
    source: 'api',
    createTime: null,
    updateTime: null,
    ...over,
  };
}

const alert = (over: Partial<NotifiedAlert> = {}): NotifiedAlert => ({
  id: 'a1b2c3d4-0000-0000-0000-000000000000',
  resource: 'web01',
  event: 'HttpDown',
  environment: 'Production',
  severity: 'major',
  status: 'open',
  service: ['web', 'shop'],
  group: 'Web',
  value: null,
  text: 'down <b>hard</b>',
  tags: ['team=web', 'dc=eu'],
  attributes: {},
  origin: 'test',
  type: 'exceptionAlert',
  customer: null,
  duplicateCount: 0,
  createTime: 0,
  lastReceiveTime: 0,
  ...over,
});

const matching = suite('notifications: rule matching');
const matches = (over: Partial<RuleDef>, a = alert()) => compileRule(rule(over), rank).matches(a);

matching('patterns match whole values; a plain name matches only itself', () => {
  assert.ok(matches({ environment: 'Production' }));
  assert.not.ok(matches({ environment: 'Prod' }));
  assert.ok(matches({ environment: 'Prod.*' }));
  assert.ok(matches({ event: 'Http(Down|Slow)' }));
  assert.not.ok(matches({ resource: 'web0' }));
  assert.ok(matches({ group: 'Web|Db' }));
});

matching('service: any of the alert services; tags: every pattern must match some tag', () => {
  assert.ok(matches({ service: 'shop' }));
  assert.not.ok(matches({ service: 'db' }));
  assert.ok(matches({ tags: ['team=.*', 'dc=eu'] }));
  assert.not.ok(matches({ tags: ['team=.*', 'dc=us'] }));
});

matching('severity exactly, or at least', () => {
  assert.ok(matches({ severity: ['major', 'critical'] }));
  assert.not.ok(matches({ severity: ['critical'] }));
  assert.ok(matches({ minSeverity: 'major' }));
  assert.ok(matches({ minSeverity: 'minor' }));
  assert.not.ok(matches({ minSeverity: 'critical' }));
  assert.ok(matches({ minSeverity: 'warning' }, alert({ severity: 'security' })));
});

matching('customer: no customer is the empty string', () => {
  assert.not.ok(matches({ customer: 'acme' }));
  assert.ok(matches({ customer: 'acme' }, alert({ customer: 'acme' })));
  assert.ok(matches({ customer: '' }));
});

matching("owner: a customer's rule matches only that customer's alerts, whatever its patterns", () => {
  assert.ok(matches({ owner: 'acme' }, alert({ customer: 'acme' })));
  assert.not.ok(matches({ owner: 'acme' }, alert({ customer: 'globex' })));
  assert.not.ok(matches({ owner: 'acme' }, alert({ customer: null })));
  assert.not.ok(matches({ owner: 'acme', customer: '.*' }, alert({ customer: 'globex' })));
  assert.ok(matches({ owner: null }, alert({ customer: 'globex' })));
});

matching('routing: in order, first match stops unless it continues; disabled rules are skipped', () => {
  const rules = [
    rule({ name: 'off', enabled: false }),
    rule({ name: 'all', continue: true }),
    rule({ name: 'prod', environment: 'Production' }),
    rule({ name: 'never reached' }),
  ].map((r) => compileRule(r, rank));
  assert.equal(
    routeAlert(rules, alert()).map((r) => r.def.name),
    ['all', 'prod'],
  );
  assert.equal(
    routeAlert(rules, alert({ environment: 'Dev' })).map((r) => r.def.name),
    ['all', 'never reached'],
  );
});

matching('status classes, both alarm models', () => {
  assert.equal(
    ['open', 'assign', 'ack', 'closed', 'expired', 'shelved', 'blackout', 'unknown'].map(statusClass),
    ['open', 'open', 'ack', 'closed', 'closed', 'quiet', 'quiet', 'open'],
  );
  assert.equal(['UNACK', 'ACKED', 'NORM', 'RTNUN', 'SHLVD', 'DSUPR', 'OOSRV'].map(statusClass), [
    'open',
    'ack',
    'closed',
    'closed',
    'quiet',
    'quiet',
    'quiet',
  ]);
});

const secrets = suite('notifications: receiver settings');

secrets('secrets are masked when shown: URLs keep their host, keys show nothing', () => {
  assert.equal(
    maskedSettings('slack', { url: 'https://hooks.slack.com/services/T/B/x', channel: '#a', token: 'xoxb' }),
    { url: 'https://hooks.slack.com/********', channel: '#a', token: '********' },
  );
  assert.equal(maskedSettings('pagerduty', { routingKey: 'abc' }), { routingKey: '********' });
});

secrets('an update keeps secrets sent back masked or left out; null removes a key', () => {
  const stored = { url: 'https://hooks.slack.com/services/T/B/x', channel: '#a', token: 'xoxb' };
  assert.equal(
    mergeSettings('slack', stored, { url: 'https://hooks.slack.com/********', channel: '#b', token: null }),
    { url: stored.url, channel: '#b' },
  );
  assert.equal(
    mergeSettings('slack', stored, { url: 'https://hooks.slack.com/new' }).url,
    'https://hooks.slack.com/new',
  );
});

secrets('settings are checked per type, naming the key', () => {
  assert.equal(checkSettings('webhook', { url: 'http://x/y' }), []);
  assert.equal(checkSettings('webhook', { url: 'ftp://x' }), ['settings.url: url must be an http(s) URL']);
  assert.equal(checkSettings('email', { to: [] }), ['settings.to: to must not be empty']);
  assert.equal(checkSettings('pagerduty', { routingKey: 'k', key: 'x' }), [
    'settings: unknown key key for a pagerduty receiver',
  ]);
});

secrets('what each type is told', () => {
  assert.ok(wants({ type: 'pagerduty', sendResolved: true }, 'ack'));
  assert.not.ok(wants({ type: 'pagerduty', sendResolved: true }, 'repeat'));
  assert.not.ok(wants({ type: 'slack', sendResolved: true }, 'ack'));
  assert.not.ok(wants({ type: 'slack', sendResolved: false }, 'resolve'));
  assert.ok(wants({ type: 'webhook', sendResolved: true }, 'ack'));
});

const rendering = suite('notifications: messages');
const links = linksOf({ DASHBOARD_URL: null, BASE_URL: 'https://a.example.com/api', API_PREFIX: '/api' });
const message = (items: Message['items']): Message => ({
  items,
  rule: 'prod',
  receiver: 'ops',
  deliveryId: 'd1',
  links,
});

rendering('links: DASHBOARD_URL, else BASE_URL without the API prefix; none without either', () => {
  assert.is(links.alert('x'), 'https://a.example.com/alert/x');
  assert.is(
    linksOf({ DASHBOARD_URL: 'https://ui.example.com/', BASE_URL: '', API_PREFIX: '/api' }).alert('x'),
    'https://ui.example.com/alert/x',
  );
  assert.is(
    linksOf({ DASHBOARD_URL: null, BASE_URL: 'https://a.example.com', API_PREFIX: '' }).console,
    'https://a.example.com/ui/alerts',
  );
  assert.is(linksOf({ DASHBOARD_URL: null, BASE_URL: '', API_PREFIX: '/api' }).alert('x'), null);
});

rendering('a summary counts what happened in a group', () => {
  const items = [
    { kind: 'trigger' as const, alert: alert() },
    { kind: 'trigger' as const, alert: alert({ resource: 'web02' }) },
    { kind: 'resolve' as const, alert: alert({ resource: 'web03' }) },
  ];
  assert.is(summaryOf(message(items)), '3 alerts (prod): 2 firing, 1 resolved');
  assert.is(summaryOf(message(items.slice(0, 1))), 'FIRING: [Major] Production web01: HttpDown');
});

rendering('Slack: buttons on alarms only, escaped text, at most 20 alerts listed', () => {
  const many = Array.from({ length: 25 }, (_, i) => ({
    kind: 'trigger' as const,
    alert: alert({ id: `id${i}` }),
  }));
  const body = JSON.parse(slackRequest(message(many), { url: 'https://hooks.slack.com/x' }).body) as {
    attachments: Record<string, unknown>[];
  };
  assert.is(body.attachments.length, 21);
  assert.is(body.attachments[0]!.callback_id, 'id0');
  assert.is(body.attachments[0]!.text, 'down &lt;b&gt;hard&lt;/b&gt;');
  assert.match(
    String(body.attachments[20]!.text),
    /^and 5 more: <https:\/\/a\.example\.com\/alerts\|all alerts>$/,
  );
  const resolved = JSON.parse(
    slackRequest(message([{ kind: 'resolve', alert: alert() }]), { url: 'https://h/x' }).body,
  ) as { attachments: Record<string, unknown>[] };
  assert.is(resolved.attachments[0]!.actions, undefined);
  assert.is(resolved.attachments[0]!.color, '#00CC00');
});

rendering('PagerDuty: trigger, acknowledge, resolve with the alert id as dedup key', () => {
  const settings = { routingKey: 'rk' };
  const trigger = JSON.parse(pagerdutyRequest({ kind: 'escalate', alert: alert() }, settings, links).body);
  assert.equal(
    [trigger.event_action, trigger.dedup_key, trigger.payload.severity],
    ['trigger', alert().id, 'error'],
  );
  const ack = JSON.parse(pagerdutyRequest({ kind: 'ack', alert: alert() }, settings, links).body);
  assert.equal(ack, { routing_key: 'rk', event_action: 'acknowledge', dedup_key: alert().id });
});

rendering('e-mail: subject and every alert in text and HTML, escaped', () => {
  const mail = renderMail(message([{ kind: 'trigger', alert: alert() }]));
  assert.is(mail.subject, '[alertwall] FIRING: [Major] Production web01: HttpDown');
  assert.match(mail.text, /https:\/\/a\.example\.com\/alert\/a1b2c3d4/);
  assert.match(mail.html, /down &lt;b&gt;hard&lt;\/b&gt;/);
});

rendering('retry backoff doubles up to the limit', () => {
  const config = loadConfig({ NOTIFY_RETRY_DELAY: '2', NOTIFY_RETRY_MAX_DELAY: '10' }, { systemFile: null });
  assert.equal(
    [1, 2, 3, 4, 10].map((n) => backoffMs(n, notifyRetry(config))),
    [2000, 4000, 8000, 10000, 10000],
  );
});

const sealing = suite('notifications: receiver secrets at rest');

const receiver = (settings: Record<string, unknown>) => ({
  id: '5f0c3b7e-0000-4000-8000-000000000001',
  name: 'hook',
  type: 'webhook' as const,
  enabled: true,
  rateLimit: null,
  sendResolved: true,
  settings,
  customer: null,
  source: 'api' as const,
  createTime: null,
  updateTime: null,
});

sealing('secret fields are sealed, other fields stay; opening gives them back', () => {
  const box = new SecretBox(['key one']);
  const r = receiver({ url: 'https://hooks.example.com/T0/secret-path', secret: 'hmac-secret' });
  const stored = sealSettings(box, r);
  assert.not.match(JSON.stringify(stored), /secret-path|hmac-secret/);
  assert.match(String((stored.url as { $enc: string }).$enc), /^v1:[\w-]{8}:/);
  const opened = openReceiver(box, { ...r, settings: stored });
  assert.equal([opened.settings, opened.unreadable], [r.settings, []]);
});

sealing('rotation: the first key seals, every key opens; a removed key leaves the field unreadable', () => {
  const r = receiver({ url: 'https://hooks.example.com/x' });
  const old = new SecretBox(['old key']);
  const stored = sealSettings(old, r);
  const rotated = new SecretBox(['new key', 'old key']);
  assert.is(openReceiver(rotated, { ...r, settings: stored }).settings.url, r.settings.url);
  assert.ok(rotated.isStale(stored.url as { $enc: string }));
  const removed = openReceiver(new SecretBox(['new key']), { ...r, settings: stored });
  assert.equal(removed.unreadable, ['url']);
  assert.equal(maskedSettings('webhook', removed.settings), { url: '********' });
});

sealing('a sealed value opens only for the receiver and field it was sealed for', () => {
  const box = new SecretBox(['k']);
  const stored = sealSettings(box, receiver({ url: 'https://a.example.com/x', secret: 's3cr3t' }));
  const moved = openReceiver(box, {
    ...receiver({ url: stored.url }),
    id: '5f0c3b7e-0000-4000-8000-000000000002',
  });
  assert.equal(moved.unreadable, ['url']);
  const swapped = openReceiver(box, receiver({ url: 'https://a.example.com/x', secret: stored.url }));
  assert.equal(swapped.unreadable, ['secret']);
});

matching.run();
secrets.run();
sealing.run();
rendering.run();
