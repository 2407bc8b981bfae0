/**
 * Notifications in plain sight (issue #40, item 3): each receiver's health on the receivers page, a
 * form per receiver type (secrets as password fields), escalation steps as rows, the Test outcome
 * beside its button, the delivery history with filters and pages, the wall's badge while a paging
 * receiver fails (and not for a wall that may not read notifications), and the alert page saying
 * what a queued notification is doing. axe finds nothing on the receivers and deliveries pages.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { until } from '../helpers/live.ts';
import { StubService } from '../helpers/receivers.ts';
import { axeViolations } from './axe.ts';
import { launchBrowser, withPage } from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
  /** Answers 200. */
  ok: StubService;
  /** Not listening while the test wants a receiver down: connections refused. */
  down: StubService;
  alertId: string;
}

const json = async <T>(res: Response): Promise<T> => {
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

/** Retries every 2 s doubling to 20 s, so a failing receiver keeps a next attempt in the future. */
const SETTINGS = {
  PLUGINS: 'remote_ip',
  NOTIFY_RETRY_DELAY: '2',
  NOTIFY_RETRY_MAX_DELAY: '20',
};

const test = suite<Ctx>('web UI: notifications in plain sight', {} as Ctx);
test.before(async (ctx) => {
  ctx.ok = await StubService.start();
  ctx.down = await StubService.start();
  await ctx.down.down();
  await startApp(ctx, { TEST_LABEL: 'browser_notify_noc', ...SETTINGS });
  const { api } = ctx;
  await json(
    await api.post('/notifications/receivers', {
      name: 'ok-hook',
      type: 'webhook',
      settings: { url: ctx.ok.url('/ok') },
    }),
  );
  await json(
    await api.post('/notifications/receivers', {
      name: 'down-hook',
      type: 'webhook',
      settings: { url: ctx.down.url('/down'), secret: 'noc-secret' },
    }),
  );
  await json(
    await api.post('/notifications/rules', {
      name: 'noc-all',
      event: 'NocEvent',
      groupWait: 0,
      receivers: ['ok-hook', 'down-hook'],
    }),
  );
  const posted = await json<{ id: string }>(
    await api.post('/alert', {
      environment: 'Production',
      service: ['payments'],
      resource: 'pay-db-01.prod.example.com',
      event: 'NocEvent',
      severity: 'major',
    }),
  );
  ctx.alertId = posted.id;
  await ctx.ok.waitFor(1, (r) => r.path === '/ok');
  ctx.browser = await launchBrowser();
});
test.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
  await ctx.ok?.close();
  await ctx.down?.close();
});

const receiverRow = (page: Page, name: string) =>
  page
    .locator('section')
    .filter({ hasText: 'Notification receivers' })
    .getByTestId('admin-row')
    .filter({ has: page.getByRole('rowheader').filter({ hasText: name }) });

test('a failing receiver is obvious: since when, its last error, what waits; a working one its last success', async ({
  browser,
  origin,
}) => {
  await withPage(browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
    await page.goto(`${origin}/notifications`);
    const down = receiverRow(page, 'down-hook');
    await down.and(page.locator('[data-state=failing]')).waitFor();
    const health = await down.getByTestId('health').innerText();
    assert.match(health, /FAILING/);
    assert.match(health, /since \S+ \(\d+ s ago\)/);
    assert.match(health, /\d+ attempts? failed/);
    assert.match(await down.innerText(), /ECONNREFUSED/);
    assert.ok(Number((await down.getByTestId('queued').innerText()).split('\n')[0]) >= 1, 'a message waits');
    assert.not.match(await down.innerText(), /noc-secret/);

    const ok = receiverRow(page, 'ok-hook');
    await ok.and(page.locator('[data-state=ok]')).waitFor();
    assert.match(await ok.getByTestId('health').innerText(), /^OK/);
    assert.match(await ok.innerText(), /\d+ s ago/, 'its last success');
    assert.match(
      await page.getByTestId('receivers-failing').innerText(),
      /1 of 2 receivers failing: down-hook/,
    );
    // The failing row stands out: its own background, not the table's.
    const [failingBg, okBg] = await Promise.all(
      [down, ok].map((row) => row.evaluate((e) => getComputedStyle(e).backgroundColor)),
    );
    assert.is.not(failingBg, okBg);
    assert.equal(await axeViolations(page), []);
    await page.screenshot({ path: '/tmp/shots/n2/receivers-1080.png', fullPage: true });
  });
});

