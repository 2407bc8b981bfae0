import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';
import { startServerProcess } from '../helpers/process.ts';
import { axeViolations } from './axe.ts';
import { launchBrowser, withPage } from './browser.ts';

/**
 * The wall as a NOC team reads it across the room (issue #40 item 1, docs/ui-wall.md): nothing
 * clipped at any screen size or scale, whole heartbeat chips and "+N more", one grid for every row,
 * tiles that count what waits apart from what is acked, type large enough at 1080p, a silent server
 * noticed within 10 s without the rows moving, and no axe violations. Realistic data: hundreds of
 * alerts of every severity with long names, heartbeats expired and slow.
 */
interface Ctx extends AppContext {
  browser: Browser;
}

const noc = suite<Ctx>('web UI: the wall in a NOC', {} as Ctx);
noc.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'browser_wall_noc', PLUGINS: 'remote_ip' });
  ctx.browser = await launchBrowser();
});
noc.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

const SEVERITIES = ['security', 'critical', 'major', 'minor', 'warning', 'indeterminate', 'informational'];
const EVENTS = [
  'KafkaConsumerLagExceedsThresholdForPartitionRebalance',
  'DiskFull',
  'NodeNotReady',
  'OOMKilled',
];
const ENVIRONMENTS = ['Production', 'Staging', 'Disaster-Recovery-Frankfurt'];

interface Raised {
  id: string;
  severity: string;
}

/** `count` alerts in `group`, every severity in turn, long names, several environments; numbered from `from`. */
async function raiseMany(
  ctx: Ctx,
  group: string,
  count: number,
  severities = SEVERITIES,
  from = 0,
): Promise<Raised[]> {
  const out: Raised[] = [];
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, async (_, k) => {
        const n = from + i + k;
        const severity = severities[n % severities.length]!;
        const res = await ctx.api.post('/alert', {
          resource:
            n % 4
              ? `db-${n}.${group}.example.net`
              : `k8s-prod-eu-west-1-node-pool-memory-optimised-${n}.${group}.internal`,
          event: `${EVENTS[n % EVENTS.length]}-${n}`,
          environment: ENVIRONMENTS[n % ENVIRONMENTS.length],
          service: ['checkout-frontend-platform'],
          group,
          severity,
        });
        assert.is(res.status, 201, await res.clone().text());
        return { id: ((await res.json()) as { alert: { id: string } }).alert.id, severity };
      }),
    );
    out.push(...batch);
  }
  return out;
}

async function setStatus(ctx: Ctx, ids: string[], status: string): Promise<void> {
  for (let i = 0; i < ids.length; i += 25)
    await Promise.all(
      ids.slice(i, i + 25).map(async (id) => {
        const res = await ctx.api.put(`/alert/${id}/status`, { status, text: '' });
        assert.is(res.status, 200, await res.text());
      }),
    );
}

/** Heartbeats from `count` origins with long names: a quarter expire within a second, a quarter are slow. */
async function beat(ctx: Ctx, prefix: string, count: number): Promise<void> {
  const late = new Date(Date.now() - 60_000).toISOString();
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await ctx.api.post('/heartbeat', {
        origin: `${prefix}-${['collector', 'exporter-prometheus-node', 'cloudwatch-bridge'][i % 3]}-${i}.eu-west-1`,
        timeout: i % 4 === 0 ? 1 : 600,
        ...(i % 4 === 1 ? { createTime: late } : {}),
      });
      assert.is(res.status, 201, await res.text());
    }),
  );
}

/** Opens a wall and waits until it is live (the snapshot answered, no banner) and its rows are drawn. */
async function openWall(page: Page, ctx: Ctx, search: string): Promise<void> {
  await page.goto(`${ctx.origin}/wall?${search}`);
  await page.waitForFunction(
    () =>
      document.querySelector('.wall[data-loaded=true]') &&
      !document.querySelector('[data-testid=connection-banner]') &&
      document.querySelector('[data-testid=wall-alert], [data-testid=wall-group]'),
    null,
    { timeout: 15_000 },
  );
}

