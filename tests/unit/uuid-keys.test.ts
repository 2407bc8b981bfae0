import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AlertNumbers } from '../../server/realtime/members.ts';
import { UuidKeys } from '../../server/realtime/uuid-keys.ts';

// server/realtime/uuid-keys.ts against a Map, and AlertNumbers (members.ts) over UUIDs and other ids.

test('only lower-case canonical UUIDs are kept as bytes', () => {
  assert.ok(UuidKeys.isUuid('0f8fad5b-d9cb-469f-a165-70867728950e'));
  for (const text of [
    '0F8FAD5B-D9CB-469F-A165-70867728950E',
    '0f8fad5bd9cb469fa16570867728950e',
    '0f8fad5b-d9cb-469f-a165-70867728950',
    '0f8fad5b-d9cb-469f-a165-70867728950g',
    '0f8fad5b-d9cb-469f-a165_70867728950e',
    'host1',
    '',
  ])
    assert.not.ok(UuidKeys.isUuid(text), text);
});

test('UuidKeys answers as a Map through growth, deletions and reuse of numbers', () => {
  const keys = new UuidKeys();
  const model = new Map<string, number>();
  const byNumber = new Map<number, string>();
  const free: number[] = [];
  let next = 0;
  // Deterministic sequence: mostly adds early, then as many deletions as adds.
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let step = 0; step < 40_000; step++) {
    if (byNumber.size > 0 && random() < (step < 20_000 ? 0.2 : 0.5)) {
      const numbers = [...byNumber.keys()];
      const n = numbers[Math.floor(random() * numbers.length)]!;
      const text = byNumber.get(n)!;
      assert.is(keys.delete(n), text);
      model.delete(text);
      byNumber.delete(n);
      free.push(n);
    } else {
      // Some sequential UUIDs (time-ordered ids share their first words) beside random ones.
      const text =
        random() < 0.5 ? randomUUID() : `00000000-0000-7000-8000-${String(step).padStart(12, '0')}`;
      if (model.has(text)) continue;
      const n = free.pop() ?? next++;
      keys.set(text, n);
      model.set(text, n);
      byNumber.set(n, text);
    }
    if (step % 997 === 0)
      for (const [text, n] of model) assert.is(keys.get(text), n, `step ${step}: ${text}`);
  }
  for (const [text, n] of model) assert.is(keys.get(text), n);
  assert.is(keys.get(randomUUID()), undefined);
  assert.is(keys.get('not a uuid'), undefined);
});

test('AlertNumbers numbers UUIDs and other ids alike, and frees each with its last holder', () => {
  const numbers = new AlertNumbers();
  const uuid = randomUUID();
  const upper = randomUUID().toUpperCase();
  const a = numbers.hold(uuid);
  const b = numbers.hold('my-own-id');
  const c = numbers.hold(upper);
  assert.equal(new Set([a, b, c]).size, 3);
  assert.is(numbers.hold(uuid), a);
  assert.is(numbers.numberOf(upper), c);
  assert.is(numbers.numberOf(upper.toLowerCase()), undefined, 'another text, another id');
  assert.is(numbers.size, 3);
  numbers.release(a);
  assert.is(numbers.numberOf(uuid), a, 'still held by one');
  numbers.release(a);
  numbers.release(b);
  assert.is(numbers.numberOf(uuid), undefined);
  assert.is(numbers.numberOf('my-own-id'), undefined);
  assert.is(numbers.size, 1);
  assert.throws(() => numbers.release(a), /not held/);
  const d = numbers.hold('my-own-id');
  const e = numbers.hold(uuid);
  assert.equal(new Set([a, b]), new Set([d, e]), 'freed numbers are reused');
  assert.is(numbers.range, 3);
});

test.run();