test('a receiver made with its type form: the secret in a password field, kept by an edit that leaves it empty; Test answers beside its button', async ({
  browser,
  origin,
  api,
  ok,
}) => {
  await withPage(browser, async (page) => {
    await page.goto(`${origin}/notifications`);
    const section = page.locator('section').filter({ hasText: 'Notification receivers' });
    const form = section.getByRole('form', { name: 'New' });
    await form.getByLabel('Name', { exact: true }).fill('pd-form');
    await form.locator('select[name=type]').selectOption('pagerduty');
    const key = form.getByLabel('Routing key', { exact: true });
    assert.is(await key.getAttribute('type'), 'password');
    await key.fill('PD-ROUTING-KEY-123');
    await form.getByLabel('Events API URL', { exact: true }).fill(ok.url('/pd'));
    await form.getByRole('button', { name: 'Create' }).click();
    const row = receiverRow(page, 'pd-form');
    await row.waitFor();
    assert.match(await row.innerText(), /paging/);
    const stored = await json<{ receiver: { settings: Record<string, unknown> } }>(
      await api.get('/notifications/receivers/pd-form'),
    );
    assert.equal(stored.receiver.settings, { routingKey: '********', url: ok.url('/pd') });

    await row.getByRole('button', { name: 'Edit pd-form' }).click();
    const edit = section.getByRole('form', { name: 'Edit' });
    assert.is(await edit.getByLabel('Routing key', { exact: true }).inputValue(), '');
    await edit.getByLabel('Rate limit (per minute)').fill('5');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved pd-form' }).waitFor();
    const saved = await json<{ receiver: { rateLimit: number } }>(
      await api.get('/notifications/receivers/pd-form'),
    );
    assert.is(saved.receiver.rateLimit, 5);

    await row.getByRole('button', { name: 'Test pd-form' }).click();
    await row.getByTestId('test-result').filter({ hasText: 'pd-form: test message sent' }).waitFor();
    const [sent] = await ok.waitFor(1, (r) => r.path === '/pd');
    assert.is(sent!.json.routing_key, 'PD-ROUTING-KEY-123', 'the stored key was kept');

    await receiverRow(page, 'down-hook').getByRole('button', { name: 'Test down-hook' }).click();
    await receiverRow(page, 'down-hook')
      .getByTestId('test-result')
      .filter({ hasText: /down-hook: failed \(.*ECONNREFUSED/ })
      .waitFor();
  });
});

test('escalation steps are rows: add two, remove the first, the rule keeps the other', async ({
  browser,
  origin,
  api,
}) => {
  await withPage(browser, async (page) => {
    await page.goto(`${origin}/notifications`);
    const section = page.locator('section').filter({ hasText: 'Routing rules' });
    const form = section.getByRole('form', { name: 'New' });
    await form.getByLabel('Name', { exact: true }).fill('esc-rule');
    await form.getByLabel('Event', { exact: true }).fill('NocEscalate');
    await form.getByRole('group', { name: 'Receivers' }).getByRole('checkbox', { name: 'ok-hook' }).check();
    await form.getByRole('button', { name: 'Add escalation step' }).click();
    await form.getByRole('button', { name: 'Add escalation step' }).click();
    const steps = form.getByTestId('escalation-step');
    assert.is(await steps.count(), 2);
    await steps.nth(0).getByLabel('After (s)').fill('600');
    await steps.nth(0).getByRole('checkbox', { name: 'ok-hook' }).check();
    await steps.nth(1).getByLabel('After (s)').fill('1800');
    await steps.nth(1).getByRole('checkbox', { name: 'pd-form' }).check();
    await form.getByRole('button', { name: 'Remove escalation step 1' }).click();
    assert.is(await steps.count(), 1);
    await form.getByRole('button', { name: 'Create' }).click();
    const row = section.getByTestId('admin-row').filter({ hasText: 'esc-rule' });
    await row.waitFor();
    assert.match(await row.innerText(), /after 30 min → pd-form/);
    const { rule } = await json<{ rule: { escalations: unknown; paging: boolean } }>(
      await api.get('/notifications/rules/esc-rule'),
    );
    assert.equal(rule.escalations, [{ after: 1800, receivers: ['pd-form'] }]);

    // Edit: the step comes back as a row; one more is added and saved.
    await row.getByRole('button', { name: 'Edit esc-rule' }).click();
    const edit = section.getByRole('form', { name: 'Edit' });
    assert.is(await edit.getByTestId('escalation-step').count(), 1);
    await edit.getByRole('button', { name: 'Add escalation step' }).click();
    await edit.getByTestId('escalation-step').nth(1).getByRole('checkbox', { name: 'down-hook' }).check();
    await edit.getByRole('checkbox', { name: /^Pages/ }).check();
    await edit.getByRole('checkbox', { name: /^Tells when maintenance windows/ }).check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved esc-rule' }).waitFor();
    assert.match(await row.innerText(), /maintenance notices/);
    const after = await json<{ rule: { escalations: unknown; paging: boolean; blackoutNotices: boolean } }>(
      await api.get('/notifications/rules/esc-rule'),
    );
    assert.equal(after.rule.escalations, [
      { after: 1800, receivers: ['pd-form'] },
      { after: 3600, receivers: ['down-hook'] },
    ]);
    assert.is(after.rule.paging, true);
    assert.is(after.rule.blackoutNotices, true);
    await section.getByRole('button', { name: 'Delete esc-rule' }).click();
    await section.getByRole('button', { name: 'Confirm delete esc-rule' }).click();
    await row.waitFor({ state: 'detached' });
  });
});

test('the alert page says what a queued notification is doing, never a due time gone by', async ({
  browser,
  origin,
  api,
  alertId,
}) => {
  await json(
    await api.post('/notifications/rules', {
      name: 'noc-wait',
      event: 'NocWait',
      groupWait: 3600,
      receivers: ['ok-hook'],
    }),
  );
  const waiting = await json<{ id: string }>(
    await api.post('/alert', {
      environment: 'Production',
      resource: 'web-07',
      event: 'NocWait',
      severity: 'minor',
    }),
  );
  await withPage(browser, async (page) => {
    await page.goto(`${origin}/alert/${alertId}`);
    const panel = page.getByTestId('notification-status');
    const retrying = panel.getByTestId('notification-queued').filter({
      hasText:
        /^down-hook \(webhook\): trigger · retrying, next attempt in \d+ s, \d+ attempts? failed: .*ECONNREFUSED/,
    });
    await retrying.waitFor({ timeout: 25_000 });
    assert.not.match(await panel.innerText(), /queued for/);

    await page.goto(`${origin}/alert/${waiting.id}`);
    await panel
      .getByTestId('notification-queued')
      .filter({ hasText: /^ok-hook \(webhook\): trigger · waiting until \S+/ })
      .waitFor();
  });
});

test('the delivery history: every attempt, filtered by outcome and receiver, in pages', async ({
  browser,
  origin,
  api,
  alertId,
}) => {
  // down-hook keeps retrying, so the total grows while the test runs.
  const all = await json<{ total: number }>(await api.get('/notifications/deliveries'));
  assert.ok(all.total >= 3, `deliveries so far: ${all.total}`);
  await withPage(browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
    await page.goto(`${origin}/notifications`);
    const totalShown = async () =>
      Number(/of (\d+) deliveries/.exec(await page.getByTestId('deliveries-count').innerText())?.[1]);
    await page.getByRole('link', { name: 'Delivery history' }).click();
    await page.waitForURL(/\/notifications\/deliveries$/);
    const rows = page.getByTestId('delivery-row');
    await rows.first().waitFor();
    // Every attempt recorded by the time the page read it: between the totals before and after.
    const shown = await totalShown();
    const after = await json<{ total: number }>(await api.get('/notifications/deliveries'));
    assert.ok(
      shown >= all.total && shown <= after.total,
      `shown ${shown}, recorded ${all.total} before and ${after.total} after`,
    );

    const form = page.getByRole('form', { name: 'Filter deliveries' });
    await form.getByLabel('Outcome').selectOption('failed');
    await form.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/outcome=failed/);
    // The newest entry may already be a failure before the filtered page arrives: wait for a page
    // of failures only, then read its rows at once.
    const failed = await until(
      async () => {
        const seen = await rows.evaluateAll((rs) =>
          rs.map((r) => [r.getAttribute('data-outcome'), (r as HTMLElement).innerText]),
        );
        return seen.length > 0 && seen.every(([outcome]) => outcome === 'failed') ? seen : undefined;
      },
      10_000,
      'the failed deliveries',
    );
    for (const [, text] of failed) assert.match(text!, /down-hook/);
    assert.match(await rows.first().innerText(), /ECONNREFUSED/);
    // A delivery names its alert, linked.
    const about = rows
      .filter({ has: page.getByRole('link', { name: /pay-db-01\.prod\.example\.com/ }) })
      .first();
    assert.is(await about.getByRole('link').getAttribute('href'), `/alert/${alertId}`);
    assert.equal(await axeViolations(page), []);
    await page.screenshot({ path: '/tmp/shots/n2/deliveries-failed-1080.png', fullPage: true });

    await form.getByLabel('Outcome').selectOption('');
    await form.getByLabel('Receiver').selectOption('ok-hook');
    await form.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/receiver=ok-hook/);
    await until(
      async () => ((await rows.first().innerText()).includes('ok-hook') ? true : undefined),
      5000,
      "ok-hook's deliveries",
    );
    for (const row of await rows.all()) assert.match(await row.innerText(), /ok-hook/);

    // Times are typed in the UI's own format ("1 Jan 2999 00:00", 24-hour), not the browser's
    // mm/dd/yyyy; a 12-hour time is explained and the filter is not applied.
    await form.getByLabel('Receiver').selectOption('');
    await form.getByLabel('From').fill('1 Jan 2999 9pm');
    await form.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('alert').filter({ hasText: 'Use the 24-hour clock' }).waitFor();
    assert.not.match(page.url(), /from=/);
    await form.getByLabel('From').fill('1 Jan 2999 00:00');
    await form.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/from=2999-01-01T/);
    await page
      .getByTestId('deliveries-count')
      .filter({ hasText: 'No deliveries match these filters.' })
      .waitFor();
    assert.is(await form.getByLabel('From').inputValue(), 'Tue 1 Jan 2999 00:00');

    // Pages: one delivery a page, Next goes on.
    await page.goto(`${origin}/notifications/deliveries?page-size=1`);
    const count = page.getByTestId('deliveries-count');
    await count.filter({ hasText: /^1–1 of \d+ deliveries, page 1 of \d+$/ }).waitFor();
    const pages = await totalShown();
    const firstId = await rows.first().innerText();
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Next' }).click();
    await count.filter({ hasText: /^2–2 of \d+ deliveries, page 2 of \d+$/ }).waitFor();
    assert.ok((await totalShown()) >= pages);
    assert.is.not(await rows.first().innerText(), firstId);
    assert.equal(await axeViolations(page), []);
  });
});

