import { mkdirSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { axeViolations } from './axe.ts';
import { launchBrowser, withPage } from './browser.ts';

/**
 * The wall's "in maintenance" (issue #41 item 3, docs/ui-wall.md): an alert a blackout in force
 * now covers shows a wrench MAINT badge on a muted, hatched row, as the server decides and pushes
 * it (`maintenance`, docs/live.md); when a window starts or ends the rows change without a reload,
 * and alerts no blackout covers stay as they were. WALL_SHOTS=<dir> also writes screenshots.
 */
interface Ctx extends AppContext {
  browser: Browser;
}

const maint = suite<Ctx>('web UI: the wall in maintenance', {} as Ctx);
maint.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'browser_wall_maint', PLUGINS: 'remote_ip' });
  ctx.browser = await launchBrowser();
});
maint.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

const SEVERITIES = ['critical', 'major', 'minor', 'warning', 'informational'];
const iso = (t: number) => new Date(t).toISOString();

/** Alerts in `group`: `names` are resources in Production, one per severity in turn. */
async function raise(ctx: Ctx, group: string, names: string[], environment = 'Production'): Promise<void> {
  for (const [i, resource] of names.entries()) {
    const res = await ctx.api.post('/alert', {
      resource,
      event: i % 2 ? 'KafkaConsumerLagExceedsThreshold' : 'DiskFull',
      environment,
      service: ['checkout-frontend-platform'],
      group,
      severity: SEVERITIES[i % SEVERITIES.length],
    });
    assert.is(res.status, 201, await res.clone().text());
  }
}

async function blackout(ctx: Ctx, body: Record<string, unknown>): Promise<string> {
  const res = await ctx.api.post('/blackout', body);
  assert.is(res.status, 201, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

async function openWall(page: Page, ctx: Ctx, search: string): Promise<void> {
  await page.goto(`${ctx.origin}/wall?${search}`);
  await page.waitForFunction(
    () =>
      document.querySelector('.wall[data-live=true]') && document.querySelector('[data-testid=wall-alert]'),
    null,
    { timeout: 15_000 },
  );
  // Set once: still there at the end shows the page was never loaded again.
  await page.evaluate(() => ((window as unknown as { unreloaded: boolean }).unreloaded = true));
}

/** Resources of the rows shown in maintenance, sorted. */
const inMaintenance = (page: Page) =>
  page.$$eval('[data-testid=wall-alert][data-maintenance]', (rows) =>
    rows.map((r) => r.querySelector('.resource')!.textContent!.trim()).sort(),
  );

/** Waits until exactly `want` rows are in maintenance; gives when (ms since epoch) it saw them. */
async function sees(page: Page, want: string[], timeout: number): Promise<number> {
  await page.waitForFunction(
    (w) =>
      JSON.stringify(
        [...document.querySelectorAll('[data-testid=wall-alert][data-maintenance]')]
          .map((r) => r.querySelector('.resource')!.textContent!.trim())
          .sort(),
      ) === JSON.stringify(w),
    [...want].sort(),
    { timeout, polling: 50 },
  );
  return Date.now();
}

async function shots(page: Page, name: string): Promise<void> {
  const dir = process.env.WALL_SHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  for (const [w, h, scale] of [
    [1920, 1080, 1],
    [3840, 2160, 1],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${dir}/${name}-${w}x${h}@${scale}.png` });
  }
  await page.setViewportSize({ width: 1920, height: 1080 });
}

maint(
  'a window starting in a few seconds: its alerts turn "in maintenance", then back when it ends',
  async (ctx) => {
    const group = `wm${Date.now()}`;
    const covered = [`db-primary-01.${group}.example.net`, `db-replica-02.${group}.example.net`];
    const others = Array.from({ length: 10 }, (_, i) => `web-${i}.${group}.example.net`);
    await raise(ctx, group, [...covered, ...others]);
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      await openWall(page, ctx, `group=${group}`);
      assert.equal(await inMaintenance(page), []);
      const start = Date.now() + 3000;
      for (const resource of covered)
        await blackout(ctx, {
          environment: 'Production',
          resource,
          startTime: iso(start),
          endTime: iso(start + 6000),
          text: 'database patching',
        });
      // Nothing before the window starts.
      assert.equal(await inMaintenance(page), []);
      const began = await sees(page, covered, 8000);
      assert.ok(began >= start, `shown ${start - began} ms before the start`);
      assert.ok(began < start + 2000, `shown ${began - start} ms after the start`);
      // The marker: a wrench and MAINT in the badge column, the row muted; the others unchanged.
      const row = page.getByTestId('wall-alert').filter({ hasText: covered[0]! });
      assert.is((await row.getByTestId('maintenance').innerText()).trim(), 'MAINT');
      assert.is(await row.getByTestId('maintenance').locator('svg.wrench').count(), 1);
      const plain = page.getByTestId('wall-alert').filter({ hasText: others[0]! });
      assert.is(await plain.getAttribute('data-maintenance'), null);
      assert.is(await plain.getByTestId('maintenance').count(), 0);
      const colour = (l: typeof row) => l.locator('.resource').evaluate((e) => getComputedStyle(e).color);
      assert.is.not(await colour(row), await colour(plain), 'the row in maintenance is muted');
      // Every row still on one grid: the event column starts at one x.
      const xs = await page.$$eval('[data-testid=wall-alert] .event', (es) =>
        es.map((e) => Math.round(e.getBoundingClientRect().left)),
      );
      assert.is(new Set(xs).size, 1, `event columns at ${[...new Set(xs)].join(', ')}`);
      assert.equal(await axeViolations(page), []);
      await shots(page, 'wall-maintenance');
      const ended = await sees(page, [], 10_000);
      assert.ok(ended >= start + 6000, `cleared ${start + 6000 - ended} ms before the end`);
      assert.ok(ended < start + 8000, `cleared ${ended - start - 6000} ms after the end`);
      assert.ok(await page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded));
    });
  },
);

maint(
  'a recurring window: each occurrence marks its alerts live; a deleted blackout unmarks them',
  async (ctx) => {
    const group = `wr${Date.now()}`;
    const covered = `backup-nas-01.${group}.example.net`;
    await raise(ctx, group, [covered, `app-01.${group}.example.net`], 'Staging');
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      await openWall(page, ctx, `group=${group}`);
      // Every minute at a second a few seconds from now, for 3 s.
      const start = Math.ceil((Date.now() + 3500) / 1000) * 1000;
      const id = await blackout(ctx, {
        environment: 'Staging',
        resource: covered,
        rrule: `FREQ=MINUTELY;BYSECOND=${new Date(start).getUTCSeconds()}`,
        duration: 3,
      });
      const began = await sees(page, [covered], 8000);
      assert.ok(began >= start && began < start + 2000, `shown at ${began - start} ms`);
      const ended = await sees(page, [], 8000);
      assert.ok(ended >= start + 3000 && ended < start + 5000, `cleared at ${ended - start - 3000} ms`);
      // Made a window in force now (each minute, all of it): marked; deleted: unmarked, no reload.
      assert.is((await ctx.api.put(`/blackout/${id}`, { rrule: 'FREQ=MINUTELY', duration: 60 })).status, 200);
      await sees(page, [covered], 5000);
      assert.is((await ctx.api.delete(`/blackout/${id}`)).status, 200);
      await sees(page, [], 5000);
      assert.ok(await page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded));
    });
  },
);

maint.run();
