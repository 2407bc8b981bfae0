import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { launchBrowser, withPage } from './browser.ts';

interface Ctx extends AppContext {
  /** Chromium as a wall runs it: sound may play without a gesture. */
  browser: Browser;
  /** Chromium with its default autoplay policy: sound waits for a click. */
  strict: Browser;
}

/** The indicator tiles of this suite's server (`/config indicators.queries`), in the three forms. */
const INDICATORS = [
  { text: 'Web tier', query: [['group', 'web-tier']] },
  { text: 'Db tier', query: { group: ['db-tier'] } },
  { text: 'Misc tier', query: 'group=misc-tier&status=open&status=ack' },
];

const wall = suite<Ctx>('web UI: the wall display', {} as Ctx);
wall.before(async (ctx) => {
  await startApp(ctx, {
    TEST_LABEL: 'browser_wall',
    PLUGINS: 'remote_ip',
    ASI_QUERIES: JSON.stringify(INDICATORS),
  });
  ctx.browser = await launchBrowser(['--autoplay-policy=no-user-gesture-required']);
  ctx.strict = await launchBrowser();
});
wall.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.strict?.close();
  await stopApp(ctx);
});

interface Sent {
  id: string;
}

async function raise(
  ctx: Ctx,
  alert: { resource: string; group: string; severity: string; environment?: string; event?: string },
): Promise<string> {
  const res = await ctx.api.post('/alert', {
    event: 'WallTest',
    environment: 'Production',
    service: ['web'],
    ...alert,
  });
  assert.is(res.status, 201, await res.clone().text());
  return ((await res.json()) as { alert: Sent }).alert.id;
}

const setStatus = async (ctx: Ctx, id: string, status: string) =>
  assert.is((await ctx.api.put(`/alert/${id}/status`, { status, text: '' })).status, 200);

/** Opens a wall and waits until it is live (the snapshot answered, no banner). */
async function openWall(page: Page, ctx: Ctx, search: string): Promise<void> {
  await page.goto(`${ctx.origin}/wall?${search}`);
  await page.waitForFunction(
    () =>
      document.querySelector('.wall[data-loaded=true]') &&
      !document.querySelector('[data-testid=connection-banner]'),
    null,
    { timeout: 10_000 },
  );
}

const soundState = (page: Page) => page.getByTestId('sound-state');
const soundCount = async (page: Page) => Number(await soundState(page).getAttribute('data-sound-count'));

wall(
  'environment tiles: a tile per environment, coloured by its worst open severity, kept live',
  async (ctx) => {
    await withPage(ctx.browser, async (page) => {
      const group = `envtiles${Date.now()}`;
      await raise(ctx, { resource: 'p1', group, severity: 'critical' });
      await raise(ctx, { resource: 'd1', group, severity: 'minor', environment: 'Development' });
      const acked = await raise(ctx, {
        resource: 'd2',
        group,
        severity: 'major',
        environment: 'Development',
      });
      await setStatus(ctx, acked, 'ack');
      await openWall(page, ctx, `tiles=environment&group=${group}`);
      const tile = (name: string) => page.getByTestId('indicator').filter({ hasText: name });
      // Counts and the colour come from two subscriptions that answer independently.
      const worst = (name: string, severity: string) =>
        tile(name)
          .and(page.locator(`[data-worst=${severity}]`))
          .waitFor({ timeout: 5000 });
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid=indicator] .total').length >= 2,
      );
      await tile('Production').locator('.total', { hasText: '1' }).waitFor();
      await worst('Production', 'critical');
      // The acked major is counted apart ("1 · 1 acked") and does not colour the title: the worst open one is minor.
      await tile('Development')
        .locator('.total', { hasText: /^\s*1\s*waiting\s*·\s*1 acked:\s*$/ })
        .waitFor();
      await worst('Development', 'minor');

      await raise(ctx, { resource: 'd3', group, severity: 'critical', environment: 'Development' });
      await worst('Development', 'critical');
      await tile('Development')
        .locator('.total', { hasText: /^\s*2\s*waiting\s*·\s*1 acked:\s*$/ })
        .waitFor();
      // An environment nobody configured gets its tile when its first alert arrives.
      await raise(ctx, { resource: 'l1', group, severity: 'warning', environment: 'Lab' });
      await tile('Lab').locator('.total', { hasText: '1' }).waitFor({ timeout: 5000 });
      await worst('Lab', 'warning');

      await tile('Production').click();
      await page.waitForURL(/\/alerts\?/);
      const url = new URL(page.url());
      assert.equal(
        [url.searchParams.get('group'), url.searchParams.getAll('environment')],
        [group, ['Production']],
      );
    });
  },
);

