/**
 * The pages around the console as a NOC team reads them (issue #40 item 4, docs/ui-pages.md):
 * Reports' Standing with its age and whole names, Blackouts in the UI's own time format with the
 * allowed environments and "starts in", the navigation following a Dark choice under a light system,
 * the alert page in words, and the Customers page's empty state.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { createAlert } from '../helpers/alerts.ts';
import { launchBrowser, withPage } from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
}

const test = suite<Ctx>('web UI: reports, blackouts, theme, alert page and customers for a NOC', {} as Ctx);
test.before(async (ctx) => {
  await startApp(ctx, {
    TEST_LABEL: 'browser_pages_noc',
    PLUGINS: 'remote_ip',
    ALLOWED_ENVIRONMENTS: 'Production,Staging,Lab',
  });
  ctx.browser = await launchBrowser();
});
test.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

const LONG = 'eu-west-1-production-kubernetes-node-pool-b-worker-0042.cluster.internal.example.com';
const SERVICES = [
  'payments-gateway',
  'checkout',
  'search',
  'catalogue',
  'recommendations',
  'auth',
  'cdn',
  'email',
];

/** The text nodes of `selector`'s elements that the browser broke over more than one line. */
const brokenPieces = (page: Page, selector: string) =>
  page.$$eval(selector, (els) =>
    els.flatMap((el) => {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      const broken: string[] = [];
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(n);
        // One box per line the text node is on (an empty node has none).
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(n.textContent ?? '');
      }
      return broken;
    }),
  );

/** How many lines of type each resource of the NodeDownEverywhere row of Most frequent takes. */
async function resourceLines(page: Page): Promise<number[]> {
  const hosts = page
    .getByTestId('report-count')
    .getByTestId('top-row')
    .filter({ hasText: 'NodeDownEverywhere' })
    .locator('.resources a');
  await hosts.nth(4).waitFor();
  return hosts.evaluateAll((links) =>
    links.map((a) => {
      const r = a.getBoundingClientRect();
      return Math.round(r.height / (parseFloat(getComputedStyle(a).fontSize) * 1.6) + 0.2) || 1;
    }),
  );
}

test('Reports: Standing says how long each group is open; names wrap only between parts; services in two lines at most', async (ctx) => {
  const { api } = ctx;
  // Standing counts severity changes: each alert is sent again at another severity.
  for (const [resource, event] of [
    [LONG, 'KafkaConsumerLagTooHighOnPartitionLeaderReplicas'],
    ['db-1', 'DiskFull'],
  ] as const) {
    await createAlert(api, { resource, event, severity: 'minor', service: SERVICES });
    await createAlert(api, { resource, event, severity: 'major', service: SERVICES });
  }
  // Five hosts of one event: a cell of names that do not all fit on one line.
  for (const n of [1, 2, 3, 4, 5])
    await createAlert(api, { resource: `api0${n}.stg.example.net`, event: 'NodeDownEverywhere' });
  await withPage(ctx.browser, { viewport: { width: 1366, height: 768 } }, async (page) => {
    await page.goto(`${ctx.origin}/reports`);
    const standing = page.getByTestId('report-standing');
    const row = standing.getByTestId('top-row').filter({ hasText: 'KafkaConsumerLag' });
    await row.waitFor();
    assert.ok(await standing.getByRole('columnheader', { name: 'Open since' }).isVisible());
    // Created just now: "0s" to a few seconds, and the time it was created.
    assert.match(await row.getByTestId('open-since').innerText(), /^\d+s\s+\S+ \d+ \w{3} \d\d:\d\d/);
    // The whole name is there, and no part of it is split over two lines.
    assert.ok((await row.innerText()).replace(/\s/g, '').includes(LONG));
    assert.equal(await brokenPieces(page, '[data-testid=report-standing] [data-testid=top-row] a'), []);
    // Eight services: three named and "+5", every name in the title; one or two lines.
    const services = row.getByTestId('services');
    assert.is(await services.innerText(), 'auth, catalogue, cdn +5');
    assert.is(await services.getAttribute('title'), [...SERVICES].sort().join(', '));
    // An inline element has one box per line it is on.
    const lines = await services.evaluate(
      (el) => new Set([...el.getClientRects()].map((r) => Math.round(r.top))).size,
    );
    assert.ok(lines <= 2, `services take ${lines} lines`);
    // A resource that fits its cell moves to the next line whole: one line each (here and at 1920).
    assert.equal(await resourceLines(page), [1, 1, 1, 1, 1]);
    // Count and Flapping have no such column.
    assert.is(
      await page.getByTestId('report-count').getByRole('columnheader', { name: 'Open since' }).count(),
      0,
    );
  });
  await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
    await page.goto(`${ctx.origin}/reports`);
    assert.equal(await resourceLines(page), [1, 1, 1, 1, 1]);
  });
});

