import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { securedSettings } from '../helpers/secured.ts';
import { formatTime } from '../../web/src/lib/preferences.ts';
import {
  launchBrowser,
  restartServer,
  sendAlert,
  startRestartable,
  stopRestartable,
  withPage,
  type Restartable,
} from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
}

interface AlertBody {
  resource: string;
  event?: string;
  environment?: string;
  severity?: string;
  service?: string[];
  value?: string;
  text?: string;
  attributes?: Record<string, unknown>;
  timeout?: number;
  customer?: string;
}

async function postAlert(ctx: AppContext, body: AlertBody, headers: Record<string, string> = {}) {
  const res = await ctx.api.post(
    '/alert',
    { event: 'ConsoleTest', environment: 'Production', service: ['web'], severity: 'minor', ...body },
    { headers },
  );
  assert.is(res.status, 201, await res.clone().text());
  return ((await res.json()) as { id: string; alert: { id: string } }).id;
}

const action = (ctx: AppContext, id: string, name: string, headers: Record<string, string> = {}) =>
  ctx.api.put(`/alert/${id}/action`, { action: name }, { headers });

/** A page that keeps every query the console subscribed with and every API URL it requested. */
async function watchedPage(context: BrowserContext | Browser) {
  const page = await context.newPage();
  const subscriptions: string[] = [];
  const requests: string[] = [];
  const note = (payload: string) => {
    for (const m of payload.matchAll(/"subscribe",\{"query":"((?:[^"\\]|\\.)*)"/g))
      subscriptions.push(JSON.parse(`"${m[1]}"`) as string);
  };
  page.on('websocket', (ws) => ws.on('framesent', (f) => note(String(f.payload))));
  page.on('request', (r) => {
    const url = r.url();
    if (!url.includes('/api/')) return;
    requests.push(url);
    if (url.includes('/socket.io/') && r.method() === 'POST') note(r.postData() ?? '');
  });
  return { page, subscriptions, requests };
}

/** The smallest screen the console is laid out for. */
const LAPTOP = { viewport: { width: 1366, height: 768 } };

/** A watchedPage for one test, closed however the test ends. */
async function watching(
  ctx: { browser: Browser },
  use: (watched: Awaited<ReturnType<typeof watchedPage>>) => Promise<void>,
) {
  const watched = await watchedPage(ctx.browser);
  try {
    await use(watched);
  } finally {
    await watched.page.close();
  }
}

const rows = (page: Page) => page.getByTestId('alert-row');
const resources = (page: Page) => page.getByTestId('resource').allTextContents();
const live = (page: Page) =>
  page.waitForFunction(() => !document.querySelector('[data-testid=connection-banner]'), null, {
    timeout: 10_000,
  });
const q = (tag: string) => encodeURIComponent(`resource:${tag}*`);
const until = async (fn: () => Promise<boolean>, what: string, ms = 5000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.unreachable(`timed out: ${what}`);
};
const prefs = (page: Page, value: Record<string, unknown>) =>
  page.addInitScript((v) => localStorage.setItem('alertwall.prefs', v), JSON.stringify(value));

// ---- anonymous console, default settings plus an attribute column and a custom action --------

const con = suite<Ctx>('web UI: the console', {} as Ctx);
con.before(async (ctx) => {
  await startApp(ctx, {
    TEST_LABEL: 'browser_console',
    PLUGINS: 'remote_ip',
    COLUMNS:
      'severity,status,lastReceiveTime,timeoutLeft,duplicateCount,customer,environment,service,resource,event,value,text,owner',
    ACTIONS: 'page-oncall',
  });
  ctx.browser = await launchBrowser();
});
con.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

