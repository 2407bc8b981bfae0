/**
 * Recurring blackouts (docs/blackouts.md, "Recurring blackouts"): rule and zone checks, occurrences
 * across daylight-saving changes in a northern and a southern zone, windows, the rule in words,
 * and that the stored window answers exactly as the rule does.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_TIME_MS } from '../../shared/alerts.ts';
import type { BlackoutRow } from '../../server/db/blackouts.ts';
import { isInForce, presentBlackout, remainingOf, statusOf } from '../../server/domain/blackouts.ts';
import {
  checkRule,
  checkTimezone,
  coversAt,
  describe,
  NONE,
  occurrences,
  windowAt,
  windowSince,
  type Series,
} from '../../server/domain/recurrence.ts';
import { AppError } from '../../server/errors.ts';

const at = (s: string) => Date.parse(s);
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3600_000;

const series = (over: Partial<Series> = {}): Series => ({
  rrule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30',
  timezone: 'Europe/Berlin',
  startTime: at('2025-01-01T00:00:00Z'),
  endTime: MAX_TIME_MS,
  duration: 3600,
  ...over,
});

/** The 400 a bad rule or zone gives: its message and errors name the field. */
function refused(fn: () => unknown, field: string, problem: RegExp) {
  try {
    fn();
  } catch (err) {
    assert.instance(err, AppError);
    const e = err as AppError;
    assert.is(e.status, 400);
    assert.match(e.message, new RegExp(`^${field}: `));
    assert.match(e.message, problem);
    assert.equal(e.errors, [e.message]);
    return;
  }
  assert.unreachable(`expected a 400 naming ${field}`);
}

// ---------------------------------------------------------------------------------------------

const checks = suite('recurring blackouts: rule and zone checks');

checks('a rule is stored upper case without RRULE:; bad parts are 400 naming rrule', () => {
  assert.is(checkRule('rrule:freq=weekly;byday=mo,fr;byhour=18'), 'FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=18');
  assert.is(checkRule('FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=1'), 'FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=1');
  refused(() => checkRule('BYHOUR=18'), 'rrule', /FREQ is required/);
  refused(() => checkRule('FREQ=SECONDLY'), 'rrule', /FREQ must be one of/);
  refused(() => checkRule('FREQ=DAILY;BYHOUR=25'), 'rrule', /BYHOUR values must be 0 to 23, got '25'/);
  refused(() => checkRule('FREQ=DAILY;BYMINUTE=-5'), 'rrule', /BYMINUTE/);
  refused(() => checkRule('FREQ=DAILY;BYMONTH=13'), 'rrule', /BYMONTH/);
  refused(() => checkRule('FREQ=DAILY;FOO=1'), 'rrule', /unknown rule part 'FOO'/);
  refused(() => checkRule('FREQ=DAILY;FREQ=WEEKLY'), 'rrule', /FREQ is given twice/);
  refused(() => checkRule('FREQ=DAILY;INTERVAL=0'), 'rrule', /INTERVAL must be a whole number/);
  refused(() => checkRule('FREQ=DAILY;BYDAY=XX'), 'rrule', /BYDAY/);
  refused(() => checkRule('FREQ=DAILY\nRRULE:FREQ=WEEKLY'), 'rrule', /one RRULE value/);
  refused(() => checkRule('FREQ=DAILY;COUNT=2;UNTIL=20300101T000000Z'), 'rrule', /COUNT and UNTIL/);
  // A day that never comes is refused rather than searched for on every receipt.
  refused(() => checkRule('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31'), 'rrule', /no occurrence found/);
});

checks('a zone is an IANA name, stored in its canonical spelling', () => {
  assert.is(checkTimezone('europe/berlin'), 'Europe/Berlin');
  assert.is(checkTimezone('UTC'), 'UTC');
  assert.is(checkTimezone('Australia/Sydney'), 'Australia/Sydney');
  refused(() => checkTimezone('Mars/Olympus_Mons'), 'timezone', /not an IANA time zone/);
  refused(() => checkTimezone('+01:00'), 'timezone', /not an IANA time zone/);
});

checks.run();

// ---------------------------------------------------------------------------------------------

const dst = suite('recurring blackouts across daylight-saving changes');

/** Each occurrence start as local ISO with offset in the series' zone, over [from, to). */
function starts(s: Series, from: string, to: string): string[] {
  return occurrences(s, at(from), 10)
    .filter((t) => t < at(to))
    .map(iso);
}