wall(
  'indicator tiles from /config: counts per severity, worst open colour, live, open the console',
  async (ctx) => {
    await withPage(ctx.browser, async (page) => {
      const acked = await raise(ctx, { resource: 'w1', group: 'web-tier', severity: 'major' });
      await setStatus(ctx, acked, 'ack');
      await raise(ctx, { resource: 'w2', group: 'web-tier', severity: 'minor' });
      await raise(ctx, { resource: 'db1', group: 'db-tier', severity: 'warning' });
      const closed = await raise(ctx, { resource: 'm1', group: 'misc-tier', severity: 'major' });
      await setStatus(ctx, closed, 'closed');
      await openWall(page, ctx, 'tiles=indicators');
      const tiles = page.getByTestId('indicator');
      await tiles.nth(2).waitFor();
      assert.equal(
        (await tiles.locator('.title').allTextContents()).map((t) => t.trim()),
        INDICATORS.map((i) => i.text),
      );
      const web = tiles.filter({ hasText: 'Web tier' });
      await web.locator('.total', { hasText: /^\s*1\s*waiting\s*·\s*1 acked:\s*$/ }).waitFor();
      await web.and(page.locator('[data-worst=minor]')).waitFor();
      // The link is named by what it shows (axe's label-content-name-mismatch): the counts in words,
      // per severity what waits (the acked major is in "1 acked").
      await page
        .getByRole('link', { name: /^Web tier 1 waiting · 1 acked ?: .*\b0 major, 1 minor\b/ })
        .waitFor();
      await tiles.filter({ hasText: 'Db tier' }).and(page.locator('[data-worst=warning]')).waitFor();
      // The string query keeps only open and acked alerts: the closed one is not counted.
      const misc = tiles.filter({ hasText: 'Misc tier' });
      await misc.locator('.total', { hasText: '0' }).waitFor();
      await misc.and(page.locator('[data-worst=normal]')).waitFor();

      const critical = await raise(ctx, { resource: 'w3', group: 'web-tier', severity: 'critical' });
      await page.waitForFunction(
        () => document.querySelector('[data-testid=indicator]')?.getAttribute('data-worst') === 'critical',
        null,
        { timeout: 3000 },
      );
      await setStatus(ctx, critical, 'ack');
      await page.waitForFunction(
        () => document.querySelector('[data-testid=indicator]')?.getAttribute('data-worst') === 'minor',
        null,
        { timeout: 3000 },
      );
      await web.locator('.total', { hasText: /^\s*1\s*waiting\s*·\s*2 acked:\s*$/ }).waitFor();

      await misc.click();
      await page.waitForURL(/\/alerts\?/);
      const url = new URL(page.url());
      assert.equal(
        [url.searchParams.get('group'), url.searchParams.getAll('status')],
        ['misc-tier', ['open', 'ack']],
      );
    });
  },
);

wall(
  'severity as word and colour, several columns, and a font-scale control hidden until the mouse moves',
  async (ctx) => {
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      const group = `cols${Date.now()}`;
      for (let i = 0; i < 60; i++)
        await raise(ctx, { resource: `c${i}`, group, severity: i % 2 ? 'minor' : 'major' });
      await openWall(page, ctx, `group=${group}&columns=2`);
      const rows = page.getByTestId('wall-alert');
      await rows.nth(20).waitFor();
      const first = rows.first();
      assert.is((await first.locator('.sev').textContent())?.trim(), 'major');
      assert.is(await first.getAttribute('data-severity'), 'major');
      const lefts = new Set(
        await rows.evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left))),
      );
      assert.is(lefts.size, 2, 'rows fill two columns');
      const resourceSize = await first
        .locator('.resource')
        .evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
      assert.ok(resourceSize >= 24, `resource in large type (${resourceSize}px)`);

      const controls = page.getByTestId('screen-controls');
      const opacity = () => controls.evaluate((e) => getComputedStyle(e).opacity);
      assert.is(await opacity(), '0');
      await page.mouse.move(200, 200);
      await page.mouse.move(300, 300);
      await page.waitForFunction(
        () => getComputedStyle(document.querySelector('[data-testid=screen-controls]')!).opacity === '1',
      );
      await page.getByRole('button', { name: 'Larger text' }).click();
      await page.waitForURL(/scale=1\.1/);
      const font = await page.locator('.wall').evaluate((e) => getComputedStyle(e).fontSize);
      assert.is(font, '22px');
      await page.getByLabel('Columns').selectOption('3');
      await page.waitForURL(/columns=3/);
      await page.waitForFunction(() => {
        const lefts = [...document.querySelectorAll('[data-testid=wall-alert]')].map((e) =>
          Math.round(e.getBoundingClientRect().left),
        );
        return new Set(lefts).size === 3;
      });
    });
  },
);

wall(
  'newest critical first; changes keep their rows until the calm re-sort; an escalation flashes distinctly',
  async (ctx) => {
    await withPage(ctx.browser, async (page) => {
      const group = `sort${Date.now()}`;
      await raise(ctx, { resource: 'older', group, severity: 'minor' });
      await raise(ctx, { resource: 'newer', group, severity: 'minor' });
      await openWall(page, ctx, `group=${group}&resort=5`);
      const rows = page.getByTestId('wall-alert');
      const order = () => rows.locator('.resource').allTextContents();
      await rows.nth(1).waitFor();
      assert.equal(await order(), ['newer', 'older']);
      // A duplicate makes "older" the newest: it stays in its row until the re-sort.
      await raise(ctx, { resource: 'older', group, severity: 'minor' });
      await rows
        .filter({ hasText: 'older' })
        .and(page.locator('[data-change=changed]'))
        .waitFor({ timeout: 5000 });
      assert.equal(await order(), ['newer', 'older']);
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('[data-testid=wall-alert] .resource')]
            .map((e) => e.textContent)
            .join() === 'older,newer',
        null,
        { timeout: 8000 },
      );
      // A new critical alert goes straight to the top; an escalation flashes as "escalated".
      await raise(ctx, { resource: 'fresh-critical', group, severity: 'critical' });
      await rows.first().filter({ hasText: 'fresh-critical' }).waitFor({ timeout: 5000 });
      await raise(ctx, { resource: 'newer', group, severity: 'major' });
      const escalated = rows.filter({ hasText: 'newer' });
      await escalated.and(page.locator('[data-change=escalated]')).waitFor({ timeout: 5000 });
      assert.is(await escalated.getAttribute('data-severity'), 'major');
      assert.is(await rows.filter({ hasText: 'fresh-critical' }).getAttribute('data-change'), 'changed');
    });
  },
);

