import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AlertNumbers, Membership } from '../../server/realtime/members.ts';
import { alertNumbers, View } from '../../server/realtime/view.ts';
import type { LiveAlert } from '../../shared/alerts.ts';

test('an id keeps one number while any view holds it; the number is reused once freed', () => {
  const numbers = new AlertNumbers();
  const a = numbers.hold('a');
  const b = numbers.hold('b');
  assert.not.equal(a, b);
  assert.is(numbers.hold('a'), a);
  numbers.release(a);
  assert.is(numbers.numberOf('a'), a, 'still held by one');
  numbers.release(a);
  assert.is(numbers.numberOf('a'), undefined);
  assert.is(numbers.hold('c'), a, 'the freed number');
  assert.is(numbers.size, 2);
  assert.is(numbers.range, 2);
  assert.throws(() => numbers.release(99), /not held/);
});

test('AlertNumbers grows past its first array', () => {
  const numbers = new AlertNumbers();
  for (let i = 0; i < 5000; i++) assert.is(numbers.hold(`id${i}`), i);
  for (let i = 0; i < 5000; i++) numbers.hold(`id${i}`);
  for (let i = 0; i < 5000; i++) numbers.release(i);
  assert.is(numbers.size, 5000);
  for (let i = 0; i < 5000; i++) numbers.release(i);
  assert.is(numbers.size, 0);
});

test('a membership answers the same before and after it turns into an array', () => {
  const m = new Membership();
  const model = new Map<number, number>();
  const range = 1000;
  // A few members first (a Map), then most of the range (an array), then removals.
  for (let n = 0; n < range; n += 3) {
    m.set(n, (n % 7) + 1, range);
    model.set(n, (n % 7) + 1);
  }
  for (let n = 0; n < range; n += 2) {
    assert.ok(m.delete(n) === model.delete(n));
  }
  m.set(range + 5, 9, range + 6); // beyond the array's length
  model.set(range + 5, 9);
  assert.is(m.size, model.size);
  for (let n = 0; n < range + 10; n++) assert.is(m.get(n), model.get(n) ?? 0, `member ${n}`);
  assert.equal(
    [...m.numbers()].sort((a, b) => a - b),
    [...model.keys()].sort((a, b) => a - b),
  );
  assert.not.ok(m.delete(range + 6));
  assert.throws(() => m.set(1, 0, range), /never 0/);
});

test('a membership array widens when a code no longer fits in its elements', () => {
  const m = new Membership();
  const range = 100;
  for (let n = 0; n < range; n++) m.set(n, (n % 5) + 1, range); // an array of bytes
  m.set(7, 300, range);
  m.set(8, 70_000, range);
  m.set(range + 3, 255, range + 4);
  for (let n = 0; n < range; n++)
    assert.is(m.get(n), n === 7 ? 300 : n === 8 ? 70_000 : (n % 5) + 1, `member ${n}`);
  assert.is(m.get(range + 3), 255);
  assert.is(m.size, range + 1);
});

const alert = (id: string, severity: string, status = 'open', event = 'e'): LiveAlert =>
  ({
    id,
    severity,
    status,
    event,
    environment: 'Production',
    service: [],
    customer: null,
  }) as unknown as LiveAlert;

const newView = (by: 'event' | null = null) =>
  new View('v', '', null, (a) => a.severity !== 'normal', { by, limit: 100 });

test('views share the numbers of the alerts they hold and give them back when they close', () => {
  const before = alertNumbers.size;
  const one = newView();
  const two = newView('event');
  let seq = 0;
  const change = (a: LiveAlert) => ({
    gseq: ++seq,
    time: 0,
    event: { type: 'alert.updated' as const, alert: a },
  });
  for (const v of [one, two]) {
    v.apply(change(alert('x1', 'major')));
    v.apply(change(alert('x2', 'minor', 'ack', 'disk')));
  }
  assert.is(alertNumbers.size, before + 2);
  assert.equal(two.member('x2'), { severity: 'minor', status: 'ack', groups: ['disk'] });
  assert.equal(one.member('x2'), { severity: 'minor', status: 'ack', groups: [] });
  one.apply(change(alert('x1', 'normal'))); // leaves one, still in two
  assert.not.ok(one.has('x1'));
  assert.ok(two.has('x1'));
  assert.is(one.size, 1);
  assert.equal(one.counts, { total: 1, severityCounts: { minor: 1 }, statusCounts: { ack: 1 } });
  one.close();
  assert.is(alertNumbers.size, before + 2, 'two still holds both');
  two.close();
  assert.is(alertNumbers.size, before);
  assert.not.ok(two.has('x2'));
});

test('states whose names contain the separator of another pair stay apart', () => {
  const view = newView();
  let seq = 0;
  const change = (a: LiveAlert) => ({
    gseq: ++seq,
    time: 0,
    event: { type: 'alert.updated' as const, alert: a },
  });
  view.apply(change(alert('s1', 'a\nb', 'c')));
  view.apply(change(alert('s2', 'a', 'b\nc')));
  assert.equal(view.member('s1'), { severity: 'a\nb', status: 'c', groups: [] });
  assert.equal(view.member('s2'), { severity: 'a', status: 'b\nc', groups: [] });
  view.close();
});

test("a grouped view's members with the same groups share one list, freed with its last holder", () => {
  const view = newView('event');
  let seq = 0;
  const change = (a: LiveAlert) => ({
    gseq: ++seq,
    time: 0,
    event: { type: 'alert.updated' as const, alert: a },
  });
  // Separate strings of equal text, as rows of a query give them.
  const disk = () => ['di', 'sk'].join('');
  view.apply(change(alert('g1', 'major', 'open', disk())));
  view.apply(change(alert('g2', 'minor', 'open', disk())));
  view.apply(change(alert('g3', 'minor', 'open', 'cpu')));
  const g1 = view.member('g1')!.groups;
  assert.equal(g1, ['disk']);
  assert.ok(view.member('g2')!.groups === g1, 'one list for both');
  assert.equal(view.member('g3')!.groups, ['cpu']);
  // g1 moves to cpu, g2 leaves: nobody holds disk, and its list is let go.
  view.apply(change(alert('g1', 'major', 'open', 'cpu')));
  assert.ok(view.member('g1')!.groups === view.member('g3')!.groups);
  view.apply(change(alert('g2', 'normal', 'open', disk())));
  assert.not.ok(view.has('g2'));
  view.apply(change(alert('g4', 'major', 'open', 'net')));
  assert.equal(view.member('g4')!.groups, ['net']);
  view.apply(change(alert('g5', 'major', 'open', disk())));
  assert.equal(view.member('g5')!.groups, ['disk'], 'disk again: a new list');
  assert.not.ok(view.member('g5')!.groups === g1);
  assert.equal([...view.groupCounts].map(([k, c]) => [k, c.total]).sort(), [
    ['cpu', 2],
    ['disk', 1],
    ['net', 1],
  ]);
  view.close();
});

test.run();
