import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { launchBrowser } from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
  page: Page;
  /** An admin's Bearer header, for setting up and checking through the API. */
  auth: { headers: Record<string, string> };
}

async function boot(ctx: Ctx, settings: Record<string, string>): Promise<void> {
  await startApp(ctx, {
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'pages-secret',
    PLUGINS: 'remote_ip',
    ...settings,
  });
  if (settings.ADMIN_USERS) {
    const res = await ctx.api.post('/auth/login', { username: settings.ADMIN_USERS, password: 'admin-pass' });
    const { token } = (await res.json()) as { token: string };
    ctx.auth = { headers: { Authorization: `Bearer ${token}` } };
  }
  ctx.browser = await launchBrowser();
  ctx.page = await ctx.browser.newPage({ viewport: { width: 1366, height: 768 } });
}
async function shutDown(ctx: Ctx): Promise<void> {
  await ctx.browser?.close();
  await stopApp(ctx);
}

async function logIn(page: Page, origin: string, username: string, password: string): Promise<void> {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Username or email').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/\/alerts/);
}

/** Fills the sign-up form (the page is open) and sends it. */
async function signUp(page: Page, name: string, email: string, password: string, repeat = password) {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Repeat password').fill(repeat);
  await page.getByRole('button', { name: 'Sign up' }).click();
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

// ---- signing up, the navigation, profile and preferences -------------------------------------

const user = suite<Ctx>('web UI: sign-up, navigation by scope, profile and preferences', {} as Ctx);
user.before((ctx) =>
  boot(ctx, {
    TEST_LABEL: 'browser_pages_user',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_PASSWORD: 'admin-pass',
  }),
);
user.after(shutDown);

user(
  'signing up from the login page logs the new user in; the nav shows only what their scopes allow',
  async ({ page, origin }) => {
    await page.goto(`${origin}/login`);
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL(/\/signup$/);
    await signUp(page, 'Sam Signup', 'sam@example.com', 'sam-pass', 'other');
    await page.getByRole('alert').filter({ hasText: 'The passwords differ' }).waitFor();
    await page.getByLabel('Repeat password').fill('sam-pass');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(/\/alerts$/);
    await nav(page).getByRole('link', { name: 'Reports' }).waitFor();
    assert.is(await nav(page).getByTestId('login').textContent(), 'sam@example.com');
    for (const shown of ['Alerts', 'Reports', 'Heartbeats', 'Blackouts', 'API keys', 'Profile'])
      assert.is(await nav(page).getByRole('link', { name: shown, exact: true }).count(), 1, shown);
    // A user's scopes (read, write) do not reach the admin:* pages.
    for (const hidden of ['Users', 'Groups', 'Permissions', 'Customers'])
      assert.is(await nav(page).getByRole('link', { name: hidden, exact: true }).count(), 0, hidden);
  },
);

user('signing up with a used email shows the server message', async ({ page, origin }) => {
  await page.goto(`${origin}/signup`);
  await signUp(page, 'Sam Again', 'sam@example.com', 'x');
  await page.getByRole('alert').filter({ hasText: 'user with that email already exists' }).waitFor();
});

user('profile: change name and password', async ({ page, origin, api }) => {
  await logIn(page, origin, 'sam@example.com', 'sam-pass');
  await nav(page).getByRole('link', { name: 'Profile' }).click();
  await page.waitForURL(/\/profile$/);
  assert.is(await page.getByTestId('me-name').textContent(), 'Sam Signup');
  const name = page.getByRole('form', { name: 'Change name' });
  await name.getByLabel('Name').fill('Samantha');
  await name.getByRole('button', { name: 'Save name' }).click();
  await page.getByTestId('me-name').filter({ hasText: 'Samantha' }).waitFor();
  const pw = page.getByRole('form', { name: 'Change password' });
  await pw.getByLabel('New password', { exact: true }).fill('new-pass');
  await pw.getByLabel('Repeat new password').fill('new-pass');
  await pw.getByRole('button', { name: 'Change password' }).click();
  await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
  const res = await api.post('/auth/login', { username: 'sam@example.com', password: 'new-pass' });
  assert.is(res.status, 200);
});

user(
  'profile: preferences go to the user attributes; the theme applies to every page',
  async ({ page, origin, api }) => {
    await page.goto(`${origin}/profile`);
    const prefs = page.getByRole('form', { name: 'Preferences' });
    await page.locator('form[aria-busy=false]').waitFor();
    await prefs.getByLabel('Theme').selectOption('dark');
    await prefs.getByLabel('Time zone').selectOption('utc');
    await prefs.getByLabel('Row density').selectOption('compact');
    await prefs.getByLabel('Ack timeout (s)').fill('300');
    await prefs.getByLabel('Mute sound').check();
    await prefs.getByRole('checkbox', { name: 'critical', exact: true }).check();
    await prefs.getByRole('button', { name: 'Save preferences' }).click();
    await page.getByRole('status').filter({ hasText: 'Preferences saved' }).waitFor();
    const login = await api.post('/auth/login', { username: 'sam@example.com', password: 'new-pass' });
    const { token } = (await login.json()) as { token: string };
    const headers = { headers: { Authorization: `Bearer ${token}` } };
    const { attributes } = (await (await api.get('/user/me/attributes', headers)).json()) as {
      attributes: { prefs: Record<string, unknown> };
    };
    assert.equal(
      [
        attributes.prefs.isDark,
        attributes.prefs.timezone,
        attributes.prefs.displayDensity,
        attributes.prefs.ackTimeout,
        attributes.prefs.isMute,
        attributes.prefs.soundSeverities,
      ],
      [true, 'utc', 'compact', 300, true, ['critical']],
    );
    await page.goto(`${origin}/about`);
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    // A theme in the URL wins over the preference.
    await page.goto(`${origin}/about?theme=light`);
    await page.getByRole('heading', { name: 'About' }).waitFor();
    await page.waitForTimeout(300);
    assert.is(await page.evaluate(() => document.documentElement.dataset.theme ?? null), 'light');
    // Back in the form, the saved values are shown.
    await page.goto(`${origin}/profile`);
    await page.locator('form[aria-busy=false]').waitFor();
    assert.is(await prefs.getByLabel('Time zone').inputValue(), 'utc');
    assert.is(await prefs.getByLabel('Ack timeout (s)').inputValue(), '300');
  },
);

user(
  'profile: saved searches are listed, open the console and can be deleted',
  async ({ page, origin, api }) => {
    const login = await api.post('/auth/login', { username: 'sam@example.com', password: 'new-pass' });
    const { token } = (await login.json()) as { token: string };
    const headers = { headers: { Authorization: `Bearer ${token}` } };
    await api.put(
      '/user/me/attributes',
      { attributes: { queries: [{ text: 'Critical', q: 'severity:critical' }] } },
      headers,
    );
    await page.goto(`${origin}/profile`);
    const search = page.getByTestId('saved-search').filter({ hasText: 'Critical' });
    await search.waitFor();
    assert.is(
      await search.getByRole('link', { name: 'Critical' }).getAttribute('href'),
      '/alerts?q=severity%3Acritical',
    );
    const add = page.getByRole('form', { name: 'Save a search' });
    await add.getByLabel('Name').fill('Web');
    await add.getByLabel('Query (q)').fill('resource:web*');
    await add.getByRole('button', { name: 'Save search' }).click();
    await page.getByTestId('saved-search').filter({ hasText: 'Web' }).waitFor();
    await page.getByRole('button', { name: 'Delete saved search Critical' }).click();
    await search.waitFor({ state: 'detached' });
    const { attributes } = (await (await api.get('/user/me/attributes', headers)).json()) as {
      attributes: { queries: unknown };
    };
    assert.equal(attributes.queries, [{ text: 'Web', q: 'resource:web*' }]);
  },
);

user(
  'logging out forgets the token; anonymous preferences stay in this browser',
  async ({ page, origin }) => {
    await page.goto(`${origin}/profile`);
    await nav(page).getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/login$/);
    assert.is(
      await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('token')).length),
      0,
    );
    await page.goto(`${origin}/profile`);
    await page.getByTestId('anonymous-note').waitFor();
    await nav(page).getByRole('link', { name: 'Log in' }).waitFor();
    await nav(page).getByRole('link', { name: 'Sign up' }).waitFor();
    // Login is required and read-only browsing is off: nothing else to offer.
    assert.is(await nav(page).getByRole('link', { name: 'Alerts' }).count(), 0);
    const prefs = page.getByRole('form', { name: 'Preferences' });
    await page.locator('form[aria-busy=false]').waitFor();
    await prefs.getByLabel('Time zone').selectOption('utc');
    await prefs.getByRole('button', { name: 'Save preferences' }).click();
    await page.getByRole('status').filter({ hasText: 'Preferences saved' }).waitFor();
    await page.reload();
    await page.locator('form[aria-busy=false]').waitFor();
    assert.is(await prefs.getByLabel('Time zone').inputValue(), 'utc');
  },
);

