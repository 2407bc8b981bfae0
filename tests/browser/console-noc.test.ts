/**
 * The console as a NOC team uses it (issue #40, item 2 and the console's part of item 5): worked-on
 * rows recede, highlights never hide the severity and stay quiet for the reader's own bulk action,
 * the search box finds what people type, bulk selection of this page or all matching with its
 * progress, one focus ring per row, and no axe findings with a few hundred alerts shown.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { axeViolations } from './axe.ts';
import { launchBrowser, withPage } from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
}

interface AlertBody {
  resource: string;
  event?: string;
  environment?: string;
  severity?: string;
  service?: string[];
  group?: string;
  text?: string;
}

async function postAlert(ctx: AppContext, body: AlertBody) {
  const res = await ctx.api.post('/alert', {
    event: 'NocTest',
    environment: 'Production',
    service: ['web'],
    severity: 'major',
    ...body,
  });
  assert.is(res.status, 201, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

/** Posts many alerts, eight at a time; returns their ids in order. */
async function postMany(ctx: AppContext, bodies: AlertBody[]) {
  const ids: string[] = new Array<string>(bodies.length);
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const i = next++;
      ids[i] = await postAlert(ctx, bodies[i]!);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

const act = async (ctx: AppContext, id: string, action: string) =>
  assert.is((await ctx.api.put(`/alert/${id}/action`, { action, text: '' })).status, 200);

const FULL_HD = { viewport: { width: 1920, height: 1080 } };
const rows = (page: Page) => page.getByTestId('alert-row');
const row = (page: Page, resource: string) => rows(page).filter({ hasText: resource });
const live = (page: Page) =>
  page.waitForFunction(() => !document.querySelector('[data-testid=connection-banner]'), null, {
    timeout: 10_000,
  });
const byResource = (tag: string) => encodeURIComponent(`resource:${tag}*`);
const SEVERITIES = [
  'critical',
  'major',
  'minor',
  'warning',
  'indeterminate',
  'informational',
  'normal',
  'ok',
];

const noc = suite<Ctx>('web UI: the console for a NOC (issue #40)', {} as Ctx);
noc.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'browser_console_noc', PLUGINS: 'remote_ip' });
  ctx.browser = await launchBrowser();
});
noc.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

noc('acked and shelved rows recede, as closed ones do, and stay readable (AA)', async (ctx) => {
  await withPage(ctx.browser, FULL_HD, async (page) => {
    const tag = `rc${Date.now()}`;
    const [, acked, shelved, closed] = await postMany(
      ctx,
      ['open', 'acked', 'shelved', 'closed'].map((s) => ({ resource: `${tag}-${s}` })),
    );
    await act(ctx, acked!, 'ack');
    await act(ctx, shelved!, 'shelve');
    await act(ctx, closed!, 'close');
    await page.goto(
      `${ctx.origin}/alerts?q=${byResource(tag)}&status=open&status=ack&status=shelved&status=closed&sort-by=resource`,
    );
    await rows(page).nth(3).waitFor();
    const look = (what: string) =>
      row(page, `${tag}-${what}`).evaluate((tr) => {
        const sev = tr.querySelector<HTMLElement>('[data-testid=severity]')!;
        return {
          text: getComputedStyle(tr).color,
          row: getComputedStyle(tr).backgroundColor,
          sevFill: getComputedStyle(sev).backgroundColor,
          sevBar: getComputedStyle(sev).boxShadow,
        };
      });
    const [open, ack, shelve, done] = [
      await look('open'),
      await look('acked'),
      await look('shelved'),
      await look('closed'),
    ];
    // Dimmer text than open rows, as closed rows have.
    assert.is.not(ack.text, open.text, 'acked text is dimmer than open text');
    assert.is(shelve.text, ack.text);
    assert.is.not(done.text, open.text);
    // The severity stays visible as a bar, without the fill that makes open rows stand out.
    assert.is.not(open.sevFill, 'rgba(0, 0, 0, 0)');
    for (const r of [ack, shelve, done]) {
      assert.is(r.sevFill, 'rgba(0, 0, 0, 0)');
      assert.match(r.sevBar, /inset/);
    }
    assert.is.not(ack.row, open.row);
    const contrast = (await axeViolations(page)).filter((v) => v.startsWith('color-contrast'));
    assert.equal(contrast, []);
  });
});