con('columns come from /config (attributes as text, no customer column, timeout left ticks)', async (ctx) => {
  await watching(ctx, async ({ page, requests, subscriptions }) => {
    const tag = `cols${Date.now()}`;
    await postAlert(ctx, { resource: `${tag}-a`, attributes: { owner: '<b>ops</b>' }, timeout: 3600 });
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}`);
    await rows(page).first().waitFor();
    const heading = (h: string) => h.replace(/[▲▼]/g, '').trim();
    const headers = (await page.locator('thead th').allTextContents()).map(heading);
    assert.equal(headers.slice(1, -1), [
      'Severity',
      'Status',
      'Last receive',
      'Timeout left',
      'Dupl.',
      'Environment',
      'Service',
      'Resource',
      'Event',
      'Value',
      'Description',
      'owner',
    ]);
    const owner = rows(page).first().getByTestId('owner');
    assert.is(await owner.textContent(), '<b>ops</b>');
    assert.is(await owner.locator('b').count(), 0, 'attribute text is never HTML');
    const left = rows(page).first().getByTestId('timeoutLeft');
    const first = (await left.textContent()) ?? '';
    assert.match(first, /^0:59:\d\d$/);
    await until(async () => ((await left.textContent()) ?? '') < first, 'timeout left counts down', 3000);

    // The chooser keeps its choice in the URL (UI-only: never sent to the API).
    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('group', { name: 'Columns' }).getByLabel('Event', { exact: true }).uncheck();
    await page.waitForURL(/cols=/);
    await page.getByRole('group', { name: 'Columns' }).getByLabel('Group', { exact: true }).check();
    await page.waitForURL(/cols=.*group/);
    await page.reload();
    await rows(page).first().waitFor();
    const after = (await page.locator('thead th').allTextContents()).map(heading);
    assert.not.ok(after.includes('Event'));
    assert.ok(after.includes('Group'));
    assert.ok(subscriptions.length > 0, 'subscriptions seen');
    for (const s of [...subscriptions, ...requests]) assert.not.match(s, /[?&]cols=/, s);
  });
});

con('filters live in the URL as API parameters; Reset returns to /config filter', async (ctx) => {
  await watching(ctx, async ({ page, subscriptions }) => {
    const tag = `filt${Date.now()}`;
    await postAlert(ctx, { resource: `${tag}-open`, service: ['svcA'] });
    const closed = await postAlert(ctx, { resource: `${tag}-closed`, service: ['svcA'] });
    assert.is((await action(ctx, closed, 'close')).status, 200);
    await postAlert(ctx, { resource: `${tag}-other`, service: ['svcB'] });

    /** The open alert listed, the closed one not: the /config filter is in effect. */
    const showsOpenOnly = async () => {
      await rows(page)
        .filter({ hasText: `${tag}-open` })
        .waitFor();
      assert.is(
        await rows(page)
          .filter({ hasText: `${tag}-closed` })
          .count(),
        0,
      );
    };

    // A bare /alerts shows /config filter (status open, ack), and the controls say so.
    await page.goto(`${ctx.origin}/alerts`);
    await showsOpenOnly();
    const filterBar = page.getByRole('group', { name: 'Filters' });
    assert.ok(await filterBar.getByLabel('open', { exact: true }).isChecked());
    assert.ok(await filterBar.getByLabel('ack', { exact: true }).isChecked());
    assert.not.ok(await filterBar.getByLabel('closed', { exact: true }).isChecked());
    assert.match(subscriptions.at(-1) ?? '', /status=open&status=ack/);

    await filterBar.getByLabel('closed', { exact: true }).check();
    await page.waitForURL(/status=open&status=ack&status=closed/);
    await rows(page)
      .filter({ hasText: `${tag}-closed` })
      .waitFor();

    await filterBar.getByLabel('Service').fill('svcB');
    await filterBar.getByLabel('Service').press('Enter');
    await page.waitForURL(/service=svcB/);
    await until(async () => (await resources(page)).join() === `${tag}-other`, 'only svcB');

    // A date range in the future selects nothing.
    await filterBar.getByLabel('From').fill('2999-01-01T00:00');
    await filterBar.getByLabel('From').press('Enter');
    await page.waitForURL(/from-date=2999/);
    await page.getByTestId('empty').filter({ hasText: 'No alerts with status' }).waitFor();
    // Times read and are typed in the UI's format; a 12-hour time is explained, the filter stays.
    assert.is(await filterBar.getByLabel('From').inputValue(), 'Tue 1 Jan 2999 00:00');
    await filterBar.getByLabel('From').fill('2 Jan 2999 9pm');
    await filterBar.getByLabel('From').press('Enter');
    await filterBar.getByRole('alert').filter({ hasText: 'Use the 24-hour clock' }).waitFor();
    assert.match(page.url(), /from-date=2999-01-01T/);

    await filterBar.getByRole('button', { name: 'Reset filters' }).click();
    await page.waitForURL((u) => u.pathname === '/alerts' && u.search === '');
    await showsOpenOnly();
    assert.match(
      subscriptions.at(-1) ?? '',
      /^status=open&status=ack&sort-by=severity&sort-by=lastReceiveTime$/,
    );
  });
});

con(
  'an old alerta-webui link is read once and rewritten; tabs for every configured environment',
  async (ctx) => {
    await watching(ctx, async ({ page }) => {
      const tag = `hash${Date.now()}`;
      for (const r of ['a', 'b', 'c']) await postAlert(ctx, { resource: `${tag}-${r}` });
      await action(ctx, await postAlert(ctx, { resource: `${tag}-d` }), 'close');
      await postAlert(ctx, { resource: `${tag}-x`, environment: 'Staging' });
      await prefs(page, { showAllowedEnvs: true });
      await page.goto(
        `${ctx.origin}/alerts?q=${q(tag)}#environment:Production;status:open,closed;sb:resource;sd:1;asi:1`,
      );
      await page.waitForURL((u) => u.hash === '' && u.searchParams.get('environment') === 'Production');
      const url = new URL(page.url());
      assert.equal(url.searchParams.getAll('status'), ['open', 'closed']);
      assert.equal(url.searchParams.getAll('sort-by'), ['-resource']);
      assert.not.ok(url.searchParams.has('asi'));
      await rows(page).nth(3).waitFor();
      assert.equal(await resources(page), [`${tag}-d`, `${tag}-c`, `${tag}-b`, `${tag}-a`]);
      // showAllowedEnvs: Development has no alert here but gets its tab (ALLOWED_ENVIRONMENTS).
      const tabs = page.getByRole('navigation', { name: 'Environments' });
      await tabs.getByRole('link', { name: 'Development (0)' }).waitFor();
      await tabs.getByRole('link', { name: 'Staging (1)' }).waitFor();
    });
  },
);

con('server-side paging and sort: page and page-size in the URL and the subscription', async (ctx) => {
  await watching(ctx, async ({ page, subscriptions }) => {
    const tag = `page${Date.now()}`;
    for (const r of ['a', 'b', 'c', 'd', 'e']) await postAlert(ctx, { resource: `${tag}-${r}` });
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}&sort-by=resource&page-size=2`);
    await rows(page).nth(1).waitFor();
    assert.equal(await resources(page), [`${tag}-a`, `${tag}-b`]);
    await page.getByTestId('page').filter({ hasText: 'Page 1 of 3' }).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL(/page=2/);
    await until(async () => (await resources(page)).join() === `${tag}-c,${tag}-d`, 'page 2');
    assert.match(subscriptions.at(-1) ?? '', /sort-by=resource&page=2&page-size=2$/);
    // A header click sorts by that column (again: inverted), from the first page.
    await page.locator('thead').getByRole('button', { name: 'Resource', exact: true }).click();
    await page.waitForURL(/sort-by=-resource/);
    assert.not.match(page.url(), /page=2/);
    await until(async () => (await resources(page)).join() === `${tag}-e,${tag}-d`, 'inverted');
    await page.getByLabel('Rows per page').selectOption('50');
    await page.waitForURL(/page-size=50/);
    await until(async () => (await resources(page)).length === 5, 'all five');

    // The user's rowsPerPage is the default page size when the URL gives none.
    const other = await ctx.browser.newPage();
    const seen: string[] = [];
    other.on('websocket', (ws) => ws.on('framesent', (f) => seen.push(String(f.payload))));
    other.on('request', (r) => r.method() === 'POST' && seen.push(r.postData() ?? ''));
    await prefs(other, { rowsPerPage: 3 });
    await other.goto(`${ctx.origin}/alerts?q=${q(tag)}&sort-by=resource`);
    await rows(other).nth(2).waitFor();
    assert.is(await rows(other).count(), 3);
    assert.ok(seen.some((s) => s.includes('page-size=3')));
    await other.close();
  });
});

con('rows keep their places; the "N changes, re-sort" chip restores strict order', async (ctx) => {
  await watching(ctx, async ({ page }) => {
    const tag = `chip${Date.now()}`;
    for (const [r, value] of [
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ])
      await postAlert(ctx, { resource: `${tag}-${r}`, value });
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}&sort-by=value`);
    await rows(page).nth(2).waitFor();
    await live(page);
    await postAlert(ctx, { resource: `${tag}-a`, value: '9' });
    await rows(page)
      .filter({ hasText: `${tag}-a` })
      .getByTestId('value')
      .filter({ hasText: '9' })
      .waitFor();
    assert.equal(await resources(page), [`${tag}-a`, `${tag}-b`, `${tag}-c`], 'stays in place');
    await page.getByRole('button', { name: '1 change, re-sort' }).click();
    await until(async () => (await resources(page)).join() === `${tag}-b,${tag}-c,${tag}-a`, 're-sorted');
    assert.is(await page.getByTestId('resort').count(), 0);
  });
});