wall('wake lock: held quietly when offered, a small hint in the corner when not', async (ctx) => {
  const without = await ctx.browser.newPage();
  const granted = await ctx.browser.newPage();
  try {
    await without.addInitScript(() => {
      Object.defineProperty(navigator, 'wakeLock', { value: undefined, configurable: true });
    });
    await openWall(without, ctx, 'group=none');
    await without.getByTestId('wake-hint').waitFor({ timeout: 5000 });
    assert.match((await without.getByTestId('wake-hint').textContent()) ?? '', /may sleep/);

    await granted.addInitScript(() => {
      const sentinel = { release: () => Promise.resolve() };
      Object.defineProperty(navigator, 'wakeLock', {
        value: { request: () => Promise.resolve(sentinel) },
        configurable: true,
      });
    });
    await openWall(granted, ctx, 'group=none');
    await granted.getByTestId('clock').waitFor();
    await granted.waitForTimeout(300);
    assert.is(await granted.getByTestId('wake-hint').count(), 0);
  } finally {
    await without.close();
    await granted.close();
  }
});

const waitForSoundState = (page: Page, state: string, timeout = 5000) =>
  page
    .waitForFunction(
      (s) => document.querySelector('[data-testid=sound-state]')?.getAttribute('data-state') === s,
      state,
      { timeout },
    )
    .catch(async (err: Error) => {
      const now = await soundState(page)
        .getAttribute('data-state', { timeout: 100 })
        .catch(() => 'absent');
      throw new Error(`sound state stayed ${now}, not ${state}: ${err.message}`);
    });
/** Waits until at least `n` sounds have played. */
const waitForSoundCount = (page: Page, n: number, timeout = 5000) =>
  page.waitForFunction(
    (count) =>
      Number(document.querySelector('[data-testid=sound-state]')?.getAttribute('data-sound-count')) >= count,
    n,
    { timeout },
  );

wall(
  'sound for critical only: a new major alert is silent, a new critical one plays, updates do not',
  async (ctx) => {
    await withPage(ctx.browser, async (page) => {
      const group = `snd${Date.now()}`;
      // Closed alerts are shown only when asked for: this wall asks, to see the re-open.
      await openWall(page, ctx, `group=${group}&sound=critical&status=open&status=ack&status=closed`);
      await waitForSoundState(page, 'on');
      assert.is(await soundCount(page), 0);
      const rows = page.getByTestId('wall-alert');

      await raise(ctx, { resource: 'quiet-major', group, severity: 'major' });
      await rows.filter({ hasText: 'quiet-major' }).waitFor({ timeout: 5000 });
      await page.waitForTimeout(300);
      assert.is(await soundCount(page), 0, 'a major alert is silent');

      const id = await raise(ctx, { resource: 'loud', group, severity: 'critical' });
      await waitForSoundCount(page, 1);
      assert.is(await soundState(page).getAttribute('data-last-sound'), 'critical');

      // A duplicate and an ack are updates, not new alerts.
      await raise(ctx, { resource: 'loud', group, severity: 'critical' });
      await setStatus(ctx, id, 'ack');
      await rows
        .filter({ hasText: 'loud' })
        .locator('.status', { hasText: 'ack' })
        .waitFor({ timeout: 5000 });
      await page.waitForTimeout(300);
      assert.is(await soundCount(page), 1, 'updates are silent');

      // A re-open (closed, then open again) sounds like a new alert.
      await setStatus(ctx, id, 'closed');
      await rows
        .filter({ hasText: 'loud' })
        .locator('.status', { hasText: 'closed' })
        .waitFor({ timeout: 5000 });
      await setStatus(ctx, id, 'open');
      await waitForSoundCount(page, 2);
      await page.waitForTimeout(300);
      assert.is(await soundCount(page), 2, 'once per re-open');
    });
  },
);

wall('sound-repeat plays again every N s until the alert is acked', async (ctx) => {
  await withPage(ctx.browser, async (page) => {
    const group = `rpt${Date.now()}`;
    await openWall(page, ctx, `group=${group}&sound=critical&sound-repeat=1`);
    await waitForSoundState(page, 'on');
    const id = await raise(ctx, { resource: 'again', group, severity: 'critical' });
    await waitForSoundCount(page, 1);
    await waitForSoundCount(page, 3, 6000);
    await setStatus(ctx, id, 'ack');
    await page.getByTestId('wall-alert').locator('.status', { hasText: 'ack' }).waitFor({ timeout: 5000 });
    const after = await soundCount(page);
    await page.waitForTimeout(2500);
    assert.ok((await soundCount(page)) <= after + 1, 'no repeats once acked (one may have been on its way)');
    const settled = await soundCount(page);
    await page.waitForTimeout(1500);
    assert.is(await soundCount(page), settled);
  });
});

