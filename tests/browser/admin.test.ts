import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Ctx extends AppContext {
  browser: Browser;
  page: Page;
}

const admin = suite<Ctx>('web UI with authentication: login, admin pages, alert page', {} as Ctx);
admin.before(async (ctx) => {
  await startApp(ctx, {
    TEST_LABEL: 'browser_admin',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'browser-secret',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_PASSWORD: 'admin-pass',
    PLUGINS: 'remote_ip',
  });
  ctx.browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  ctx.page = await ctx.browser.newPage();
});
admin.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

admin(
  'without a login the console sends you to log in; logging in brings you back',
  async ({ page, origin }) => {
    await page.goto(`${origin}/alerts`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Username or email').fill('admin@example.com');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid username or password' }).waitFor();
    await page.getByLabel('Password').fill('admin-pass');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/alerts$/);
    await page.getByTestId('total').waitFor();
    // The socket connects with the new token: no banner once it is up.
    await page.waitForFunction(() => !document.querySelector('[data-testid=connection-banner]'), null, {
      timeout: 10_000,
    });
  },
);

const PAGES: [string, Record<string, string>, string][] = [
  ['/blackouts', { Environment: 'Production', Resource: 'bo-host' }, 'Production'],
  ['/keys', { Text: 'ui-made key', Scopes: 'read' }, 'ui-made key'],
  ['/users', { Name: 'Ui User', Email: 'ui.user@example.com', Password: 'pw-123456' }, 'Ui User'],
  ['/groups', { Name: 'ui-group' }, 'ui-group'],
  ['/perms', { 'Role or group': 'ui-role', Scopes: 'read:alerts' }, 'ui-role'],
  ['/customers', { 'Login, group or domain': 'ui.example.com', Customer: 'UiCo' }, 'ui.example.com'],
  ['/heartbeats', { Origin: 'ui/probe' }, 'ui/probe'],
];

for (const [path, values, first] of PAGES) {
  admin(`${path}: create an object, see it listed, delete it`, async ({ page, origin }) => {
    await page.goto(`${origin}${path}`);
    const form = page.getByRole('form', { name: 'New' });
    for (const [label, value] of Object.entries(values)) await form.getByLabel(label).fill(value);
    await form.getByRole('button', { name: 'Create' }).click();
    const row = page.getByTestId('admin-row').filter({ hasText: first });
    await row.first().waitFor({ timeout: 5000 });
    assert.is(await page.getByRole('alert').count(), 0);
    await page
      .getByRole('button', { name: `Delete ${first}` })
      .first()
      .click();
    await row.first().waitFor({ state: 'detached', timeout: 5000 });
  });
}

admin(
  'the alert page shows every field and history, takes actions and notes',
  async ({ page, origin, api }) => {
    const { token } = (await (
      await api.post('/auth/login', { username: 'admin@example.com', password: 'admin-pass' })
    ).json()) as { token: string };
    const res = await api.post(
      '/alert',
      {
        resource: 'detail-host',
        event: 'DiskFull',
        environment: 'Production',
        severity: 'major',
        rawData: 'raw!',
      },
      { headers: { Authorization: `Bearer ${token}` } },
    );
    const { id } = (await res.json()) as { id: string };
    await page.goto(`${origin}/alerts`);
    await page.getByRole('link', { name: 'detail-host' }).click();
    await page.waitForURL(new RegExp(`/alert/${id}$`));
    await page.getByRole('heading', { name: 'detail-host · DiskFull' }).waitFor();
    assert.is(await page.getByTestId('field-severity').textContent(), 'major');
    await page.getByText('raw!').waitFor();
    await page.getByRole('button', { name: 'ack', exact: true }).click();
    await page.getByTestId('field-status').filter({ hasText: 'ack' }).waitFor();
    await page.getByLabel('New note').fill('looking into it');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByText('looking into it').first().waitFor();
    await page.getByRole('button', { name: 'Delete note looking into it' }).click();
    await page.getByRole('button', { name: 'Delete note looking into it' }).waitFor({ state: 'detached' });
  },
);

admin.run();
