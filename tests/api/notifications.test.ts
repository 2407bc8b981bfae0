/**
 * Notification receivers and rules through the API: scopes, validation, secrets never shown,
 * renaming and deleting, the test button for every type of receiver against local stand-ins for
 * the services (and a real SMTP server), the per-receiver rate limit, and the management status.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ReceiverSchema, RuleSchema } from '../../shared/notifications.ts';
import type { Api, Answer } from '../helpers/api.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { insertKeys } from '../helpers/db.ts';
import { sleep } from '../helpers/live.ts';
import { MailServer, StubService } from '../helpers/receivers.ts';
import { callAs, keyAuth, ok, securedSettings } from '../helpers/secured.ts';

interface Ctx extends AppContext {
  stub: StubService;
  mail: MailServer;
}

const ADMIN = 'notify-admin-key-0123456789';
const READER = 'notify-reader-key-0123456789';
const PLAIN = 'notify-plain-key-0123456789';
const ALERTS = 'notify-alerts-key-0123456789';

const test = suite<Ctx>('notifications: API', {} as Ctx);

test.before(async (ctx) => {
  ctx.stub = await StubService.start();
  ctx.mail = await MailServer.start();
  await startApp(
    ctx,
    securedSettings('notify_api', 'notify-test-secret-key-0123', {
      ADMIN_KEY: ADMIN,
      BASE_URL: 'http://alerts.example.com/api',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(ctx.mail.port),
      SMTP_STARTTLS: 'False',
      MAIL_FROM: 'alertwall@example.com',
      NOTIFY_RETRY_DELAY: '0.2',
      NOTIFY_RETRY_MAX_DELAY: '0.5',
    }),
  );
  for (const [key, scopes] of [
    [READER, ['read:notifications']],
    [PLAIN, ['read', 'write']],
    [ALERTS, ['read:alerts', 'write:alerts']],
  ] as const) {
    await insertKeys(ctx.db.url, [{ key, user: 'u@example.com', scopes }]);
  }
});
test.after(async (ctx) => {
  await ctx.stub?.close();
  await ctx.mail?.close();
  await stopApp(ctx);
});

const tag = () => randomBytes(4).toString('hex');

const call = (api: Api, method: string, path: string, body?: unknown, key = ADMIN): Promise<Answer> =>
  callAs(api, method, path, { key, body });

const created = (api: Api, path: string, body: unknown) => ok(call(api, 'POST', path, body), 201);

test('scopes: read:notifications lists, admin:notifications changes; plain read covers reading only', async ({
  api,
}) => {
  assert.is((await call(api, 'GET', '/notifications/receivers', undefined, READER)).status, 200);
  assert.is((await call(api, 'GET', '/notifications/rules', undefined, READER)).status, 200);
  const denied = await call(api, 'POST', '/notifications/receivers', { name: 'x', type: 'webhook' }, READER);
  assert.is(denied.status, 403);
  assert.is(denied.body.message, 'Missing required scope: admin:notifications');
  assert.is((await call(api, 'GET', '/notifications/receivers', undefined, PLAIN)).status, 200);
  const write = await call(api, 'DELETE', '/notifications/rules/anything', undefined, PLAIN);
  assert.equal([write.status, write.body.message], [403, 'Missing required scope: admin:notifications']);
  const alerts = await call(api, 'GET', '/notifications/receivers', undefined, ALERTS);
  assert.equal([alerts.status, alerts.body.message], [403, 'Missing required scope: read:notifications']);
  const scopes = await call(api, 'GET', '/scopes');
  assert.ok((scopes.body.scopes as string[]).includes('admin:notifications'));
  assert.ok((scopes.body.scopes as string[]).includes('read:notifications'));
});

test('receivers: secrets are masked when shown and kept when an update leaves them out or sends the mask', async ({
  api,
  stub,
}) => {
  const name = `slack-${tag()}`;
  const secretUrl = stub.url(`/services/T000/B000/${tag()}secret`);
  const body = await created(api, '/notifications/receivers', {
    name,
    type: 'slack',
    settings: { url: secretUrl, channel: '#ops', token: 'xoxb-very-secret' },
  });
  const receiver = ReceiverSchema.parse(body.receiver);
  assert.equal(receiver.settings, {
    url: `http://127.0.0.1:${stub.port}/********`,
    channel: '#ops',
    token: '********',
  });
  const listed = await call(api, 'GET', '/notifications/receivers', undefined, READER);
  assert.not.match(JSON.stringify(listed.body), /secret/);
  // Saving what was shown (masked) keeps the secrets; a changed channel is taken.
  const shown = (await call(api, 'GET', `/notifications/receivers/${name}`)).body.receiver as Record<
    string,
    unknown
  >;
  const updated = await call(api, 'PUT', `/notifications/receivers/${receiver.id}`, {
    settings: { ...(shown.settings as object), channel: '#alerts' },
  });
  assert.is(updated.status, 200, JSON.stringify(updated.body));
  const test = await call(api, 'POST', `/notifications/receivers/${name}/test`);
  assert.equal(test.body, { status: 'ok', receiver: name, outcome: 'sent', detail: null });
  const [sent] = await stub.waitFor(1, (r) => r.path.endsWith('secret'));
  assert.is(sent!.json.channel, '#alerts');
  assert.is(sent!.headers.authorization, 'Bearer xoxb-very-secret');
});

test('receivers: validation names the problem; names are unique; the type cannot change', async ({ api }) => {
  const bad = await call(api, 'POST', '/notifications/receivers', {
    name: `pd-${tag()}`,
    type: 'pagerduty',
    settings: { routing_key: 'x' },
  });
  assert.is(bad.status, 400);
  assert.match(String(bad.body.message), /routingKey|unknown key routing_key/);
  const kind = await call(api, 'POST', '/notifications/receivers', {
    name: 'x',
    type: 'pigeon',
    settings: {},
  });
  assert.is(kind.status, 400);
  const name = `hook-${tag()}`;
  await created(api, '/notifications/receivers', {
    name,
    type: 'webhook',
    settings: { url: 'http://127.0.0.1:9/x' },
  });
  const again = await call(api, 'POST', '/notifications/receivers', {
    name,
    type: 'webhook',
    settings: { url: 'http://127.0.0.1:9/y' },
  });
  assert.equal([again.status, again.body.message], [409, `a receiver named '${name}' already exists`]);
  const retype = await call(api, 'PUT', `/notifications/receivers/${name}`, { type: 'slack' });
  assert.is(retype.status, 400);
  const missing = await call(api, 'GET', '/notifications/receivers/nobody-here');
  assert.is(missing.status, 404);
});

test('rules: defaults, unknown receivers and severities refused, a renamed receiver follows, a used one cannot go', async ({
  api,
}) => {
  const receiver = `team-${tag()}`;
  await created(api, '/notifications/receivers', {
    name: receiver,
    type: 'webhook',
    settings: { url: 'http://127.0.0.1:9/z' },
  });
  const rule = RuleSchema.parse(
    (
      await created(api, '/notifications/rules', {
        name: `rule-${tag()}`,
        environment: 'Production',
        minSeverity: 'major',
        tags: ['team=.*'],
        receivers: [receiver],
        escalations: [{ after: 600, receivers: [receiver] }],
      })
    ).rule,
  );
  assert.equal(
    [rule.groupWait, rule.repeatInterval, rule.continue, rule.enabled, rule.source],
    [30, 0, false, true, 'api'],
  );
  const unknown = await call(api, 'POST', '/notifications/rules', {
    name: `r-${tag()}`,
    receivers: ['ghost'],
  });
  assert.equal([unknown.status, unknown.body.message], [400, "receivers: no receiver named 'ghost'"]);
  const severity = await call(api, 'POST', '/notifications/rules', {
    name: `r-${tag()}`,
    receivers: [receiver],
    severity: ['dire'],
  });
  assert.is(severity.status, 400);
  assert.match(String(severity.body.message), /^Severity \(dire\) is not one of/);
  const regex = await call(api, 'POST', '/notifications/rules', {
    name: `r-${tag()}`,
    receivers: [receiver],
    event: '(',
  });
  assert.is(regex.status, 400);

  const renamed = `${receiver}-renamed`;
  assert.is((await call(api, 'PUT', `/notifications/receivers/${receiver}`, { name: renamed })).status, 200);
  const after = RuleSchema.parse((await call(api, 'GET', `/notifications/rules/${rule.id}`)).body.rule);
  assert.equal([after.receivers, after.escalations[0]!.receivers], [[renamed], [renamed]]);
  const del = await call(api, 'DELETE', `/notifications/receivers/${renamed}`);
  assert.equal([del.status, del.body.message], [409, `receiver '${renamed}' is used by rule '${rule.name}'`]);
  assert.is((await call(api, 'DELETE', `/notifications/rules/${rule.id}`)).status, 200);
  assert.is((await call(api, 'DELETE', `/notifications/receivers/${renamed}`)).status, 200);
  assert.is((await call(api, 'GET', `/notifications/rules/${rule.id}`)).status, 404);
});

/** Creates a receiver of `type` and presses its test button; gives the answer. */
async function testButton(api: Api, type: string, settings: Record<string, unknown>) {
  const name = `${type}-${tag()}`;
  await created(api, '/notifications/receivers', { name, type, settings });
  return { name, answer: await call(api, 'POST', `/notifications/receivers/${name}/test`) };
}