wall('the mute button silences the screen and sound comes back by itself', async (ctx) => {
  const page = await ctx.browser.newPage();
  const snoozed = await ctx.browser.newPage();
  try {
    const group = `mute${Date.now()}`;
    await openWall(page, ctx, `group=${group}&sound=critical&sound-mute=5`);
    await waitForSoundState(page, 'on');
    await page.getByRole('button', { name: 'Mute sound for 5 minutes' }).click();
    await waitForSoundState(page, 'muted');
    assert.match((await soundState(page).textContent()) ?? '', /muted until/);
    await raise(ctx, { resource: 'hushed', group, severity: 'critical' });
    await page.getByTestId('wall-alert').filter({ hasText: 'hushed' }).waitFor({ timeout: 5000 });
    await page.waitForTimeout(300);
    assert.is(await soundCount(page), 0);
    await page.getByRole('button', { name: 'Unmute sound' }).click();
    await waitForSoundState(page, 'on');

    // A mute that is about to end (kept across reloads) ends on time without anyone touching it.
    // 5 s: the wall must still be muted once it has loaded, on a busy CI machine too (1.5 s was
    // over before a slow load finished).
    await snoozed.addInitScript(() =>
      localStorage.setItem('alertwall.sound-muted-until', String(Date.now() + 5000)),
    );
    await openWall(snoozed, ctx, `group=${group}&sound=critical`);
    await waitForSoundState(snoozed, 'muted');
    await waitForSoundState(snoozed, 'on', 8000);
  } finally {
    await page.close();
    await snoozed.close();
  }
});

wall('a blocked browser gets a one-time "click to enable sound" prompt; a click unlocks it', async (ctx) => {
  const page = await ctx.strict.newPage();
  // Chromium under Playwright counts the navigation as a user activation, so whether audio starts
  // blocked is a race. The browser's rule, made certain: audio stays suspended until resumed inside
  // a real user gesture.
  await page.addInitScript(() => {
    const Real = window.AudioContext;
    window.AudioContext = class extends Real {
      private gated = true;
      override get state(): AudioContextState {
        return this.gated ? 'suspended' : super.state;
      }
      override resume(): Promise<void> {
        if (!navigator.userActivation.isActive) return new Promise(() => undefined);
        this.gated = false;
        return super.resume().then(() => void this.dispatchEvent(new Event('statechange')));
      }
    };
  });
  try {
    const group = `blk${Date.now()}`;
    await openWall(page, ctx, `group=${group}&sound=critical`);
    await waitForSoundState(page, 'blocked');
    const prompt = page.getByRole('button', { name: /Click to enable sound/ });
    await prompt.waitFor();
    await raise(ctx, { resource: 'unheard', group, severity: 'critical' });
    await page.getByTestId('wall-alert').filter({ hasText: 'unheard' }).waitFor({ timeout: 5000 });
    assert.is(await soundCount(page), 0, 'nothing plays while blocked');
    await prompt.click();
    await waitForSoundState(page, 'on');
    assert.is(await prompt.count(), 0, 'the prompt is gone');
    await raise(ctx, { resource: 'heard', group, severity: 'critical' });
    await waitForSoundCount(page, 1);
  } finally {
    await page.close();
  }
});

wall(
  "without sound in the URL, the user's preferences decide (soundSeverities, isMute); sound=off overrides",
  async (ctx) => {
    const byPrefs = await ctx.browser.newPage();
    const muted = await ctx.browser.newPage();
    try {
      const group = `prefs${Date.now()}`;
      await byPrefs.addInitScript(() =>
        localStorage.setItem('alertwall.prefs', JSON.stringify({ soundSeverities: ['major'] })),
      );
      await openWall(byPrefs, ctx, `group=${group}`);
      await waitForSoundState(byPrefs, 'on');
      await raise(ctx, { resource: 'pref-major', group, severity: 'major' });
      await waitForSoundCount(byPrefs, 1);
      assert.is(await soundState(byPrefs).getAttribute('data-last-sound'), 'major');

      await muted.addInitScript(() =>
        localStorage.setItem('alertwall.prefs', JSON.stringify({ soundSeverities: ['major'], isMute: true })),
      );
      await openWall(muted, ctx, `group=${group}`);
      await waitForSoundState(muted, 'muted');
      await muted.goto(`${ctx.origin}/wall?group=${group}&sound=off`);
      await muted.getByTestId('clock').waitFor();
      await muted.waitForTimeout(500);
      assert.is(await soundState(muted).count(), 0, 'no sound, no sound corner');
    } finally {
      await byPrefs.close();
      await muted.close();
    }
  },
);

wall('with websockets blocked, the wall still updates over long-polling', async (ctx) => {
  await withPage(ctx.browser, async (page) => {
    let refused = 0;
    let polls = 0;
    await page.routeWebSocket(/\/socket\.io\//, (ws) => {
      refused++;
      void ws.close();
    });
    page.on('request', (r) => {
      if (r.url().includes('transport=polling')) polls++;
    });
    const group = `poll${Date.now()}`;
    await openWall(page, ctx, `group=${group}`);
    await raise(ctx, { resource: 'over-polling', group, severity: 'major' });
    await page.getByTestId('wall-alert').filter({ hasText: 'over-polling' }).waitFor({ timeout: 5000 });
    assert.ok(refused > 0, 'the socket tried to upgrade to a websocket');
    assert.ok(polls > 0, 'and carried on over long-polling');
    assert.is(await page.getByTestId('connection-banner').count(), 0);
  });
});

/** Each row's resource, in screen order. */
const shownResources = (page: Page) => page.getByTestId('wall-alert').locator('.resource').allTextContents();

