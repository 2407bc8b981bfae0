import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LiveAlert } from '../../shared/alerts.ts';
import { statusEnds, timeoutLeft } from '../../web/src/lib/alerts.ts';
import { formatTime, withYear } from '../../web/src/lib/preferences.ts';

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

test('a time from another year shows its year, even when the format has none', () => {
  assert.is(withYear('ddd D MMM HH:mm'), 'ddd D MMM YYYY HH:mm');
  assert.is(withYear('D MMMM, HH:mm'), 'D MMMM YYYY, HH:mm');
  assert.is(withYear('DD/MM HH:mm'), 'DD/MM HH:mm YYYY');
  assert.is(withYear('ddd D MMM, YYYY HH:mm'), 'ddd D MMM, YYYY HH:mm');
  assert.is(withYear('[Year] HH:mm'), '[Year] HH:mm YYYY');
  const now = Date.parse('2026-06-01T00:00:00Z');
  assert.is(formatTime(at, 'ddd D MMM HH:mm', 'utc', now), 'Sat 7 Mar 09:05');
  assert.is(formatTime('2025-12-31T23:00:00.000Z', 'ddd D MMM HH:mm', 'utc', now), 'Wed 31 Dec 2025 23:00');
  // The year of the user's zone: 23:00 UTC on 31 Dec is still last year in UTC.
  assert.is(
    formatTime('2025-12-31T23:00:00.000Z', 'HH:mm', 'utc', Date.parse('2026-01-01T00:30:00Z')),
    '23:00 2025',
  );
});

test('timeout left of an ack or shelve counts its own timeout, from its history entry', () => {
  const fallback = { ack: 0, shelve: 7200 };
  const entry = (type: string, status: string, updateTime: string, timeout?: number | null) => ({
    type,
    status,
    updateTime,
    timeout,
  });
  const history = [
    entry('new', 'open', '2026-03-07T08:00:00.000Z', 86400),
    entry('shelve', 'shelved', '2026-03-07T09:00:00.000Z', 600),
    entry('unshelve', 'open', '2026-03-07T09:05:00.000Z'),
    entry('shelve', 'shelved', '2026-03-07T10:00:00.000Z', 7200),
    entry('note', 'shelved', '2026-03-07T10:30:00.000Z', null),
  ];
  const end = statusEnds('shelved', history, fallback);
  assert.is(end, Date.parse('2026-03-07T12:00:00.000Z'));
  const alert = {
    status: 'shelved',
    timeout: 86400,
    lastReceiveTime: '2026-03-07T08:00:00.000Z',
  } as LiveAlert;
  assert.is(timeoutLeft(alert, Date.parse('2026-03-07T11:00:00.000Z'), end), 3600);
  assert.is(
    timeoutLeft(alert, Date.parse('2026-03-07T11:00:00.000Z'), undefined),
    null,
    'unknown: nothing shown',
  );
  // An ack without its own timeout takes /config timeouts.ack; 0 never ends.
  assert.is(statusEnds('ack', [entry('ack', 'ack', '2026-03-07T10:00:00.000Z', null)], fallback), null);
  assert.is(
    statusEnds('ack', [entry('status', 'ack', '2026-03-07T10:00:00.000Z', 60)], fallback),
    Date.parse('2026-03-07T10:01:00.000Z'),
    'a PUT /status ack counts too',
  );
  assert.is(statusEnds('open', history, fallback), undefined);
  const open = { status: 'open', timeout: 600, lastReceiveTime: '2026-03-07T10:00:00.000Z' } as LiveAlert;
  assert.is(timeoutLeft(open, Date.parse('2026-03-07T10:01:00.000Z')), 540);
});

test.run();
