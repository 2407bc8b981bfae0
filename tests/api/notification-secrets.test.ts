/**
 * Receiver secrets at rest (docs/operations.md, "Rotating the secrets key"): the table holds no
 * secret in plain text, the API still masks, delivery still works; values stored in plain text
 * before are sealed at start; a rotation (new key first, old one after it) re-seals at start; a
 * removed key leaves a receiver that says so in the API and fails delivery with a clear error,
 * never a 500, until its secrets are entered again.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ReceiverSchema } from '../../shared/notifications.ts';
import { boot } from '../../server/boot.ts';
import { loadConfig } from '../../server/config.ts';
import { createLog } from '../../server/log.ts';
import { deriveKey } from '../../server/secret-box.ts';
import { createApi } from '../helpers/api.ts';
import { bootInstance, startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { until } from '../helpers/live.ts';
import { MailServer, StubService } from '../helpers/receivers.ts';
import { ok } from '../helpers/secured.ts';

interface Ctx extends AppContext {
  stub: StubService;
  mail: MailServer;
}

const KEY_1 = 'first secrets key, long and random enough';
const KEY_2 = 'second secrets key, after the rotation';
const SECRET_KEY = 'notify-secrets-secret-key';
/** Retries come quickly and do not run out while a test puts a secret right. */
const RETRIES = { NOTIFY_RETRY_DELAY: '0.2', NOTIFY_RETRY_MAX_DELAY: '0.5', NOTIFY_MAX_ATTEMPTS: '1000' };

/** Every secret the receivers below hold: none may appear in the table. */
const SECRETS = {
  webhookPath: 'T0WEBHOOK/path-token-4f1d',
  webhookHmac: 'hmac-secret-9a7c',
  slackToken: 'xoxb-slack-token-77aa',
  smtpPassword: 'smtp-password-31be',
  pagerduty: 'pagerduty-routing-key-c0de',
  telegram: '123456:telegram-bot-token-e5e5',
};

const test = suite<Ctx>('notifications: receiver secrets at rest', {} as Ctx);

const settings = (ctx: Ctx) => ({
  webhook: { url: ctx.stub.url(`/hooks/${SECRETS.webhookPath}`), secret: SECRETS.webhookHmac },
  slack: {
    url: ctx.stub.url('/services/T0/B0/slack-url-token-1234'),
    token: SECRETS.slackToken,
    channel: '#ops',
  },
  email: {
    to: ['oncall@example.com'],
    host: '127.0.0.1',
    port: ctx.mail.port,
    username: 'mailer',
    password: SECRETS.smtpPassword,
  },
  pagerduty: { routingKey: SECRETS.pagerduty, url: ctx.stub.url('/pagerduty') },
  telegram: { token: SECRETS.telegram, chatId: '-100200300', apiUrl: ctx.stub.url('/telegram') },
});

/** Boots a new instance on the test's database with these keys, closing the one before. */
async function restartWith(ctx: Ctx, secretsKeys: string[] | null) {
  await ctx.running.close();
  ctx.running = await bootInstance(ctx.db.url, {
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SECRET_KEY,
    ...RETRIES,
    ...(secretsKeys ? { SECRETS_KEYS: JSON.stringify(secretsKeys) } : {}),
  });
  ctx.api = createApi(`http://127.0.0.1:${ctx.running.port}${ctx.running.deps.config.API_PREFIX}`);
}

/** The same with these settings, keeping what the start-up logs (at info). */
async function restartLogged(ctx: Ctx, settings: Record<string, string>): Promise<Record<string, unknown>[]> {
  await ctx.running.close();
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig(
    { PORT: '0', HOST: '127.0.0.1', PLUGINS: 'remote_ip', DATABASE_URL: ctx.db.url, ...RETRIES, ...settings },
    { systemFile: null },
  );
  ctx.running = await boot(config, createLog('info', false, sink));
  ctx.api = createApi(`http://127.0.0.1:${ctx.running.port}${ctx.running.deps.config.API_PREFIX}`);
  return lines;
}

const storedSettings = async (ctx: Ctx, name: string) =>
  (
    await queryDb<{ settings: Record<string, unknown> }>(
      ctx.db.url,
      'SELECT settings FROM notification_receivers WHERE name = $1',
      [name],
    )
  )[0]!.settings;