user.run();

// ---- sign-up with email verification ---------------------------------------------------------

const verify = suite<Ctx>('web UI: sign-up with email verification', {} as Ctx);
verify.before((ctx) => boot(ctx, { TEST_LABEL: 'browser_pages_verify', EMAIL_VERIFICATION: 'True' }));
verify.after(shutDown);

verify('the new user is asked to check their email', async ({ page, origin }) => {
  await page.goto(`${origin}/signup`);
  await signUp(page, 'Vera', 'vera@example.com', 'vera-pass');
  await page.getByTestId('check-email').filter({ hasText: 'vera@example.com' }).waitFor();
  assert.is(
    await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('token')).length),
    0,
  );
});

verify.run();

// ---- the admin's pages: heartbeats live, reports, about, layout and names --------------------

const adminPages = suite<Ctx>('web UI: live heartbeats, reports, about; every page at 1366×768', {} as Ctx);
adminPages.before(async (ctx) => {
  await boot(ctx, {
    TEST_LABEL: 'browser_pages_admin',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_PASSWORD: 'admin-pass',
  });
  await logIn(ctx.page, ctx.origin, 'admin@example.com', 'admin-pass');
});
adminPages.after(shutDown);

adminPages(
  'heartbeats appear, turn slow and expire on screen without a reload',
  async ({ page, origin, api, auth }) => {
    await page.goto(`${origin}/heartbeats`);
    await page.getByTestId('heartbeat-counts').waitFor();
    // The page is live once its first snapshot is in; nothing is listed yet.
    await page.waitForFunction(() => !document.querySelector('[data-testid=connection-banner]'));
    assert.is(await page.getByTestId('admin-row').count(), 0);

    await api.post('/heartbeat', { origin: 'live/steady', timeout: 600 }, auth);
    await api.post('/heartbeat', { origin: 'live/short', timeout: 2 }, auth);
    const late = new Date(Date.now() - 5000).toISOString();
    await api.post('/heartbeat', { origin: 'live/slow', timeout: 600, createTime: late }, auth);
    const status = (origin_: string) =>
      page.getByTestId('admin-row').filter({ hasText: origin_ }).getByTestId('heartbeat-status');
    await status('live/steady').filter({ hasText: 'ok' }).waitFor({ timeout: 5000 });
    await status('live/slow').filter({ hasText: 'slow' }).waitFor({ timeout: 5000 });
    await status('live/short').filter({ hasText: 'ok' }).waitFor({ timeout: 5000 });
    // Two seconds later it has expired, on the page's own clock.
    await status('live/short').filter({ hasText: 'expired' }).waitFor({ timeout: 6000 });
    assert.is(await status('live/steady').textContent(), 'ok');

    // A new beat brings it back; a deleted heartbeat goes away.
    await api.post('/heartbeat', { origin: 'live/short', timeout: 600 }, auth);
    await status('live/short').filter({ hasText: 'ok' }).waitFor({ timeout: 5000 });
    const { heartbeats } = (await (await api.get('/heartbeats', auth)).json()) as {
      heartbeats: { id: string; origin: string }[];
    };
    const slow = heartbeats.find((h) => h.origin === 'live/slow')!;
    await api.delete(`/heartbeat/${slow.id}`, auth);
    await page
      .getByTestId('admin-row')
      .filter({ hasText: 'live/slow' })
      .waitFor({ state: 'detached', timeout: 5000 });
    assert.is(
      await page
        .getByTestId('heartbeat-counts')
        .textContent()
        .then((t) => t?.replace(/\s+/g, ' ').trim()),
      '2 ok · 0 slow · 0 expired',
    );
  },
);

