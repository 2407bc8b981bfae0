/**
 * Accessibility (issue #40 item 5): axe-core, every default rule, finds nothing on the seven pages a
 * NOC team uses (docs/ui-pages.md), each with realistic data; and the layout's frame every page
 * shares: one main landmark, a skip link whose target is in the markup.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { createAlert } from '../helpers/alerts.ts';
import { axeViolations } from './axe.ts';
import { launchBrowser, withPage } from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
  /** The alert whose page /alert/:id shows: acked, with a note and a history. */
  alertId: string;
}

const SEVERITIES = ['critical', 'major', 'minor', 'warning', 'informational', 'indeterminate', 'normal'];
const EVENTS = ['NodeDown', 'DiskFull', 'HighLatency', 'KafkaConsumerLag', 'CertificateExpiresSoon'];
const SERVICES = ['web', 'api', 'payments-gateway', 'storage', 'queue'];

/** Fifty alerts of every severity, environments and services, long names, some acked and shelved. */
async function seed(ctx: Ctx): Promise<void> {
  const { api } = ctx;
  const ids: string[] = [];
  for (let i = 0; i < 50; i++) {
    const alert = await createAlert(api, {
      resource: i % 7 === 0 ? `eu-west-1-production-kubernetes-node-pool-b-${i}` : `host-${i}`,
      event: EVENTS[i % EVENTS.length],
      severity: SEVERITIES[i % SEVERITIES.length],
      environment: i % 4 === 0 ? 'Staging' : 'Production',
      service: [SERVICES[i % SERVICES.length], ...(i % 3 === 0 ? ['checkout', 'search'] : [])],
      group: i % 2 === 0 ? 'Infrastructure' : 'Application',
      text: `Something measured on host-${i} is beyond its threshold`,
      value: `${90 + (i % 10)}%`,
      timeout: i === 0 ? 0 : 86400,
      attributes: { runbook: 'https://runbooks.example.com/disk' },
    });
    ids.push(alert.id);
  }
  for (const id of ids.slice(0, 8)) await api.put(`/alert/${id}/status`, { status: 'ack', text: 'looking' });
  for (const id of ids.slice(8, 11))
    await api.put(`/alert/${id}/status`, { status: 'shelved', timeout: 3600 });
  await api.put(`/alert/${ids[1]}/note`, { text: 'Disk replaced in the morning window' });
  ctx.alertId = ids[1]!;

  await api.post('/heartbeat', { origin: 'probes/eu-west-1', timeout: 600, tags: ['probe'] });
  await api.post('/heartbeat', { origin: 'probes/us-east-1-with-a-long-origin-name', timeout: 600 });
  await api.post('/heartbeat', {
    origin: 'probes/expired',
    timeout: 60,
    createTime: new Date(Date.now() - 3_600_000).toISOString(),
  });
  const hour = 3_600_000;
  await api.post('/blackout', {
    environment: 'Production',
    service: ['payments-gateway'],
    startTime: new Date(Date.now() - hour).toISOString(),
    endTime: new Date(Date.now() + 3 * hour).toISOString(),
    text: 'Database upgrade',
  });
  await api.post('/blackout', {
    environment: 'Staging',
    startTime: new Date(Date.now() + 23 * hour).toISOString(),
    endTime: new Date(Date.now() + 27 * hour).toISOString(),
  });
  await api.post('/notifications/receivers', {
    name: 'ops-chat',
    type: 'webhook',
    settings: { url: 'http://127.0.0.1:9/hook', secret: 'a11y-secret' },
  });
  await api.post('/notifications/rules', {
    name: 'everything',
    receivers: ['ops-chat'],
    minSeverity: 'major',
  });
}

const test = suite<Ctx>('web UI: accessibility of the pages a NOC team uses', {} as Ctx);
test.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'browser_a11y', PLUGINS: 'remote_ip,blackout' });
  await seed(ctx);
  ctx.browser = await launchBrowser();
});
test.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

/** Each page with what shows it is drawn with its data. */
const PAGES: [string, (ctx: Ctx) => string, (page: Page) => Promise<unknown>][] = [
  ['/wall', () => '/wall', (p) => p.getByTestId('wall-alert').first().waitFor()],
  ['/alerts', () => '/alerts', (p) => p.getByTestId('alert-row').first().waitFor()],
  ['/alert/:id', (c) => `/alert/${c.alertId}`, (p) => p.getByRole('heading', { level: 1 }).waitFor()],
  ['/notifications', () => '/notifications', (p) => p.getByText('ops-chat').first().waitFor()],
  ['/heartbeats', () => '/heartbeats', (p) => p.getByText('probes/expired').first().waitFor()],
  ['/blackouts', () => '/blackouts', (p) => p.getByText('Database upgrade').first().waitFor()],
  ['/reports', () => '/reports', (p) => p.getByTestId('top-row').first().waitFor()],
];

test('every page has one main landmark, the skip link goes to it without script', async (ctx) => {
  for (const [name, path, ready] of PAGES) {
    await withPage(ctx.browser, { viewport: { width: 1366, height: 768 } }, async (page) => {
      await page.goto(`${ctx.origin}${path(ctx)}`);
      await ready(page);
      assert.is(await page.getByRole('main').count(), 1, `${name}: one main`);
      const skip = page.locator('a.skip');
      if ((await skip.count()) === 0) return; // the wall: no navigation to skip
      const href = await skip.getAttribute('href');
      assert.ok(href?.startsWith('#'), `${name}: the skip link is a fragment link`);
      assert.is(await page.locator(href!).count(), 1, `${name}: its target ${href} is there`);
      assert.is(await page.locator(`main${href}`).count(), 1, `${name}: the target is the main landmark`);
    });
  }
});

test('the skip link is the first Tab stop and moves the focus past the navigation', async (ctx) => {
  await withPage(ctx.browser, { viewport: { width: 1366, height: 768 } }, async (page) => {
    await page.goto(`${ctx.origin}/heartbeats`);
    await page.getByText('probes/expired').first().waitFor();
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    assert.ok(await skip.evaluate((e) => e === document.activeElement), 'first Tab stop');
    assert.ok((await skip.boundingBox())!.y >= 0, 'in sight once focused');
    await page.keyboard.press('Enter');
    assert.is(await page.evaluate(() => document.activeElement?.id), 'main');
    // The next Tab goes into the page's content, not back to the navigation.
    await page.keyboard.press('Tab');
    assert.ok(
      await page.evaluate(() => document.querySelector('main')!.contains(document.activeElement)),
      'the next stop is inside main',
    );
  });
});

for (const [name, path, ready] of PAGES) {
  test(`axe-core finds no violations on ${name}`, async (ctx) => {
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      await page.goto(`${ctx.origin}${path(ctx)}`);
      await ready(page);
      assert.equal(await axeViolations(page), []);
    });
  });
}

test.run();