test('Blackouts: the allowed environments, times in the UI format with mistakes said, "starts in" for a pending one', async (ctx) => {
  await withPage(
    ctx.browser,
    { viewport: { width: 1366, height: 768 }, timezoneId: 'Europe/Berlin' },
    async (page) => {
      await page.goto(`${ctx.origin}/blackouts`);
      const form = page.getByRole('form', { name: 'New' });
      const environment = form.getByLabel('Environment');
      await environment.locator('option', { hasText: 'Lab' }).waitFor({ state: 'attached' });
      assert.equal(await environment.locator('option').allTextContents(), ['Production', 'Staging', 'Lab']);
      await environment.selectOption('Staging');
      await form.getByLabel('Resource').fill('noc-host');

      // A date as the browser's own picker would want it, and a 12-hour time: both said, nothing sent.
      const start = form.getByLabel('Start');
      assert.is(await start.getAttribute('type'), 'text');
      assert.match((await start.getAttribute('placeholder')) ?? '', /^e\.g\. \w{3} \d+ \w{3} \d\d:\d\d$/);
      await start.fill('11/29/2031 2:00 PM');
      await form.getByTestId('time-note-startTime').filter({ hasText: '24-hour clock' }).waitFor();
      assert.is(await start.getAttribute('aria-invalid'), 'true');
      await start.fill('Tue 1 Dec 2031 14:00');
      await form
        .getByTestId('time-note-startTime')
        .filter({ hasText: '1 Dec 2031 is a Monday, not a Tuesday' })
        .waitFor();
      await start.fill('Sat 29 Nov 14:00 2031');
      await form.getByTestId('time-note-startTime').filter({ hasText: 'Write the time as' }).waitFor();
      await form.getByRole('button', { name: 'Create' }).click();
      assert.is(await page.getByTestId('admin-row').count(), 0, 'nothing created from a wrong time');

      // Starting in 23 hours, for four: written as the UI writes times.
      const at = new Date(Date.now() + 23 * 3600_000 + 5 * 60_000);
      const startText = await page.evaluate((iso) => {
        const d = new Date(iso);
        const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
        const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
        const pad = (n: number) => String(n).padStart(2, '0');
        return `${days[d.getDay()]} ${d.getDate()} ${months[d.getMonth()]} ${d.getFullYear()} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
      }, at.toISOString());
      await start.fill(startText);
      assert.is(await start.getAttribute('aria-invalid'), null);
      await form.getByLabel('Duration (s)').fill(String(4 * 3600));
      await form.getByRole('button', { name: 'Create' }).click();
      const row = page.getByTestId('admin-row').filter({ hasText: 'resource=noc-host' });
      await row.getByTestId('blackout-status').filter({ hasText: 'pending' }).waitFor();
      assert.match(await row.getByTestId('blackout-when').innerText(), /^starts in 23h [45]m, lasts 4h 0m$/);
      assert.not.match(await row.innerText(), /left/);

      const { blackouts } = (await (await ctx.api.get('/blackouts')).json()) as {
        blackouts: { environment: string; startTime: string }[];
      };
      assert.is(blackouts[0]!.environment, 'Staging');
      const expected = new Date(at);
      expected.setSeconds(0, 0);
      assert.is(blackouts[0]!.startTime, expected.toISOString());

      // Editing shows the time in the same format, and keeps the environment.
      await row.getByRole('button', { name: /^Edit/ }).click();
      const edit = page.getByRole('form', { name: 'Edit' });
      assert.match(await edit.getByLabel('Start').inputValue(), /^\w{3} \d+ \w{3}( \d{4})? \d\d:\d\d$/);
      assert.is(await edit.getByLabel('Environment').inputValue(), 'Staging');
    },
  );
});

test('Dark chosen in the app under a light system: the navigation turns dark with the page', async (ctx) => {
  const navBackground = (page: Page) =>
    page.getByRole('navigation', { name: 'Main' }).evaluate((el) => {
      const [r, g, b] = getComputedStyle(el).backgroundColor.match(/\d+/g)!.map(Number);
      return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
    });
  await withPage(
    ctx.browser,
    { colorScheme: 'light', viewport: { width: 1366, height: 768 } },
    async (page) => {
      // The console's theme menu.
      await page.goto(`${ctx.origin}/alerts`);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).waitFor();
      assert.ok((await navBackground(page)) > 0.5, 'light first');
      await page.getByLabel('Theme').selectOption('dark');
      await page.waitForURL(/theme=dark/);
      assert.ok((await navBackground(page)) < 0.2, 'dark with the console');

      // The preference, on every page.
      await page.goto(`${ctx.origin}/profile`);
      const prefs = page.getByRole('form', { name: 'Preferences' });
      await prefs.getByLabel('Theme').selectOption('dark');
      await prefs.getByRole('button', { name: 'Save preferences' }).click();
      await page.getByRole('status').filter({ hasText: 'Preferences saved' }).waitFor();
      for (const path of ['/heartbeats', '/reports', '/alerts']) {
        await page.goto(`${ctx.origin}${path}`);
        await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
        assert.ok((await navBackground(page)) < 0.2, `dark navigation on ${path}`);
      }
    },
  );
});

test('Alert page: field names in words, timeouts in words, empty rows left out', async (ctx) => {
  const daily = await createAlert(ctx.api, {
    resource: 'words-host',
    event: 'WordsEvent',
    severity: 'major',
    timeout: 86400,
    value: null,
  });
  const never = await createAlert(ctx.api, { resource: 'words-host', event: 'NeverTimesOut', timeout: 0 });
  await withPage(ctx.browser, { viewport: { width: 1366, height: 768 } }, async (page) => {
    await page.goto(`${ctx.origin}/alert/${daily.id}`);
    await page.getByTestId('field-status').waitFor();
    const names = await page.locator('table.fields > tbody > tr > th').allInnerTexts();
    for (const name of ['Duplicates', 'Last received', 'Previous severity', 'Created', 'Timeout'])
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    assert.equal(
      names.filter((n) => /[a-z][A-Z]/.test(n)),
      [],
      'no camelCase',
    );
    assert.is(await page.getByTestId('field-timeout').innerText(), '1 day');
    // No value, no customer, no correlated events: no rows for them.
    for (const empty of ['value', 'customer', 'correlate'])
      assert.is(await page.getByTestId(`field-${empty}`).count(), 0, `no ${empty} row`);
    // The ack timeout said in words as it is typed.
    await page.getByLabel('Ack timeout (s)').fill('0');
    assert.is(await page.getByTestId('ack-timeout-words').innerText(), '(no timeout)');
    await page.getByLabel('Ack timeout (s)').fill('7200');
    assert.is(await page.getByTestId('ack-timeout-words').innerText(), '(2 hours)');

    await page.goto(`${ctx.origin}/alert/${never.id}`);
    await page.getByTestId('field-timeout').filter({ hasText: 'no timeout' }).waitFor();
  });
});

test('Customers: an empty list says what customers are for', async (ctx) => {
  await withPage(ctx.browser, { viewport: { width: 1366, height: 768 } }, async (page) => {
    await page.goto(`${ctx.origin}/customers`);
    const empty = page.getByTestId('admin-empty');
    await empty.waitFor();
    assert.match(await empty.innerText(), /No customers yet/);
    assert.is(await page.locator('table').count(), 0);
    const form = page.getByRole('form', { name: 'New' });
    await form.getByLabel('Login, group or domain').fill('example.com');
    await form.getByLabel('Customer', { exact: true }).fill('Example');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByTestId('admin-row').filter({ hasText: 'Example' }).waitFor();
    assert.is(await empty.count(), 0);
  });
});

test.run();
