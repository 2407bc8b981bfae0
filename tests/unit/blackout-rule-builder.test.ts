/**
 * The blackouts page's rule builder (web/src/routes/blackouts/rule.ts) and the date helpers it uses
 * (web/src/lib/dates.ts): every choice makes a rule the server accepts and reads back as the same
 * choice; a rule the builder cannot make stays raw; lengths typed as "14h" or "1h 30m"; instants in
 * an IANA zone with the offset that daylight saving gives them.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkRule } from '../../server/domain/recurrence.ts';
import { durationText, parseDuration, zonedTime } from '../../web/src/lib/dates.ts';
import { buildRule, formOfRule, type RuleForm } from '../../web/src/routes/blackouts/rule.ts';

const DEFAULTS: RuleForm = { repeat: 'once', at: '00:00', days: ['MO'], nth: '1', weekday: 'MO', rrule: '' };

const test = suite('blackouts page: rule builder');

test('each choice builds the rule it names, which the server keeps as it is and the builder reads back', () => {
  const cases: [Partial<RuleForm>, string][] = [
    [{ repeat: 'daily', at: '01:00' }, 'FREQ=DAILY;BYHOUR=1;BYMINUTE=0'],
    [{ repeat: 'weekdays', at: '18:00' }, 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18;BYMINUTE=0'],
    [{ repeat: 'weekly', at: '9:05', days: ['SU', 'SA'] }, 'FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=9;BYMINUTE=5'],
    [
      { repeat: 'monthly', at: '02:30', nth: '1', weekday: 'TU' },
      'FREQ=MONTHLY;BYDAY=1TU;BYHOUR=2;BYMINUTE=30',
    ],
    [
      { repeat: 'monthly', at: '22:00', nth: '-1', weekday: 'FR' },
      'FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=22;BYMINUTE=0',
    ],
  ];
  for (const [choice, rule] of cases) {
    const form = { ...DEFAULTS, ...choice };
    assert.is(buildRule(form).rule, rule);
    assert.is(checkRule(rule), rule);
    const back = formOfRule(rule, DEFAULTS);
    assert.is(back.repeat, form.repeat, rule);
    assert.is(buildRule(back).rule, rule);
  }
  assert.is(buildRule(DEFAULTS).rule, null);
});

test('a rule the builder cannot make is shown raw; mistakes name their field', () => {
  for (const rule of [
    'FREQ=HOURLY;INTERVAL=4;BYMINUTE=15',
    'FREQ=DAILY;BYHOUR=1',
    'FREQ=WEEKLY;BYDAY=MO;BYHOUR=1;BYMINUTE=0;WKST=SU',
  ])
    assert.equal(formOfRule(rule, DEFAULTS), { ...DEFAULTS, repeat: 'custom', rrule: rule });
  assert.is(buildRule({ ...DEFAULTS, repeat: 'daily', at: '24:00' }).field, 'at');
  assert.is(buildRule({ ...DEFAULTS, repeat: 'daily', at: '6pm' }).field, 'at');
  assert.is(buildRule({ ...DEFAULTS, repeat: 'weekly', days: [] }).field, 'days');
  assert.is(buildRule({ ...DEFAULTS, repeat: 'custom', rrule: '  ' }).field, 'rrule');
});

test('lengths: typed and shown', () => {
  const seconds = (t: string) => {
    const d = parseDuration(t);
    return d.error === undefined ? d.seconds : d.error;
  };
  assert.is(seconds('14h'), 50400);
  assert.is(seconds('1h 30m'), 5400);
  assert.is(seconds('1h30m'), 5400);
  assert.is(seconds('90 min'), 5400);
  assert.is(seconds('2d 4h'), 187200);
  assert.is(seconds('1:30'), 5400);
  assert.is(seconds('45s'), 45);
  assert.match(String(seconds('14')), /Add a unit: 14h or 14m\?/);
  assert.match(String(seconds('soon')), /e\.g\. 14h/);
  assert.match(String(seconds('0h')), /e\.g\. 14h/);
  for (const s of [50400, 5400, 187200, 45, 86400]) assert.is(seconds(durationText(s)), s);
  assert.is(durationText(45000), '12h 30m');
});

test('an instant in a zone: the UI format and the offset of the day', () => {
  const now = Date.parse('2027-03-01T00:00:00.000Z');
  assert.equal(zonedTime('2027-03-26T17:00:00.000Z', 'Europe/Berlin', now), {
    time: 'Fri 26 Mar 18:00',
    offset: 'UTC+1',
  });
  assert.equal(zonedTime('2027-03-29T16:00:00.000Z', 'Europe/Berlin', now), {
    time: 'Mon 29 Mar 18:00',
    offset: 'UTC+2',
  });
  assert.equal(zonedTime('2027-04-04T15:30:00.000Z', 'Australia/Sydney', now), {
    time: 'Mon 5 Apr 01:30',
    offset: 'UTC+10',
  });
  assert.equal(zonedTime('2028-01-01T00:00:00.000Z', 'UTC', now), {
    time: 'Sat 1 Jan 2028 00:00',
    offset: 'UTC',
  });
  assert.equal(zonedTime('2027-09-01T12:00:00.000Z', 'Asia/Kolkata', now), {
    time: 'Wed 1 Sep 17:30',
    offset: 'UTC+5:30',
  });
});

test.run();