con('pause while reading: with the drawer open a pushed change waits; closing applies it', async (ctx) => {
  await watching(ctx, async ({ page }) => {
    const tag = `pause${Date.now()}`;
    await postAlert(ctx, { resource: `${tag}-a` });
    await postAlert(ctx, { resource: `${tag}-b` });
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}&sort-by=resource`);
    await rows(page).nth(1).waitFor();
    await live(page);
    // Everything but the countdown, which ticks by itself.
    const snapshot = () =>
      rows(page).evaluateAll((trs) =>
        trs.map((tr) =>
          [...tr.querySelectorAll('td:not([data-testid=timeoutLeft])')].map((td) => td.textContent).join('|'),
        ),
      );
    await rows(page).first().getByTestId('event').click();
    const drawer = page.getByRole('dialog', { name: 'Alert details' });
    await drawer.getByRole('heading', { name: `${tag}-a · ConsoleTest` }).waitFor();
    await drawer.getByRole('link', { name: 'Open the full alert page' }).waitFor();
    const before = await snapshot();

    await postAlert(ctx, { resource: `${tag}-b`, severity: 'critical' });
    await postAlert(ctx, { resource: `${tag}-0` });
    await page.getByTestId('paused').filter({ hasText: 'Paused, 2 updates waiting' }).waitFor();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await snapshot(), before, 'rows did not move or change');

    await drawer.getByRole('button', { name: 'Close details' }).click();
    await until(async () => (await resources(page)).length === 3, 'applied on close');
    assert.is(
      await rows(page)
        .filter({ hasText: `${tag}-b` })
        .getByTestId('severity')
        .textContent(),
      'critical',
    );
    assert.is(await page.getByTestId('paused').count(), 0);

    // A text selection in the list pauses too; Esc lets go and applies.
    await rows(page)
      .filter({ hasText: `${tag}-a` })
      .getByTestId('text')
      .selectText();
    await page.getByTestId('paused').waitFor();
    await postAlert(ctx, { resource: `${tag}-a`, severity: 'major' });
    await page.getByTestId('paused').filter({ hasText: '1 update waiting' }).waitFor();
    assert.is(
      await rows(page)
        .filter({ hasText: `${tag}-a` })
        .getByTestId('severity')
        .textContent(),
      'minor',
    );
    await page.keyboard.press('Escape');
    await rows(page)
      .filter({ hasText: `${tag}-a` })
      .getByTestId('severity')
      .filter({ hasText: 'major' })
      .waitFor();

    // The row menu pauses as well.
    await page.getByRole('button', { name: `More actions for ${tag}-b` }).click();
    await page.getByRole('menu', { name: `Actions for ${tag}-b` }).waitFor();
    await page.getByTestId('paused').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    await page.getByTestId('paused').waitFor({ state: 'detached' });
  });
});

con(
  'row actions: durations, default timeouts from preferences, custom actions, pending and errors',
  async (ctx) => {
    await watching(ctx, async ({ page }) => {
      const tag = `act${Date.now()}`;
      for (const r of ['a', 'b', 'c', 'd']) await postAlert(ctx, { resource: `${tag}-${r}` });
      await prefs(page, { ackTimeout: 600 });
      await page.goto(`${ctx.origin}/alerts?q=${q(tag)}&sort-by=resource`);
      await rows(page).nth(3).waitFor();
      await live(page);
      const bodyOf = async (trigger: () => Promise<void>) => {
        const [request] = await Promise.all([
          page.waitForRequest((r) => r.method() === 'PUT' && r.url().includes('/action')),
          trigger(),
        ]);
        return request.postDataJSON() as { action: string; timeout?: number };
      };
      const row = (r: string) => rows(page).filter({ hasText: `${tag}-${r}` });

      // Shelve for a chosen duration, from the row menu.
      await page.getByRole('button', { name: `More actions for ${tag}-a` }).click();
      const shelve = await bodyOf(() =>
        page.getByRole('menuitem', { name: 'Shelve for 4 h', exact: true }).click(),
      );
      assert.equal([shelve.action, shelve.timeout], ['shelve', 14400]);
      await row('a').getByTestId('status').filter({ hasText: 'shelved' }).waitFor();

      // Ack with the user's default timeout (prefs ackTimeout), by the row's own button.
      const ack = await bodyOf(() => page.getByRole('button', { name: `Ack ${tag}-b`, exact: true }).click());
      assert.equal([ack.action, ack.timeout], ['ack', 600]);
      await row('b').getByTestId('status').filter({ hasText: 'ack' }).waitFor();

      // A custom action from /config actions.
      await page.getByRole('button', { name: `More actions for ${tag}-c` }).click();
      const custom = await bodyOf(() =>
        page.getByRole('menuitem', { name: 'page-oncall', exact: true }).click(),
      );
      assert.is(custom.action, 'page-oncall');

      // Pending until the push confirms.
      let release: () => void = () => {};
      const held = new Promise<void>((r) => (release = r));
      await page.route('**/api/alert/*/action', async (route) => {
        await held;
        await route.continue();
      });
      await page.getByRole('button', { name: `Close ${tag}-d`, exact: true }).click();
      await until(async () => (await row('d').getAttribute('aria-busy')) === 'true', 'pending');
      assert.is(await row('d').getByTestId('status').textContent(), 'open');
      release();
      await row('d').getByTestId('status').filter({ hasText: 'closed' }).waitFor();
      await until(async () => (await row('d').getAttribute('aria-busy')) === 'false', 'confirmed');
      await page.unroute('**/api/alert/*/action');

      // A failure reverts the row and says why.
      await page.route('**/api/alert/*/action', (route) =>
        route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({ status: 'error', message: 'refused by test', code: 409 }),
        }),
      );
      await page.getByRole('button', { name: `Unack ${tag}-b`, exact: true }).click();
      await row('b')
        .getByRole('img', { name: /Failed: Unack .*refused by test/ })
        .waitFor();
      assert.is(await row('b').getAttribute('aria-busy'), 'false');
      assert.is(await row('b').getByTestId('status').textContent(), 'ack');
      await page.getByTestId('message').filter({ hasText: 'refused by test' }).waitFor();
      await page.unroute('**/api/alert/*/action');

      // The bulk bar has the same actions, with a timeout for ack and shelve.
      await page.getByLabel(`Select ${tag}-c`).check();
      await page
        .getByRole('toolbar', { name: 'Bulk actions' })
        .getByLabel('Ack/shelve timeout')
        .selectOption('28800');
      const [bulk] = await Promise.all([
        page.waitForRequest((r) => r.url().includes('/_bulk/alerts/action')),
        page.getByRole('button', { name: 'Shelve selected', exact: true }).click(),
      ]);
      assert.equal((bulk.postDataJSON() as { timeout: number }).timeout, 28800);
      await row('c').getByTestId('status').filter({ hasText: 'shelved' }).waitFor();
      await page.getByLabel(`Select ${tag}-a`).check();
      const [bulkCustom] = await Promise.all([
        page.waitForRequest((r) => r.url().includes('/_bulk/alerts/action')),
        page.getByRole('button', { name: 'page-oncall selected', exact: true }).click(),
      ]);
      assert.is((bulkCustom.postDataJSON() as { action: string }).action, 'page-oncall');
    });
  },
);

con(
  'highlights: new rows pulse, escalations flash; times in the preferred zone and /config format',
  async (ctx) => {
    const context = await ctx.browser.newContext({ timezoneId: 'Asia/Kolkata' });
    try {
      const tag = `hl${Date.now()}`;
      const id = await postAlert(ctx, { resource: `${tag}-a` });
      const page = await context.newPage();
      await prefs(page, { timezone: 'utc' });
      await page.goto(`${ctx.origin}/alerts?q=${q(tag)}`);
      await rows(page).first().waitFor();
      await live(page);
      const stored = (await (await ctx.api.get(`/alert/${id}`)).json()) as {
        alert: { lastReceiveTime: string };
      };
      const shown = await rows(page).first().getByTestId('lastReceiveTime').textContent();
      assert.is(shown, formatTime(stored.alert.lastReceiveTime, 'ddd D MMM HH:mm', 'utc'));
      // Without the preference: the browser's zone (Kolkata, UTC+05:30).
      const local = await context.newPage();
      await local.addInitScript(() => localStorage.removeItem('alertwall.prefs'));
      await local.goto(`${ctx.origin}/alerts?q=${q(tag)}`);
      const kolkata = new Date(Date.parse(stored.alert.lastReceiveTime) + 5.5 * 3600_000).toISOString();
      await rows(local)
        .first()
        .getByTestId('lastReceiveTime')
        .filter({ hasText: formatTime(kolkata, 'ddd D MMM HH:mm', 'utc') })
        .waitFor();
      await local.close();

      await postAlert(ctx, { resource: `${tag}-b` });
      await page
        .locator(`tr.fresh[data-testid=alert-row]`)
        .filter({ hasText: `${tag}-b` })
        .waitFor();
      await postAlert(ctx, { resource: `${tag}-a`, severity: 'critical' });
      await page
        .locator(`tr.escalated[data-testid=alert-row]`)
        .filter({ hasText: `${tag}-a` })
        .waitFor();
      assert.is(
        await page
          .locator(`tr.escalated`)
          .filter({ hasText: `${tag}-b` })
          .count(),
        0,
      );
    } finally {
      await context.close();
    }
  },
);

con('keyboard: Enter opens the drawer, n writes a note on the cursor row', async (ctx) => {
  await watching(ctx, async ({ page }) => {
    const tag = `note${Date.now()}`;
    for (const r of ['a', 'b']) await postAlert(ctx, { resource: `${tag}-${r}` });
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}&sort-by=resource`);
    await rows(page).nth(1).waitFor();
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    const drawer = page.getByRole('dialog', { name: 'Alert details' });
    await drawer.getByRole('heading', { name: `${tag}-a · ConsoleTest` }).waitFor();
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    await page.keyboard.press('j');
    await page.keyboard.press('n');
    await drawer.getByRole('heading', { name: `${tag}-b · ConsoleTest` }).waitFor();
    const field = drawer.getByLabel('New note');
    assert.ok(await field.evaluate((e) => e === document.activeElement), 'the note field has focus');
    assert.is(await field.inputValue(), '', 'the key itself is not typed');
    await page.keyboard.type('checking the disk');
    await drawer.getByRole('button', { name: 'Add note' }).click();
    await drawer.getByText('checking the disk').waitFor();
    await page.keyboard.press('?');
    await page.getByRole('definition').filter({ hasText: 'write a note on it' }).waitFor();
  });
});