test('the wall shows a badge while a paging receiver fails, live, and drops it once it works', async ({
  browser,
  origin,
  api,
  down,
}) => {
  await withPage(browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
    await page.goto(`${origin}/wall`);
    await page.locator('[data-live=true]').waitFor();
    const badge = page.getByTestId('paging-badge');
    // down-hook fails, but it does not page.
    await page.waitForTimeout(1000);
    assert.is(await badge.count(), 0);

    await json(
      await api.post('/notifications/receivers', {
        name: 'pager',
        type: 'opsgenie',
        settings: { apiKey: 'OG-KEY', url: down.url('/og') },
      }),
    );
    await json(
      await api.post('/notifications/rules', {
        name: 'page-it',
        event: 'NocPage',
        groupWait: 0,
        receivers: ['pager'],
      }),
    );
    await api.post('/alert', {
      environment: 'Production',
      resource: 'core-sw-01',
      event: 'NocPage',
      severity: 'critical',
    });
    await badge.filter({ hasText: /PAGING FAILING/ }).waitFor();
    assert.match(await badge.innerText(), /pager since \d\d:\d\d/);
    await page.screenshot({ path: '/tmp/shots/n2/wall-badge-1080.png' });

    await down.up();
    try {
      await badge.waitFor({ state: 'detached', timeout: 30_000 });
    } finally {
      await down.down();
    }
  });
});