adminPages(
  'reports: top 10 by count, flapping and standing, by environment and search',
  async ({ page, origin, api, auth }) => {
    const send = (resource: string, event: string, environment: string, severity: string) =>
      api.post('/alert', { resource, event, environment, severity, service: ['Web'] }, auth);
    for (const severity of ['major', 'minor', 'critical', 'major'])
      await send('web01', 'HighCPU', 'Production', severity);
    await send('web02', 'HighCPU', 'Production', 'major');
    await send('db01', 'DiskFull', 'Production', 'minor');
    await send('dev01', 'Crash', 'Development', 'critical');

    await page.goto(`${origin}/reports`);
    const count = page.getByTestId('report-count').getByTestId('top-row');
    await count.first().waitFor();
    // HighCPU counts twice (two alerts); the others once each, in no set order.
    const events = await count.locator('td:first-child').allTextContents();
    assert.is(events[0], 'HighCPU');
    assert.equal(events.slice(1).sort(), ['Crash', 'DiskFull']);
    const flapping = page.getByTestId('report-flapping').getByTestId('top-row');
    assert.is(await flapping.first().locator('td').first().textContent(), 'HighCPU');
    await page.getByTestId('report-standing').getByTestId('top-row').first().waitFor();
    // Links open the console filtered by that event or resource.
    assert.is(
      await count.first().getByRole('link', { name: 'HighCPU' }).getAttribute('href'),
      '/alerts?event=HighCPU',
    );
    assert.is(
      await count.first().getByRole('link', { name: 'web01' }).getAttribute('href'),
      '/alerts?resource=web01',
    );

    await page
      .getByRole('navigation', { name: 'Environments' })
      .getByRole('link', { name: /^Development/ })
      .click();
    await page.waitForURL(/environment=Development/);
    await count.first().waitFor();
    assert.equal(await count.locator('td:first-child').allTextContents(), ['Crash']);
    assert.is(
      await count.first().getByRole('link', { name: 'dev01' }).getAttribute('href'),
      '/alerts?environment=Development&resource=dev01',
    );

    await page.getByRole('navigation', { name: 'Environments' }).getByRole('link', { name: /^All/ }).click();
    await page.waitForURL(/\/reports$/);
    const filters = page.getByRole('form', { name: 'Report filters' });
    await filters.getByLabel('Search (q)').fill('resource:db01');
    await filters.getByLabel('Group by').selectOption('resource');
    await filters.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/group-by=resource/);
    await count.first().waitFor();
    assert.equal(await count.locator('td:first-child').allTextContents(), ['db01']);
  },
);