/** WCAG contrast of two computed CSS colours (`rgb(…)` / `rgba(…)`), as the browser resolved them. */
function contrastOf(fg: string, bg: string): number {
  const lum = (c: string) => {
    const [r, g, b] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number) as [number, number, number];
    const lin = (v: number) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

wall(
  'by default: open and acked only, unacknowledged first, then severity, then newest; /config filter honoured; tiles on one row',
  async (ctx) => {
    const page = await ctx.browser.newPage({ viewport: { width: 1920, height: 1080 } });
    const openOnlyPage = await ctx.browser.newPage({ viewport: { width: 1920, height: 1080 } });
    try {
      const group = `dflt${Date.now()}`;
      await raise(ctx, { resource: 'o-minor', group, severity: 'minor' });
      await raise(ctx, { resource: 'o-critical', group, severity: 'critical' });
      await raise(ctx, { resource: 'o-minor-newer', group, severity: 'minor' });
      await raise(ctx, { resource: 'o-info', group, severity: 'informational' });
      await setStatus(ctx, await raise(ctx, { resource: 'a-critical', group, severity: 'critical' }), 'ack');
      await setStatus(ctx, await raise(ctx, { resource: 'c-major', group, severity: 'major' }), 'closed');
      await setStatus(ctx, await raise(ctx, { resource: 'x-major', group, severity: 'major' }), 'expired');
      await raise(ctx, { resource: 'q-debug', group, severity: 'debug' });
      await raise(ctx, { resource: 'q-trace', group, severity: 'trace' });
      await openWall(page, ctx, `group=${group}`);
      await page.getByTestId('wall-alert').nth(4).waitFor();
      assert.equal(await shownResources(page), [
        'o-critical',
        'o-minor-newer',
        'o-minor',
        'o-info',
        'a-critical',
      ]);
      assert.is(await page.getByTestId('wall-alert').count(), 5);

      // The main severities always, others only with alerts; one row.
      const tiles = page.getByTestId('tile');
      const tileNames = async () =>
        tiles.evaluateAll((els) => els.map((e) => e.getAttribute('data-severity')));
      assert.equal(await tileNames(), [
        'critical',
        'major',
        'minor',
        'warning',
        'indeterminate',
        'informational',
      ]);
      // What waits first (o-critical), then the acked one apart (a-critical): "1 · 1 acked".
      const critical = tiles.and(page.locator('[data-severity=critical]'));
      await critical.getByTestId('tile-acked').filter({ hasText: '· 1 acked' }).waitFor({ timeout: 5000 });
      assert.is(await critical.locator('.n').textContent(), '1');
      assert.is(await tiles.filter({ hasText: 'major' }).locator('.n').textContent(), '0');
      await raise(ctx, { resource: 's-security', group, severity: 'security' });
      await page.getByTestId('tile').and(page.locator('[data-severity=security]')).waitFor({ timeout: 5000 });
      const tops = await tiles.evaluateAll((els) =>
        els.map((e) => Math.round(e.getBoundingClientRect().top)),
      );
      assert.is(new Set(tops).size, 1, `tiles on one row: ${tops.join()}`);
      assert.is((await shownResources(page))[0], 's-security');

      // The configured default filter is the wall's: here /config says open alerts only.
      await openOnlyPage.route('**/api/config', async (route) => {
        const res = await route.fetch();
        const config = (await res.json()) as Record<string, unknown>;
        await route.fulfill({ response: res, json: { ...config, filter: { status: ['open'] } } });
      });
      await openWall(openOnlyPage, ctx, `group=${group}`);
      await openOnlyPage.getByTestId('wall-alert').nth(4).waitFor();
      assert.equal(await shownResources(openOnlyPage), [
        's-security',
        'o-critical',
        'o-minor-newer',
        'o-minor',
        'o-info',
      ]);
    } finally {
      await page.close();
      await openOnlyPage.close();
    }
  },
);

wall('"+N more" is exact whatever the page holds: counted from the pushed totals', async (ctx) => {
  await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
    const group = `more${Date.now()}`;
    for (let i = 0; i < 45; i++) await raise(ctx, { resource: `${group}-${i}`, group, severity: 'minor' });
    // A page of 20: the wall holds 20 alerts of the 45 in view.
    await openWall(page, ctx, `group=${group}&page-size=20`);
    const more = page.getByTestId('more');
    await more.waitFor();
    const count = async () => Number(/\d+/.exec((await more.textContent()) ?? '')?.[0]);
    const rows = await page.getByTestId('wall-alert').count();
    assert.is(rows + (await count()), 45, `${rows} rows + ${await count()} more`);
    // And live: another alert adds one to "+N more".
    const before = await count();
    await raise(ctx, { resource: `${group}-late`, group, severity: 'warning' });
    await page.waitForFunction(
      (n) => Number(/\d+/.exec(document.querySelector('[data-testid=more]')?.textContent ?? '')?.[0]) === n,
      before + 1,
      { timeout: 5000 },
    );
  });
});