con('CSV export: every alert matching the view, not just the page in memory', async (ctx) => {
  await watching(ctx, async ({ page }) => {
    const tag = `csv${Date.now()}`;
    for (const r of ['a', 'b', 'c', 'd', 'e'])
      await postAlert(ctx, {
        resource: `${tag}-${r}`,
        service: ['web', 'db'],
        attributes: { owner: `o-${r}` },
      });
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}&sort-by=resource&page-size=2`);
    await rows(page).nth(1).waitFor();
    assert.is(await rows(page).count(), 2);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const bytes = Buffer.concat(await (await download.createReadStream()).toArray());
    assert.equal([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 byte-order mark');
    const lines = bytes.toString('utf8').slice(1).trim().split('\r\n');
    assert.is(lines.length, 6);
    const header = lines[0]!.split(',');
    const owner = header.indexOf('attributes.owner');
    assert.ok(owner > 0, header.join());
    assert.ok(lines[1]!.includes(`${tag}-a,`) && lines[1]!.includes('"web,db"'), lines[1]);
    assert.ok(lines[5]!.endsWith(',o-e') || lines[5]!.includes(',o-e,'), lines[5]);
  });
});

con('saved searches: save the q under a name, apply it, delete it', async (ctx) => {
  await watching(ctx, async ({ page }) => {
    const tag = `saved${Date.now()}`;
    await postAlert(ctx, { resource: `${tag}-a` });
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}`);
    await rows(page).first().waitFor();
    await page.getByText('Saved searches', { exact: true }).click();
    await page.getByLabel('Name for the current search').fill('my view');
    await page.getByRole('button', { name: 'Save current query' }).click();
    const list = page.getByRole('list', { name: 'Saved searches' });
    await list.getByRole('button', { name: 'my view', exact: true }).waitFor();
    await page.goto(`${ctx.origin}/alerts`);
    await page.getByText('Saved searches', { exact: true }).click();
    await list.getByRole('button', { name: 'my view', exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('q') === `resource:${tag}*`);
    await rows(page)
      .filter({ hasText: `${tag}-a` })
      .waitFor();
    await page.getByText('Saved searches', { exact: true }).click();
    await list.getByRole('button', { name: 'Delete saved search my view' }).click();
    await list.getByRole('button', { name: 'my view', exact: true }).waitFor({ state: 'detached' });
    await page.reload();
    await page.getByText('Saved searches', { exact: true }).click();
    await list.getByText('None yet.').waitFor();
  });
});