adminPages(
  'reports: flapping counts real flaps only; headings and names wrap between words at 1366×768',
  async ({ page, origin, api, auth }) => {
    const send = (resource: string, event: string, severity: string) =>
      api.post('/alert', { resource, event, environment: 'Production', severity, service: ['Web'] }, auth);
    const event = 'Certificate Expiry Warning On The Public Load Balancer';
    for (const severity of ['minor', 'major', 'minor']) await send('loadbalancerfrontend01', event, severity);
    for (let i = 0; i < 6; i++) await send(`quiet-${i}`, 'Received Once And Never Changed', 'warning');
    await page.goto(`${origin}/reports?q=${encodeURIComponent('service:Web')}`);
    const flapping = page.getByTestId('report-flapping').getByTestId('top-row');
    await flapping.first().waitFor();
    // Alerts received once are not flapping: their first entry is no change.
    const flappers = await flapping.locator('td:first-child').allTextContents();
    assert.ok(flappers.includes(event), flappers.join());
    assert.not.ok(flappers.includes('Received Once And Never Changed'), flappers.join());
    const row = flapping.filter({ hasText: event });
    assert.is(await row.locator('td').nth(1).textContent(), '2');

    // Every word of every heading and name sits on one line.
    const broken = await page.evaluate(() => {
      const out: string[] = [];
      for (const el of document.querySelectorAll('[data-testid^=report-] th, [data-testid=top-row] a')) {
        const node = [...el.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim());
        if (!node) continue;
        const text = node.textContent!;
        for (const m of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (lines.size > 1) out.push(m[0]);
        }
      }
      return out;
    });
    assert.equal(broken, []);
    const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    assert.ok(widths[0]! <= widths[1]!, `the page is ${widths[0]} px wide`);
  },
);

