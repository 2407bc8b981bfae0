import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonCopy } from '../../server/realtime/bus.ts';

const viaJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** The same value as the JSON round trip, keys in the same order, and nothing shared with the input. */
function assertLikeJson(value: unknown) {
  const copy = jsonCopy(value);
  assert.equal(copy, viaJson(value));
  assert.is(JSON.stringify(copy), JSON.stringify(value));
}

class Point {
  x = 1;
  y = 2;
  move() {}
}

test('plain JSON data comes back equal, in the same key order', () => {
  assertLikeJson({ b: 1, a: [1, 'two', null, true, { c: { d: [] } }], 10: 'ten', 2: 'two', z: '' });
  assertLikeJson([]);
  assertLikeJson('text');
  assertLikeJson(0);
});

test('what JSON leaves out or rewrites is left out or rewritten the same way', () => {
  const tricky = {
    missing: undefined,
    fn: () => 1,
    sym: Symbol('s'),
    list: [undefined, () => 1, Symbol('s'), Number.NaN, Number.POSITIVE_INFINITY, -0],
    notANumber: Number.NaN,
    infinite: Number.NEGATIVE_INFINITY,
    // eslint-disable-next-line no-sparse-arrays
    holes: [1, , 3],
    when: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)),
    own: { toJSON: () => ({ shown: true }) },
    boxed: [Object(1), Object('s'), Object(false)],
    instance: new Point(),
    map: new Map([[1, 2]]),
    bare: Object.assign(Object.create(null) as object, { k: 'v' }),
  };
  assertLikeJson(tricky);
  const copy = jsonCopy({ list: [-0], zero: -0 }) as { list: number[]; zero: number };
  assert.ok(Object.is(copy.zero, 0));
  assert.ok(Object.is(copy.list[0], 0));
});

test('a __proto__ key stays an own key, as JSON.parse makes it, and sets no prototype', () => {
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
  const copy = jsonCopy(parsed) as Record<string, unknown>;
  assert.equal(Object.keys(copy), ['__proto__', 'a']);
  assert.is(Object.getPrototypeOf(copy), Object.prototype);
  assert.is((copy as { polluted?: boolean }).polluted, undefined);
  assert.is(JSON.stringify(copy), JSON.stringify(parsed));
});

test('nothing of the input is shared with the copy', () => {
  const input = { attributes: { nested: { list: [{ deep: 1 }] } }, tags: ['a'] };
  const copy = jsonCopy(input) as typeof input;
  assert.is.not(copy, input);
  assert.is.not(copy.attributes, input.attributes);
  assert.is.not(copy.attributes.nested, input.attributes.nested);
  assert.is.not(copy.attributes.nested.list, input.attributes.nested.list);
  assert.is.not(copy.attributes.nested.list[0], input.attributes.nested.list[0]);
  assert.is.not(copy.tags, input.tags);
});

test('what JSON refuses is refused', () => {
  assert.throws(() => jsonCopy({ big: 1n }));
  assert.throws(() => jsonCopy(undefined));
});

test.run();
