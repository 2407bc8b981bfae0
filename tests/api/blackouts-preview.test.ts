/**
 * POST /blackouts/preview (docs/blackouts.md, "Previewing occurrences"): the occurrences a recurring
 * blackout would have, checked and defaulted as POST /blackout, across daylight-saving changes, cut
 * to the series, the one in force now first; 400 naming the field for bad input; read:blackouts;
 * nothing stored.
 */
import * as assert from 'uvu/assert';
import { BlackoutPreviewSchema, type BlackoutPreview } from '../../shared/blackouts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import type { Api } from '../helpers/api.ts';
import { appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { assertError, callAs, securedSettings } from '../helpers/secured.ts';

const HOUR = 3600_000;
const MINUTE = 60_000;
const WEEKDAYS = 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18;BYMINUTE=0';

async function preview(api: Api, body: Record<string, unknown>): Promise<BlackoutPreview> {
  const r = await api.call('POST', '/blackouts/preview', body);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return BlackoutPreviewSchema.parse(r.body);
}

async function refused(api: Api, body: unknown, field: string | null, message?: RegExp) {
  const r = await api.call('POST', '/blackouts/preview', body);
  assert.is(r.status, 400, JSON.stringify(r.body));
  const e = ErrorBodySchema.parse(r.body);
  assert.is(e.code, 400);
  if (field)
    assert.ok(
      e.errors?.some((x) => x.startsWith(`${field}: `)),
      JSON.stringify(e),
    );
  if (message) assert.match(e.message, message);
}

const spans = (p: BlackoutPreview) => p.occurrences.map((o) => [o.startTime, o.endTime]);

const test = appSuite('POST /blackouts/preview', { TEST_LABEL: 'blackouts_preview' });

test('weekday evenings in Berlin across the spring change: 18:00 local is 17:00Z, then 16:00Z', async ({
  api,
  db,
}) => {
  const before = await queryDb(db.url, 'SELECT count(*)::int AS n FROM blackouts');
  // Thursday 25 March 2027; Berlin moves to summer time on Sunday the 28th.
  const p = await preview(api, {
    rrule: `rrule:${WEEKDAYS.toLowerCase()}`,
    timezone: 'europe/berlin',
    duration: 14 * 3600,
    startTime: '2027-03-25T00:00:00.000Z',
  });
  assert.equal([p.rrule, p.timezone, p.duration], [WEEKDAYS, 'Europe/Berlin', 50400]);
  assert.is(p.description, 'every weekday 18:00–08:00 Europe/Berlin');
  assert.equal(spans(p), [
    ['2027-03-25T17:00:00.000Z', '2027-03-26T07:00:00.000Z'],
    ['2027-03-26T17:00:00.000Z', '2027-03-27T07:00:00.000Z'],
    ['2027-03-29T16:00:00.000Z', '2027-03-30T06:00:00.000Z'],
    ['2027-03-30T16:00:00.000Z', '2027-03-31T06:00:00.000Z'],
    ['2027-03-31T16:00:00.000Z', '2027-04-01T06:00:00.000Z'],
  ]);
  const after = await queryDb(db.url, 'SELECT count(*)::int AS n FROM blackouts');
  assert.equal(after, before, 'nothing stored');
});

test('a local time the zone skips is no occurrence; one it repeats is the first (Sydney)', async ({
  api,
}) => {
  // Berlin skips 02:00–03:00 on 28 March 2027: no 02:30 that night.
  const spring = await preview(api, {
    rrule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30',
    timezone: 'Europe/Berlin',
    duration: 1800,
    startTime: '2027-03-27T00:00:00.000Z',
    count: 3,
  });
  assert.equal(
    spring.occurrences.map((o) => o.startTime),
    ['2027-03-27T01:30:00.000Z', '2027-03-29T00:30:00.000Z', '2027-03-30T00:30:00.000Z'],
  );
  // Sydney repeats 02:00–03:00 on 4 April 2027: 02:30 is the first one, still summer time (+11).
  const autumn = await preview(api, {
    rrule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30',
    timezone: 'Australia/Sydney',
    duration: 1800,
    startTime: '2027-04-02T13:00:00.000Z',
    count: 3,
  });
  assert.equal(
    autumn.occurrences.map((o) => o.startTime),
    ['2027-04-02T15:30:00.000Z', '2027-04-03T15:30:00.000Z', '2027-04-04T16:30:00.000Z'],
  );
});

test('the occurrence in force now comes first; defaults as POST /blackout; count', async ({ api }) => {
  // Every day at the UTC minute ten minutes ago, for an hour, with the default series start.
  const t = new Date(Date.now() - 10 * MINUTE);
  const p = await preview(api, {
    rrule: `FREQ=DAILY;BYHOUR=${t.getUTCHours()};BYMINUTE=${t.getUTCMinutes()}`,
    duration: 3600,
    count: 7,
  });
  assert.is(p.timezone, 'UTC');
  assert.is(p.occurrences.length, 7);
  const first = p.occurrences[0]!;
  assert.ok(
    Date.parse(first.startTime) <= Date.now() && Date.now() < Date.parse(first.endTime),
    JSON.stringify(first),
  );
  assert.is(Date.parse(p.occurrences[1]!.startTime) - Date.parse(first.startTime), 24 * HOUR);
  // Without duration: BLACKOUT_DURATION (3600 by default).
  const plain = await preview(api, { rrule: 'FREQ=DAILY;BYHOUR=3;BYMINUTE=0' });
  assert.equal([plain.duration, plain.occurrences.length], [3600, 5]);
});

test('the series end cuts the last occurrence and ends the list', async ({ api }) => {
  const p = await preview(api, {
    rrule: 'FREQ=DAILY;BYHOUR=22;BYMINUTE=0',
    timezone: 'UTC',
    duration: 4 * 3600,
    startTime: '2027-06-01T00:00:00.000Z',
    endTime: '2027-06-03T00:00:00.000Z',
  });
  assert.equal(spans(p), [
    ['2027-06-01T22:00:00.000Z', '2027-06-02T02:00:00.000Z'],
    ['2027-06-02T22:00:00.000Z', '2027-06-03T00:00:00.000Z'],
  ]);
  // A rule that has run out: no occurrences, still 200.
  const over = await preview(api, {
    rrule: 'FREQ=DAILY;COUNT=2;BYHOUR=1;BYMINUTE=0',
    startTime: '2026-01-01T00:00:00.000Z',
  });
  assert.equal(over.occurrences, []);
});

test('bad input: 400 JSON naming the field', async ({ api }) => {
  await refused(api, {}, null, /Missing mandatory value for "rrule"/);
  await refused(api, { rrule: 42 }, 'rrule');
  await refused(api, { rrule: '' }, 'rrule');
  await refused(api, { rrule: 'FREQ=DAILY;BYHOUR=24' }, 'rrule', /BYHOUR values must be 0 to 23/);
  await refused(api, { rrule: 'FREQ=DAILY;FOO=1' }, 'rrule');
  await refused(api, { rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31' }, 'rrule');
  await refused(api, { rrule: WEEKDAYS, timezone: 'Moon/Base' }, 'timezone');
  await refused(api, { rrule: WEEKDAYS, timezone: '+01:00' }, 'timezone');
  await refused(api, { rrule: WEEKDAYS, duration: 0 }, 'duration');
  await refused(api, { rrule: WEEKDAYS, duration: 1.5 }, 'duration');
  await refused(api, { rrule: WEEKDAYS, count: 0 }, 'count');
  await refused(api, { rrule: WEEKDAYS, count: 51 }, 'count');
  await refused(api, { rrule: WEEKDAYS, startTime: 'tomorrow' }, 'startTime');
  await refused(
    api,
    { rrule: WEEKDAYS, startTime: '2027-01-02T00:00:00.000Z', endTime: '2027-01-01T00:00:00.000Z' },
    'endTime',
    /endTime must not be before startTime/,
  );
  await refused(api, [WEEKDAYS], null);
});

test.run();

const secured = appSuite(
  'POST /blackouts/preview: scopes',
  securedSettings('blackouts_preview_auth', 'preview-secret-0123'),
);

secured('read:blackouts may preview; a key without it is 403, no key 401', async ({ api, db }) => {
  const insert = (key: string, scopes: string[]) =>
    queryDb(
      db.url,
      `INSERT INTO keys (id, key, "user", scopes, expire_time) VALUES (gen_random_uuid(), $1, 'ops@example.com', $2, now() + interval '1 day')`,
      [key, scopes],
    );
  await insert('preview-reader-0123456789', ['read:blackouts']);
  await insert('preview-alerts-0123456789', ['read:alerts']);
  const body = { rrule: WEEKDAYS, timezone: 'Europe/Berlin', duration: 3600 };
  const ok = await callAs(api, 'POST', '/blackouts/preview', { key: 'preview-reader-0123456789', body });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assertError(
    await callAs(api, 'POST', '/blackouts/preview', { key: 'preview-alerts-0123456789', body }),
    403,
  );
  assertError(await callAs(api, 'POST', '/blackouts/preview', { body }), 401);
});

secured.run();
