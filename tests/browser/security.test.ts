import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { launchBrowser } from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  tokens: { admin: string; reader: string };
  /** Console messages about the Content-Security-Policy, from every page. */
  cspConsole: string[];
}

const sec = suite<Ctx>('web UI: settings warnings, API keys shown once, Content-Security-Policy', {} as Ctx);
sec.before(async (ctx) => {
  // SECRET_KEY left at the established default 'changeme': the server starts and warns.
  await startApp(ctx, {
    TEST_LABEL: 'browser_security',
    AUTH_REQUIRED: 'True',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_PASSWORD: 'admin-pass',
    PLUGINS: 'remote_ip',
  });
  const login = async (username: string, password: string) => {
    const res = await ctx.api.post('/auth/login', { username, password });
    return ((await res.json()) as { token: string }).token;
  };
  await ctx.api.post('/auth/signup', {
    name: 'Reader',
    email: 'reader@example.com',
    password: 'reader-pass-1',
  });
  ctx.tokens = {
    admin: await login('admin@example.com', 'admin-pass'),
    reader: await login('reader@example.com', 'reader-pass-1'),
  };
  ctx.browser = await launchBrowser();
  ctx.context = await ctx.browser.newContext({ viewport: { width: 1366, height: 768 } });
  await ctx.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.origin });
  // Every violation the browser reports, collected before any page script runs.
  await ctx.context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  ctx.cspConsole = [];
  ctx.page = await ctx.context.newPage();
  ctx.page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) ctx.cspConsole.push(m.text());
  });
});
sec.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

/** Uses `token` for the next pages, as logging in would. */
async function signIn(page: Page, origin: string, token: string) {
  await page.goto(`${origin}/login`);
  await page.evaluate((t) => localStorage.setItem('alertwall.token', t), token);
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

sec('an admin sees the settings warnings under the navigation; a user does not', async (ctx) => {
  const { page, origin } = ctx;
  await signIn(page, origin, ctx.tokens.admin);
  await page.goto(`${origin}/alerts`);
  const banner = page.getByTestId('settings-warnings');
  await banner.waitFor({ timeout: 5000 });
  assert.match(await banner.innerText(), /SECRET_KEY: is the published default 'changeme'/);
  assert.is(await page.getByRole('complementary', { name: 'Settings warnings' }).count(), 1);

  await signIn(page, origin, ctx.tokens.reader);
  await page.goto(`${origin}/alerts`);
  await nav(page).getByRole('link', { name: 'Alerts' }).waitFor();
  await page.getByTestId('total').waitFor();
  // The banner is not even asked for: the reader's scopes do not include admin:management.
  await page.waitForTimeout(500);
  assert.is(await page.getByTestId('settings-warnings').count(), 0);
});

sec(
  'API keys: the whole key once, right after it is made, with Copy; afterwards a prefix only',
  async (ctx) => {
    const { page, origin } = ctx;
    await signIn(page, origin, ctx.tokens.admin);
    await page.goto(`${origin}/keys`);
    const form = page.getByRole('form', { name: 'New' });
    await form.getByLabel('Text', { exact: true }).fill('wall screen key');
    await form.getByRole('checkbox', { name: 'read', exact: true }).check();
    await form.getByRole('button', { name: 'Create' }).click();

    const shown = page.getByTestId('new-key');
    await shown.waitFor({ timeout: 5000 });
    const key = (await shown.innerText()).trim();
    assert.match(key, /^[A-Za-z0-9_-]{40}$/);
    await page.getByRole('region', { name: 'New API key' }).getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
    assert.is(await page.evaluate(() => navigator.clipboard.readText()), key);

    // The list shows the first characters of every key, the admin's own start-up key too.
    const row = page.getByTestId('admin-row').filter({ hasText: 'wall screen key' });
    assert.is(await row.getByTestId('key-prefix').innerText(), `${key.slice(0, 6)}…`);
    const prefixes = await page.getByTestId('key-prefix').allInnerTexts();
    assert.is(prefixes.length, 2);
    for (const p of prefixes) assert.match(p, /^[A-Za-z0-9_-]{6}…$/);
    assert.is((await page.locator('main, section').first().innerText()).split(key).length, 2, 'shown once');

    await page.getByRole('button', { name: 'Done' }).click();
    assert.is(await shown.count(), 0);
    assert.not.ok((await page.content()).includes(key), 'gone once dismissed');
    await page.reload();
    await row.waitFor();
    assert.is(await page.getByTestId('new-key').count(), 0);
    assert.not.ok((await page.locator('body').innerText()).includes(key), 'not shown after a reload');
  },
);

sec('pages load under the Content-Security-Policy without a single violation', async (ctx) => {
  const { page, origin } = ctx;
  await signIn(page, origin, ctx.tokens.admin);
  const { id } = (await (
    await ctx.api.post(
      '/alert',
      { resource: 'csp-host', event: 'CspCheck', environment: 'Production', severity: 'major' },
      { headers: { Authorization: `Bearer ${ctx.tokens.admin}` } },
    )
  ).json()) as { id: string };
  const paths = ['/alerts', `/alert/${id}`, '/wall', '/heartbeats', '/blackouts', '/reports', '/keys'];
  for (const path of [...paths, '/users', '/groups', '/perms', '/profile', '/about', '/login', '/signup']) {
    const res = await page.goto(`${origin}${path}`);
    const policy = res?.headers()['content-security-policy'] ?? '';
    assert.match(policy, /script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/, path);
    assert.not.match(policy, /script-src[^;]*unsafe/, path);
    assert.is(res?.headers()['x-content-type-options'], 'nosniff', path);
    await page.waitForLoadState('load');
    await page.waitForTimeout(700);
    if (path === '/alerts') {
      // The app started (its inline start-up script ran) and the live socket connected.
      await page.getByTestId('total').waitFor();
      await page.waitForFunction(() => !document.querySelector('[data-testid=connection-banner]'), null, {
        timeout: 10_000,
      });
    }
    const violations = await page.evaluate(
      () => (window as unknown as { cspViolations: string[] }).cspViolations,
    );
    assert.equal(violations, [], `${path}: ${violations.join(', ')}`);
  }
  assert.equal(ctx.cspConsole, []);
});

sec.run();