test('rules and receivers: an unknown field is a 400 naming it, and nothing is stored', async ({ api }) => {
  const name = `hook-${tag()}`;
  await created(api, '/notifications/receivers', {
    name,
    type: 'webhook',
    settings: { url: 'http://127.0.0.1:9/x' },
  });
  // `match` is not a field: left out, the rule would have matched every alert.
  const rule = `strict-${tag()}`;
  const r = await call(api, 'POST', '/notifications/rules', {
    name: rule,
    receivers: [name],
    match: { severity: ['critical'] },
  });
  assert.is(r.status, 400, JSON.stringify(r.body));
  assert.match(JSON.stringify(r.body), /match/);
  const rules = (await call(api, 'GET', '/notifications/rules')).body.rules as { name: string }[];
  assert.not.ok(rules.some((x) => x.name === rule));
  // (Matching nothing, and deleted below: a rule that matches every alert would stop the routing of
  // the later tests' alerts at it.)
  const stored = await created(api, '/notifications/rules', {
    name: rule,
    receivers: [name],
    environment: 'Nowhere',
  });
  const id = String((stored.rule as { id: string }).id);
  const put = await call(api, 'PUT', `/notifications/rules/${id}`, { severty: ['critical'] });
  assert.is(put.status, 400, JSON.stringify(put.body));
  assert.match(JSON.stringify(put.body), /severty/);
  const recv = await call(api, 'POST', '/notifications/receivers', {
    name: `hook-${tag()}`,
    type: 'webhook',
    url: 'http://127.0.0.1:9/x',
  });
  assert.is(recv.status, 400, JSON.stringify(recv.body));
  assert.match(JSON.stringify(recv.body), /url/);
  assert.is((await call(api, 'DELETE', `/notifications/rules/${id}`)).status, 200);
});

