import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';

/** Debian's Chromium (apt-get install chromium), driven by playwright-core. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

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
  ctx.browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required'],
  });
  ctx.strict = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
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
    const page = await ctx.browser.newPage();
    try {
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
      await tile('Development').locator('.total', { hasText: '2' }).waitFor();
      // The acked major is counted but does not colour the title: the worst open one is minor.
      await worst('Development', 'minor');

      await raise(ctx, { resource: 'd3', group, severity: 'critical', environment: 'Development' });
      await worst('Development', 'critical');
      await tile('Development').locator('.total', { hasText: '3' }).waitFor();
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
    } finally {
      await page.close();
    }
  },
);

wall(
  'indicator tiles from /config: counts per severity, worst open colour, live, open the console',
  async (ctx) => {
    const page = await ctx.browser.newPage();
    try {
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
      await web.locator('.total', { hasText: '2' }).waitFor();
      await web.and(page.locator('[data-worst=minor]')).waitFor();
      assert.match((await web.getAttribute('aria-label')) ?? '', /1 major, 1 minor/);
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
      await web.locator('.total', { hasText: '3' }).waitFor();

      await misc.click();
      await page.waitForURL(/\/alerts\?/);
      const url = new URL(page.url());
      assert.equal(
        [url.searchParams.get('group'), url.searchParams.getAll('status')],
        ['misc-tier', ['open', 'ack']],
      );
    } finally {
      await page.close();
    }
  },
);

wall(
  'severity as word and colour, several columns, and a font-scale control hidden until the mouse moves',
  async (ctx) => {
    const page = await ctx.browser.newPage({ viewport: { width: 1920, height: 1080 } });
    try {
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
    } finally {
      await page.close();
    }
  },
);

wall(
  'newest critical first; changes keep their rows until the calm re-sort; an escalation flashes distinctly',
  async (ctx) => {
    const page = await ctx.browser.newPage();
    try {
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
    } finally {
      await page.close();
    }
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
    const page = await ctx.browser.newPage();
    try {
      const group = `snd${Date.now()}`;
      await openWall(page, ctx, `group=${group}&sound=critical`);
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
    } finally {
      await page.close();
    }
  },
);

wall('sound-repeat plays again every N s until the alert is acked', async (ctx) => {
  const page = await ctx.browser.newPage();
  try {
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
  } finally {
    await page.close();
  }
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
    await snoozed.addInitScript(() =>
      localStorage.setItem('alertwall.sound-muted-until', String(Date.now() + 1500)),
    );
    await openWall(snoozed, ctx, `group=${group}&sound=critical`);
    await waitForSoundState(snoozed, 'muted');
    await waitForSoundState(snoozed, 'on', 4000);
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
  const page = await ctx.browser.newPage();
  try {
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
  } finally {
    await page.close();
  }
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
];

wall(
  'renders without chrome or a gesture, and no UI-only parameter reaches the API or the socket',
  async (ctx) => {
    const page = await ctx.browser.newPage();
    try {
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
        'tiles=environment&sound=critical&sound-repeat=30&sound-mute=5&columns=2&resort=30&scale=1.2&theme=light&kiosk=1&density=compact';
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
    } finally {
      await page.close();
    }
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
        const page = await ctx.strict.newPage({ viewport: { width, height } });
        try {
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
        } finally {
          await page.close();
        }
      }
    },
  );
}

wall.run();
