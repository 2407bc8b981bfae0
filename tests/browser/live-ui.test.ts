import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { launchBrowser, withPage } from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
}

const ui = suite<Ctx>('web UI: live console and wall', {} as Ctx);
ui.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'browser_ui', PLUGINS: 'remote_ip' });
  ctx.browser = await launchBrowser();
});
ui.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

const post = (ctx: Ctx, resource: string, severity = 'major') =>
  ctx.api.post('/alert', {
    resource,
    event: 'UiTest',
    environment: 'Production',
    service: ['web'],
    severity,
  });

for (const [path, rowId] of [
  ['/alerts', 'alert-row'],
  ['/wall', 'wall-alert'],
] as const) {
  ui(`an alert posted over HTTP appears on ${path} within 1 s, without a reload`, async (ctx) => {
    await withPage(ctx.browser, async (page) => {
      let loads = 0;
      page.on('load', () => loads++);
      await page.goto(`${ctx.origin}${path}`);
      // Live once the socket is connected and its snapshot has answered (data-live); the banner
      // alone is no sign: it is absent too while the page still connects.
      await page.waitForFunction(
        () =>
          document.querySelector('[data-live=true]') &&
          !document.querySelector('[data-testid=connection-banner]'),
        null,
        { timeout: 10_000 },
      );
      const resource = `ui-${path.slice(1)}-${Date.now()}`;
      const started = Date.now();
      const res = await post(ctx, resource);
      assert.is(res.status, 201);
      await page.getByTestId(rowId).filter({ hasText: resource }).waitFor({ timeout: 1000 });
      assert.ok(Date.now() - started <= 1000, `took ${Date.now() - started} ms`);
      assert.is(loads, 1, 'no reload');
    });
  });
}

ui('the search lives in the URL: it filters the list and survives a reload', async (ctx) => {
  await withPage(ctx.browser, async (page) => {
    const tag = `q${Date.now()}`;
    await post(ctx, `${tag}-keep`);
    await post(ctx, `other-${Date.now()}`);
    await page.goto(`${ctx.origin}/alerts`);
    await page.getByLabel('Search (q)').fill(`resource:${tag}`);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/q=resource%3A/);
    await page
      .getByTestId('alert-row')
      .filter({ hasText: `${tag}-keep` })
      .waitFor();
    await page.reload();
    await page
      .getByTestId('alert-row')
      .filter({ hasText: `${tag}-keep` })
      .waitFor();
    const resources = await page.getByTestId('resource').allTextContents();
    assert.equal(resources, [`${tag}-keep`]);
    assert.is(await page.getByLabel('Search (q)').inputValue(), `resource:${tag}`);
  });
});

ui('the sort lives in the URL too: rows follow it, before and after a reload', async (ctx) => {
  await withPage(ctx.browser, async (page) => {
    const tag = `sort${Date.now()}`;
    for (const r of ['b', 'c', 'a']) assert.is((await post(ctx, `${tag}-${r}`, 'minor')).status, 201);
    await page.goto(`${ctx.origin}/alerts?q=${encodeURIComponent(`resource:${tag}`)}`);
    await page.getByTestId('alert-row').nth(2).waitFor();
    await page.getByLabel('Sort by').selectOption({ label: 'Resource' });
    await page.waitForURL(/sort-by=resource/);
    const order = async () => {
      await page.getByTestId('alert-row').nth(2).waitFor();
      return page.getByTestId('resource').allTextContents();
    };
    assert.equal(await order(), [`${tag}-a`, `${tag}-b`, `${tag}-c`]);
    await page.reload();
    assert.equal(await order(), [`${tag}-a`, `${tag}-b`, `${tag}-c`]);
    assert.is(await page.getByLabel('Sort by').inputValue(), 'resource');
    await page.goto(
      `${ctx.origin}/alerts?q=${encodeURIComponent(`resource:${tag}`)}&sort-by=-lastReceiveTime`,
    );
    assert.equal(await order(), [`${tag}-b`, `${tag}-c`, `${tag}-a`]);
  });
});