con('title and favicon count open critical and major alerts in the view', async (ctx) => {
  await watching(ctx, async ({ page }) => {
    const tag = `fav${Date.now()}`;
    await postAlert(ctx, { resource: `${tag}-a`, severity: 'critical' });
    await postAlert(ctx, { resource: `${tag}-b`, severity: 'major' });
    await postAlert(ctx, { resource: `${tag}-c`, severity: 'minor' });
    const acked = await postAlert(ctx, { resource: `${tag}-d`, severity: 'critical' });
    await action(ctx, acked, 'ack');
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}`);
    await rows(page).nth(3).waitFor();
    await until(async () => (await page.title()) === '(2) Alerts', 'title (2)');
    const badge = () => page.locator('link[rel=icon]').getAttribute('data-count');
    // The icon is redrawn at most once a second (docs/ui-console.md), so it may trail the title.
    await until(async () => (await badge()) === '2', 'badge 2');
    assert.match((await page.locator('link[rel=icon]').getAttribute('href')) ?? '', /^data:image\/png/);
    await live(page);
    await postAlert(ctx, { resource: `${tag}-e`, severity: 'critical' });
    await until(async () => (await page.title()) === '(3) Alerts', 'title (3)');
    await until(async () => (await badge()) === '3', 'badge 3');
  });
});

con('no socket at all: the console polls GET /alerts every 30 s and says so', async (ctx) => {
  await watching(ctx, async ({ page }) => {
    const tag = `poll${Date.now()}`;
    await postAlert(ctx, { resource: `${tag}-a` });
    await page.clock.install();
    await page.route('**/api/socket.io/**', (route) => route.abort());
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}`);
    const banner = page.getByTestId('connection-banner');
    await banner.filter({ hasText: 'Live updates unavailable — refreshing every 30 s' }).waitFor();
    await rows(page)
      .filter({ hasText: `${tag}-a` })
      .waitFor();
    await postAlert(ctx, { resource: `${tag}-b` });
    await page.clock.runFor(10_000);
    assert.is(await rows(page).count(), 1, 'no refresh before the interval');
    await page.clock.runFor(21_000);
    await rows(page)
      .filter({ hasText: `${tag}-b` })
      .waitFor();
  });
});

con('preferences are the defaults when the URL gives none: theme and density', async (ctx) => {
  await withPage(ctx.browser, { colorScheme: 'light' }, async (page) => {
    await postAlert(ctx, { resource: `prefs-${Date.now()}` });
    await prefs(page, { isDark: true, displayDensity: 'compact' });
    await page.goto(`${ctx.origin}/alerts`);
    await rows(page).first().waitFor();
    const background = () => page.locator('.page').evaluate((e) => getComputedStyle(e).backgroundColor);
    await until(async () => (await background()) === 'rgb(18, 18, 18)', 'dark from isDark');
    assert.ok(await page.getByLabel('Compact rows').isChecked());
    assert.ok(
      (await rows(page)
        .first()
        .evaluate((e) => e.getBoundingClientRect().height)) < 26,
      'compact rows',
    );
    await page.goto(`${ctx.origin}/alerts?theme=light&density=comfortable`);
    await rows(page).first().waitFor();
    await until(async () => (await background()) === 'rgb(250, 250, 250)', 'the URL wins');
    assert.not.ok(await page.getByLabel('Compact rows').isChecked());
  });
});