const keyIdOf = (sealed: unknown) => (sealed as { $enc: string }).$enc.split(':')[1];

/** A webhook receiver for the stub's `path`, created through the API. */
const addWebhook = (ctx: Ctx, name: string, path: string) =>
  ok(
    ctx.api.call('POST', '/notifications/receivers', {
      name,
      type: 'webhook',
      settings: { url: ctx.stub.url(path) },
    }),
    201,
  );

/** A major alert in Production for service db; its id. */
async function raise(ctx: Ctx, resource: string, event: string): Promise<string> {
  const body = await ok(
    ctx.api.call('POST', '/alert', {
      resource,
      event,
      environment: 'Production',
      service: ['db'],
      severity: 'major',
    }),
    201,
  );
  return (body.alert as { id: string }).id;
}

const testButton = async (ctx: Ctx, name: string) =>
  (await ok(ctx.api.call('POST', `/notifications/receivers/${name}/test`))) as {
    outcome: string;
    detail: string | null;
  };

test.before(async (ctx) => {
  ctx.stub = await StubService.start();
  ctx.mail = await MailServer.start();
  await startApp(ctx, {
    TEST_LABEL: 'notify_secrets',
    SECRET_KEY,
    SECRETS_KEYS: JSON.stringify([KEY_1]),
    ...RETRIES,
  });
});
test.after(async (ctx) => {
  await ctx.stub?.close();
  await ctx.mail?.close();
  await stopApp(ctx);
});

test('the table holds every secret sealed, the API masks them, and delivery uses them', async (ctx) => {
  for (const [type, s] of Object.entries(settings(ctx))) {
    await ok(ctx.api.call('POST', '/notifications/receivers', { name: `r-${type}`, type, settings: s }), 201);
  }
  const table = await queryDb<{ settings: string }>(
    ctx.db.url,
    'SELECT settings::text FROM notification_receivers',
  );
  const dump = table.map((r) => r.settings).join('\n');
  assert.is(table.length, 5);
  for (const secret of [...Object.values(SECRETS), 'slack-url-token-1234'])
    assert.not.ok(dump.includes(secret), secret);
  // What is not secret stays readable; each secret is sealed under the first key.
  assert.ok(dump.includes('#ops') && dump.includes('-100200300') && dump.includes('oncall@example.com'));
  const webhook = await storedSettings(ctx, 'r-webhook');
  assert.equal([keyIdOf(webhook.url), keyIdOf(webhook.secret)], [deriveKey(KEY_1).id, deriveKey(KEY_1).id]);

  const shown = ReceiverSchema.parse(
    (await ok(ctx.api.call('GET', '/notifications/receivers/r-webhook'))).receiver,
  );
  assert.equal(shown.settings, { url: `http://127.0.0.1:${ctx.stub.port}/********`, secret: '********' });
  assert.equal(shown.unreadableSecrets, []);

  // The test button, for a webhook (URL and HMAC key) and e-mail (SMTP password).
  assert.is((await testButton(ctx, 'r-webhook')).outcome, 'sent');
  const [hit] = await ctx.stub.waitFor(1, (r) => r.path === `/hooks/${SECRETS.webhookPath}`);
  const timestamp = hit!.headers['x-alertwall-timestamp'] as string;
  const expected = createHmac('sha256', SECRETS.webhookHmac)
    .update(`${timestamp}.${hit!.body}`)
    .digest('hex');
  assert.is(hit!.headers['x-alertwall-signature'], `sha256=${expected}`);
  assert.is((await testButton(ctx, 'r-email')).outcome, 'sent');
  assert.equal(ctx.mail.logins.at(-1), { username: 'mailer', password: SECRETS.smtpPassword });

  // And through a rule (the routing copy opens them too).
  await ok(
    ctx.api.call('POST', '/notifications/rules', { name: 'all', receivers: ['r-webhook'], groupWait: 0 }),
    201,
  );
  const id = await raise(ctx, 'db01', 'SecretsCheck');
  await ctx.stub.waitFor(1, (r) => r.path === `/hooks/${SECRETS.webhookPath}` && r.body.includes(id));
});

