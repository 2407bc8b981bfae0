import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { until } from '../helpers/live.ts';
import { securedSettings } from '../helpers/secured.ts';
import { launchBrowser } from './browser.ts';

/** Waits (5 s at most) until `probe` holds. */
const eventually = (probe: () => Promise<boolean>, what: string) =>
  until(async () => ((await probe()) ? true : undefined), 5000, what);

interface Ctx extends AppContext {
  browser: Browser;
  page: Page;
  /** An admin's Bearer header, for setting up and checking through the API. */
  auth: { headers: Record<string, string> };
}

const admin = suite<Ctx>('web UI with authentication: login, admin pages, alert page', {} as Ctx);
admin.before(async (ctx) => {
  await startApp(
    ctx,
    securedSettings('browser_admin', 'browser-secret', {
      ADMIN_PASSWORD: 'admin-pass',
      PLUGINS: 'remote_ip',
      ACTIONS: 'escalate',
    }),
  );
  const res = await ctx.api.post('/auth/login', { username: 'admin@example.com', password: 'admin-pass' });
  const { token } = (await res.json()) as { token: string };
  ctx.auth = { headers: { Authorization: `Bearer ${token}` } };
  ctx.browser = await launchBrowser();
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

// Labels to fill (text), to choose from (select) or to tick (true), and the text of the new row.
const PAGES: [string, Record<string, string | true | { select: string }>, string][] = [
  ['/blackouts', { Environment: { select: 'Production' }, Resource: 'bo-host' }, 'Production'],
  ['/keys', { Text: 'ui-made key', read: true }, 'ui-made key'],
  ['/users', { Name: 'Ui User', Email: 'ui.user@example.com', Password: 'pw-123456' }, 'Ui User'],
  ['/groups', { Name: 'ui-group' }, 'ui-group'],
  ['/perms', { 'Role or group': 'ui-role', 'read:alerts': true }, 'ui-role'],
  ['/customers', { 'Login, group or domain': 'ui.example.com', Customer: 'UiCo' }, 'ui.example.com'],
  ['/heartbeats', { Origin: 'ui/probe' }, 'ui/probe'],
];

for (const [path, values, first] of PAGES) {
  admin(`${path}: create an object, see it listed, delete it`, async ({ page, origin }) => {
    await page.goto(`${origin}${path}`);
    const form = page.getByRole('form', { name: 'New' });
    for (const [label, value] of Object.entries(values)) {
      if (value === true) await form.getByRole('checkbox', { name: label, exact: true }).check();
      else if (typeof value === 'object')
        await form.getByRole('combobox', { name: label, exact: true }).selectOption(value.select);
      else await form.getByLabel(label, { exact: true }).fill(value);
    }
    await form.getByRole('button', { name: 'Create' }).click();
    const row = page.getByTestId('admin-row').filter({ hasText: first });
    await row.first().waitFor({ timeout: 5000 });
    assert.is(await page.getByRole('alert').count(), 0);
    await page
      .getByRole('button', { name: `Delete ${first}` })
      .first()
      .click();
    // Deleting asks once more; Keep leaves the row, the confirmation deletes it.
    await page
      .getByRole('button', { name: `Keep ${first}` })
      .first()
      .click();
    assert.ok(await row.first().isVisible());
    await page
      .getByRole('button', { name: `Delete ${first}` })
      .first()
      .click();
    await page
      .getByRole('button', { name: `Confirm delete ${first}` })
      .first()
      .click();
    await row.first().waitFor({ state: 'detached', timeout: 5000 });
  });
}

admin(
  '/blackouts: the server refuses an end before the start, with its message',
  async ({ page, origin }) => {
    await page.goto(`${origin}/blackouts`);
    const form = page.getByRole('form', { name: 'New' });
    await form.getByLabel('Environment').selectOption('Production');
    await form.getByLabel('Start').fill('2031-01-01T10:00');
    await form.getByLabel('End', { exact: true }).fill('2031-01-01T09:00');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('alert').filter({ hasText: 'endTime must not be before startTime' }).waitFor();
    assert.is(await page.getByTestId('admin-row').count(), 0);
  },
);

admin(
  '/blackouts: a pending blackout, edited (PUT) and copied into an active one; status and time left',
  async ({ page, origin, api, auth }) => {
    await page.goto(`${origin}/blackouts`);
    const form = page.getByRole('form', { name: 'New' });
    // The duration starts at /config blackouts.duration.
    assert.is(await form.getByLabel('Duration (s)').inputValue(), '3600');
    await form.getByLabel('Environment').selectOption('Production');
    await form.getByLabel('Resource').fill('edit-host');
    await form.getByLabel('Services').fill('web, db');
    await form.getByLabel('Start').fill('2031-01-01T10:00');
    await form.getByRole('button', { name: 'Create' }).click();
    const row = page.getByTestId('admin-row').filter({ hasText: 'resource=edit-host' });
    await row.getByTestId('blackout-status').filter({ hasText: 'pending' }).waitFor();

    await row.getByRole('button', { name: /^Edit/ }).click();
    const edit = page.getByRole('form', { name: 'Edit' });
    assert.is(await edit.getByLabel('Services').inputValue(), 'web, db');
    await edit.getByLabel('Resource').fill('edit-host-2');
    await edit.getByRole('button', { name: 'Save' }).click();
    const edited = page.getByTestId('admin-row').filter({ hasText: 'resource=edit-host-2' });
    await edited.waitFor();
    const { blackouts } = (await (await api.get('/blackouts', auth)).json()) as {
      blackouts: { resource: string; startTime: string; service: string[] }[];
    };
    assert.equal(
      blackouts.map((b) => [b.resource, b.service]),
      [['edit-host-2', ['web', 'db']]],
    );
    // Only the resource changed: the start time is as it was.
    assert.is(new Date(blackouts[0]!.startTime).getTime(), new Date(2031, 0, 1, 10, 0).getTime());

    await edited.getByRole('button', { name: /^Copy/ }).click();
    const copy = page.getByRole('form', { name: 'New' });
    assert.is(await copy.getByLabel('Resource').inputValue(), 'edit-host-2');
    assert.is(await copy.getByLabel('Start').inputValue(), '');
    await copy.getByRole('button', { name: 'Create' }).click();
    const active = page
      .getByTestId('admin-row')
      .filter({ hasText: 'resource=edit-host-2' })
      .filter({ has: page.getByTestId('blackout-status').filter({ hasText: 'active' }) });
    await active.waitFor();
    assert.match((await active.textContent()) ?? '', /(59m \d+s|1h 0m) left/);
    assert.is(await page.getByTestId('admin-row').count(), 2);
  },
);

admin('/blackouts: with the UTC preference, form times are UTC whatever the browser zone', async (ctx) => {
  const { api, auth, origin, browser } = ctx;
  const created = await api.post(
    '/blackout',
    {
      environment: 'Development',
      resource: 'utc-host',
      startTime: '2031-06-01T10:00:00.000Z',
      duration: 3600,
    },
    auth,
  );
  assert.is(created.status, 201);
  const { id } = (await created.json()) as { id: string };
  const prefs = (timezone: string | null) =>
    api.request('PUT', '/user/me/attributes', { attributes: { prefs: { timezone } } }, auth);
  assert.is((await prefs('utc')).status, 200);
  // A browser five and a half hours east of UTC: local and UTC inputs differ.
  const context = await browser.newContext({ timezoneId: 'Asia/Kolkata' });
  const token = (auth.headers.Authorization ?? '').replace('Bearer ', '');
  await context.addInitScript((t) => localStorage.setItem('alertwall.token', t), token);
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/blackouts`);
    const row = page.getByTestId('admin-row').filter({ hasText: 'resource=utc-host' });
    await row.getByRole('button', { name: /^Edit/ }).click();
    const edit = page.getByRole('form', { name: 'Edit' });
    await eventually(
      async () => (await edit.getByLabel('Start').inputValue()) === 'Sun 1 Jun 2031 10:00',
      'UTC start',
    );
    await edit.getByLabel('Start').fill('2031-06-01T10:30');
    await edit.getByRole('button', { name: 'Save' }).click();
    await eventually(async () => {
      const b = (await (await api.get(`/blackout/${id}`, auth)).json()) as {
        blackout: { startTime: string };
      };
      return b.blackout.startTime === '2031-06-01T10:30:00.000Z';
    }, 'start saved as 10:30 UTC');
  } finally {
    await context.close();
    await prefs(null);
    await api.request('DELETE', `/blackout/${id}`, undefined, auth);
  }
});

admin('/users: edit roles, status and email verified; emptying the roles asks first', async (ctx) => {
  const { page, origin, api, auth } = ctx;
  const res = await api.post(
    '/user',
    { name: 'Edit Me', email: 'edit.me@example.com', password: 'pw-edit', roles: ['user'] },
    auth,
  );
  const { id } = (await res.json()) as { id: string };
  await page.goto(`${origin}/users`);
  await page.getByRole('button', { name: 'Edit Edit Me' }).click();
  const edit = page.getByRole('form', { name: 'Edit' });
  assert.is(await edit.getByLabel('Roles').inputValue(), 'user');
  await edit.getByLabel('Status').selectOption('inactive');
  await edit.getByLabel('Roles').fill('user, ops');
  await edit.getByLabel('Email verified').check();
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved Edit Me' }).waitFor();
  const get = async () =>
    ((await (await api.get(`/user/${id}`, auth)).json()) as { user: Record<string, unknown> }).user;
  const user = await get();
  assert.equal([user.status, user.roles, user.email_verified], ['inactive', ['user', 'ops'], true]);

  await page.getByRole('button', { name: 'Edit Edit Me' }).click();
  await edit.getByLabel('Roles').fill('');
  page.once('dialog', (d) => void d.accept());
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved Edit Me' }).waitFor();
  assert.equal((await get()).roles, []);
});

admin('/groups: rename, add and remove members', async ({ page, origin, api, auth }) => {
  await api.post('/group', { name: 'team-a' }, auth);
  await api.post('/user', { name: 'Member One', email: 'member.one@example.com', password: 'pw' }, auth);
  await page.goto(`${origin}/groups`);
  await page.getByRole('button', { name: 'Edit team-a' }).click();
  const edit = page.getByRole('form', { name: 'Edit' });
  await edit.getByLabel('Text').fill('the A team');
  await edit.getByRole('button', { name: 'Save' }).click();
  const row = page.getByTestId('admin-row').filter({ hasText: 'the A team' });
  await row.waitFor();

  await page.getByRole('button', { name: 'Members of team-a' }).click();
  const panel = page.getByRole('region', { name: 'Members of team-a' });
  await panel.getByText('No members.').waitFor();
  await panel.getByLabel('Add a user').selectOption({ label: 'Member One (member.one@example.com)' });
  await panel.getByRole('button', { name: 'Add' }).click();
  await panel.getByTestId('member').filter({ hasText: 'Member One' }).waitFor();
  // The member count in the table follows.
  await row.locator('td').nth(2).filter({ hasText: /^1$/ }).waitFor();
  await panel.getByRole('button', { name: 'Remove member.one@example.com' }).click();
  await panel.getByText('No members.').waitFor();
});

admin('/perms, /customers, /keys: edit in the form, saved with PUT', async ({ page, origin, api, auth }) => {
  await api.post('/perm', { match: 'edit-role', scopes: ['read:alerts'] }, auth);
  await page.goto(`${origin}/perms`);
  await page.getByRole('button', { name: 'Edit edit-role' }).click();
  let edit = page.getByRole('form', { name: 'Edit' });
  assert.ok(await edit.getByRole('checkbox', { name: 'read:alerts', exact: true }).isChecked());
  await edit.getByRole('checkbox', { name: 'write:alerts', exact: true }).check();
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByTestId('admin-row').filter({ hasText: 'read:alerts, write:alerts' }).waitFor();

  await api.post('/customer', { match: 'edit.example.com', customer: 'OldCo' }, auth);
  await page.goto(`${origin}/customers`);
  await page.getByRole('button', { name: 'Edit edit.example.com' }).click();
  edit = page.getByRole('form', { name: 'Edit' });
  await edit.getByLabel('Customer').fill('NewCo');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByTestId('admin-row').filter({ hasText: 'NewCo' }).waitFor();

  const res = await api.post('/key', { text: 'edit key', scopes: ['read'] }, auth);
  const { key } = (await res.json()) as { key: string };
  await page.goto(`${origin}/keys`);
  await page.getByRole('button', { name: 'Edit edit key' }).click();
  edit = page.getByRole('form', { name: 'Edit' });
  await edit.getByLabel('Text').fill('edited key');
  await edit.getByRole('checkbox', { name: 'write:alerts', exact: true }).check();
  await edit.getByLabel('Expires').fill('2031-05-01T12:00');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByTestId('admin-row').filter({ hasText: 'edited key' }).waitFor();
  const got = ((await (await api.get(`/key/${key}`, auth)).json()) as { key: Record<string, unknown> }).key;
  assert.equal(
    [got.text, got.scopes, got.expireTime],
    ['edited key', ['read', 'write:alerts'], new Date(2031, 4, 1, 12, 0).toISOString()],
  );
});

/** Sends an alert as the admin and opens its page; its id. */
async function openNewAlert({ page, origin, api, auth }: Ctx, alert: Record<string, unknown>) {
  const res = await api.post('/alert', alert, auth);
  const { id } = (await res.json()) as { id: string };
  await page.goto(`${origin}/alert/${id}`);
  return id;
}

admin(
  'the alert page: fields, actions with timeouts and custom actions, tags, notes edited, history',
  async (ctx) => {
    const { page, api, auth } = ctx;
    const id = await openNewAlert(ctx, {
      resource: 'detail-host',
      event: 'DiskFull',
      environment: 'Production',
      severity: 'major',
      rawData: 'raw!',
      tags: ['disk'],
    });
    await page.getByRole('heading', { name: 'detail-host · DiskFull' }).waitFor();
    assert.is(await page.getByTestId('field-severity').textContent(), 'major');
    await page.getByText('raw!').waitFor();
    // Times in /config dates.longDate (ddd D MMM, YYYY HH:mm:ss.SSS Z), not ISO.
    assert.match(
      (await page.getByTestId('field-createTime').textContent()) ?? '',
      /^\w{3} \d+ \w{3}, \d{4} /,
    );

    await page.getByRole('button', { name: 'Ack', exact: true }).click();
    await page.getByTestId('field-status').filter({ hasText: 'ack' }).waitFor();
    await page.getByRole('button', { name: 'Unack', exact: true }).click();
    await page.getByTestId('field-status').filter({ hasText: 'open' }).waitFor();
    await page.getByLabel('Shelve timeout (s)').fill('120');
    await page.getByRole('button', { name: 'Shelve', exact: true }).click();
    await page.getByTestId('field-status').filter({ hasText: 'shelved' }).waitFor();
    const shelved = page.getByTestId('history-row').filter({ hasText: 'shelve from the alert page' });
    assert.is(await shelved.locator('td').nth(4).textContent(), '2 minutes');
    await page.getByRole('button', { name: 'escalate' }).click();
    await page.getByTestId('history-row').filter({ hasText: 'escalate from the alert page' }).waitFor();

    await page.getByLabel('New tag').fill('urgent, db');
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('button', { name: 'Remove tag urgent' }).waitFor();
    await page.getByRole('button', { name: 'Remove tag disk' }).click();
    await page.getByRole('button', { name: 'Remove tag disk' }).waitFor({ state: 'detached' });
    const tags = await page.getByTestId('field-tags').textContent();
    assert.ok(tags?.includes('urgent') && tags.includes('db'), tags ?? '');

    await page.getByLabel('New note').fill('looking into it');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByTestId('note').filter({ hasText: 'looking into it' }).waitFor();
    await page.getByRole('button', { name: 'Edit note looking into it' }).click();
    await page.getByLabel('Note text').fill('fixed the disk');
    await page.getByRole('button', { name: 'Save note' }).click();
    await page.getByTestId('note').filter({ hasText: 'fixed the disk' }).waitFor();
    const { notes } = (await (await api.get(`/alert/${id}/notes`, auth)).json()) as {
      notes: { text: string }[];
    };
    assert.equal(
      notes.map((n) => n.text),
      ['fixed the disk'],
    );
    await page.getByRole('button', { name: 'Delete note fixed the disk' }).click();
    await page.getByTestId('note').waitFor({ state: 'detached' });
  },
);

admin(
  'the alert page: attributes as a table, URLs as links, the severity in its colour, only the valid actions',
  async (ctx) => {
    const { page } = ctx;
    await openNewAlert(ctx, {
      resource: 'runbook-host',
      event: 'CertExpiry',
      environment: 'Production',
      severity: 'security',
      attributes: { runbook: 'https://runbooks.example.net/cert-expiry', owner: 'web team' },
    });
    await page.getByRole('heading', { name: 'runbook-host · CertExpiry' }).waitFor();

    const attributes = page.getByTestId('field-attributes').getByTestId('attribute');
    await attributes.first().waitFor();
    const pairs = await attributes.evaluateAll((rows) =>
      rows.map((r) => [
        r.querySelector('th')?.textContent?.trim(),
        r.querySelector('td')?.textContent?.trim(),
      ]),
    );
    const table = Object.fromEntries(pairs);
    assert.is(table.runbook, 'https://runbooks.example.net/cert-expiry');
    assert.is(table.owner, 'web team');
    const runbook = page.getByRole('link', { name: 'https://runbooks.example.net/cert-expiry' });
    assert.is(await runbook.getAttribute('href'), 'https://runbooks.example.net/cert-expiry');

    // security is blue in Alerta's model: white on it, not the configured black (2.4:1).
    const badge = await page
      .getByTestId('field-severity')
      .locator('span')
      .evaluate((e) => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]);
    assert.equal(badge, ['rgb(0, 0, 255)', 'rgb(255, 255, 255)']);

    const actionNames = async () =>
      (await page.getByRole('group', { name: 'Actions' }).getByRole('button').allTextContents()).map((t) =>
        t.trim(),
      );
    const core = ['Ack', 'Unack', 'Shelve', 'Unshelve', 'Close', 'Re-open'];
    assert.equal(
      (await actionNames()).filter((n) => core.includes(n)),
      ['Ack', 'Shelve', 'Close'],
    );
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await page.getByTestId('field-status').filter({ hasText: 'closed' }).waitFor();
    assert.equal(
      (await actionNames()).filter((n) => core.includes(n)),
      ['Re-open'],
    );
    assert.ok((await actionNames()).includes('escalate'), 'custom actions stay');
    assert.is(await page.getByLabel('Ack timeout (s)').count(), 0);
  },
);

admin('the alert page follows changes made elsewhere (live)', async (ctx) => {
  const { page, api, auth } = ctx;
  const id = await openNewAlert(ctx, {
    resource: 'live-detail',
    event: 'Load',
    environment: 'Production',
    severity: 'minor',
  });
  await page.getByTestId('field-status').filter({ hasText: 'open' }).waitFor();
  await page.getByTestId('live').waitFor();
  await api.put(`/alert/${id}/action`, { action: 'ack', text: 'from elsewhere' }, auth);
  await page.getByTestId('field-status').filter({ hasText: 'ack' }).waitFor({ timeout: 5000 });
});

admin(
  'a user disabled while a live page is open is sent to the login page by the socket',
  async ({ browser, origin, api, auth }) => {
    const made = await api.post(
      '/user',
      { name: 'Dora', email: 'dora@example.com', password: 'dora-pass-1' },
      auth,
    );
    assert.is(made.status, 201);
    const { id } = (await made.json()) as { id: string };
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/login`);
      await page.getByLabel('Username or email').fill('dora@example.com');
      await page.getByLabel('Password').fill('dora-pass-1');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/\/alerts$/);
      // The heartbeats page asks nothing over HTTP once its socket is up (the console refreshes
      // its tab counts, whose 401 would send the user to log in by another way).
      const frames: string[] = [];
      page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
      await page.goto(`${origin}/heartbeats`);
      await page.getByTestId('heartbeat-counts').waitFor();
      // Upgraded to a WebSocket (its probe answered), where the test can read what the server sends.
      await until(() => (frames.includes('3probe') ? true : undefined), 10_000, 'socket upgraded');
      await page.waitForLoadState('networkidle');
      assert.is((await api.put(`/user/${id}`, { status: 'inactive' }, auth)).status, 200);
      // Within the hub's 5 s tick: session.expired, and the page goes to log in.
      await page.waitForURL(/\/login\?next=%2Fheartbeats$/, { timeout: 10_000 });
      assert.ok(
        frames.some((f) => f.includes('"session.expired",{"message":"User dora@example.com not active"}')),
        frames.join('\n'),
      );
    } finally {
      await context.close();
    }
  },
);

admin.run();