for (const [width, height] of [
  [1366, 768],
  [1920, 1080],
] as const) {
  con(`fits ${width}×${height} without page-wide horizontal scroll; every control is named`, async (ctx) => {
    await withPage(ctx.browser, { viewport: { width, height } }, async (page) => {
      const tag = `fit${width}`;
      for (const r of ['a', 'b']) {
        await postAlert(ctx, {
          resource: `${tag}-${r}-with-a-rather-long-resource-name`,
          attributes: { owner: 'x'.repeat(200) },
          value: 'v'.repeat(80),
        });
      }
      const all =
        'severity,status,lastReceiveTime,timeoutLeft,duplicateCount,environment,service,resource,event,' +
        'value,text,owner,id,group,origin,type,tags,createTime,receiveTime,updateTime,timeout,trendIndication';
      await page.goto(`${ctx.origin}/alerts?q=${q(tag)}&cols=${all}`);
      await rows(page).nth(1).waitFor();
      await page.getByLabel(`Select ${tag}-a-with-a-rather-long-resource-name`).check();
      await page
        .getByRole('button', { name: `More actions for ${tag}-b-with-a-rather-long-resource-name` })
        .click();
      await page.getByRole('menu').waitFor();
      const overflow = await page.evaluate(() => ({
        doc: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        body: document.body.scrollWidth - window.innerWidth,
        table: document.querySelector('table')!.scrollWidth,
      }));
      assert.ok(overflow.doc <= 0 && overflow.body <= 0, JSON.stringify(overflow));
      assert.ok(overflow.table > width, 'the wide table scrolls inside its own box');
      await page.keyboard.press('Escape');
      await rows(page).first().getByTestId('event').click();
      await page.getByRole('dialog', { name: 'Alert details' }).waitFor();
      const drawerOverflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(drawerOverflow <= 0, `with the drawer: ${drawerOverflow}`);
      // The drawer covers the header's right end: open the dropdowns directly.
      await page
        .locator('details')
        .evaluateAll((ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
      const unnamed = await page
        .locator('button, input:not([type=hidden]), select, textarea, a[href], summary, [role=menuitem]')
        .evaluateAll((els) =>
          els
            .filter((el) => {
              const text = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
              const e = el as HTMLInputElement;
              if (text(e.getAttribute('aria-label'))) return false;
              const by = e.getAttribute('aria-labelledby');
              if (by && text(document.getElementById(by)?.textContent)) return false;
              if (e.labels && [...e.labels].some((l) => text(l.textContent))) return false;
              if (!['INPUT', 'SELECT', 'TEXTAREA'].includes(e.tagName) && text(e.textContent)) return false;
              return !text(e.getAttribute('title'));
            })
            .map((el) => el.outerHTML.slice(0, 120)),
        );
      assert.equal(unnamed, []);
    });
  });
}

con('thousands of alerts: only the rows in sight are in the DOM', async (ctx) => {
  await withPage(ctx.browser, LAPTOP, async (page) => {
    const count = 3000;
    await seed(ctx, 'many', count);
    await page.goto(`${ctx.origin}/alerts?q=${q('many')}&sort-by=resource&page-size=${count}`);
    await page
      .getByTestId('total')
      .filter({ hasText: `${count} alerts` })
      .waitFor();
    await rows(page).first().waitFor();
    assert.ok((await rows(page).count()) < 100, `${await rows(page).count()} rows in the DOM`);
    await page.locator('[data-stale]').evaluate((e) => (e.scrollTop = e.scrollHeight));
    await rows(page).filter({ hasText: 'many03000' }).waitFor();
    assert.ok((await rows(page).count()) < 100);
  });
});

/** Alerta's default columns (what a fresh server's `/config columns` holds). */
const ALERTA_COLUMNS =
  'severity,status,lastReceiveTime,timeoutLeft,duplicateCount,environment,service,resource,event,value,text';

/** Inserts `count` open alerts straight into the database: `<prefix>00001`, … */
function seed(
  ctx: AppContext,
  prefix: string,
  count: number,
  text: (i: string) => string = () => "'seeded'",
) {
  return queryDb(
    ctx.db.url,
    `INSERT INTO alerts (id, resource, event, environment, severity, correlate, status, service, "group",
       value, text, tags, attributes, origin, type, create_time, timeout, customer, duplicate_count, repeat,
       previous_severity, trend_indication, receive_time, last_receive_id, last_receive_time, update_time)
     SELECT gen_random_uuid()::text, '${prefix}' || lpad(i::text, 5, '0'), 'e' || i, 'Production', 'minor', '{}',
       'open', ARRAY['svc'], 'Misc', '', ${text('i')}, '{}', '{}', 'console.test', 'exceptionAlert', now(), 86400,
       NULL, 0, false, 'indeterminate', 'noChange', now(), gen_random_uuid()::text, now(), now()
     FROM generate_series(1, $1::int) AS i`,
    [count],
  );
}

con(
  '10,000-alert scrolling: columns never move, and rows are reused, never added or removed',
  async (ctx) => {
    await withPage(ctx.browser, LAPTOP, async (page) => {
      // Short texts first, very long ones further down: an automatic table layout would widen columns.
      await seed(
        ctx,
        'shift',
        600,
        (i) => `CASE WHEN ${i} > 300 THEN repeat('a long text ', 40) ELSE 'x' END`,
      );
      await page.goto(
        `${ctx.origin}/alerts?q=${q('shift')}&sort-by=resource&page-size=600&cols=${ALERTA_COLUMNS}`,
      );
      await page.getByTestId('total').filter({ hasText: '600 alerts' }).waitFor();
      await rows(page).first().waitFor();
      const layout = () =>
        page.evaluate(() => {
          const heads = [...document.querySelectorAll('thead th')].map((th) => {
            const r = th.getBoundingClientRect();
            return `${Math.round(r.left)}+${Math.round(r.width)}`;
          });
          // The first row in sight: its cells line up with the headings.
          const box = document.querySelector('[data-testid=alert-list]')!.getBoundingClientRect();
          const row = [...document.querySelectorAll('[data-testid=alert-row]')].find(
            (r) => r.getBoundingClientRect().top >= box.top + 20,
          )!;
          const cells = [...row.children].map((td) => Math.round(td.getBoundingClientRect().left));
          return {
            heads: heads.join(' '),
            cells: cells.join(' '),
            lefts: heads.map((h) => h.split('+')[0]).join(' '),
          };
        });
      const atTop = await layout();
      assert.is(atTop.cells, atTop.lefts, 'cells under their headings');
      const list = page.getByTestId('alert-list');
      for (const at of [0.4, 0.7, 1]) {
        await list.evaluate((e, f) => (e.scrollTop = f * (e.scrollHeight - e.clientHeight)), at);
        await page.waitForTimeout(100);
        const now = await layout();
        assert.is(now.heads, atTop.heads, `columns stay put at ${at * 100}%`);
        assert.is(now.cells, now.lefts, `cells under their headings at ${at * 100}%`);
      }
      await rows(page).filter({ hasText: 'shift00600' }).waitFor();

      // The rows are a pool of elements handed other alerts as the list scrolls: scrolling by a row
      // or two changes nothing in the DOM (only the timeout-left cells change, with the clock)...
      await list.evaluate((e) => (e.scrollTop = 0));
      await page.waitForTimeout(100);
      const changes = await list.evaluate(async (e) => {
        let n = 0;
        const observer = new MutationObserver((records) => (n += records.length));
        observer.observe(e, { childList: true, subtree: true });
        for (let i = 0; i < 3; i++) {
          e.scrollTop += 20;
          await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 20)));
        }
        observer.disconnect();
        return n;
      });
      assert.is(changes, 0, 'no row added or removed for 60 px of scroll');
      // ...and scrolling through the whole list adds and removes no row element at all, while
      // every row in sight shows the alert of its place (rows sorted by resource).
      const pool = await list.evaluate(async (e) => {
        const body = e.querySelector('tbody')!;
        let added = 0;
        const observer = new MutationObserver((records) => {
          for (const r of records) added += r.addedNodes.length + r.removedNodes.length;
        });
        observer.observe(body, { childList: true });
        const counts = new Set<number>();
        const misplaced: string[] = [];
        for (let top = 0; top < e.scrollHeight; top += 700) {
          e.scrollTop = top;
          await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 20)));
          const trs = [...body.querySelectorAll('tr')];
          counts.add(trs.length);
          const box = e.getBoundingClientRect();
          for (const tr of trs) {
            const r = tr.getBoundingClientRect();
            if (r.bottom < box.top || r.top > box.bottom) continue;
            const index = Math.round((r.top - body.getBoundingClientRect().top) / r.height);
            const name = tr.querySelector('[data-testid=resource]')!.textContent!;
            if (name !== `shift${String(index + 1).padStart(5, '0')}`) misplaced.push(`${index}:${name}`);
            if (tr.getAttribute('aria-rowindex') !== String(index + 2)) misplaced.push(`aria ${index}`);
          }
        }
        observer.disconnect();
        return { added, counts: [...counts], misplaced: misplaced.slice(0, 5) };
      });
      assert.is(pool.added, 0, 'no row element added or removed while scrolling');
      assert.is(pool.counts.length, 1, `the same number of rows throughout: ${pool.counts.join(', ')}`);
      assert.equal(pool.misplaced, [], 'every row shows the alert of its place');
      // Still a table to assistive technology.
      assert.is(await page.getByRole('columnheader', { name: /Severity/ }).count(), 1);
      assert.ok((await page.getByRole('row').count()) > 10);
    });
  },
);

