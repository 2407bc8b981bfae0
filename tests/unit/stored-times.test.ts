import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatTime, IsoInputTimeSchema, MAX_TIME_MS, MIN_TIME_MS } from '../../shared/alerts.ts';
import { parseStoredTime } from '../../server/db/pool.ts';
import { parseIsoDate } from '../../server/domain/query/conditions.ts';

const FIRST = '0001-01-01T00:00:00.000Z';
const LAST = '9999-12-31T23:59:59.999Z';

const stored = suite('stored timestamps (the pool type parser)');

stored('the range constants are the first and last instants of years 0001 and 9999', () => {
  assert.is(new Date(MIN_TIME_MS).toISOString(), FIRST);
  assert.is(new Date(MAX_TIME_MS).toISOString(), LAST);
});

stored('ordinary PostgreSQL output in any zone offset, with or without a fraction', () => {
  const at = Date.parse('2024-05-01T10:00:00.123Z');
  assert.is(parseStoredTime('2024-05-01 10:00:00.123+00'), at);
  assert.is(parseStoredTime('2024-05-01 12:00:00.123+02'), at);
  assert.is(parseStoredTime('2024-05-01 15:30:00.123+05:30'), at);
  assert.is(parseStoredTime('2024-05-01 06:00:00.123-04'), at);
  assert.is(parseStoredTime('2024-05-01 10:00:00.123456+00'), at);
  assert.is(parseStoredTime('2024-05-01 10:00:00+00'), at - 123);
  // Zones before standard time have offsets in seconds (LMT), e.g. Amsterdam before 1835.
  assert.is(parseStoredTime('1000-01-01 00:19:32+00:19:32'), Date.parse('1000-01-01T00:00:00.000Z'));
  // timestamp without time zone: UTC.
  assert.is(parseStoredTime('2024-05-01 10:00:00.123'), at);
  // Years below 100 are not read as 19xx.
  assert.is(parseStoredTime('0042-03-04 05:06:07+00'), Date.parse('0042-03-04T05:06:07.000Z'));
});

stored('the usual UTC form is read without the general parse, to the same instant', () => {
  // Random instants from 1970 to 9999 with 0–6 fraction digits, as PostgreSQL writes them
  // (trailing zeros dropped), with +00 and without a zone; the fraction is truncated to ms.
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let k = 0; k < 20_000; k++) {
    const ms = Math.floor(random() * (MAX_TIME_MS - Date.UTC(1970, 0, 1)));
    const micros = Math.floor(random() * 1_000_000);
    const iso = new Date(ms).toISOString().slice(0, 19);
    const fraction = String(micros)
      .padStart(6, '0')
      .slice(0, k % 7)
      .replace(/0+$/, '');
    const text = `${iso.replace('T', ' ')}${fraction ? `.${fraction}` : ''}`;
    const want = Date.parse(`${iso}Z`) + Math.floor(Number(`0.${fraction || '0'}`) * 1000);
    assert.is(parseStoredTime(`${text}+00`), want, text);
    assert.is(parseStoredTime(text), want, text);
  }
  // Anything else still goes the general way: a day past the month's end rolls over as before,
  // an offset other than +00 is applied, and a malformed fraction or text is not taken for a time.
  assert.is(parseStoredTime('2024-02-30 00:00:00+00'), Date.parse('2024-03-01T00:00:00.000Z'));
  assert.is(parseStoredTime('2024-05-01 10:00:00.5+01'), Date.parse('2024-05-01T09:00:00.500Z'));
  assert.is(parseStoredTime('1969-12-31 23:59:59.999+00'), -1);
  assert.is(parseStoredTime('2024-05-01 10:00:00.1234567+00'), Date.parse('2024-05-01T10:00:00.123Z'));
});

