import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { axeViolations } from './axe.ts';
import { launchBrowser, withPage } from './browser.ts';

/**
 * Environment and indicator tiles count what waits (issue #40 item 1, docs/ui-wall.md): the big
 * number and the per-severity counts leave acked and shelved alerts out, "· N acked" says how many
 * there are besides, live as alerts are acked.
 */
interface Ctx extends AppContext {
  browser: Browser;
}

const INDICATORS = [{ text: 'Payments', query: [['service', 'payments-gateway']] }];

const tiles = suite<Ctx>('web UI: wall tiles count what waits', {} as Ctx);
tiles.before(async (ctx) => {
  await startApp(ctx, {
    TEST_LABEL: 'browser_wall_tiles',
    PLUGINS: 'remote_ip',
    ASI_QUERIES: JSON.stringify(INDICATORS),
  });
  ctx.browser = await launchBrowser();
});
tiles.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

/** `count` warnings and `count` majors in `environment`; gives their ids, warnings first. */
async function raise(
  ctx: Ctx,
  group: string,
  environment: string,
  count: number,
  service = 'checkout',
): Promise<string[]> {
  const ids: string[] = [];
  for (const severity of ['warning', 'major'])
    for (let i = 0; i < count; i++) {
      const res = await ctx.api.post('/alert', {
        resource: `node-${severity}-${i}.${group}.example.net`,
        event: 'NodeNotReady',
        environment,
        service: [service],
        group,
        severity,
      });
      assert.is(res.status, 201, await res.clone().text());
      ids.push(((await res.json()) as { alert: { id: string } }).alert.id);
    }
  return ids;
}

const setStatus = async (ctx: Ctx, ids: string[], status: string) => {
  for (const id of ids)
    assert.is((await ctx.api.put(`/alert/${id}/status`, { status, text: '' })).status, 200);
};

/** A tile's big number, its acked count (0 when none shown) and its per-severity counts. */
function tileOf(page: Page, name: string) {
  const tile = page.getByTestId('indicator').filter({ hasText: name });
  return async () => ({
    waiting: (await tile.locator('.n').innerText()).trim(),
    acked: (await tile.getByTestId('tile-acked').count())
      ? (await tile.getByTestId('tile-acked').innerText()).replace(/\s*:$/, '').trim() // the ':' is for screen readers
      : '',
    counts: await tile
      .locator('.count')
      .evaluateAll((cs) => cs.map((c) => `${c.getAttribute('title')}:${c.firstChild?.textContent?.trim()}`)),
  });
}

async function expect(read: ReturnType<typeof tileOf>, want: Awaited<ReturnType<ReturnType<typeof tileOf>>>) {
  const deadline = Date.now() + 5000;
  let got = await read().catch(() => null);
  while (JSON.stringify(got) !== JSON.stringify(want) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    got = await read().catch(() => null);
  }
  assert.equal(got, want);
}

tiles(
  'environment tiles: waiting first, "· N acked" apart, per-severity counts of what waits, live',
  async (ctx) => {
    const group = `et${Date.now()}`;
    const prod = await raise(ctx, group, 'Production', 6);
    await raise(ctx, group, 'Development', 2);
    // Four warnings and one major acked, one major shelved (out of the wall's default view): 2 warnings
    // and 4 majors wait.
    await setStatus(ctx, [...prod.slice(0, 4), prod[6]!], 'ack');
    await setStatus(ctx, [prod[7]!], 'shelved');
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      await page.goto(`${ctx.origin}/wall?tiles=environment&group=${group}`);
      const production = tileOf(page, 'Production');
      const counts = (major: number, warning: number) =>
        ['critical', 'major', 'minor', 'warning', 'indeterminate', 'informational'].map(
          (s) => `${s}:${{ major, warning }[s as 'major'] ?? 0}`,
        );
      await expect(production, { waiting: '6', acked: '· 5 acked', counts: counts(4, 2) });
      await expect(tileOf(page, 'Development'), { waiting: '4', acked: '', counts: counts(2, 2) });
      // The link reads as it looks: what waits, then the acked ones.
      await page
        .getByRole('link', { name: /^Production 6 waiting · 5 acked ?: .*4 major.*2 warning/ })
        .waitFor();
      assert.equal(await axeViolations(page), []);
      // Live: two more acked, one shelved brought back.
      await setStatus(ctx, prod.slice(4, 6), 'ack');
      await expect(production, { waiting: '4', acked: '· 7 acked', counts: counts(4, 0) });
      await setStatus(ctx, [prod[7]!], 'open');
      await expect(production, { waiting: '5', acked: '· 7 acked', counts: counts(5, 0) });
    });
  },
);

tiles('indicator tiles: the same, and a fully acked tile shows 0 waiting', async (ctx) => {
  const group = `it${Date.now()}`;
  const ids = await raise(ctx, group, 'Production', 2, 'payments-gateway');
  await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
    await page.goto(`${ctx.origin}/wall?tiles=indicators&group=${group}`);
    const payments = tileOf(page, 'Payments');
    const counts = (major: number, warning: number) =>
      ['critical', 'major', 'minor', 'warning', 'indeterminate', 'informational'].map(
        (s) => `${s}:${{ major, warning }[s as 'major'] ?? 0}`,
      );
    await expect(payments, { waiting: '4', acked: '', counts: counts(2, 2) });
    await setStatus(ctx, ids, 'ack');
    await expect(payments, { waiting: '0', acked: '· 4 acked', counts: counts(0, 0) });
  });
});

tiles.run();