test('test button: Slack, Mattermost and Teams get their own message formats', async ({ api, stub }) => {
  const id = tag();
  const slack = await testButton(api, 'slack', { url: stub.url(`/slack/${id}`), username: 'alerta' });
  assert.is(slack.answer.body.outcome, 'sent');
  const [s] = await stub.waitFor(1, (r) => r.path === `/slack/${id}`);
  assert.match(String(s!.json.text), /^TEST: \[Informational\] Test alertwall: NotificationTest$/);
  const attachment = (s!.json.attachments as Record<string, unknown>[])[0]!;
  assert.equal([attachment.color, s!.json.username], ['#808080', 'alerta']);
  assert.ok(Array.isArray(attachment.fields));

  await testButton(api, 'mattermost', { url: stub.url(`/mm/${id}`), channel: 'town-square' });
  const [m] = await stub.waitFor(1, (r) => r.path === `/mm/${id}`);
  assert.is(m!.json.channel, 'town-square');
  assert.ok(Array.isArray(m!.json.attachments));

  await testButton(api, 'msteams', { url: stub.url(`/teams/${id}`) });
  const [t] = await stub.waitFor(1, (r) => r.path === `/teams/${id}`);
  assert.equal(
    [t!.json['@type'], t!.json.title],
    ['MessageCard', 'TEST: [Informational] Test alertwall: NotificationTest'],
  );
  const console = (t!.json.potentialAction as Record<string, unknown>[])[0]!;
  assert.equal(console.targets, [{ os: 'default', uri: 'http://alerts.example.com/alerts' }]);
});

test('test button: the generic webhook is signed with HMAC-SHA256 over timestamp and body', async ({
  api,
  stub,
}) => {
  const id = tag();
  const secret = `hmac-${id}`;
  await testButton(api, 'webhook', { url: stub.url(`/generic/${id}`), secret });
  const [w] = await stub.waitFor(1, (r) => r.path === `/generic/${id}`);
  const timestamp = String(w!.headers['x-alertwall-timestamp']);
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${w!.body}`).digest('hex')}`;
  assert.is(w!.headers['x-alertwall-signature'], expected);
  assert.ok(w!.headers['x-alertwall-delivery']);
  const alerts = w!.json.alerts as Record<string, unknown>[];
  assert.equal([w!.json.version, alerts[0]!.kind, alerts[0]!.event], ['1', 'test', 'NotificationTest']);
});