ui('environment tabs count the view and follow changes; a tab filters by environment', async (ctx) => {
  await withPage(ctx.browser, async (page) => {
    const tag = `env${Date.now()}`;
    const postIn = (resource: string, environment: string) =>
      ctx.api.post('/alert', { resource, event: 'Tab', environment, service: ['web'], severity: 'minor' });
    await postIn(`${tag}-p1`, 'Production');
    await postIn(`${tag}-d1`, 'Development');
    await page.goto(`${ctx.origin}/alerts?q=${encodeURIComponent(`resource:${tag}`)}`);
    const tabs = page.getByRole('navigation', { name: 'Environments' });
    await tabs.getByRole('link', { name: 'Development (1)' }).waitFor();
    await tabs.getByRole('link', { name: 'All (2)' }).waitFor();
    await postIn(`${tag}-d2`, 'Development');
    await tabs.getByRole('link', { name: 'Development (2)' }).waitFor({ timeout: 5000 });
    await tabs.getByRole('link', { name: 'Development (2)' }).click();
    await page.waitForURL(/environment=Development/);
    await page.getByTestId('alert-row').nth(1).waitFor();
    const resources = (await page.getByTestId('resource').allTextContents()).sort();
    assert.equal(resources, [`${tag}-d1`, `${tag}-d2`]);
  });
});

ui('bulk actions: selected rows, then every alert matching the view, through /_bulk', async (ctx) => {
  await withPage(ctx.browser, async (page) => {
    const tag = `bulk${Date.now()}`;
    for (const r of ['a', 'b', 'c']) assert.is((await post(ctx, `${tag}-${r}`, 'minor')).status, 201);
    await page.goto(`${ctx.origin}/alerts?q=${encodeURIComponent(`resource:${tag}`)}`);
    await page.getByTestId('alert-row').nth(2).waitFor();
    await page.getByLabel(`Select ${tag}-a`).check();
    await page.getByLabel(`Select ${tag}-b`).check();
    assert.is(await page.getByTestId('selection').textContent(), '2 selected');
    await page.getByRole('button', { name: 'Ack selected', exact: true }).click();
    for (const r of ['a', 'b']) {
      await page
        .getByTestId('alert-row')
        .filter({ hasText: `${tag}-${r}` })
        .getByTestId('status')
        .filter({ hasText: 'ack' })
        .waitFor({ timeout: 5000 });
    }
    assert.is(
      await page
        .getByTestId('alert-row')
        .filter({ hasText: `${tag}-c` })
        .getByTestId('status')
        .textContent(),
      'open',
    );
    // The header checkbox selects the page; "all N matching" (the view's filter) is offered when
    // the view holds more than the page (tests/browser/console-noc.test.ts).
    await page.getByLabel('Select the alerts on this page').check();
    assert.is(await page.getByTestId('selection').textContent(), '3 selected');
    await page.getByRole('button', { name: 'Close selected', exact: true }).click();
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('[data-testid=status]')].length === 3 &&
        [...document.querySelectorAll('[data-testid=status]')].every((e) => e.textContent === 'closed'),
      null,
      { timeout: 5000 },
    );
  });
});

ui(
  'keyboard: j/k move, a acks, / focuses the search, ? lists the keys; CSV export of the view',
  async (ctx) => {
    await withPage(ctx.browser, async (page) => {
      const tag = `keys${Date.now()}`;
      for (const r of ['a', 'b']) assert.is((await post(ctx, `${tag}-${r}`, 'minor')).status, 201);
      await page.goto(`${ctx.origin}/alerts?q=${encodeURIComponent(`resource:${tag}`)}&sort-by=resource`);
      await page.getByTestId('alert-row').nth(1).waitFor();
      await page.keyboard.press('j');
      await page.keyboard.press('j');
      await page.keyboard.press('k');
      const current = page.locator('tr[aria-selected=true]');
      assert.match((await current.getByTestId('resource').textContent()) ?? '', new RegExp(`${tag}-a$`));
      await page.keyboard.press('a');
      await current.getByTestId('status').filter({ hasText: 'ack' }).waitFor({ timeout: 5000 });
      await page.keyboard.press('?');
      await page.getByRole('definition').filter({ hasText: 'ack / shelve / close it' }).waitFor();
      await page.keyboard.press('/');
      assert.ok(await page.getByLabel('Search (q)').evaluate((e) => e === document.activeElement));
      await page.keyboard.type('x'); // typing in the search is not a shortcut
      assert.is(await page.getByLabel('Search (q)').inputValue(), `resource:${tag}x`);
      await page.keyboard.press('Escape');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export CSV' }).click(),
      ]);
      const csv = Buffer.concat(await (await download.createReadStream()).toArray()).toString('utf8');
      assert.ok(csv.startsWith('\uFEFF'), 'UTF-8 with a byte-order mark');
      const lines = csv.slice(1).trim().split('\r\n');
      // The API's fields in its order, then the attributes flattened (remote_ip adds `ip`).
      const header = lines[0]!.split(',');
      assert.equal(
        header.slice(0, 25).join(','),
        'id,resource,event,environment,severity,correlate,status,service,group,value,text,tags,origin,type,' +
          'createTime,timeout,customer,duplicateCount,repeat,previousSeverity,trendIndication,receiveTime,' +
          'lastReceiveId,lastReceiveTime,updateTime',
      );
      assert.ok(header.includes('attributes.ip'), header.join(','));
      assert.ok(
        header.slice(25).every((h) => h.startsWith('attributes.')),
        header.join(','),
      );
      assert.is(lines.length, 3);
      assert.ok(lines[1]!.includes(`${tag}-a`) && lines[1]!.includes(',ack,'));
    });
  },
);