noc('the changed highlight is a frame: the severity cell keeps its colours; escalations too', async (ctx) => {
  await withPage(ctx.browser, FULL_HD, async (page) => {
    const tag = `hl${Date.now()}`;
    await postAlert(ctx, { resource: `${tag}-a`, severity: 'warning' });
    await page.goto(`${ctx.origin}/alerts?q=${byResource(tag)}`);
    await rows(page).first().waitFor();
    await live(page);
    const steady = await row(page, `${tag}-a`)
      .getByTestId('severity')
      .evaluate((td) => [getComputedStyle(td).backgroundColor, getComputedStyle(td).color]);
    /** The severity cell and the frame at several moments of the highlight's animation. */
    const frames = (kind: string) =>
      page.evaluate((kind) => {
        const tr = document.querySelector<HTMLElement>(`tr.${kind}`)!;
        const td = tr.querySelector<HTMLElement>('[data-testid=severity]')!;
        const out: { fill: string; ink: string; frame: string }[] = [];
        for (const t of [0, 125, 250, 375, 500, 750]) {
          for (const a of document.getAnimations()) {
            a.pause();
            a.currentTime = t;
          }
          const after = getComputedStyle(tr, '::after');
          out.push({
            fill: getComputedStyle(td).backgroundColor,
            ink: getComputedStyle(td).color,
            frame: `${after.borderTopStyle} ${after.borderTopWidth}`,
          });
        }
        for (const a of document.getAnimations()) a.play();
        return out;
      }, kind);

    await postAlert(ctx, { resource: `${tag}-a`, severity: 'warning', text: 'again' });
    await page.locator('tr.fresh').waitFor({ timeout: 5000 });
    for (const f of await frames('fresh'))
      assert.equal(f, { fill: steady[0], ink: steady[1], frame: 'solid 3px' });

    await postAlert(ctx, { resource: `${tag}-a`, severity: 'critical' });
    await page.locator('tr.escalated').waitFor({ timeout: 5000 });
    const flashes = await frames('escalated');
    const critical = await row(page, `${tag}-a`)
      .getByTestId('severity')
      .evaluate((td) => {
        for (const a of document.getAnimations()) a.cancel();
        return [getComputedStyle(td).backgroundColor, getComputedStyle(td).color];
      });
    assert.is.not(critical[0], steady[0], 'the cell shows the new severity');
    for (const f of flashes) assert.equal(f, { fill: critical[0], ink: critical[1], frame: 'solid 3px' });
  });
});

noc('the cursor and focus ring goes around the row, not around each cell', async (ctx) => {
  await withPage(ctx.browser, FULL_HD, async (page) => {
    const tag = `fr${Date.now()}`;
    await postMany(ctx, [{ resource: `${tag}-a` }, { resource: `${tag}-b` }]);
    await page.goto(`${ctx.origin}/alerts?q=${byResource(tag)}&sort-by=resource`);
    await rows(page).nth(1).waitFor();
    await page.keyboard.press('j');
    const ring = () =>
      page.locator('tr[aria-selected=true]').evaluate((tr) => ({
        row: `${getComputedStyle(tr).outlineStyle} ${getComputedStyle(tr).outlineWidth}`,
        cells: [...tr.querySelectorAll('td')].map((td) => getComputedStyle(td).outlineStyle),
      }));
    const r = await ring();
    assert.is(r.row, 'solid 2px');
    assert.ok(r.cells.length > 5 && r.cells.every((s) => s === 'none'), JSON.stringify(r.cells));
    // Focus on the row itself (the skip link's target) draws the same single ring.
    await rows(page).first().focus();
    const focused = await rows(page)
      .first()
      .evaluate((tr) => [
        getComputedStyle(tr).outlineStyle,
        [...tr.querySelectorAll('td')].some((td) => getComputedStyle(td).outlineStyle !== 'none'),
      ]);
    assert.equal(focused, ['solid', false]);
  });
});

