/** `alerta receivers`, `alerta rules` and `alerta test-receiver` against a started server. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Receiver, Rule } from '../../shared/notifications.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { StubService } from '../helpers/receivers.ts';
import { keyAuth, securedSettings } from '../helpers/secured.ts';
import { alerta, alertaJson, alertaOk, tempHome, type RunOptions } from './helpers.ts';

interface Ctx extends AppContext {
  stub: StubService;
  as: RunOptions;
  cleanup: () => void;
}

const ADMIN_KEY = 'cli-notify-admin-key-0123456789';
const test = suite<Ctx>('alerta: notification commands', {} as Ctx);

test.before(async (ctx) => {
  ctx.stub = await StubService.start();
  await startApp(ctx, securedSettings('cli_notify', 'cli-notify-secret-key-0123456789', { ADMIN_KEY }));
  const h = tempHome('notify');
  ctx.cleanup = h.cleanup;
  ctx.as = { home: h.home, env: { ALERTA_ENDPOINT: ctx.api.base, ALERTA_API_KEY: ADMIN_KEY } };
  const headers = { headers: keyAuth(ADMIN_KEY) };
  for (const body of [
    {
      name: 'ops-chat',
      type: 'slack',
      settings: { url: ctx.stub.url('/slack/T/B/secret-path'), channel: '#ops' },
    },
    { name: 'broken', type: 'webhook', settings: { url: 'http://127.0.0.1:9/nothing' } },
  ]) {
    const res = await ctx.api.post('/notifications/receivers', body, headers);
    assert.is(res.status, 201);
  }
  const rule = await ctx.api.post(
    '/notifications/rules',
    {
      name: 'prod-major',
      environment: 'Production',
      minSeverity: 'major',
      receivers: ['ops-chat'],
      repeatInterval: 3600,
    },
    headers,
  );
  assert.is(rule.status, 201);
});
test.after(async (ctx) => {
  ctx.cleanup?.();
  await ctx.stub?.close();
  await stopApp(ctx);
});

test('receivers lists them with masked secrets; --output json gives the API objects', async ({ as }) => {
  const text = await alertaOk(['receivers'], as);
  assert.match(text, /ops-chat\s+slack\s+true/i);
  assert.match(text, /url=http:\/\/127\.0\.0\.1:\d+\/\*{8}/);
  assert.not.match(text, /secret-path/);
  const json = await alertaJson<Receiver[]>(['receivers'], as);
  assert.equal(
    json.map((r) => r.name),
    ['broken', 'ops-chat'],
  );
});

test('rules lists them in routing order with their conditions', async ({ as }) => {
  const text = await alertaOk(['rules'], as);
  assert.match(text, /prod-major/);
  assert.match(text, /environment=Production minSeverity=major/);
  assert.match(text, /3600s/);
  const [rule] = await alertaJson<Rule[]>(['rules'], as);
  assert.equal(rule!.receivers, ['ops-chat']);
});

test('test-receiver sends a test message and says so; a failure exits 1 with the reason', async ({
  as,
  stub,
}) => {
  const out = await alertaOk(['test-receiver', 'ops-chat'], as);
  assert.is(out.trim(), 'receiver ops-chat: test message sent');
  const [sent] = await stub.waitFor(1, (r) => r.path === '/slack/T/B/secret-path');
  assert.is(sent!.json.channel, '#ops');
  const failed = await alerta(['test-receiver', 'broken'], as);
  assert.is(failed.code, 1);
  assert.match(failed.stderr, /^ERROR: receiver broken: failed \(ECONNREFUSED\)/);
  const missing = await alerta(['test-receiver', 'nobody'], as);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /not found/);
});

test('--delete removes a rule, then the receiver it used', async ({ as }) => {
  await alertaOk(['rules', '--delete', 'prod-major'], as);
  await alertaOk(['receivers', '--delete', 'ops-chat'], as);
  const left = await alertaJson<Receiver[]>(['receivers'], as);
  assert.equal(
    left.map((r) => r.name),
    ['broken'],
  );
});

test.run();