dst(
  'Europe/Berlin, spring forward (2025-03-30, 02:00→03:00): 02:30 does not exist that day, no occurrence',
  () => {
    const s = series({ rrule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30' });
    assert.equal(starts(s, '2025-03-29T00:00:00Z', '2025-04-01T00:00:00Z'), [
      '2025-03-29T01:30:00.000Z', // 02:30 CET
      '2025-03-31T00:30:00.000Z', // 02:30 CEST
    ]);
    // Nothing is blacked out that night, not even at 03:30 CEST (what 02:30 would shift to).
    assert.not.ok(isInForce(row(s), at('2025-03-30T01:30:00Z')));
    assert.not.ok(isInForce(row(s), at('2025-03-30T00:45:00Z')));
    assert.ok(isInForce(row(s), at('2025-03-31T00:45:00Z')));
  },
);

dst('Europe/Berlin, fall back (2025-10-26, 03:00→02:00): 02:30 happens twice, the first one counts', () => {
  const s = series({ rrule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30' });
  assert.equal(starts(s, '2025-10-25T12:00:00Z', '2025-10-27T12:00:00Z'), [
    '2025-10-26T00:30:00.000Z', // 02:30 CEST, the first 02:30
    '2025-10-27T01:30:00.000Z', // 02:30 CET
  ]);
  // One hour from the first 02:30 CEST: it ends at the second 02:30 (CET).
  assert.ok(isInForce(row(s), at('2025-10-26T01:29:59Z')));
  assert.not.ok(isInForce(row(s), at('2025-10-26T01:30:00Z')));
  // 01:30 is not repeated in Berlin: one occurrence, at 01:30 CEST.
  const early = series({ rrule: 'FREQ=DAILY;BYHOUR=1;BYMINUTE=30' });
  assert.equal(starts(early, '2025-10-25T12:00:00Z', '2025-10-26T12:00:00Z'), ['2025-10-25T23:30:00.000Z']);
});

dst('Australia/Sydney, spring forward (2025-10-05, 02:00→03:00): 02:30 is skipped', () => {
  const s = series({ timezone: 'Australia/Sydney' });
  assert.equal(starts(s, '2025-10-03T00:00:00Z', '2025-10-06T00:00:00Z'), [
    '2025-10-03T16:30:00.000Z', // 02:30 AEST on the 4th
    '2025-10-05T15:30:00.000Z', // 02:30 AEDT on the 6th
  ]);
});

dst(
  'Australia/Sydney, fall back (2025-04-06, 03:00→02:00): 02:30 happens twice, the first one counts',
  () => {
    const s = series({ timezone: 'Australia/Sydney' });
    assert.equal(starts(s, '2025-04-05T00:00:00Z', '2025-04-07T00:00:00Z'), [
      '2025-04-05T15:30:00.000Z', // 02:30 AEDT on the 6th, the first 02:30
      '2025-04-06T16:30:00.000Z', // 02:30 AEST on the 7th
    ]);
  },
);

dst(
  'America/New_York, fall back (2025-11-02, 02:00→01:00): 01:30 happens twice, the first one counts',
  () => {
    const s = series({ rrule: 'FREQ=DAILY;BYHOUR=1;BYMINUTE=30', timezone: 'America/New_York' });
    assert.equal(starts(s, '2025-11-02T00:00:00Z', '2025-11-03T00:00:00Z'), ['2025-11-02T05:30:00.000Z']);
  },
);

dst(
  'an occurrence lasts its duration in real time: 18:00 + 14h ends 09:00 local on the spring-forward night',
  () => {
    const s = series({ rrule: 'FREQ=DAILY;BYHOUR=18;BYMINUTE=0', duration: 14 * 3600 });
    const w = windowAt(s, at('2025-03-29T20:00:00Z'));
    assert.equal([iso(w.start), iso(w.end)], ['2025-03-29T17:00:00.000Z', '2025-03-30T07:00:00.000Z']);
  },
);

dst.run();

// ---------------------------------------------------------------------------------------------

const windows = suite('recurring blackouts: windows and the stored answer');

const T = at('2025-01-06T12:00:00Z'); // a Monday, 13:00 in Berlin
const weekdays = series({
  rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18;BYMINUTE=0',
  duration: 14 * 3600,
  startTime: at('2025-01-01T10:11:12Z'),
});

function row(s: Series, stored = windowSince(s, s.startTime, s.startTime)): BlackoutRow {
  return {
    id: '0b6c3f0e-8a4e-4d0b-9a59-3c3a2b1f9e01',
    priority: 1,
    environment: 'Production',
    service: [],
    resource: null,
    event: null,
    group: null,
    origin: null,
    tags: [],
    customer: null,
    user: null,
    text: '',
    createTime: s.startTime,
    startTime: s.startTime,
    endTime: s.endTime,
    duration: s.duration,
    rrule: s.rrule,
    timezone: s.timezone,
    windowFrom: stored.from,
    windowStart: stored.start,
    windowEnd: stored.end,
  };
}

windows('the window in force, else the next; the weekend has none', () => {
  const friday = windowAt(weekdays, at('2025-01-10T20:00:00Z'));
  assert.equal(
    [iso(friday.start), iso(friday.end)],
    ['2025-01-10T17:00:00.000Z', '2025-01-11T07:00:00.000Z'],
  );
  const saturday = windowAt(weekdays, at('2025-01-11T12:00:00Z'));
  assert.equal(
    [iso(saturday.start), iso(saturday.end)],
    ['2025-01-13T17:00:00.000Z', '2025-01-14T07:00:00.000Z'],
  );
});

windows('occurrences are cut to the series; none left is NONE', () => {
  const s = { ...weekdays, endTime: at('2025-01-07T00:00:00Z') };
  const w = windowAt(s, T);
  assert.equal([iso(w.start), iso(w.end)], ['2025-01-06T17:00:00.000Z', '2025-01-07T00:00:00.000Z']);
  assert.equal(windowAt(s, at('2025-01-07T00:00:00Z')), {
    from: at('2025-01-07T00:00:00Z'),
    start: NONE,
    end: NONE,
  });
  const counted = { ...weekdays, rrule: `${weekdays.rrule};COUNT=2` };
  assert.is(windowAt(counted, at('2025-01-03T12:00:00Z')).end, NONE);
});

windows('the stored window answers as the rule does, wherever it was computed', () => {
  const stored = windowSince(weekdays, T - 2 * HOUR, T);
  for (let t = T - 3 * 86400_000; t < T + 10 * 86400_000; t += 17 * 60_000 + 13_000) {
    assert.is(coversAt(weekdays, stored, t), coversAt(weekdays, null, t), iso(t));
  }
  // A window computed long ago is stepped forward to one that has not passed.
  const late = windowSince(weekdays, at('2025-01-01T00:00:00Z'), T);
  assert.ok(late.end > T);
  assert.ok(late.from <= T);
});

windows('status keeps its meaning for the series; remaining is of the occurrence in force or next', () => {
  const b = row(weekdays, windowSince(weekdays, T - HOUR, T));
  assert.is(statusOf(b, weekdays.startTime - 1), 'pending');
  assert.is(statusOf(b, T), 'active'); // no occurrence on at 13:00, but the series is in force
  assert.is(remainingOf(b, T), 14 * 3600); // the next one, counted from its start
  assert.is(remainingOf(b, at('2025-01-06T18:00:00Z')), 13 * 3600);
  const ended = row({ ...weekdays, rrule: `${weekdays.rrule};COUNT=1` });
  assert.is(statusOf(ended, T), 'expired');
  assert.is(remainingOf(ended, T), 0);
});

windows('presented: rule, zone, words, active now, occurrence; a one-off blackout gains no keys', () => {
  const now = at('2025-01-06T18:00:00Z');
  const b = presentBlackout(row(weekdays, windowSince(weekdays, now - HOUR, now)), 'http://x', now);
  assert.equal(
    [b.rrule, b.timezone, b.status, b.remaining],
    [weekdays.rrule, 'Europe/Berlin', 'active', 46800],
  );
  assert.equal(b.recurrence, {
    description: 'every weekday 18:00–08:00 Europe/Berlin',
    activeNow: true,
    occurrence: { startTime: '2025-01-06T17:00:00.000Z', endTime: '2025-01-07T07:00:00.000Z' },
    remaining: 46800,
  });
  assert.is(b.endTime, '9999-12-31T23:59:59.999Z');
  const oneOff = presentBlackout({ ...row(weekdays), rrule: null, timezone: null }, 'http://x', now);
  assert.not.ok('rrule' in oneOff || 'timezone' in oneOff || 'recurrence' in oneOff);
});

windows('the rule in words', () => {
  assert.is(describe(weekdays), 'every weekday 18:00–08:00 Europe/Berlin');
  assert.is(
    describe(series({ rrule: 'FREQ=MONTHLY;BYDAY=1TU;BYHOUR=1;BYMINUTE=0' })),
    'every month on 1st Tuesday 01:00–02:00 Europe/Berlin',
  );
  assert.is(
    describe(series({ rrule: 'FREQ=HOURLY;INTERVAL=4', timezone: 'UTC', duration: 1800 })),
    'every 4 hours for 30m UTC',
  );
  assert.is(describe(series({ duration: 2 * 86400 })), 'every day at 02:30 for 2d Europe/Berlin');
  assert.is(
    describe(series({ rrule: 'FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=0,12,21;BYMINUTE=0', duration: 86400 })),
    'every week on Saturday and Sunday at 00:00, 12:00 and 21:00 for 1d Europe/Berlin',
  );
});

windows.run();