test('test button: PagerDuty and Opsgenie get an incident and its resolution', async ({ api, stub }) => {
  const id = tag();
  await testButton(api, 'pagerduty', { routingKey: `R${id}`, url: stub.url(`/pd/${id}`) });
  const [trigger, resolve] = await stub.waitFor(2, (r) => r.path === `/pd/${id}`);
  assert.equal([trigger!.json.event_action, resolve!.json.event_action], ['trigger', 'resolve']);
  assert.is(trigger!.json.dedup_key, resolve!.json.dedup_key);
  assert.is((trigger!.json.payload as Record<string, unknown>).severity, 'info');

  await testButton(api, 'opsgenie', { apiKey: `G${id}`, url: stub.url(`/og/${id}`) });
  const [create, close] = await stub.waitFor(2, (r) => r.path.startsWith(`/og/${id}`));
  assert.equal(
    [create!.method, create!.path, create!.headers.authorization],
    ['POST', `/og/${id}/v2/alerts`, `GenieKey G${id}`],
  );
  assert.match(close!.path, new RegExp(`^/og/${id}/v2/alerts/test-\\w+/close\\?identifierType=alias$`));
  assert.is(create!.json.priority, 'P5');
});

test('test button: Telegram gets a bot message', async ({ api, stub }) => {
  const id = tag();
  await testButton(api, 'telegram', { token: `123:${id}`, chatId: -100, apiUrl: stub.url(`/tg/${id}`) });
  const [t] = await stub.waitFor(1, (r) => r.path.startsWith(`/tg/${id}`));
  assert.is(t!.path, `/tg/${id}/bot123:${id}/sendMessage`);
  assert.equal([t!.json.chat_id, t!.json.parse_mode], ['-100', 'HTML']);
  assert.match(String(t!.json.text), /TEST: \[Informational\] Test alertwall: NotificationTest/);
});

test('test button: e-mail through a real SMTP server, with the server SMTP settings', async ({
  api,
  mail,
}) => {
  const { answer } = await testButton(api, 'email', { to: ['oncall@example.com'] });
  assert.is(answer.body.outcome, 'sent', JSON.stringify(answer.body));
  const [m] = await mail.waitFor(1);
  assert.equal([m!.from, m!.to], ['alertwall@example.com', ['oncall@example.com']]);
  assert.match(m!.raw, /Subject: \[alertwall\] TEST: \[Informational\] Test alertwall:/);
  assert.match(m!.raw, /Content-Type: text\/html/);
});

test('test button: a failing service is reported, its secret never', async ({ api, stub }) => {
  const id = tag();
  stub.status = 500;
  try {
    const { answer } = await testButton(api, 'webhook', { url: stub.url(`/down/${id}`) });
    assert.equal(answer.body, {
      status: 'ok',
      receiver: answer.body.receiver,
      outcome: 'failed',
      detail: 'HTTP 500',
    });
  } finally {
    stub.status = 200;
  }
  const refused = await testButton(api, 'telegram', {
    token: `999:${id}`,
    chatId: 'x',
    apiUrl: 'http://127.0.0.1:9',
  });
  assert.is(refused.answer.body.outcome, 'failed');
  assert.not.match(JSON.stringify(refused.answer.body), new RegExp(id));
});

test('rate limit: a receiver gets at most rateLimit messages a minute; the rest wait and are grouped', async ({
  api,
  stub,
}) => {
  const id = tag();
  const name = `limited-${id}`;
  await created(api, '/notifications/receivers', {
    name,
    type: 'webhook',
    rateLimit: 2,
    settings: { url: stub.url(`/limited/${id}`) },
  });
  const event = `Limited-${id}`;
  await created(api, '/notifications/rules', {
    name: `rl-${id}`,
    event,
    receivers: [name],
    groupWait: 0,
    continue: true,
  });
  for (let i = 0; i < 6; i++) {
    const a = await call(api, 'POST', '/alert', {
      environment: 'Production',
      service: ['x'],
      resource: `n${i}`,
      event,
      severity: 'major',
    });
    assert.is(a.status, 201);
    await sleep(300);
  }
  await stub.waitFor(2, (r) => r.path === `/limited/${id}`);
  await sleep(2000);
  const got = stub.received.filter((r) => r.path === `/limited/${id}`);
  assert.is(got.length, 2, 'two messages within the minute');
  const status = await call(api, 'GET', '/management/status');
  const section = status.body.notifications as { receivers: Record<string, unknown>[] };
  const mine = section.receivers.find((r) => r.name === name)!;
  assert.ok((mine.queued as number) >= 1, JSON.stringify(mine));
  const metrics = status.body.metrics as Record<string, unknown>[];
  assert.ok(
    metrics.some((m) => m.group === 'notifications' && m.name === 'sent' && (m.count as number) >= 2),
  );
});

test('metrics: notifications_sent_total by receiver type and outcome, and the queue gauge', async ({
  api,
}) => {
  const res = await api.get('/management/metrics', { headers: keyAuth(ADMIN) });
  const text = await res.text();
  assert.match(text, /notifications_sent_total\{receiver_type="webhook",outcome="sent"\} \d+/);
  assert.match(text, /notifications_queued\{receiver_type="webhook"\} \d+/);
});

test.run();