wall(
  'scale=auto: a 4K screen shows the same rows as 1080p, twice as large; the severity bar and word read from afar; acked rows dimmed but readable',
  async (ctx) => {
    const group = `auto${Date.now()}`;
    for (let i = 0; i < 50; i++) await raise(ctx, { resource: `${group}-${i}`, group, severity: 'major' });
    await setStatus(ctx, await raise(ctx, { resource: 'acked-one', group, severity: 'critical' }), 'ack');
    const measure = (width: number, height: number) =>
      withPage(ctx.browser, { viewport: { width, height } }, async (page) => {
        await openWall(page, ctx, `group=${group}`);
        await page.getByTestId('more').waitFor();
        return await page.evaluate(() => {
          const rows = [...document.querySelectorAll('[data-testid=wall-alert]')];
          const first = rows[0]!;
          const px = (e: Element, p: 'fontSize' | 'width' | 'height') =>
            p === 'fontSize' ? parseFloat(getComputedStyle(e).fontSize) : e.getBoundingClientRect()[p];
          const sev = first.querySelector('.sev')!;
          return {
            rows: rows.length,
            resource: px(first.querySelector('.resource')!, 'fontSize'),
            sevFont: px(sev, 'fontSize'),
            sevWidth: px(sev, 'width'),
            sevHeight: px(sev, 'height'),
            rowHeight: px(first, 'height'),
            sevText: getComputedStyle(sev).textTransform,
          };
        });
      });
    const hd = await measure(1920, 1080);
    const uhd = await measure(3840, 2160);
    assert.is(uhd.rows, hd.rows, `same rows: ${JSON.stringify({ hd, uhd })}`);
    assert.ok(hd.rows >= 12 && hd.rows <= 30, `a wall's worth of rows at 1080p: ${hd.rows}`);
    assert.ok(
      Math.abs(uhd.resource / hd.resource - 2) < 0.1,
      `twice as large: ${hd.resource} → ${uhd.resource}`,
    );
    assert.ok(hd.sevFont >= 20, `the severity word in large type: ${hd.sevFont}px`);
    assert.is(hd.sevText, 'uppercase');
    assert.ok(hd.sevWidth >= 6 * hd.sevFont, `a wide bar: ${hd.sevWidth}px`);
    assert.ok(hd.sevHeight >= 0.7 * hd.rowHeight, `a full-height bar: ${hd.sevHeight} of ${hd.rowHeight}`);

    // Acked rows are dimmed (not the open rows' colour) yet keep AA contrast on the background.
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      await openWall(page, ctx, `group=${group}&resource=acked-one&resource=${group}-1`);
      await page.getByTestId('wall-alert').nth(1).waitFor();
      const look = await page.evaluate(() => {
        const colourOf = (sel: string) =>
          getComputedStyle(document.querySelector(`[data-testid=wall-alert][data-status=${sel}] .resource`)!)
            .color;
        return {
          acked: colourOf('ack'),
          open: colourOf('open'),
          opacity: getComputedStyle(document.querySelector('[data-testid=wall-alert][data-status=ack]')!)
            .opacity,
          background: getComputedStyle(document.querySelector('.wall')!).backgroundColor,
        };
      });
      assert.is.not(look.acked, look.open, 'acked rows are dimmed');
      assert.is(look.opacity, '1', 'dimmed by colour, not by fading the whole row');
      assert.ok(contrastOf(look.acked, look.background) >= 4.5, `readable: ${JSON.stringify(look)}`);
    });
  },
);

wall(
  'disconnected: after a few seconds the wall greys, the clock stops and DISCONNECTED says since when; no transport message',
  async (ctx) => {
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      const group = `down${Date.now()}`;
      await raise(ctx, { resource: 'still-here', group, severity: 'major' });
      let cut = false;
      const sockets: { close(): Promise<void> }[] = [];
      await page.routeWebSocket(/\/socket\.io\//, (ws) => {
        if (cut) {
          void ws.close();
          return;
        }
        const server = ws.connectToServer();
        sockets.push(ws, server);
      });
      await page.route(/\/socket\.io\//, (route) => (cut ? route.abort() : route.continue()));
      await openWall(page, ctx, `group=${group}`);
      await page.getByTestId('wall-alert').filter({ hasText: 'still-here' }).waitFor();
      assert.is(await page.getByTestId('disconnected').count(), 0);
      // Cut the connection once it has moved to the websocket (a long-poll already under way
      // cannot be cut from here, and would only time out after Socket.IO's 45 s).
      for (let i = 0; sockets.length < 2 && i < 100; i++) await page.waitForTimeout(100);
      assert.ok(sockets.length >= 2, 'the socket upgraded to a websocket');
      await page.waitForTimeout(1500);

      cut = true;
      const lost = Date.now();
      for (const s of sockets.splice(0)) await s.close().catch(() => undefined);
      const down = page.getByTestId('disconnected');
      await down.waitFor({ timeout: 10_000 });
      assert.ok(Date.now() - lost >= 2500, 'not at the first hiccup');
      assert.match((await down.textContent()) ?? '', /^DISCONNECTED — last update \d+ s ago$/);
      const size = await down.evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
      assert.ok(size >= 40, `large type: ${size}px`);
      const filter = await page.locator('.screen').evaluate((e) => getComputedStyle(e).filter);
      assert.match(filter, /grayscale\(1\)/);
      assert.ok(await page.getByText('still-here').isVisible(), 'the rows stay on screen');
      const clock = await page.getByTestId('clock').textContent();
      const age = Number(/(\d+) s ago/.exec((await down.textContent()) ?? '')?.[1]);
      await page.waitForTimeout(2200);
      assert.is(await page.getByTestId('clock').textContent(), clock, 'the clock stopped');
      const later = Number(/(\d+) s ago/.exec((await down.textContent()) ?? '')?.[1]);
      assert.ok(later >= age + 1, `the age counts on: ${age} then ${later}`);
      const text = await page.evaluate(() => document.body.innerText);
      assert.not.match(text, /xhr|poll error|websocket error|transport/i);

      cut = false;
      await down.waitFor({ state: 'detached', timeout: 20_000 });
      const resumed = await page.getByTestId('clock').textContent();
      await page.waitForTimeout(1500);
      assert.is.not(await page.getByTestId('clock').textContent(), resumed, 'the clock runs again');
    });
  },
);