test('an update that sends the mask back keeps the secret sealed; a new secret is sealed too', async (ctx) => {
  const shown = (await ok(ctx.api.call('GET', '/notifications/receivers/r-slack'))).receiver as {
    settings: Record<string, unknown>;
  };
  await ok(
    ctx.api.call('PUT', '/notifications/receivers/r-slack', {
      settings: { ...shown.settings, channel: '#db' },
    }),
  );
  await ok(
    ctx.api.call('PUT', '/notifications/receivers/r-pagerduty', {
      settings: { routingKey: 'new-routing-key-abcd' },
    }),
  );
  const dump = (
    await queryDb<{ s: string }>(ctx.db.url, 'SELECT settings::text AS s FROM notification_receivers')
  )
    .map((r) => r.s)
    .join('\n');
  assert.not.ok(dump.includes(SECRETS.slackToken) || dump.includes('new-routing-key-abcd'));
  assert.ok(dump.includes('#db'));
  assert.is((await testButton(ctx, 'r-slack')).outcome, 'sent');
  const [slack] = await ctx.stub.waitFor(1, (r) => r.path === '/services/T0/B0/slack-url-token-1234');
  assert.ok(slack);
  // A sealed value sent by a client (copied from a dump) is not a URL: refused, never stored.
  const copied = (await storedSettings(ctx, 'r-slack')).url;
  for (const [method, path, body] of [
    ['PUT', '/notifications/receivers/r-webhook', { settings: { url: copied } }],
    ['POST', '/notifications/receivers', { name: 'r-copied', type: 'slack', settings: { url: copied } }],
  ] as const) {
    const refused = await ctx.api.call(method, path, body);
    assert.equal([refused.status, refused.body.message], [400, 'settings.url: url must be a URL'], path);
  }
});

test('secrets stored in plain text before are sealed at the next start, once', async (ctx) => {
  const id = randomUUID();
  await queryDb(
    ctx.db.url,
    `INSERT INTO notification_receivers (id, name, type, settings) VALUES ($1, 'legacy', 'webhook', $2)`,
    [id, JSON.stringify({ url: ctx.stub.url('/legacy/plain-token-0101'), secret: 'legacy-hmac-0101' })],
  );
  await restartWith(ctx, [KEY_1]);
  const stored = await storedSettings(ctx, 'legacy');
  assert.not.match(JSON.stringify(stored), /plain-token-0101|legacy-hmac-0101/);
  assert.is(keyIdOf(stored.url), deriveKey(KEY_1).id);
  assert.is((await testButton(ctx, 'legacy')).outcome, 'sent');
  await ctx.stub.waitFor(1, (r) => r.path === '/legacy/plain-token-0101');
  // A second start changes nothing (the sealed text stays as it was).
  await restartWith(ctx, [KEY_1]);
  assert.equal(await storedSettings(ctx, 'legacy'), stored);
});

test('rotation: with the new key first and the old one after it, start-up re-seals under the new one', async (ctx) => {
  await restartWith(ctx, [KEY_2, KEY_1]);
  const rows = await queryDb<{ name: string; settings: Record<string, unknown> }>(
    ctx.db.url,
    'SELECT name, settings FROM notification_receivers',
  );
  const ids = rows.flatMap((r) =>
    Object.values(r.settings)
      .filter((v) => typeof v === 'object' && v !== null && '$enc' in v)
      .map(keyIdOf),
  );
  assert.ok(ids.length >= 7);
  assert.equal([...new Set(ids)], [deriveKey(KEY_2).id]);
  // The old key can go now.
  await restartWith(ctx, [KEY_2]);
  const shown = ReceiverSchema.parse(
    (await ok(ctx.api.call('GET', '/notifications/receivers/r-webhook'))).receiver,
  );
  assert.equal(shown.unreadableSecrets, []);
  assert.is((await testButton(ctx, 'r-webhook')).outcome, 'sent');
  assert.is((await testButton(ctx, 'r-email')).outcome, 'sent');
  assert.equal(ctx.mail.logins.at(-1), { username: 'mailer', password: SECRETS.smtpPassword });
});