con(
  'acked, shelved and closed rows wear the status colours; timeout left counts the ack or shelve',
  async (ctx) => {
    await withPage(ctx.browser, LAPTOP, async (page) => {
      const tag = `st${Date.now()}`;
      const shelved = await postAlert(ctx, { resource: `${tag}-shelved`, timeout: 86400 });
      const acked = await postAlert(ctx, { resource: `${tag}-acked`, timeout: 86400 });
      const closed = await postAlert(ctx, { resource: `${tag}-closed`, timeout: 86400 });
      await postAlert(ctx, { resource: `${tag}-open`, timeout: 86400 });
      const timed = (id: string, name: string, timeout?: number) =>
        ctx.api.put(`/alert/${id}/action`, { action: name, text: '', ...(timeout ? { timeout } : {}) });
      assert.is((await timed(shelved, 'shelve', 7200)).status, 200);
      assert.is((await timed(acked, 'ack', 600)).status, 200);
      assert.is((await timed(closed, 'close')).status, 200);
      await page.goto(
        `${ctx.origin}/alerts?q=${q(tag)}&status=open&status=ack&status=shelved&status=closed&sort-by=resource&cols=${ALERTA_COLUMNS}`,
      );
      await rows(page).nth(3).waitFor();
      const row = (what: string) => rows(page).filter({ hasText: `${tag}-${what}` });
      // The shelve's own 2 h and the ack's 10 min, not the alert's 24 h.
      const left = (what: string) => row(what).getByTestId('timeoutLeft');
      await left('shelved')
        .filter({ hasText: /^1:59:\d\d$|^2:00:00$/ })
        .waitFor({ timeout: 5000 });
      await left('acked')
        .filter({ hasText: /^0:09:\d\d$|^0:10:00$/ })
        .waitFor({ timeout: 5000 });
      assert.match((await left('open').textContent()) ?? '', /^23:59:\d\d$|^1d 00:00:00$/);

      const look = (what: string) =>
        row(what).evaluate((tr) => ({
          row: getComputedStyle(tr).backgroundColor,
          badge: getComputedStyle(tr.querySelector('[data-testid=status] span')!).backgroundColor,
          text: getComputedStyle(tr).color,
        }));
      const [s, a, c, o] = [
        await look('shelved'),
        await look('acked'),
        await look('closed'),
        await look('open'),
      ];
      // /config colors.status: ack and shelved are skyblue in Alerta's model.
      assert.is(s.badge, 'rgb(135, 206, 235)');
      assert.is(a.badge, 'rgb(135, 206, 235)');
      assert.is.not(s.row, o.row, 'a shelved row is tinted by its status, not its severity');
      assert.is.not(c.row, o.row, 'a closed row steps back');
      assert.is.not(c.text, o.text);
    });
  },
);

con(
  'dates show their year when it is not this one; actions fit 1366×768; skip link, ≤ 5 Tabs to the first row',
  async (ctx) => {
    await withPage(ctx.browser, LAPTOP, async (page) => {
      const tag = `yr${Date.now()}`;
      const old = await postAlert(ctx, { resource: `${tag}-old`, text: 'x'.repeat(300) });
      await postAlert(ctx, { resource: `${tag}-new`, text: 'y'.repeat(300) });
      await queryDb(
        ctx.db.url,
        `UPDATE alerts SET last_receive_time = '2023-03-05T10:00:00Z' WHERE id = $1`,
        [old],
      );
      await page.goto(`${ctx.origin}/alerts?q=${q(tag)}&cols=${ALERTA_COLUMNS}`);
      await rows(page).nth(1).waitFor();
      const received = (what: string) =>
        rows(page)
          .filter({ hasText: `${tag}-${what}` })
          .getByTestId('lastReceiveTime')
          .textContent();
      assert.match((await received('old')) ?? '', /2023/);
      assert.not.match((await received('new')) ?? '', new RegExp(String(new Date().getFullYear())));

      // Every action button in sight, inside its cell, with no sideways scrolling.
      const fit = await page.evaluate(() => {
        const list = document.querySelector('[data-testid=alert-list]') as HTMLElement;
        const box = list.getBoundingClientRect();
        const cell = document.querySelector('[data-testid=alert-row] td.actions')!.getBoundingClientRect();
        const buttons = [...document.querySelectorAll('[data-testid=alert-row] td.actions button')].map((b) =>
          b.getBoundingClientRect(),
        );
        return {
          scrolls: list.scrollWidth > list.clientWidth,
          cellRight: cell.right,
          visibleRight: box.left + list.clientWidth,
          overflowing: buttons.filter((b) => b.right > cell.right + 0.5).length,
        };
      });
      assert.is(fit.scrolls, false, JSON.stringify(fit));
      assert.ok(fit.cellRight <= fit.visibleRight + 0.5, JSON.stringify(fit));
      assert.is(fit.overflowing, 0, JSON.stringify(fit));

      // The first Tab reaches "Skip to alerts"; from there the first row is one key away.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      let tabs = 0;
      const inFirstRow = () =>
        page.evaluate(() => {
          const first = document.querySelector('[data-testid=alert-row]');
          return !!first && !!document.activeElement && first.contains(document.activeElement);
        });
      let enters = 0;
      while (!(await inFirstRow()) && tabs < 10 && enters < 3) {
        const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
        if (focused === 'Skip to alerts') {
          await page.keyboard.press('Enter');
          enters++;
        } else {
          await page.keyboard.press('Tab');
          tabs++;
        }
      }
      assert.ok(await inFirstRow(), 'the first row has the focus');
      assert.ok(tabs <= 5, `${tabs} Tabs to the first row`);
      await page.keyboard.press('Tab');
      assert.match(
        (await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) ?? '',
        /^Select /,
        'then its controls',
      );
    });
  },
);

