import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { axeViolations } from './axe.ts';
import { launchBrowser, withPage } from './browser.ts';

/**
 * The wall's heartbeat strip with a few origins of every status, as a small site has them (docs/ui-wall.md):
 * expired chips are larger than slow and ok ones on the same line, and "+N more" counts exactly the
 * chips out of sight — none when all fit. And a row's change highlight keeps every text readable
 * (axe's contrast, held at the pulse's strongest), acked or not, light or dark.
 */
interface Ctx extends AppContext {
  browser: Browser;
}

const strip = suite<Ctx>('web UI: the wall’s heartbeat strip and change highlight', {} as Ctx);
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

strip('a row that changed pulses without losing contrast, acked or not, light or dark', async (ctx) => {
  const made = await ctx.api.post('/alert', {
    resource: 'pulse01',
    event: 'HighLatency',
    environment: 'Production',
    severity: 'minor',
  });
  assert.is(made.status, 201);
  const id = ((await made.json()) as { id: string }).id;
  for (const [theme, action] of [
    ['dark', 'ack'],
    ['light', 'unack'],
    ['dark', 'ack'],
  ] as const) {
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      await page.goto(`${ctx.origin}/wall?theme=${theme}`);
      await page.locator('[data-testid=wall-alert]').filter({ hasText: 'pulse01' }).waitFor();
      const res = await ctx.api.put(`/alert/${id}/action`, { action, text: '' });
      assert.is(res.status, 200);
      await page.locator('li[data-change=changed]').filter({ hasText: 'pulse01' }).waitFor({ timeout: 5000 });
      // Held at the pulse's strongest (half way), where the text sits on the highlight colour.
      await page.evaluate(() =>
        document.getAnimations().forEach((a) => {
          a.pause();
          a.currentTime = 500;
        }),
      );
      assert.equal(await axeViolations(page), [], `${theme}, after ${action}`);
    });
  }
});

strip.run();
