import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatTime, fromDateInput, toDateInput } from '../../web/src/lib/preferences.ts';

const at = '2026-03-07T09:05:03.042Z';

test("formats /config dates' default moment formats in UTC", () => {
  assert.is(formatTime(at, 'ddd D MMM, YYYY HH:mm:ss.SSS Z', 'utc'), 'Sat 7 Mar, 2026 09:05:03.042 +00:00');
  assert.is(formatTime(at, 'ddd D MMM HH:mm', 'utc'), 'Sat 7 Mar 09:05');
  assert.is(formatTime(at, 'HH:mm', 'utc'), '09:05');
});

test('handles padding, 12-hour clocks, literals and long names', () => {
  assert.is(
    formatTime('2026-12-31T23:59:59.000Z', 'YYYY-MM-DD hh:mm A [at] dddd MMMM', 'utc'),
    '2026-12-31 11:59 PM at Thursday December',
  );
  assert.is(formatTime('2026-01-02T00:00:00.000Z', 'D/M/YY h A ZZ', 'utc'), '2/1/26 12 AM +0000');
});

test('local time uses the browser zone and prints its offset', () => {
  const d = new Date(at);
  const off = -d.getTimezoneOffset();
  const sign = off < 0 ? '-' : '+';
  const hh = String(Math.trunc(Math.abs(off) / 60)).padStart(2, '0');
  const mm = String(Math.abs(off) % 60).padStart(2, '0');
  assert.is(formatTime(at, 'Z'), `${sign}${hh}:${mm}`);
  assert.is(formatTime(at, 'HH'), String(d.getHours()).padStart(2, '0'));
});

test('an invalid time formats as empty text', () => {
  assert.is(formatTime('not a time', 'HH:mm'), '');
});

test('datetime-local values round-trip in UTC and in the browser zone', () => {
  assert.is(toDateInput('2026-03-07T09:05:59.000Z', 'utc'), '2026-03-07T09:05');
  assert.is(fromDateInput('2026-03-07T09:05', 'utc'), '2026-03-07T09:05:00.000Z');
  const local = toDateInput(at, 'local');
  assert.is(fromDateInput(local, 'local'), new Date(new Date(at).setSeconds(0, 0)).toISOString());
  assert.is(toDateInput(null, 'utc'), '');
  assert.is(fromDateInput('', 'utc'), null);
  assert.is(fromDateInput('not a time', 'utc'), null);
});

test.run();