ui('theme and density are chosen in the page and kept in the URL', async (ctx) => {
  await withPage(ctx.browser, { colorScheme: 'light' }, async (page) => {
    await post(ctx, `look-${Date.now()}`);
    await page.goto(`${ctx.origin}/alerts`);
    await page.getByTestId('alert-row').first().waitFor();
    const background = () => page.locator('.page').evaluate((e) => getComputedStyle(e).backgroundColor);
    assert.is(await background(), 'rgb(250, 250, 250)');
    await page.getByLabel('Theme', { exact: true }).selectOption('dark');
    await page.waitForURL(/theme=dark/);
    await page.getByTestId('alert-row').first().waitFor();
    assert.is(await background(), 'rgb(18, 18, 18)');
    const rowHeight = () =>
      page
        .getByTestId('alert-row')
        .first()
        .evaluate((e) => e.getBoundingClientRect().height);
    const comfortable = await rowHeight();
    await page.getByLabel('Compact rows').check();
    await page.waitForURL(/density=compact/);
    await page.getByTestId('alert-row').first().waitFor();
    assert.ok((await rowHeight()) < comfortable, 'compact rows are lower');
    await page.reload();
    await page.getByTestId('alert-row').first().waitFor();
    assert.is(await background(), 'rgb(18, 18, 18)');
    assert.ok(await page.getByLabel('Compact rows').isChecked());
  });
});

ui('the about page shows the release', async (ctx) => {
  await withPage(ctx.browser, async (page) => {
    await page.goto(`${ctx.origin}/about`);
    await page
      .getByTestId('release')
      .filter({ hasText: /\d+\.\d+\.\d+/ })
      .waitFor();
  });
});

ui('an ack made in one browser is seen in another without a reload', async (ctx) => {
  const one = await ctx.browser.newContext();
  const two = await ctx.browser.newContext();
  try {
    const resource = `ack-${Date.now()}`;
    assert.is((await post(ctx, resource)).status, 201);
    const [a, b] = await Promise.all([one.newPage(), two.newPage()]);
    for (const page of [a, b]) {
      await page.goto(`${ctx.origin}/alerts`);
      await page.getByTestId('alert-row').filter({ hasText: resource }).waitFor();
    }
    await a.getByRole('button', { name: `Ack ${resource}` }).click();
    const rowB = b.getByTestId('alert-row').filter({ hasText: resource });
    await rowB.getByTestId('status').filter({ hasText: 'ack' }).waitFor({ timeout: 2000 });
    // The other browser now offers the actions of an acked alert.
    await b.getByRole('button', { name: `Unack ${resource}` }).waitFor({ timeout: 1000 });
  } finally {
    await one.close();
    await two.close();
  }
});

ui('a changed alert arrives as a patch and the row shows its new state', async (ctx) => {
  await withPage(ctx.browser, async (page) => {
    const frames: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
    const resource = `ui-patch-${Date.now()}`;
    assert.is((await post(ctx, resource, 'minor')).status, 201);
    await page.goto(`${ctx.origin}/alerts?q=${encodeURIComponent(`resource:${resource}`)}`);
    const row = page.getByTestId('alert-row').filter({ hasText: resource });
    await row.waitFor();
    await page.waitForFunction(() => document.querySelector('[data-live=true]'), null, { timeout: 10_000 });
    assert.is(await row.getByTestId('severity').textContent(), 'minor');
    // The first change after the snapshot comes in full (the server knows what it sent, not what
    // the page read); from then on a change travels as only what changed.
    for (const severity of ['major', 'critical']) {
      assert.is((await post(ctx, resource, severity)).status, 201);
      await page.waitForFunction(
        ([r, sev]) =>
          [...document.querySelectorAll('[data-testid=alert-row]')].some(
            (el) =>
              el.textContent?.includes(r) && el.querySelector('[data-testid=severity]')?.textContent === sev,
          ),
        [resource, severity] as const,
        { timeout: 5000 },
      );
    }
    const patch = frames.find((f) => f.includes('"alert.updated"') && f.includes('"patches"'));
    assert.ok(patch, 'the change came as a patch');
    assert.not.ok(patch.includes('"href"'), 'without the fields that did not change');
    assert.is(await row.getByTestId('resource').textContent(), resource, 'the rest of the row as before');
  });
});

ui.run();