adminPages('about: release, status and configuration with authentication on', async ({ page, origin }) => {
  await page.goto(`${origin}/about`);
  await page.getByTestId('release').waitFor();
  await page.getByTestId('uptime').waitFor();
  const summary = (await page.getByTestId('config-summary').textContent()) ?? '';
  assert.match(summary, /basic, required/);
  assert.match(summary, /Production, Development/);
  assert.is(await page.getByRole('alert').count(), 0);
});

/**
 * Every page owned here, in a state with its forms and rows showing: at 1366×768 the page itself
 * never scrolls sideways, and every control has an accessible name (from the accessibility tree).
 */
adminPages(
  'every page fits 1366×768 and every control has an accessible name',
  async ({ page, origin, api, auth }) => {
    await api.post(
      '/blackout',
      { environment: 'Production', resource: 'a-rather-long-resource-name-for-width' },
      auth,
    );
    await api.post('/key', { text: 'a key for the layout check', scopes: ['read'] }, auth);
    await api.post('/group', { name: 'layout-group', text: 'a group' }, auth);
    await api.post('/perm', { match: 'layout-role', scopes: ['read:alerts', 'write:alerts'] }, auth);
    await api.post('/customer', { match: 'layout.example.com', customer: 'Layout Co' }, auth);
    const res = await api.post(
      '/alert',
      {
        resource: 'layout-host',
        event: 'Layout',
        environment: 'Production',
        severity: 'major',
        service: ['Web'],
        text: 'x'.repeat(400),
        attributes: { long: 'y'.repeat(300) },
        rawData: 'z'.repeat(2000),
      },
      auth,
    );
    const { id } = (await res.json()) as { id: string };
    await api.put(`/alert/${id}/note`, { text: 'a note' }, auth);

    const visits: [string, string, ((p: Page) => Promise<void>)?][] = [
      ['/heartbeats', 'admin-row'],
      ['/blackouts', 'admin-row', (p) => p.getByRole('button', { name: /^Edit/ }).first().click()],
      ['/keys', 'admin-row', (p) => p.getByRole('button', { name: /^Edit/ }).first().click()],
      ['/users', 'admin-row', (p) => p.getByRole('button', { name: /^Edit/ }).first().click()],
      ['/groups', 'admin-row', (p) => p.getByRole('button', { name: 'Members of layout-group' }).click()],
      ['/perms', 'admin-row', (p) => p.getByRole('button', { name: 'Edit layout-role' }).click()],
      ['/customers', 'admin-row'],
      [`/alert/${id}`, 'field-status', (p) => p.getByRole('button', { name: 'Edit note a note' }).click()],
      ['/reports', 'top-row'],
      ['/profile', 'me-name'],
      ['/about', 'release'],
      ['/signup', ''],
      ['/login', ''],
    ];
    await api.post('/heartbeat', { origin: 'layout/probe' }, auth);
    for (const [path, ready, action] of visits) {
      await page.goto(`${origin}${path}`);
      if (ready) await page.getByTestId(ready).first().waitFor();
      else await page.getByRole('button').first().waitFor();
      if (action) await action(page);
      await page.waitForTimeout(100);
      const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      assert.ok(
        widths[0]! <= widths[1]!,
        `${path}: page is ${widths[0]} px wide in a ${widths[1]} px window`,
      );
      const tree = await page.locator('body').ariaSnapshot();
      const controls = tree
        .split('\n')
        .filter((l) =>
          /^\s*- (textbox|combobox|checkbox|button|spinbutton|listbox|searchbox|radio|slider)\b/.test(l),
        );
      assert.ok(controls.length > 0, `${path}: no controls found`);
      const unnamed = controls.filter((l) => !/^\s*- \w+ ["/]/.test(l));
      assert.equal(unnamed, [], `${path}: controls without a name`);
    }
  },
);

adminPages.run();