noc(
  'search: a bare word finds resource, event, service, group and description; an empty result says why',
  async (ctx) => {
    await withPage(ctx.browser, FULL_HD, async (page) => {
      const word = `Kafka${Date.now()}Lag`;
      const lower = word.toLowerCase();
      await postMany(ctx, [
        { resource: `broker-${lower}-01` },
        { resource: `${word}-e`, event: `Consumer${word}` },
        { resource: `${word}-s`, service: ['billing', `svc-${word}-x`] },
        { resource: `${word}-g`, group: `grp${lower}` },
        { resource: `${word}-t`, text: `consumer lag of ${word} is high` },
        { resource: `other-${Date.now()}`, event: 'Unrelated' },
      ]);
      // The API's q keeps its meaning: a bare word searches the description only.
      const api = (await (await ctx.api.get(`/alerts?q=${word}`)).json()) as { total: number };
      assert.is(api.total, 1);

      await page.goto(`${ctx.origin}/alerts`);
      await rows(page).first().waitFor();
      await page.getByLabel('Search (q)').fill(word);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL((u) => u.searchParams.get('q') === word);
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid=alert-row]').length === n, 5);
      const found = (await page.getByTestId('resource').allTextContents()).sort();
      assert.equal(found, [`${word}-e`, `${word}-g`, `${word}-s`, `${word}-t`, `broker-${lower}-01`].sort());
      // Several words must all be found (in any of the fields).
      await page.getByLabel('Search (q)').fill(`${word} billing`);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=alert-row]').length === 1);
      assert.equal(await page.getByTestId('resource').allTextContents(), [`${word}-s`]);

      // Nothing found: what was searched, where, among which alerts, and event:<word> to try.
      const missing = `Nothing${Date.now()}`;
      await page.getByLabel('Search (q)').fill(missing);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const empty = page.getByTestId('empty');
      await empty.waitFor();
      const said = (await empty.textContent())!.replace(/\s+/g, ' ');
      assert.ok(
        said.includes(
          `No alerts match ${missing}, looked for in resource, event, service, group or description`,
        ),
        said,
      );
      assert.ok(said.includes('among alerts with status open or ack.'), said);
      assert.ok(said.includes(`Try event:${missing}, every status, no search.`), said);
      await page.getByTestId('suggest-event').click();
      await page.waitForURL((u) => u.searchParams.get('q') === `event:${missing}`);
      assert.is(await page.getByLabel('Search (q)').inputValue(), `event:${missing}`);
      await empty.filter({ hasText: 'read as a query' }).waitFor();
    });
  },
);