test('a removed key: the server starts, the API says which secrets are unreadable, sending fails clearly', async (ctx) => {
  await restartWith(ctx, ['a key that sealed nothing here']);
  const listed = await ok(ctx.api.call('GET', '/notifications/receivers'));
  const webhook = ReceiverSchema.parse(
    (listed.receivers as { name: string }[]).find((r) => r.name === 'r-webhook'),
  );
  assert.equal(webhook.unreadableSecrets, ['url', 'secret']);
  assert.equal(webhook.settings, { url: '********', secret: '********' });
  const result = await testButton(ctx, 'r-webhook');
  assert.is(result.outcome, 'failed');
  assert.match(result.detail ?? '', /\(url, secret\) cannot be decrypted with the configured SECRETS_KEYS/);

  // Through a rule: a retried failure with the same message in the alert's history, not a crash.
  const id = await raise(ctx, 'db02', 'Unreadable');
  const entry = await until(
    async () => {
      const body = (await ctx.api.call('GET', `/alert/${id}/notifications`)).body;
      return (body.delivered as { text: string }[]).find((h) => h.text.includes('cannot be decrypted'));
    },
    10_000,
    'a failed delivery in the history',
  );
  assert.match(entry.text, /^r-webhook \(webhook\): trigger failed \(the stored secret settings/);

  // Other changes still save; entering the secrets again makes it work.
  await ok(ctx.api.call('PUT', '/notifications/receivers/r-webhook', { rateLimit: 100 }));
  const fixed = await ok(
    ctx.api.call('PUT', '/notifications/receivers/r-webhook', {
      settings: { url: ctx.stub.url('/hooks/re-entered-token'), secret: 're-entered-hmac' },
    }),
  );
  assert.equal(ReceiverSchema.parse(fixed.receiver).unreadableSecrets, []);
  assert.is((await testButton(ctx, 'r-webhook')).outcome, 'sent');
  // The queued message goes out on its retry, to the new URL.
  await ctx.stub.waitFor(1, (r) => r.path === '/hooks/re-entered-token' && r.body.includes(id));
});

test('without SECRETS_KEYS the key comes from SECRET_KEY; setting SECRETS_KEYS later re-seals under it', async (ctx) => {
  await restartWith(ctx, null);
  await addWebhook(ctx, 'from-secret-key', '/sk/token-5k5k');
  assert.is(keyIdOf((await storedSettings(ctx, 'from-secret-key')).url), deriveKey(SECRET_KEY).id);
  await restartWith(ctx, [KEY_2]);
  assert.is(keyIdOf((await storedSettings(ctx, 'from-secret-key')).url), deriveKey(KEY_2).id);
  assert.is((await testButton(ctx, 'from-secret-key')).outcome, 'sent');
});

test('start-up logs what it sealed, each secret it cannot decrypt, and a default key; never a secret', async (ctx) => {
  await restartWith(ctx, [KEY_2]);
  await addWebhook(ctx, 'logged', '/logged/token-1o9d');
  await queryDb(
    ctx.db.url,
    `UPDATE notification_receivers SET settings = '{"url": "http://127.0.0.1:1/plain/token-p1a1n"}' WHERE name = 'logged'`,
  );
  const sealed = await restartLogged(ctx, { SECRETS_KEYS: JSON.stringify([KEY_2]), SECRET_KEY });
  const info = sealed.find((l) => l.msg === 'notifications.secrets_sealed');
  assert.equal([info?.sealed, info?.resealed, info?.sealedUnder], [1, 0, deriveKey(KEY_2).id]);
  assert.not.ok(sealed.some((l) => String(l.msg).includes('published default')));
  // SECRET_KEY left at the default and no SECRETS_KEYS: everything sealed under KEY_2 is unreadable.
  const lines = await restartLogged(ctx, {});
  const unreadable = lines.filter((l) => String(l.msg).startsWith('notifications.secret_unreadable'));
  assert.ok(unreadable.length >= 8, String(unreadable.length));
  assert.match(String(unreadable[0]!.reason), /not among the configured keys/);
  assert.ok(lines.some((l) => l.setting === 'SECRETS_KEYS' && String(l.msg).includes("'changeme'")));
  const text = JSON.stringify(lines);
  for (const secret of [...Object.values(SECRETS), 'token-p1a1n', 'token-1o9d', KEY_2])
    assert.not.ok(text.includes(secret), secret);
});

test.run();
