/**
 * The notifications admin page: create a receiver with its type's form, press Test and see the
 * service's answer, add a routing rule for it; the alert page shows where notifications stand.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { StubService } from '../helpers/receivers.ts';
import { launchBrowser } from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
  page: Page;
  stub: StubService;
}

const test = suite<Ctx>('web UI: notifications page', {} as Ctx);
test.before(async (ctx) => {
  ctx.stub = await StubService.start();
  await startApp(ctx, { TEST_LABEL: 'browser_notify', PLUGINS: 'remote_ip' });
  ctx.browser = await launchBrowser();
  ctx.page = await ctx.browser.newPage();
});
test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.stub?.close();
  await stopApp(ctx);
});

test('create a receiver, press Test, see what the service said; a failing one says why', async ({
  page,
  origin,
  stub,
}) => {
  await page.goto(`${origin}/notifications`);
  await page.getByRole('link', { name: 'Notifications' }).waitFor();
  const receivers = page.locator('section').filter({ hasText: 'Notification receivers' }).first();
  const form = receivers.getByRole('form', { name: 'New' });
  await form.getByLabel('Name', { exact: true }).fill('ops-chat');
  await form.locator('select[name=type]').selectOption('slack');
  await form.getByLabel('Webhook URL', { exact: true }).fill(stub.url('/slack/T/B/ui-secret'));
  await form.getByLabel('Channel', { exact: true }).fill('#ops');
  await form.getByRole('button', { name: 'Create' }).click();
  const row = receivers.getByTestId('admin-row').filter({ hasText: 'ops-chat' });
  await row.waitFor();
  assert.not.match(await row.innerText(), /ui-secret/);
  assert.match(await row.innerText(), /\*{8}/);

  await row.getByRole('button', { name: 'Test ops-chat' }).click();
  const result = page.getByTestId('test-result');
  await result.filter({ hasText: 'ops-chat: test message sent' }).waitFor();
  const [sent] = await stub.waitFor(1, (r) => r.path === '/slack/T/B/ui-secret');
  assert.is(sent!.json.channel, '#ops');

  stub.status = 500;
  try {
    await row.getByRole('button', { name: 'Test ops-chat' }).click();
    await result.filter({ hasText: 'ops-chat: failed (HTTP 500)' }).waitFor();
  } finally {
    stub.status = 200;
  }
});

test('add a rule for the receiver; an alert it routes shows its notification on the alert page', async ({
  page,
  origin,
  api,
  stub,
}) => {
  await page.goto(`${origin}/notifications`);
  const rules = page.locator('section').filter({ hasText: 'Routing rules' }).first();
  const form = rules.getByRole('form', { name: 'New' });
  await form.getByLabel('Name', { exact: true }).fill('ui-rule');
  await form.getByLabel('Event', { exact: true }).fill('UiEvent');
  await form.getByLabel('Group wait (s)', { exact: true }).fill('0');
  await form.getByRole('checkbox', { name: 'ops-chat', exact: true }).check();
  await form.getByRole('button', { name: 'Create' }).click();
  await rules.getByTestId('admin-row').filter({ hasText: 'ui-rule' }).waitFor();

  const res = await api.post('/alert', {
    environment: 'Production',
    service: ['web'],
    resource: 'ui01',
    event: 'UiEvent',
    severity: 'major',
  });
  const { id } = (await res.json()) as { id: string };
  await stub.waitFor(
    1,
    (r) => (r.json.attachments as { callback_id?: string }[] | undefined)?.[0]?.callback_id === id,
  );
  await page.goto(`${origin}/alert/${id}`);
  await page
    .getByTestId('notification-status')
    .filter({ hasText: 'ops-chat (slack): trigger sent' })
    .waitFor();
});

test.run();