noc(
  'bulk: the header selects this page, the bar offers all N matching; progress until done, no highlight',
  async (ctx) => {
    await withPage(ctx.browser, FULL_HD, async (page) => {
      const tag = `bk${Date.now()}`;
      const many = 320;
      await postMany(
        ctx,
        Array.from({ length: many }, (_, i) => ({
          resource: `${tag}-${String(i).padStart(3, '0')}`,
          severity: SEVERITIES[i % 6], // not normal or ok: those are closed on arrival
        })),
      );
      const bulkRequests: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/_bulk/alerts')) bulkRequests.push(r.url());
      });
      await page.goto(`${ctx.origin}/alerts?q=${byResource(tag)}&sort-by=resource&page-size=200`);
      await page
        .getByTestId('total')
        .filter({ hasText: `${many} alerts` })
        .waitFor();
      await live(page);
      // Every highlight the list shows from now on, by alert.
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { highlighted: string[] }).highlighted = seen;
        const note = () => {
          for (const tr of document.querySelectorAll('tr.fresh, tr.escalated'))
            seen.push((tr as HTMLElement).dataset.id!);
        };
        new MutationObserver(note).observe(document.body, {
          subtree: true,
          attributes: true,
          childList: true,
        });
      });

      const header = page.getByLabel('Select the alerts on this page');
      await header.check();
      const selection = page.getByTestId('selection');
      assert.is(await selection.textContent(), '200 selected');
      await page.getByRole('button', { name: `Select all ${many} matching` }).click();
      assert.is(await selection.textContent(), `All ${many} matching alerts selected`);
      assert.ok(await header.isChecked());
      await page.getByRole('button', { name: 'Select only this page (200)' }).click();
      assert.is(await selection.textContent(), '200 selected');
      await page.getByLabel(`Select ${tag}-000`).uncheck();
      assert.is(await selection.textContent(), '199 selected');
      assert.ok(await header.evaluate((e) => (e as HTMLInputElement).indeterminate));
      // A click on the half-ticked header clears the selection.
      await header.click();
      await page.getByTestId('selection').waitFor({ state: 'detached' });
      await header.check();

      // Ack this page: its ids in requests of at most 150, followed until every task ends.
      const progress = page.getByTestId('bulk-progress');
      await page.getByRole('button', { name: 'Ack selected', exact: true }).click();
      await progress.filter({ hasText: /^\s*Acking \d+ \/ 200\s*$/ }).waitFor();
      await progress.filter({ hasText: 'Acked 200 alerts' }).waitFor({ timeout: 20_000 });
      assert.is(bulkRequests.length, 2);
      assert.equal(
        bulkRequests.map((u) => new URL(u).searchParams.getAll('id').length),
        [150, 50],
      );
      await page.waitForFunction(
        () => [...document.querySelectorAll('[data-testid=status]')].every((s) => s.textContent === 'ack'),
        null,
        { timeout: 10_000 },
      );
      await page.getByRole('button', { name: 'Dismiss' }).click();

      // All matching: the view's filter; the task's own progress is shown while it runs.
      // The first read is held at 123 done; the second fails (a read that fails now and then
      // does not stop the figures); the rest are the server's.
      let reads = 0;
      await page.route('**/api/_bulk/task/*', async (route) => {
        reads++;
        if (reads === 2) return route.fulfill({ status: 503, json: { status: 'error', message: 'busy' } });
        if (reads > 2) return route.continue();
        const real = (await (await route.fetch()).json()) as Record<string, unknown>;
        await route.fulfill({
          json: { ...real, status: 'started', result: null, progress: { done: 123, total: many } },
        });
      });
      await header.check();
      await page.getByRole('button', { name: `Select all ${many} matching` }).click();
      await page.getByRole('button', { name: 'Shelve selected', exact: true }).click();
      await progress.filter({ hasText: `Shelving 123 / ${many}` }).waitFor();
      await progress.filter({ hasText: `Shelved ${many} alerts` }).waitFor({ timeout: 20_000 });
      const all = bulkRequests.at(-1)!;
      assert.is(new URL(all).searchParams.get('q'), `resource:${tag}*`);
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('[data-testid=status]')].every((s) => s.textContent === 'shelved'),
        null,
        { timeout: 10_000 },
      );
      await page.waitForTimeout(1000);
      // The reader's own bulk actions lit nothing up; someone else's change still does.
      assert.equal(
        await page.evaluate(() => (window as unknown as { highlighted: string[] }).highlighted),
        [],
      );
      // A new alert (someone else's) still lights up, and the record above sees it.
      const other = await postAlert(ctx, { resource: `${tag}-000a`, severity: 'major' });
      await page
        .locator('tr.fresh')
        .filter({ hasText: `${tag}-000a` })
        .waitFor({ timeout: 5000 });
      assert.ok(
        await page.evaluate(
          (id) => (window as unknown as { highlighted: string[] }).highlighted.includes(id),
          other,
        ),
      );
    });
  },
);

noc('axe: no violations on /alerts with a few hundred alerts of every kind shown', async (ctx) => {
  await withPage(ctx.browser, FULL_HD, async (page) => {
    const tag = `ax${Date.now()}`;
    const ids = await postMany(
      ctx,
      Array.from({ length: 240 }, (_, i) => ({
        resource: `${tag}-${i}-${i % 7 === 0 ? 'a-very-long-resource-name.datacentre-west.example.com' : 'host'}`,
        event: i % 5 === 0 ? 'KafkaConsumerLagAboveThresholdForPartition' : `Event${i % 9}`,
        environment: ['Production', 'Staging', 'Development'][i % 3],
        service: [['web', 'billing', 'kafka', 'db'][i % 4]!],
        severity: SEVERITIES[i % SEVERITIES.length],
        text: `alert ${i} of the accessibility run`,
      })),
    );
    for (const [i, id] of ids.entries()) {
      if (i % SEVERITIES.length >= 6) continue; // normal and ok alerts are closed already
      if (i % 6 === 1) await act(ctx, id, 'ack');
      else if (i % 6 === 2) await act(ctx, id, 'shelve');
    }
    for (const theme of ['light', 'dark']) {
      await page.goto(
        `${ctx.origin}/alerts?q=${byResource(tag)}&status=open&status=ack&status=shelved&theme=${theme}`,
      );
      // Normal and ok alerts are closed on arrival: 180 of the 240 are in the view.
      await page.getByTestId('total').filter({ hasText: '180 alerts' }).waitFor();
      await rows(page).nth(30).waitFor();
      await live(page);
      await rows(page).nth(2).getByRole('checkbox').check();
      assert.equal(await axeViolations(page), [], theme);
    }
  });
});

noc.run();