stored('infinities, year 0, BC dates and years past 9999 become the first or last instant', () => {
  for (const [text, want] of [
    ['-infinity', FIRST],
    ['infinity', LAST],
    ['0001-01-01 00:00:00+00 BC', FIRST],
    ['4713-11-24 00:00:00+00 BC', FIRST],
    ['0001-01-01 00:00:00+00', FIRST],
    ['0001-01-01 00:30:00+01', FIRST],
    ['9999-12-31 23:59:59.999+00', LAST],
    ['10000-01-01 00:00:00+00', LAST],
    ['294276-12-31 23:59:59.999999+00', LAST],
    ['9999-12-31 23:00:00-02', LAST],
    ['not a time', FIRST],
  ] as const) {
    assert.is(new Date(parseStoredTime(text)).toISOString(), want, text);
  }
});

stored('formatTime never throws, whatever number it is given', () => {
  assert.is(formatTime(Number.NEGATIVE_INFINITY), FIRST);
  assert.is(formatTime(Number.POSITIVE_INFINITY), LAST);
  assert.is(formatTime(Number.NaN), FIRST);
  assert.is(formatTime(-62_167_219_200_000), FIRST);
  assert.is(formatTime(8.64e15), LAST);
  assert.is(formatTime(0), '1970-01-01T00:00:00.000Z');
});

stored('formatTime writes what Date#toISOString writes, day after day and on either side of 1970', () => {
  const iso = (ms: number) => new Date(Math.min(Math.max(ms, MIN_TIME_MS), MAX_TIME_MS)).toISOString();
  const edges = [0, -0, 1, -1, 0.5, -0.5, 1.999, -1.999, 999, -999, 86_399_999, 86_400_000, -86_400_000];
  const edgesOfRange = [MIN_TIME_MS, MIN_TIME_MS + 0.5, MAX_TIME_MS, MAX_TIME_MS - 0.5, 951_782_400_000];
  for (const ms of [...edges, ...edgesOfRange]) assert.is(formatTime(ms), iso(ms), String(ms));
  // A fixed pseudo-random walk over the whole range, whole and fractional milliseconds alike.
  let seed = 42;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  for (let i = 0; i < 20_000; i++) {
    const ms = MIN_TIME_MS + next() * (MAX_TIME_MS - MIN_TIME_MS);
    const value = i % 2 ? Math.round(ms) : ms;
    assert.is(formatTime(value), iso(value), String(value));
    // The same day again, and the instant just before, whose day may differ.
    assert.is(formatTime(value + 1000), iso(value + 1000), String(value + 1000));
    assert.is(formatTime(value - 1), iso(value - 1), String(value - 1));
  }
});

stored.run();

const input = suite('input datetimes');

input('body datetimes: years 0001 to 9999 that exist on the calendar', () => {
  assert.is(IsoInputTimeSchema.parse(FIRST), MIN_TIME_MS);
  assert.is(IsoInputTimeSchema.parse(LAST), MAX_TIME_MS);
  assert.is(IsoInputTimeSchema.parse('2024-02-29T12:00:00.123456Z'), Date.parse('2024-02-29T12:00:00.123Z'));
  for (const bad of [
    '0000-01-01T00:00:00.000Z',
    '0000-12-31T23:59:59.999Z',
    '2024-02-30T00:00:00.000Z',
    '2023-02-29T00:00:00.000Z',
    '2024-04-31T00:00:00.000Z',
    '2024-01-01T24:00:00.000Z',
    '2024-13-01T00:00:00.000Z',
    '+010000-01-01T00:00:00.000Z',
    '-000001-01-01T00:00:00.000Z',
  ]) {
    assert.not.ok(IsoInputTimeSchema.safeParse(bad).success, bad);
  }
  const year0 = IsoInputTimeSchema.safeParse('0000-01-01T00:00:00.000Z');
  assert.is(year0.error?.issues[0]?.message, 'dates must be within the years 0001 to 9999 (UTC)');
});

input('query dates: in range once the offset is applied', () => {
  assert.is(parseIsoDate('0001-01-01')?.ms, MIN_TIME_MS);
  assert.is(parseIsoDate('9999-12-31T23:59:59.999Z')?.ms, MAX_TIME_MS);
  assert.is(parseIsoDate('0001-01-01T00:30:00+01:00'), undefined);
  assert.is(parseIsoDate('9999-12-31T23:00:00-02:00'), undefined);
  assert.is(parseIsoDate('0000-06-01'), undefined);
});

input.run();