test.run();

// ---- a wall whose key may not read notifications ----------------------------------------------

interface AuthCtx extends AppContext {
  browser: Browser;
  down: StubService;
  auth: { headers: Record<string, string> };
}

const scoped = suite<AuthCtx>('web UI: the paging badge follows the wall key’s scopes', {} as AuthCtx);
scoped.before(async (ctx) => {
  ctx.down = await StubService.start();
  await ctx.down.down();
  await startApp(ctx, {
    TEST_LABEL: 'browser_notify_badge',
    ...SETTINGS,
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'noc-badge-secret',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_PASSWORD: 'admin-pass',
  });
  const login = await json<{ token: string }>(
    await ctx.api.post('/auth/login', { username: 'admin@example.com', password: 'admin-pass' }),
  );
  ctx.auth = { headers: { Authorization: `Bearer ${login.token}` } };
  await json(
    await ctx.api.post(
      '/notifications/receivers',
      { name: 'pd-down', type: 'pagerduty', settings: { routingKey: 'K', url: ctx.down.url('/pd') } },
      ctx.auth,
    ),
  );
  await json(
    await ctx.api.post(
      '/notifications/rules',
      { name: 'page', groupWait: 0, receivers: ['pd-down'] },
      ctx.auth,
    ),
  );
  await json(
    await ctx.api.post(
      '/alert',
      { environment: 'Production', resource: 'edge-01', event: 'LinkDown', severity: 'critical' },
      ctx.auth,
    ),
  );
  await until(
    async () => {
      const h = await json<{ pagingFailing: number }>(await ctx.api.get('/notifications/health', ctx.auth));
      return h.pagingFailing > 0 ? true : undefined;
    },
    20_000,
    'pd-down failing',
  );
  ctx.browser = await launchBrowser();
});
scoped.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
  await ctx.down?.close();
});

scoped('a wall key without read:notifications shows no badge; one with it does', async (ctx) => {
  const keyWith = async (scopes: string[]) =>
    (await json<{ key: string }>(await ctx.api.post('/key', { text: scopes.join(' '), scopes }, ctx.auth)))
      .key;
  for (const [scopes, shown] of [
    [['read:alerts'], false],
    [['read:alerts', 'read:notifications'], true],
  ] as const) {
    const key = await keyWith([...scopes]);
    await withPage(ctx.browser, async (page) => {
      await page.goto(`${ctx.origin}/wall?api-key=${key}`);
      await page.getByTestId('wall-alert').first().waitFor();
      const badge = page.getByTestId('paging-badge');
      if (shown) await badge.waitFor();
      else {
        await page.waitForTimeout(1500);
        assert.is(await badge.count(), 0, scopes.join(' '));
      }
    });
  }
});

scoped.run();