/**
 * Every label on the wall whose text is cut by its box: the text's extent (a range over the box's
 * contents) must lie inside the box. Only boxes on screen count (chips wrapped out of sight do not).
 */
const clippedLabels = (page: Page) =>
  page.evaluate(() => {
    const boxes = document.querySelectorAll<HTMLElement>(
      '.sev, .state, .count, .chip, [data-testid=tile], [data-testid=tile] .label, [data-testid=heartbeat], [data-testid=more], [data-testid=heartbeats-more]',
    );
    const cut: string[] = [];
    for (const box of boxes) {
      const b = box.getBoundingClientRect();
      if (!b.width || b.bottom > innerHeight || b.right > innerWidth) {
        if (b.width && b.top < innerHeight && b.left < innerWidth) cut.push(`off screen: ${box.textContent}`);
        continue;
      }
      const clip = box.closest('ul, .breakdown')?.getBoundingClientRect();
      if (clip && b.top >= clip.bottom) continue;
      const range = document.createRange();
      range.selectNodeContents(box);
      const t = range.getBoundingClientRect();
      if (!t.width) continue;
      if (t.left < b.left - 0.5 || t.right > b.right + 0.5 || t.top < b.top - 1 || t.bottom > b.bottom + 1)
        cut.push(
          `${box.className.split(' ')[0]} "${box.textContent?.trim()}": text ${Math.round(t.left)}–${Math.round(t.right)} in box ${Math.round(b.left)}–${Math.round(b.right)}`,
        );
    }
    return cut;
  });

noc(
  'no severity word, tile label or status badge is ever cut: 1366, 1920 and 3840 wide, scales 0.5 to 2, browser zoom; INFO and INDET on purpose',
  async (ctx) => {
    const group = `clip${Date.now()}`;
    const raised = await raiseMany(ctx, group, 140);
    await setStatus(
      ctx,
      raised.filter((_, i) => i % 5 === 0).map((r) => r.id),
      'ack',
    );
    await setStatus(
      ctx,
      raised.filter((_, i) => i % 5 === 1).map((r) => r.id),
      'shelved',
    );
    const query = `group=${group}&status=open&status=ack&status=shelved&sort-by=severity&sort-by=lastReceiveTime`;
    const screens = [
      { width: 1366, height: 768 },
      { width: 1920, height: 1080 },
      { width: 3840, height: 2160 },
    ];
    for (const viewport of screens) {
      for (const scale of ['', '&scale=0.5', '&scale=2', '&group-by=event', '&columns=3']) {
        await withPage(ctx.browser, { viewport }, async (page) => {
          await openWall(page, ctx, `${query}${scale}`);
          await page.waitForTimeout(300);
          assert.equal(await clippedLabels(page), [], `${viewport.width}${scale}`);
        });
      }
    }
    // Browser zoom at 200% on a 1920×1080 screen, and at 300% on 1366×768.
    for (const [viewport, deviceScaleFactor] of [
      [{ width: 960, height: 540 }, 2],
      [{ width: 455, height: 256 }, 3],
    ] as const) {
      await withPage(ctx.browser, { viewport, deviceScaleFactor }, async (page) => {
        await openWall(page, ctx, query);
        await page.waitForTimeout(300);
        assert.equal(await clippedLabels(page), [], `zoom ${deviceScaleFactor}`);
      });
    }

    // The long words are shortened on purpose, the full word kept as the title; the others whole.
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      await openWall(
        page,
        ctx,
        `group=${group}&severity=informational&severity=indeterminate&severity=security`,
      );
      const words = await page.evaluate(() =>
        [...document.querySelectorAll('[data-testid=wall-alert] .sev, [data-testid=tile] .label')].map(
          (e) => ({
            text: (e as HTMLElement).innerText.trim(),
            title: e.querySelector('abbr')?.title ?? null,
            font: parseFloat(getComputedStyle(e).fontSize),
          }),
        ),
      );
      const seen = new Map(words.map((w) => [w.text, w.title]));
      assert.equal(
        [seen.get('INFO'), seen.get('INDET'), seen.get('SECURITY')],
        ['informational', 'indeterminate', null],
      );
      const small = words.filter((w) => w.font < 20);
      assert.equal(small, [], 'not shrunk at 1080p');
    });
  },
);

