/**
 * Recurring blackouts on the blackouts page (issue #41 item 5, docs/ui-pages.md "Blackouts"): the
 * rule builder, the preview of the next five occurrences in the viewer's zone and the window's
 * (from POST /blackouts/preview, across Berlin's spring change while New York is already on summer
 * time), creating and editing a series, a raw rule with the server's mistake said under it, and the
 * list's rule in words, on now / off now and the occurrence's times; axe on the page.
 * With SHOTS_DIR set, screenshots at 1920x1080 and 3840x2160 go there.
 */
import { mkdir } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { BlackoutListSchema, BlackoutSchema, type Blackout } from '../../shared/blackouts.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { axeViolations } from './axe.ts';
import { launchBrowser, withPage } from './browser.ts';

interface Ctx extends AppContext {
  browser: Browser;
}

const test = suite<Ctx>('web UI: recurring blackouts', {} as Ctx);
test.before(async (ctx) => {
  await startApp(ctx, {
    TEST_LABEL: 'browser_blackouts_recurring',
    ALLOWED_ENVIRONMENTS: 'Production,Staging,Lab',
  });
  ctx.browser = await launchBrowser();
});
test.after(async (ctx) => {
  await ctx.browser?.close();
  await stopApp(ctx);
});

const HOUR = 3600_000;
const OPEN_END = '9999-12-31T23:59:59.999Z';
const WEEKDAYS = 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18;BYMINUTE=0';

async function create(ctx: Ctx, body: Record<string, unknown>): Promise<Blackout> {
  const res = await ctx.api.post('/blackout', body);
  const answer = (await res.json()) as { blackout: unknown };
  assert.is(res.status, 201, JSON.stringify(answer));
  return BlackoutSchema.parse(answer.blackout);
}

async function listed(ctx: Ctx, resource: string): Promise<Blackout> {
  const { blackouts } = BlackoutListSchema.parse(await (await ctx.api.get('/blackouts')).json());
  const found = blackouts.find((b) => b.resource === resource);
  assert.ok(found, `blackout for ${resource} listed`);
  return found;
}

/** A daily UTC rule starting `offset` ms from now, to the minute. */
function dailyAt(offset: number): string {
  const t = new Date(Date.now() + offset);
  return `FREQ=DAILY;BYHOUR=${t.getUTCHours()};BYMINUTE=${t.getUTCMinutes()}`;
}

const cells = (page: Page, testId: string) =>
  page.getByTestId('recurrence-preview').getByTestId(testId).allInnerTexts();

/** Waits until the preview's first row reads `text` in the window's zone (or the only zone shown). */
const previewStartsWith = (page: Page, text: string, column = 'preview-window') =>
  page.getByTestId('preview-row').first().getByTestId(column).filter({ hasText: text }).waitFor();

