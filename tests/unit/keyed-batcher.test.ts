import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyedBatcher } from '../../server/domain/keyed-batcher.ts';

const tick = () => new Promise((r) => setImmediate(r));

test('the first item runs alone; items arriving meanwhile run together, in order', async () => {
  const calls: number[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const batcher = new KeyedBatcher<number, string>(async (items) => {
    calls.push(items);
    if (calls.length === 1) await gate;
    return items.map((i) => `r${i}`);
  });
  const first = batcher.submit('k', 1);
  await tick();
  const rest = [2, 3, 4].map((i) => batcher.submit('k', i));
  release();
  assert.equal(await Promise.all([first, ...rest]), ['r1', 'r2', 'r3', 'r4']);
  assert.equal(calls, [[1], [2, 3, 4]]);
});

test('different keys do not wait for each other', async () => {
  const calls: string[][] = [];
  const batcher = new KeyedBatcher<string, string>(async (items) => {
    calls.push(items);
    return items;
  });
  await Promise.all([batcher.submit('a', 'a1'), batcher.submit('b', 'b1')]);
  assert.equal(calls, [['a1'], ['b1']]);
});

test('a failing run rejects only its own items; the key keeps working', async () => {
  let fail = true;
  const batcher = new KeyedBatcher<number, number>(async (items) => {
    if (fail) {
      fail = false;
      throw new Error('boom');
    }
    return items;
  });
  let message = '';
  await batcher.submit('k', 1).catch((e: Error) => (message = e.message));
  assert.is(message, 'boom');
  assert.is(await batcher.submit('k', 2), 2);
});

test.run();