con.run();

// ---- a logged-in user: watch, saved searches in user attributes, customer views ------------

const auth = suite<Ctx & { token: string }>('web UI: the console, logged in', {} as Ctx & { token: string });
auth.before(async (ctx) => {
  await startApp(
    ctx,
    securedSettings('browser_console_auth', 'console-secret', {
      PLUGINS: 'remote_ip',
      CUSTOMER_VIEWS: 'True',
      ADMIN_PASSWORD: 'admin-pass',
    }),
  );
  ctx.browser = await launchBrowser();
  const res = await ctx.api.post('/auth/login', { username: 'admin@example.com', password: 'admin-pass' });
  ctx.token = ((await res.json()) as { token: string }).token;
});
auth.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});
const loggedIn = async (ctx: Ctx & { token: string }) => {
  const page = await ctx.browser.newPage();
  await page.addInitScript((t) => localStorage.setItem('alertwall.token', t), ctx.token);
  return page;
};

auth('watch and unwatch tag watch:<login>; "watched only" filters by it', async (ctx) => {
  const page = await loggedIn(ctx);
  const as = { Authorization: `Bearer ${ctx.token}` };
  try {
    const tag = `watch${Date.now()}`;
    for (const r of ['a', 'b']) await postAlert(ctx, { resource: `${tag}-${r}` }, as);
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}&cols=severity,status,resource,tags`);
    await rows(page).nth(1).waitFor();
    await page.getByRole('button', { name: `More actions for ${tag}-a` }).click();
    await page.getByRole('menuitem', { name: 'Watch', exact: true }).click();
    const tagsOf = async (resource: string) => {
      const stored = (await (await ctx.api.get(`/alerts?q=${q(tag)}`, { headers: as })).json()) as {
        alerts: { resource: string; tags: string[] }[];
      };
      return stored.alerts.find((a) => a.resource === resource)?.tags ?? [];
    };
    await until(async () => (await tagsOf(`${tag}-a`)).join() === 'watch:admin@example.com', 'tagged');
    await rows(page)
      .filter({ hasText: `${tag}-a` })
      .getByTestId('tags')
      .filter({ hasText: 'watch:admin@example.com' })
      .waitFor();
    await page.getByRole('group', { name: 'Filters' }).getByLabel('Watched only').check();
    await page.waitForURL(/tag=watch%3Aadmin%40example.com/);
    await until(async () => (await resources(page)).join() === `${tag}-a`, 'watched only');
    await page.getByRole('button', { name: `More actions for ${tag}-a` }).click();
    await page.getByRole('menuitem', { name: 'Unwatch', exact: true }).click();
    await page.getByTestId('empty').filter({ hasText: 'No alerts match' }).waitFor();
  } finally {
    await page.close();
  }
});

auth('saved searches go to the user attributes; the customer column and filter appear', async (ctx) => {
  const page = await loggedIn(ctx);
  const as = { Authorization: `Bearer ${ctx.token}` };
  try {
    const tag = `cust${Date.now()}`;
    await postAlert(ctx, { resource: `${tag}-a`, customer: 'Acme' }, as);
    await page.goto(`${ctx.origin}/alerts?q=${q(tag)}`);
    await rows(page).first().waitFor();
    assert.is(await rows(page).first().getByTestId('customer').textContent(), 'Acme');
    await page.getByRole('group', { name: 'Filters' }).getByLabel('Customer').waitFor();
    await page.getByText('Saved searches', { exact: true }).click();
    await page.getByLabel('Name for the current search').fill('acme');
    await page.getByRole('button', { name: 'Save current query' }).click();
    await page
      .getByRole('list', { name: 'Saved searches' })
      .getByRole('button', { name: 'acme', exact: true })
      .waitFor();
    const attributes = (await (await ctx.api.get('/user/me/attributes', { headers: as })).json()) as {
      attributes: { queries?: { text: string; q: string }[] };
    };
    assert.equal(attributes.attributes.queries, [{ text: 'acme', q: `resource:${tag}*` }]);
  } finally {
    await page.close();
  }
});

auth.run();

// ---- a server that goes away and comes back --------------------------------------------

const restart = suite<Restartable>('web UI: the console across a reconnect', {} as Restartable);
restart.before((ctx) => startRestartable(ctx, 'browser_console_restart'));
restart.after(stopRestartable);

restart(
  'rows stay, dimmed, while disconnected; the reconnect says how many changes it brought',
  async (ctx) => {
    const port = ctx.server.port;
    const origin = `http://127.0.0.1:${port}`;
    for (const r of ['keep', 'gone']) assert.is((await sendAlert(origin, `restart-${r}`)).status, 201);
    await withPage(ctx.browser, async (page) => {
      await page.goto(`${origin}/alerts`);
      await rows(page).nth(1).waitFor();
      await live(page);
      const scroller = page.locator('[data-stale]');
      assert.is(await scroller.getAttribute('data-stale'), 'false');

      await ctx.server.close();
      await until(async () => (await scroller.getAttribute('data-stale')) === 'true', 'dimmed', 5000);
      assert.is(await rows(page).count(), 2, 'the rows stay');
      // Changed while nobody was listening: only the new snapshot can tell.
      await queryDb(ctx.db.url, `DELETE FROM alerts WHERE resource = 'restart-gone'`);

      await restartServer(ctx, port);
      await page
        .getByTestId('reconnected')
        .filter({ hasText: 'Reconnected, 1 change applied' })
        .waitFor({ timeout: 15_000 });
      assert.is(await scroller.getAttribute('data-stale'), 'false');
      assert.equal(await resources(page), ['restart-keep']);
    });
  },
);

restart.run();