noc(
  'the heartbeat strip shows whole chips only, and "+N more" counts exactly those out of sight',
  async (ctx) => {
    await beat(ctx, `strip${Date.now()}`, 40);
    await raiseMany(ctx, `hb${Date.now()}`, 5);
    for (const viewport of [
      { width: 1366, height: 768 },
      { width: 1920, height: 1080 },
      { width: 3840, height: 2160 },
    ]) {
      await withPage(ctx.browser, { viewport }, async (page) => {
        await openWall(page, ctx, '');
        await page.locator('[data-testid=heartbeat][data-status=expired]').first().waitFor({ timeout: 8000 });
        await page.waitForTimeout(1200);
        const strip = await page.getByTestId('heartbeat-strip').evaluate((s) => {
          const ul = s.querySelector('ul')!.getBoundingClientRect();
          const chips = [...s.querySelectorAll('[data-testid=heartbeat]')].map((c) => {
            const r = c.getBoundingClientRect();
            const inside =
              r.left >= ul.left - 0.5 &&
              r.right <= ul.right + 0.5 &&
              r.top >= ul.top - 0.5 &&
              r.bottom <= ul.bottom + 0.5;
            const outside =
              r.left >= ul.right || r.right <= ul.left || r.top >= ul.bottom || r.bottom <= ul.top;
            return {
              origin: c.getAttribute('data-origin'),
              status: c.getAttribute('data-status'),
              inside,
              outside,
            };
          });
          return { chips, more: s.querySelector('[data-testid=heartbeats-more]')?.textContent ?? null };
        });
        const partly = strip.chips.filter((c) => !c.inside && !c.outside);
        assert.equal(partly, [], `${viewport.width}: no chip cut`);
        const shown = strip.chips.filter((c) => c.inside);
        assert.ok(shown.length >= 1, 'some chips shown');
        assert.ok(
          shown.every((c) => c.status === 'expired') || shown[0]!.status === 'expired',
          'expired first',
        );
        assert.is(strip.more, `+${strip.chips.length - shown.length} more`, `${viewport.width}: exact`);
      });
    }
  },
);

noc('one grid: every row, acked or not, grouped or not, starts each column at the same x', async (ctx) => {
  const group = `grid${Date.now()}`;
  const raised = await raiseMany(ctx, group, 60);
  await setStatus(
    ctx,
    raised.filter((_, i) => i % 4 === 0).map((r) => r.id),
    'ack',
  );
  await setStatus(ctx, [raised[1]!.id], 'shelved');
  await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
    // Sorted by severity, not status: acked and open rows interleave on screen.
    await openWall(page, ctx, `group=${group}&status=open&status=ack&status=shelved&sort-by=severity`);
    const starts = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('[data-testid=wall-alert]')];
      const x = (sel: string) => [
        ...new Set(rows.map((r) => Math.round(r.querySelector(sel)!.getBoundingClientRect().left))),
      ];
      return {
        statuses: [...new Set(rows.map((r) => r.getAttribute('data-status')))].sort(),
        resource: x('.resource'),
        event: x('.event'),
        env: x('.env'),
        age: x('.age'),
      };
    });
    assert.equal(starts.statuses, ['ack', 'open', 'shelved']);
    for (const column of ['resource', 'event', 'env', 'age'] as const)
      assert.is(starts[column].length, 1, `${column} starts at ${starts[column].join(', ')}`);
  });

  await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
    await openWall(page, ctx, `group=${group}&status=open&status=ack&group-by=environment`);
    await page.getByTestId('wall-group').nth(2).waitFor();
    const groups = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('[data-testid=wall-group]')];
      const x = (sel: string) => [
        ...new Set(rows.map((r) => Math.round(r.querySelector(sel)!.getBoundingClientRect().left))),
      ];
      return {
        key: x('.resource'),
        breakdown: x('.breakdown'),
        chips: rows.map((r) =>
          [...r.querySelectorAll('.chip')].map((c) => ({
            severity: c.getAttribute('data-severity'),
            text: (c as HTMLElement).innerText,
            filled: getComputedStyle(c).backgroundColor !== 'rgba(0, 0, 0, 0)',
          })),
        ),
        acked: rows.map((r) => r.querySelector('.status')?.textContent ?? ''),
      };
    });
    assert.is(groups.key.length, 1, `key starts at ${groups.key.join(', ')}`);
    assert.is(groups.breakdown.length, 1, `breakdown starts at ${groups.breakdown.join(', ')}`);
    // 60 alerts over three environments: 20 each, all seven severities in each, as severity chips.
    for (const chips of groups.chips) {
      assert.equal(
        chips.map((c) => c.severity),
        SEVERITIES,
      );
      assert.ok(
        chips.every((c) => /^\d+ [A-Z]+$/.test(c.text) && c.filled),
        JSON.stringify(chips),
      );
    }
    assert.ok(
      groups.acked.every((t) => /^\d+ acked$/.test(t)),
      groups.acked.join(),
    );
  });
});

