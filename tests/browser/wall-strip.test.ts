import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { launchBrowser, withPage } from './browser.ts';

/**
 * The wall's heartbeat strip with a few origins of every status, as a small site has them (docs/ui-wall.md):
 * expired chips are larger than slow and ok ones on the same line, and "+N more" counts exactly the
 * chips out of sight — none when all fit.
 */
interface Ctx extends AppContext {
  browser: Browser;
}

const strip = suite<Ctx>('web UI: the wall’s heartbeat strip with chips of every status', {} as Ctx);
strip.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'browser_wall_strip', PLUGINS: 'remote_ip', HEARTBEAT_TIMEOUT: '600' });
  ctx.browser = await launchBrowser();
});
strip.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

const ORIGINS: [string, number, number][] = [
  ['prometheus/prod', 600, 0],
  ['prometheus/stg', 600, 0],
  ['prometheus/dev', 600, 0],
  ['zabbix/dc1', 600, 0],
  ['zabbix/dc2', 1, 0],
  ['nagios/legacy', 1, 0],
  ['cloudwatch/eu', 600, 6000],
  ['grafana/alerts', 600, 0],
];

strip('"+N more" counts only the chips below the line, whatever their sizes', async (ctx) => {
  for (const [origin, timeout, late] of ORIGINS) {
    const res = await ctx.api.post('/heartbeat', {
      origin,
      timeout,
      createTime: new Date(Date.now() - late).toISOString(),
    });
    assert.is(res.status, 201, await res.text());
  }
  const alert = await ctx.api.post('/alert', {
    resource: 'db01',
    event: 'DiskFull',
    environment: 'Production',
    severity: 'major',
  });
  assert.is(alert.status, 201);
  for (const width of [1366, 1920, 3840]) {
    await withPage(
      ctx.browser,
      { viewport: { width, height: Math.round((width * 9) / 16) } },
      async (page) => {
        await page.goto(`${ctx.origin}/wall`);
        await page.locator('[data-testid=heartbeat][data-status=expired]').nth(1).waitFor({ timeout: 8000 });
        await page.locator('[data-testid=heartbeat][data-status=slow]').first().waitFor();
        await page.waitForTimeout(1200);
        const seen = await page.getByTestId('heartbeat-strip').evaluate((s) => {
          const line = s.querySelector('ul')!.getBoundingClientRect();
          const chips = [...s.querySelectorAll('[data-testid=heartbeat]')].map((c) =>
            c.getBoundingClientRect(),
          );
          return {
            shown: chips.filter((r) => r.top >= line.top - 0.5 && r.bottom <= line.bottom + 0.5).length,
            total: chips.length,
            more: s.querySelector('[data-testid=heartbeats-more]')?.textContent ?? null,
          };
        });
        assert.is(seen.total, ORIGINS.length);
        assert.ok(seen.shown >= 4, `${width}: chips of several sizes on the line (${seen.shown})`);
        assert.is(
          seen.more,
          seen.shown === seen.total ? null : `+${seen.total - seen.shown} more`,
          `${width}: exact`,
        );
      },
    );
  }
});

strip.run();
