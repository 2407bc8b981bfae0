/**
 * Existing deployments: the established notification plugins named in PLUGINS become receivers
 * made from their settings, reached by one catch-all rule; their secrets stay masked everywhere;
 * a missing setting stops start-up.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { boot } from '../../server/boot.ts';
import { loadConfig } from '../../server/config.ts';
import { createLog } from '../../server/log.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { MailServer, StubService } from '../helpers/receivers.ts';

interface Ctx extends AppContext {
  stub: StubService;
  mail: MailServer;
}

const test = suite<Ctx>('notifications: from the settings', {} as Ctx);

test.before(async (ctx) => {
  ctx.stub = await StubService.start();
  ctx.mail = await MailServer.start();
  await startApp(ctx, {
    TEST_LABEL: 'notify_settings',
    PLUGINS: 'remote_ip,reject,blackout,slack,pagerduty,msteams,mattermost,opsgenie,telegram,mailer',
    SLACK_WEBHOOK_URL: ctx.stub.url('/services/T1/B1/slack-token-secret'),
    SLACK_CHANNEL: '#ops',
    PAGERDUTY_SERVICE_KEY: 'pd-integration-key-secret',
    PAGERDUTY_EVENTS_URL: ctx.stub.url('/pd'),
    MS_TEAMS_WEBHOOK_URL: ctx.stub.url('/teams/teams-token-secret'),
    MS_TEAMS_INBOUNDWEBHOOK_URL: 'https://alerts.example.com/api/webhooks/msteams',
    MS_TEAMS_APIKEY: 'teams-api-key-secret',
    MATTERMOST_URL: ctx.stub.url('/mm'),
    MATTERMOST_TOKEN: 'mm-token-secret',
    OPSGENIE_SERVICE_KEY: 'og-key-secret',
    OPSGENIE_API_URL: ctx.stub.url('/og'),
    TELEGRAM_TOKEN: '42:telegram-token-secret',
    TELEGRAM_CHAT_ID: '-1001',
    TELEGRAM_API_URL: ctx.stub.url('/tg'),
    TELEGRAM_WEBHOOK_URL: 'https://alerts.example.com/api/webhooks/telegram',
    MAIL_TO: 'ops@example.com,lead@example.com',
    MAIL_FROM: 'alerta@example.com',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(ctx.mail.port),
    SMTP_STARTTLS: 'False',
    SMTP_USERNAME: 'mailer',
    SMTP_PASSWORD: 'smtp-password-secret',
    NOTIFY_GROUP_WAIT: '0',
    DASHBOARD_URL: 'https://alerts.example.com',
  });
});
test.after(async (ctx) => {
  await ctx.stub?.close();
  await ctx.mail?.close();
  await stopApp(ctx);
});

test('each plugin name is a read-only receiver; one catch-all rule reaches them all', async ({ api }) => {
  const receivers = (await api.call('GET', '/notifications/receivers')).body.receivers as Record<
    string,
    unknown
  >[];
  assert.equal(
    receivers.map((r) => [r.name, r.type, r.source]),
    [
      ['slack', 'slack', 'settings'],
      ['pagerduty', 'pagerduty', 'settings'],
      ['msteams', 'msteams', 'settings'],
      ['mattermost', 'mattermost', 'settings'],
      ['opsgenie', 'opsgenie', 'settings'],
      ['telegram', 'telegram', 'settings'],
      ['mailer', 'email', 'settings'],
    ],
  );
  assert.not.match(JSON.stringify(receivers), /secret/);
  const rules = (await api.call('GET', '/notifications/rules')).body.rules as Record<string, unknown>[];
  assert.equal(
    rules.map((r) => [r.name, r.continue, r.source, r.groupWait]),
    [['settings', true, 'settings', 0]],
  );
  const change = await api.call('PUT', '/notifications/receivers/slack', { enabled: false });
  assert.is(change.status, 409);
  assert.is((await api.call('DELETE', '/notifications/rules/settings')).status, 409);
});

test('an alert goes to every service named in PLUGINS, in its own format', async ({ api, stub, mail }) => {
  const res = await api.call('POST', '/alert', {
    environment: 'Production',
    service: ['web'],
    resource: 'web01',
    event: 'HttpDown',
    severity: 'critical',
    text: 'no answer',
  });
  assert.is(res.status, 201);
  const id = res.body.id as string;
  const slack = (await stub.waitFor(1, (r) => r.path.startsWith('/services/')))[0]!;
  assert.is(slack.json.channel, '#ops');
  const attachment = (slack.json.attachments as Record<string, unknown>[])[0]!;
  assert.equal([attachment.callback_id, (attachment.actions as unknown[]).length], [id, 2]);
  const pd = (await stub.waitFor(1, (r) => r.path === '/pd'))[0]!;
  assert.equal([pd.json.routing_key, pd.json.dedup_key], ['pd-integration-key-secret', id]);
  const teams = (await stub.waitFor(1, (r) => r.path.startsWith('/teams/')))[0]!;
  const posts = (teams.json.potentialAction as Record<string, unknown>[]).filter(
    (a) => a['@type'] === 'HttpPOST',
  );
  assert.equal(
    posts.map((p) => [p.target, p.body]),
    [
      ['https://alerts.example.com/api/webhooks/msteams', JSON.stringify({ action: 'ack', alert_id: id })],
      ['https://alerts.example.com/api/webhooks/msteams', JSON.stringify({ action: 'close', alert_id: id })],
    ],
  );
  const mm = (await stub.waitFor(1, (r) => r.path.startsWith('/mm/')))[0]!;
  assert.is(mm.path, '/mm/hooks/mm-token-secret');
  const og = (await stub.waitFor(1, (r) => r.path.startsWith('/og/')))[0]!;
  assert.equal([og.path, og.json.alias, og.json.priority], ['/og/v2/alerts', id, 'P1']);
  const tg = (await stub.waitFor(1, (r) => r.path.startsWith('/tg/')))[0]!;
  assert.is(tg.path, '/tg/bot42:telegram-token-secret/sendMessage');
  const keyboard = (tg.json.reply_markup as { inline_keyboard: { callback_data: string }[][] })
    .inline_keyboard;
  assert.equal(
    keyboard[0]!.map((b) => b.callback_data),
    [`/ack ${id}`, `/close ${id}`, `/blackout ${id}`],
  );
  assert.match(String(tg.json.text), new RegExp(`https://alerts.example.com/alert/${id}`));
  const [m] = await mail.waitFor(1);
  assert.equal([m!.from, m!.to], ['alerta@example.com', ['ops@example.com', 'lead@example.com']]);
  assert.equal(mail.logins, [{ username: 'mailer', password: 'smtp-password-secret' }]);
  assert.match(m!.raw, /FIRING: \[Critical\] Production web01: HttpDown/);
});

test('/management/properties masks the receivers\u2019 secrets', async ({ api }) => {
  const text = await (await api.get('/management/properties')).text();
  for (const secret of [
    'slack-token-secret',
    'pd-integration-key',
    'teams-token',
    'mm-token',
    'og-key',
    'telegram-token',
    'smtp-password',
    'teams-api-key',
  ]) {
    assert.not.ok(text.includes(secret), `${secret} is shown`);
  }
  assert.match(text, /SLACK_WEBHOOK_URL: \*{8}/);
});

test('a plugin named without its settings stops start-up, naming the setting', async ({ db }) => {
  const config = loadConfig(
    { PORT: '0', HOST: '127.0.0.1', DATABASE_URL: db.url, PLUGINS: 'remote_ip,slack', LOG_LEVEL: 'silent' },
    { systemFile: null },
  );
  let error: Error | null = null;
  try {
    const running = await boot(config, createLog('silent'));
    await running.close();
  } catch (err) {
    error = err as Error;
  }
  assert.is(
    error?.message,
    "PLUGINS: 'slack' failed to start: SLACK_WEBHOOK_URL is needed when PLUGINS lists slack",
  );
});

test.run();