noc(
  'tiles: what waits first, then "· N acked"; a fully acked severity is outlined, not solid; live',
  async (ctx) => {
    const group = `tiles${Date.now()}`;
    const warnings = await raiseMany(ctx, group, 30, ['warning']);
    const criticals = await raiseMany(ctx, group, 5, ['critical'], 100);
    await setStatus(
      ctx,
      warnings.map((r) => r.id),
      'ack',
    );
    await setStatus(
      ctx,
      criticals.slice(0, 2).map((r) => r.id),
      'ack',
    );
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      await openWall(page, ctx, `group=${group}`);
      const tile = (s: string) => page.locator(`[data-testid=tile][data-severity=${s}]`);
      await tile('critical')
        .locator('[data-testid=tile-acked]', { hasText: '· 2 acked' })
        .waitFor({ timeout: 5000 });
      const read = (s: string) =>
        tile(s).evaluate((t) => ({
          text: (t as HTMLElement).innerText.replace(/\s+/g, ' ').trim(),
          solid: getComputedStyle(t).backgroundColor !== 'rgba(0, 0, 0, 0)',
        }));
      assert.equal(await read('critical'), { text: '3 · 2 acked CRITICAL', solid: true });
      assert.equal(await read('warning'), { text: '0 · 30 acked WARNING', solid: false });
      assert.equal((await read('major')).solid, false, 'nothing at all: outlined as well');

      // An ack is pushed: one fewer waiting, one more acked, no reload.
      await setStatus(ctx, [criticals[2]!.id], 'ack');
      await tile('critical')
        .locator('[data-testid=tile-acked]', { hasText: '· 3 acked' })
        .waitFor({ timeout: 5000 });
      assert.equal(await read('critical'), { text: '2 · 3 acked CRITICAL', solid: true });
    });
  },
);

noc('readable at 1080p: the ACK badge, tile labels and acked counts at 20 px or more', async (ctx) => {
  const group = `size${Date.now()}`;
  const raised = await raiseMany(ctx, group, 30);
  await setStatus(
    ctx,
    raised.filter((_, i) => i % 2 === 0).map((r) => r.id),
    'ack',
  );
  for (const search of [`group=${group}&sort-by=severity`, `group=${group}&group-by=event`]) {
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      await openWall(page, ctx, search);
      await page.locator('.status').first().waitFor();
      await page.getByTestId('tile-acked').first().waitFor({ timeout: 5000 });
      const sizes = await page.evaluate(() =>
        [
          ...document.querySelectorAll('.status, [data-testid=tile] .label, [data-testid=tile-acked], .chip'),
        ].map((e) => ({
          what: `${e.className.split(' ')[0]} ${e.textContent?.trim()}`,
          px: parseFloat(getComputedStyle(e).fontSize),
        })),
      );
      assert.ok(
        sizes.some((s) => /^status/.test(s.what)),
        'badges shown',
      );
      const small = sizes.filter((s) => s.px < 20);
      assert.equal(small, [], search);
    });
  }
});