wall('group-by=event: one row per event with its count and most severe alert, kept live', async (ctx) => {
  await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
    const group = `grp${Date.now()}`;
    const raiseEvent = (resource: string, event: string, severity: string) =>
      raise(ctx, { resource, event, group, severity });
    await raiseEvent('h1', 'DiskFull', 'minor');
    await raiseEvent('h2', 'DiskFull', 'major');
    await raiseEvent('h3', 'DiskFull', 'minor');
    await raiseEvent('h4', 'NodeDown', 'critical');
    await setStatus(ctx, await raiseEvent('h5', 'Backup', 'critical'), 'ack');
    await openWall(page, ctx, `group=${group}&group-by=event`);
    const groups = page.getByTestId('wall-group');
    await groups.nth(2).waitFor();
    const read = () =>
      groups.evaluateAll((els) =>
        els.map(
          (e) =>
            `${e.getAttribute('data-key')}:${e.getAttribute('data-count')}:${e.getAttribute('data-severity')}`,
        ),
      );
    assert.equal(await read(), ['NodeDown:1:critical', 'DiskFull:3:major', 'Backup:1:critical']);
    assert.is(await page.getByTestId('wall-alert').count(), 0, 'groups instead of alerts');
    assert.match((await groups.nth(1).textContent()) ?? '', /×3/);
    assert.match((await groups.nth(2).textContent()) ?? '', /all acked/i);

    await raiseEvent('h6', 'DiskFull', 'critical');
    await page.waitForFunction(
      () => document.querySelector('[data-testid=wall-group]')?.getAttribute('data-key') === 'DiskFull',
      null,
      { timeout: 5000 },
    );
    assert.equal(await read(), ['DiskFull:4:critical', 'NodeDown:1:critical', 'Backup:1:critical']);
  });
});

wall('the heartbeat strip: origins ok, slow or expired, expired ones first and large; live', async (ctx) => {
  await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
    const steady = `hb-steady-${Date.now()}`;
    const short = `hb-short-${Date.now()}`;
    await ctx.api.post('/heartbeat', { origin: steady, timeout: 600 });
    await ctx.api.post('/heartbeat', { origin: short, timeout: 2 });
    await openWall(page, ctx, 'group=none');
    const strip = page.getByTestId('heartbeat-strip');
    const beat = (origin: string) => strip.locator(`[data-origin="${origin}"]`);
    await beat(steady).and(page.locator('[data-status=ok]')).waitFor({ timeout: 5000 });
    // Two seconds without a beat and the short one expires on screen, without a reload.
    await beat(short).and(page.locator('[data-status=expired]')).waitFor({ timeout: 8000 });
    assert.match((await beat(short).textContent()) ?? '', /EXPIRED/);
    const order = await strip
      .getByTestId('heartbeat')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-origin')));
    assert.ok(order.indexOf(short) < order.indexOf(steady), `expired first: ${order.join()}`);
    const font = async (origin: string) =>
      beat(origin).evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
    assert.ok((await font(short)) > (await font(steady)), 'expired in larger type');
    assert.match((await strip.textContent()) ?? '', /1 expired/);

    // A new beat is pushed: the origin is ok again.
    await ctx.api.post('/heartbeat', { origin: short, timeout: 600 });
    await beat(short).and(page.locator('[data-status=ok]')).waitFor({ timeout: 5000 });
  });
});

wall('badges meet WCAG AA for every severity; a long row never clips its status badge', async (ctx) => {
  await withPage(ctx.browser, { viewport: { width: 1366, height: 768 } }, async (page) => {
    const group = `aa${Date.now()}`;
    const config = (await (await ctx.api.get('/config')).json()) as {
      alarm_model: { severity: Record<string, number> };
    };
    // Every severity of the alarm model, asked for by name (normal, ok and cleared arrive closed).
    const severities = Object.keys(config.alarm_model.severity);
    for (const severity of severities) await raise(ctx, { resource: `sev-${severity}`, group, severity });
    const long = await raise(ctx, {
      resource: `a-very-long-resource-name-${'x'.repeat(60)}.example.net`,
      event: `AnEventWithAVeryLongNameThatCannotPossiblyFit${'Y'.repeat(60)}`,
      group,
      severity: 'critical',
    });
    await setStatus(ctx, long, 'ack');
    const statuses = 'status=open&status=ack&status=closed';
    await openWall(
      page,
      ctx,
      `group=${group}&${statuses}&${severities.map((s) => `severity=${s}`).join('&')}&scale=0.6`,
    );
    await page
      .getByTestId('wall-alert')
      .nth(severities.length - 1)
      .waitFor();
    const badges = await page.evaluate(() =>
      [
        ...document.querySelectorAll(
          '[data-testid=wall-alert]:not(.quiet) .sev, [data-testid=tile]:not(.zero)',
        ),
      ].map((e) => ({
        // The severity by name: the bars and tiles write informational and indeterminate shorter.
        what: `${e.className} ${e.closest('[data-severity]')?.getAttribute('data-severity')}`,
        fg: getComputedStyle(e).color,
        bg: getComputedStyle(e).backgroundColor,
      })),
    );
    const seen = new Set(badges.map((b) => b.what.split(' ').pop()?.toLowerCase()));
    for (const s of ['security', 'critical', 'debug', 'trace', 'informational'])
      assert.ok(seen.has(s), `${s} shown`);
    const poor = badges
      .filter((b) => contrastOf(b.fg, b.bg) < 4.5)
      .map((b) => `${b.what}: ${contrastOf(b.fg, b.bg).toFixed(2)}`);
    assert.equal(poor, []);

    const fits = await page
      .getByTestId('wall-alert')
      .filter({ hasText: 'a-very-long-resource' })
      .evaluate((row) => {
        const badge = row.querySelector('.status')!.getBoundingClientRect();
        const at = document.elementFromPoint(badge.right - 2, badge.top + badge.height / 2);
        const box = row.getBoundingClientRect();
        return {
          hit: !!at && row.querySelector('.status')!.contains(at),
          inside: badge.right <= box.right && badge.left >= box.left,
          text: row.querySelector('.status')!.textContent,
        };
      });
    assert.equal(fits, { hit: true, inside: true, text: 'ack' });
  });
});