test('a weekday-evening window in Berlin: built, previewed in both zones across DST, created, edited, listed in words', async (ctx) => {
  await withPage(
    ctx.browser,
    { viewport: { width: 1920, height: 1080 }, timezoneId: 'America/New_York' },
    async (page) => {
      await page.goto(`${ctx.origin}/blackouts`);
      const form = page.getByRole('form', { name: 'New' });
      await form
        .getByLabel('Environment')
        .locator('option', { hasText: 'Lab' })
        .waitFor({ state: 'attached' });
      await form.getByLabel('Environment').selectOption('Production');
      await form.getByLabel('Resource').fill('db-cluster-01');

      // Not repeating: the one-off fields, no preview.
      assert.is(await form.getByLabel('Repeats').inputValue(), 'once');
      assert.ok(await form.getByLabel('Duration (s)').isVisible());
      assert.is(await form.getByTestId('recurrence-preview').count(), 0);

      await form.getByLabel('Repeats').selectOption('weekdays');
      // The zone defaults to the viewer's; the one-off's duration becomes the series' fields.
      assert.is(await form.getByLabel('Time zone').inputValue(), 'America/New_York');
      assert.is(await form.getByLabel('Duration (s)').count(), 0);
      assert.is(await form.getByLabel('Lasts').inputValue(), '1h');
      // Thursday 25 March 2027, midnight in New York (04:00 UTC): Berlin goes to summer time on the
      // 28th, New York went on the 14th, so the two clocks are 5 hours apart, then 6.
      await form.getByLabel('Series start').fill('Thu 25 Mar 2027 00:00');
      assert.match((await form.getByTestId('time-note-endTime').innerText()) ?? '', /empty: never/);
      await form.getByLabel('At', { exact: true }).fill('18:00');
      await form.getByLabel('Lasts').fill('14h');
      await form.getByLabel('Time zone').selectOption('Europe/Berlin');
      assert.is(await form.getByTestId('recurrence-until').innerText(), 'until 08:00 the next day');

      await previewStartsWith(page, 'Thu 25 Mar 2027 18:00');
      assert.is(
        await form.getByTestId('recurrence-words').innerText(),
        'every weekday 18:00–08:00 Europe/Berlin',
      );
      assert.equal(await form.getByRole('columnheader').allInnerTexts(), [
        'Your time, America/New_York',
        'Window’s time, Europe/Berlin',
      ]);
      assert.equal(await cells(page, 'preview-window'), [
        'Thu 25 Mar 2027 18:00 – Fri 26 Mar 2027 08:00 UTC+1',
        'Fri 26 Mar 2027 18:00 – Sat 27 Mar 2027 08:00 UTC+1',
        'Mon 29 Mar 2027 18:00 – Tue 30 Mar 2027 08:00 UTC+2',
        'Tue 30 Mar 2027 18:00 – Wed 31 Mar 2027 08:00 UTC+2',
        'Wed 31 Mar 2027 18:00 – Thu 1 Apr 2027 08:00 UTC+2',
      ]);
      assert.equal(await cells(page, 'preview-viewer'), [
        'Thu 25 Mar 2027 13:00 – Fri 26 Mar 2027 03:00 UTC-4',
        'Fri 26 Mar 2027 13:00 – Sat 27 Mar 2027 03:00 UTC-4',
        'Mon 29 Mar 2027 12:00 – Tue 30 Mar 2027 02:00 UTC-4',
        'Tue 30 Mar 2027 12:00 – Wed 31 Mar 2027 02:00 UTC-4',
        'Wed 31 Mar 2027 12:00 – Thu 1 Apr 2027 02:00 UTC-4',
      ]);
      assert.equal(await axeViolations(page), []);

      // A mistake in the builder is said under its field and nothing is sent.
      await form.getByLabel('At', { exact: true }).fill('6pm');
      assert.is(await form.getByLabel('At', { exact: true }).getAttribute('aria-invalid'), 'true');
      await form
        .getByTestId('recurrence-preview')
        .getByTestId('preview-row')
        .first()
        .waitFor({ state: 'detached' });
      await form.getByRole('button', { name: 'Create' }).click();
      assert.is(await page.getByTestId('admin-row').count(), 0);
      await form.getByLabel('At', { exact: true }).fill('18:00');
      await previewStartsWith(page, 'Thu 25 Mar 2027 18:00');
      await form.getByRole('button', { name: 'Create' }).click();

      const row = page.getByTestId('admin-row').filter({ hasText: 'resource=db-cluster-01' });
      await row.waitFor();
      assert.is(
        await row.getByTestId('blackout-rule').innerText(),
        'every weekday 18:00–08:00 Europe/Berlin',
      );
      assert.is(await row.getByTestId('blackout-status').innerText(), 'pending');
      assert.match(
        await row.getByTestId('blackout-when').innerText(),
        /^first .*13:00.*, in \d+d \d+h, lasts 14h 0m$/,
      );
      assert.match(await row.innerText(), /\bnever\b/);

      const b = await listed(ctx, 'db-cluster-01');
      assert.equal(
        [b.rrule, b.timezone, b.duration, b.startTime, b.endTime],
        [WEEKDAYS, 'Europe/Berlin', 50400, '2027-03-25T04:00:00.000Z', OPEN_END],
      );
      assert.equal(b.recurrence?.occurrence, {
        startTime: '2027-03-25T17:00:00.000Z',
        endTime: '2027-03-26T07:00:00.000Z',
      });

      // Edit: the builder shows the stored rule; Mon–Thu at 19:30 for 12h 30m.
      await row.getByRole('button', { name: /^Edit/ }).click();
      const edit = page.getByRole('form', { name: 'Edit' });
      assert.is(await edit.getByLabel('Repeats').inputValue(), 'weekdays');
      assert.is(await edit.getByLabel('At', { exact: true }).inputValue(), '18:00');
      assert.is(await edit.getByLabel('Lasts').inputValue(), '14h');
      assert.is(await edit.getByLabel('Time zone').inputValue(), 'Europe/Berlin');
      assert.is(await edit.getByLabel('Series end').inputValue(), '');
      assert.is(await edit.getByLabel('Series start').inputValue(), 'Thu 25 Mar 2027 00:00');
      await previewStartsWith(page, 'Thu 25 Mar 2027 18:00');
      await edit.getByLabel('Repeats').selectOption('weekly');
      const days = edit.getByRole('group', { name: 'Days' });
      for (const day of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'])
        assert.ok(await days.getByLabel(day, { exact: true }).isChecked(), day);
      await days.getByLabel('Fri', { exact: true }).uncheck();
      await edit.getByLabel('At', { exact: true }).fill('19:30');
      await edit.getByLabel('Lasts').fill('12h 30m');
      assert.is(await edit.getByTestId('recurrence-until').innerText(), 'until 08:00 the next day');
      await previewStartsWith(page, 'Thu 25 Mar 2027 19:30');
      assert.equal(await cells(page, 'preview-window'), [
        'Thu 25 Mar 2027 19:30 – Fri 26 Mar 2027 08:00 UTC+1',
        'Mon 29 Mar 2027 19:30 – Tue 30 Mar 2027 08:00 UTC+2',
        'Tue 30 Mar 2027 19:30 – Wed 31 Mar 2027 08:00 UTC+2',
        'Wed 31 Mar 2027 19:30 – Thu 1 Apr 2027 08:00 UTC+2',
        'Thu 1 Apr 2027 19:30 – Fri 2 Apr 2027 08:00 UTC+2',
      ]);
      assert.is(
        (await cells(page, 'preview-viewer'))[1],
        'Mon 29 Mar 2027 13:30 – Tue 30 Mar 2027 02:00 UTC-4',
      );
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();

      const saved = await listed(ctx, 'db-cluster-01');
      assert.equal(
        [saved.rrule, saved.timezone, saved.duration, saved.startTime, saved.endTime],
        [
          'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH;BYHOUR=19;BYMINUTE=30',
          'Europe/Berlin',
          45000,
          b.startTime,
          OPEN_END,
        ],
      );
      assert.is(
        await row.getByTestId('blackout-rule').innerText(),
        'every week on Monday, Tuesday, Wednesday and Thursday 19:30–08:00 Europe/Berlin',
      );
      assert.is(saved.recurrence?.description, await row.getByTestId('blackout-rule').innerText());
    },
  );
});

test('a raw rule: the server’s mistake under the field; a stored rule the builder cannot make stays raw', async (ctx) => {
  await create(ctx, {
    environment: 'Lab',
    resource: 'raw-rule-host',
    rrule: 'FREQ=HOURLY;INTERVAL=4;BYMINUTE=15',
    timezone: 'UTC',
    duration: 1800,
    startTime: '2027-01-01T00:00:00.000Z',
  });
  await withPage(
    ctx.browser,
    { viewport: { width: 1920, height: 1080 }, timezoneId: 'UTC' },
    async (page) => {
      await page.goto(`${ctx.origin}/blackouts`);
      const row = page.getByTestId('admin-row').filter({ hasText: 'resource=raw-rule-host' });
      await row.getByRole('button', { name: /^Edit/ }).click();
      const edit = page.getByRole('form', { name: 'Edit' });
      assert.is(await edit.getByLabel('Repeats').inputValue(), 'custom');
      const rule = edit.getByLabel('Rule (RRULE)');
      assert.is(await rule.inputValue(), 'FREQ=HOURLY;INTERVAL=4;BYMINUTE=15');
      // Viewer and window both in UTC: one column.
      await previewStartsWith(page, 'Fri 1 Jan 2027 00:15–00:45', 'preview-viewer');
      assert.equal(await edit.getByRole('columnheader').allInnerTexts(), [
        'UTC (your zone and the window’s)',
      ]);
      assert.is(await page.getByTestId('preview-row').count(), 5);

      await rule.fill('FREQ=DAILY;BYHOUR=24');
      await edit.getByText("rrule: BYHOUR values must be 0 to 23, got '24'").waitFor();
      assert.is(await rule.getAttribute('aria-invalid'), 'true');
      assert.is(await page.getByTestId('preview-row').count(), 0);
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('alert').filter({ hasText: 'BYHOUR values must be 0 to 23' }).waitFor();
      assert.is((await listed(ctx, 'raw-rule-host')).rrule, 'FREQ=HOURLY;INTERVAL=4;BYMINUTE=15');
    },
  );
});

test('Copy repeats as the original; Does not repeat makes a series one window again', async (ctx) => {
  await create(ctx, {
    environment: 'Staging',
    resource: 'copy-source',
    rrule: 'FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=22;BYMINUTE=0',
    timezone: 'Australia/Sydney',
    duration: 7200,
    startTime: '2027-01-01T00:00:00.000Z',
  });
  await withPage(
    ctx.browser,
    { viewport: { width: 1920, height: 1080 }, timezoneId: 'UTC' },
    async (page) => {
      await page.goto(`${ctx.origin}/blackouts`);
      const source = page.getByTestId('admin-row').filter({ hasText: 'resource=copy-source' });
      await source.getByRole('button', { name: /^Copy/ }).click();
      const form = page.getByRole('form', { name: 'New' });
      assert.is(await form.getByLabel('Repeats').inputValue(), 'monthly');
      assert.equal(
        [await form.getByLabel('On the').inputValue(), await form.getByLabel('Weekday').inputValue()],
        ['-1', 'FR'],
      );
      assert.is(await form.getByLabel('Lasts').inputValue(), '2h');
      await form.getByLabel('Resource').fill('copy-target');
      // From today (empty start): the next last Friday, 22:00 in Sydney.
      await page.getByTestId('preview-row').first().waitFor();
      assert.match(
        (await cells(page, 'preview-window'))[0]!,
        /^Fri \d+ \w{3}( \d{4})? 22:00 – Sat \d+ \w{3}( \d{4})? 00:00 UTC\+1[01]$/,
      );
      await form.getByRole('button', { name: 'Create' }).click();
      await page.getByTestId('admin-row').filter({ hasText: 'resource=copy-target' }).waitFor();
      const copied = await listed(ctx, 'copy-target');
      assert.equal(
        [copied.rrule, copied.timezone, copied.duration, copied.endTime],
        ['FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=22;BYMINUTE=0', 'Australia/Sydney', 7200, OPEN_END],
      );

      // The source stops repeating: one window of its occurrence length from its start.
      await source.getByRole('button', { name: /^Edit/ }).click();
      const edit = page.getByRole('form', { name: 'Edit' });
      await edit.getByLabel('Repeats').selectOption('once');
      assert.is(await edit.getByTestId('recurrence-preview').count(), 0);
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      const single = await listed(ctx, 'copy-source');
      assert.not.ok('rrule' in single || 'recurrence' in single, JSON.stringify(single));
      assert.equal(
        [single.startTime, single.endTime],
        ['2027-01-01T00:00:00.000Z', '2027-01-01T02:00:00.000Z'],
      );
      assert.match(await source.innerText(), /\bonce\b/);
    },
  );
});

test('the list: on now with the time left, off now with the next occurrence, one-offs as before; axe', async (ctx) => {
  const start = new Date(Date.now() - 3 * 24 * HOUR).toISOString();
  await create(ctx, {
    environment: 'Production',
    resource: 'on-now-host',
    rrule: dailyAt(-5 * 60_000),
    timezone: 'UTC',
    duration: 3600,
    startTime: start,
  });
  await create(ctx, {
    environment: 'Staging',
    resource: 'off-now-host',
    rrule: dailyAt(2 * HOUR),
    timezone: 'UTC',
    duration: 1800,
    startTime: start,
  });
  // Started a minute ago, so two hours from the start leave 1h 58m or 1h 59m however fast the page
  // renders (a page within half a second of `now` rounds 7,199.6 s up to "2h 0m").
  const oneOffStart = new Date(Date.now() - 60_000).toISOString();
  await create(ctx, {
    environment: 'Production',
    resource: 'one-off-host',
    duration: 7200,
    startTime: oneOffStart,
  });
  await withPage(
    ctx.browser,
    { viewport: { width: 1920, height: 1080 }, timezoneId: 'Europe/Berlin' },
    async (page) => {
      await page.goto(`${ctx.origin}/blackouts`);
      const on = page.getByTestId('admin-row').filter({ hasText: 'resource=on-now-host' });
      await on.waitFor();
      assert.is(await on.getByTestId('blackout-status').innerText(), 'on now');
      assert.match(await on.getByTestId('blackout-when').innerText(), /^5\dm \d+s left, until .*\d\d:\d\d/);
      assert.match(await on.getByTestId('blackout-rule').innerText(), /^every day \d\d:\d\d–\d\d:\d\d UTC$/);
      const off = page.getByTestId('admin-row').filter({ hasText: 'resource=off-now-host' });
      assert.is(await off.getByTestId('blackout-status').innerText(), 'off now');
      assert.match(await off.getByTestId('blackout-when').innerText(), /^next .+, in 1h 5\dm, lasts 30m 0s$/);
      const plain = page.getByTestId('admin-row').filter({ hasText: 'resource=one-off-host' });
      assert.is(await plain.getByTestId('blackout-status').innerText(), 'active');
      assert.match(await plain.innerText(), /\bonce\b/);
      assert.match(await plain.getByTestId('blackout-when').innerText(), /^1h 5\dm left$/);
      assert.equal(await axeViolations(page), []);
    },
  );
});

test('screenshots with realistic data (SHOTS_DIR)', async (ctx) => {
  const dir = process.env.SHOTS_DIR;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  const start = new Date(Date.now() - 7 * 24 * HOUR).toISOString();
  const series: Record<string, unknown>[] = [
    {
      environment: 'Production',
      resource: 'pg-primary-eu-west-1a.db.internal.example.com',
      rrule: 'FREQ=DAILY;BYHOUR=1;BYMINUTE=0',
      timezone: 'Europe/Berlin',
      duration: 3600,
      text: 'Nightly base backup',
    },
    {
      environment: 'Production',
      service: ['payments-gateway', 'checkout'],
      rrule: 'FREQ=MONTHLY;BYDAY=1TU;BYHOUR=2;BYMINUTE=0',
      timezone: 'Australia/Sydney',
      duration: 7200,
      text: 'Patch Tuesday: OS updates and reboots',
    },
    {
      environment: 'Staging',
      rrule: WEEKDAYS,
      timezone: 'Europe/Berlin',
      duration: 50400,
      text: 'Staging is quiet outside working hours',
    },
    {
      environment: 'Staging',
      rrule: 'FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=0;BYMINUTE=0',
      timezone: 'Europe/Berlin',
      duration: 86400,
      text: 'Weekends',
    },
    {
      environment: 'Lab',
      event: 'KafkaConsumerLagTooHigh',
      rrule: dailyAt(-20 * 60_000),
      timezone: 'UTC',
      duration: 5400,
      text: 'Reindexing',
    },
  ];
  for (const s of series) await create(ctx, { ...s, startTime: start });
  await create(ctx, {
    environment: 'Production',
    resource: 'lb-edge-02',
    duration: 4 * 3600,
    text: 'Replacing a PSU',
  });
  await create(ctx, {
    environment: 'Lab',
    group: 'Network',
    startTime: new Date(Date.now() + 23 * HOUR).toISOString(),
    duration: 4 * 3600,
    text: 'Core switch firmware',
  });
  for (const [name, options] of [
    ['1080', { viewport: { width: 1920, height: 1080 } }],
    ['4k', { viewport: { width: 1920, height: 1080 }, deviceScaleFactor: 2 }],
    ['3840', { viewport: { width: 3840, height: 2160 } }],
  ] as const) {
    await withPage(ctx.browser, { ...options, timezoneId: 'America/New_York' }, async (page) => {
      await page.goto(`${ctx.origin}/blackouts`);
      const row = page.getByTestId('admin-row').filter({ hasText: 'Staging is quiet' });
      await row.getByRole('button', { name: /^Edit/ }).click();
      await page.getByTestId('preview-row').first().waitFor();
      await page.screenshot({ path: `${dir}/blackouts-edit-${name}.png`, fullPage: true });
    });
  }
  // Dark, a new weekly window with a day yet to choose, and one occurrence on now.
  await withPage(
    ctx.browser,
    { viewport: { width: 1920, height: 1080 }, timezoneId: 'Asia/Kolkata' },
    async (page) => {
      await page.goto(`${ctx.origin}/blackouts?theme=dark`);
      const form = page.getByRole('form', { name: 'New' });
      await form.getByLabel('Repeats').selectOption('weekly');
      await form.getByLabel('Time zone').selectOption('America/New_York');
      await form.getByLabel('At', { exact: true }).fill(
        new Date(Date.now() - 5 * 3600_000 - 600_000).toLocaleTimeString('en-GB', {
          timeZone: 'America/New_York',
          hour: '2-digit',
          minute: '2-digit',
        }),
      );
      await form.getByLabel('Lasts').fill('2h');
      await page.getByTestId('preview-row').first().waitFor();
      await page.screenshot({ path: `${dir}/blackouts-new-dark-1080.png`, fullPage: true });
    },
  );
});

test.run();