noc(
  'no layout shift when the socket drops: the banner lies over the wall, its time in 24-hour form',
  async (ctx) => {
    const group = `shift${Date.now()}`;
    await raiseMany(ctx, group, 40);
    await withPage(
      ctx.browser,
      { viewport: { width: 1920, height: 1080 }, locale: 'en-US' },
      async (page) => {
        let cut = false;
        const sockets: { close(): Promise<void> }[] = [];
        await page.routeWebSocket(/\/socket\.io\//, (ws) => {
          if (cut) return void ws.close();
          sockets.push(ws, ws.connectToServer());
        });
        await page.route(/\/socket\.io\//, (route) => (cut ? route.abort() : route.continue()));
        await openWall(page, ctx, `group=${group}`);
        for (let i = 0; sockets.length < 4 && i < 100; i++) await page.waitForTimeout(100);
        await page.waitForTimeout(1000);
        const tops = () =>
          page.evaluate(() =>
            [
              ...document.querySelectorAll(
                '[data-testid=wall-alert], [data-testid=tile], [data-testid=heartbeat-strip]',
              ),
            ].map((e) => Math.round(e.getBoundingClientRect().top)),
          );
        const before = await tops();
        cut = true;
        for (const s of sockets.splice(0)) await s.close().catch(() => undefined);
        const banner = page.getByTestId('connection-banner');
        await banner.waitFor({ timeout: 2000 });
        assert.is(await page.getByTestId('disconnected').count(), 0, 'the first seconds: the banner alone');
        assert.equal(await tops(), before, 'nothing moved under the banner');
        assert.match((await banner.textContent()) ?? '', /Connection lost/);
        const time = (await page.getByTestId('data-time').textContent()) ?? '';
        assert.match(time, /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/, `24-hour: ${time}`);
        await page.getByTestId('disconnected').waitFor({ timeout: 5000 });
        assert.equal(await tops(), before, 'nor under the overlay');
        cut = false;
      },
    );
  },
);

noc(
  'a hung server (stopped, its connections open) greys the wall within 10 s; it comes back by itself',
  async (ctx) => {
    const db = await createTestDatabase('browser_wall_hung');
    const server = await startServerProcess({ DATABASE_URL: db.url, PLUGINS: 'remote_ip' });
    try {
      const res = await fetch(`${new URL(server.url).origin}/api/alert`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          resource: 'hung-host',
          event: 'e',
          environment: 'Production',
          severity: 'major',
        }),
      });
      assert.is(res.status, 201);
      await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
        await page.goto(`${new URL(server.url).origin}/wall`);
        await page.getByText('hung-host').waitFor({ timeout: 15_000 });
        await page.waitForFunction(() => document.querySelector('.wall[data-live=true]'));
        await page.waitForTimeout(1000);
        server.child.kill('SIGSTOP');
        const stopped = Date.now();
        try {
          await page.getByTestId('disconnected').waitFor({ timeout: 12_000 });
          const after = Date.now() - stopped;
          assert.ok(after <= 10_000, `noticed after ${after} ms`);
          assert.ok(await page.getByText('hung-host').isVisible(), 'the rows stay on screen');
        } finally {
          server.child.kill('SIGCONT');
        }
        await page.getByTestId('disconnected').waitFor({ state: 'detached', timeout: 20_000 });
      });
    } finally {
      server.child.kill('SIGCONT');
      await server.stop();
      await dropTestDatabase(db.name);
    }
  },
);

noc('axe: no violations on the wall, with alerts, groups and heartbeats shown', async (ctx) => {
  const group = `axe${Date.now()}`;
  const raised = await raiseMany(ctx, group, 60);
  await setStatus(
    ctx,
    raised.filter((_, i) => i % 4 === 0).map((r) => r.id),
    'ack',
  );
  await beat(ctx, `axe${Date.now()}`, 12);
  for (const search of [
    `group=${group}`,
    `group=${group}&group-by=event`,
    `group=${group}&tiles=environment`,
  ]) {
    await withPage(ctx.browser, { viewport: { width: 1920, height: 1080 } }, async (page) => {
      await openWall(page, ctx, search);
      await page.getByTestId('heartbeat-strip').waitFor();
      await page.waitForTimeout(1500);
      assert.equal(await axeViolations(page), [], search);
    });
  }
});

noc.run();