/** Every parameter that configures a screen rather than selecting alerts. */
const UI_PARAMS = [
  'tiles',
  'sound',
  'sound-repeat',
  'sound-mute',
  'columns',
  'resort',
  'scale',
  'theme',
  'kiosk',
  'density',
  'heartbeats',
  'group-by',
];

wall(
  'renders without chrome or a gesture, and no UI-only parameter reaches the API or the socket',
  async (ctx) => {
    await withPage(ctx.browser, async (page) => {
      const group = `leak${Date.now()}`;
      await raise(ctx, { resource: 'leak-1', group, severity: 'major' });
      const rest: URL[] = [];
      const subscribed: string[] = [];
      const collect = (text: string) => {
        for (const m of text.matchAll(/"query":"((?:[^"\\]|\\.)*)"/g))
          subscribed.push(JSON.parse(`"${m[1]}"`) as string);
      };
      page.on('request', (r) => {
        const url = new URL(r.url());
        if (!url.pathname.startsWith('/api')) return;
        rest.push(url);
        const body = r.postData();
        if (body) collect(body);
      });
      page.on('websocket', (ws) => ws.on('framesent', (f) => collect(String(f.payload))));
      const ui =
        'tiles=environment&sound=critical&sound-repeat=30&sound-mute=5&columns=2&resort=30&scale=1.2&theme=light&kiosk=1&density=compact&heartbeats=on';
      await openWall(page, ctx, `${ui}&group=${group}`);
      await page.getByTestId('wall-alert').filter({ hasText: 'leak-1' }).waitFor();
      await page
        .getByTestId('indicator')
        .filter({ hasText: 'Production' })
        .locator('.total', { hasText: '1' })
        .waitFor();

      assert.is(await page.getByRole('navigation').count(), 0, 'no navigation bar');
      assert.is(await page.locator('.wall').getAttribute('data-theme'), 'light');
      assert.ok(subscribed.length >= 3, `the list and the tiles subscribed (${subscribed.length})`);
      assert.ok(
        subscribed.every((q) => new URLSearchParams(q).get('group') === group),
        'every subscription keeps the filter',
      );
      const leaks = [
        ...subscribed.flatMap((q) => [...new URLSearchParams(q).keys()].filter((k) => UI_PARAMS.includes(k))),
        ...rest.flatMap((u) =>
          [...u.searchParams.keys()].filter((k) => UI_PARAMS.includes(k)).map((k) => `${u.pathname}?${k}`),
        ),
      ];
      assert.equal(leaks, []);
      assert.ok(
        rest.some((u) => u.pathname === '/api/environments' && u.searchParams.get('group') === group),
        'the environment list is asked for with the filter',
      );
    });
  },
);

for (const [width, height] of [
  [1920, 1080],
  [1366, 768],
] as const) {
  wall(
    `fills ${width}×${height} without scrollbars at any scale: the list truncates; every control has a name`,
    async (ctx) => {
      const group = `fit${width}`;
      for (let i = 0; i < 90; i++)
        await raise(ctx, {
          resource: `${group}-${i}`,
          group,
          severity: ['critical', 'major', 'minor'][i % 3]!,
        });
      for (const scale of [1, 2]) {
        await withPage(ctx.strict, { viewport: { width, height } }, async (page) => {
          await openWall(
            page,
            ctx,
            `group=${group}&tiles=indicators&columns=2&sound=critical&scale=${scale}`,
          );
          await page.getByTestId('more').waitFor();
          await page.getByTestId('indicator').first().waitFor();
          const m = await page.evaluate(() => {
            const rows = [...document.querySelectorAll('[data-testid=wall-alert], [data-testid=more]')];
            return {
              scrollHeight: document.documentElement.scrollHeight,
              scrollWidth: document.documentElement.scrollWidth,
              rows: rows.length,
              lowest: Math.max(...rows.map((r) => r.getBoundingClientRect().bottom)),
              rightmost: Math.max(...rows.map((r) => r.getBoundingClientRect().right)),
            };
          });
          assert.ok(m.scrollHeight <= height && m.scrollWidth <= width, `no scrolling: ${JSON.stringify(m)}`);
          assert.ok(m.lowest <= height && m.rightmost <= width, `every row in sight: ${JSON.stringify(m)}`);
          assert.ok(m.rows >= (scale === 1 ? 10 : 4), `the screen is used: ${m.rows} rows`);
          const more = Number(/\d+/.exec((await page.getByTestId('more').textContent()) ?? '')?.[0]);
          assert.is(more + m.rows - 1, 90, 'the "+N more" row counts what is left out');

          // Accessible names as the browser computes them, for every control on the screen.
          const cdp = await page.context().newCDPSession(page);
          const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
            nodes: { role?: { value: string }; name?: { value: string }; ignored: boolean }[];
          };
          const controls = nodes.filter(
            (n) =>
              !n.ignored &&
              ['button', 'link', 'combobox', 'textbox', 'checkbox'].includes(n.role?.value ?? ''),
          );
          assert.ok(controls.length >= INDICATORS.length + 4, `controls found: ${controls.length}`);
          const unnamed = controls.filter((n) => !n.name?.value.trim()).map((n) => n.role?.value);
          assert.equal(unnamed, []);
        });
      }
    },
  );
}

wall.run();
