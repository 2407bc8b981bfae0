import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Removals } from '../../server/forwarding/removals.ts';
import { createLog } from '../../server/log.ts';

const log = createLog('silent');
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
/** Waits until `done()` holds (a loaded machine may run timers late), at most 10 s. */
async function until(done: () => boolean) {
  for (const end = Date.now() + 10_000; !done(); await sleep(5))
    if (Date.now() > end) throw new Error('timed out');
}

/** A remover that records each call and can be made to fail. */
function recorder() {
  const calls: number[][] = [];
  let failing = 0;
  let failed = 0;
  return {
    calls,
    failures: () => failed,
    failNext(n: number) {
      failing = n;
    },
    remove: async (ids: number[]) => {
      await sleep(5);
      if (failing > 0) {
        failing -= 1;
        failed += 1;
        throw new Error('database away');
      }
      calls.push([...ids]);
    },
  };
}

test('rows settled close together are removed in one statement, not one each', async () => {
  const r = recorder();
  const removals = new Removals(r.remove, log);
  removals.add([1]);
  removals.add([2, 3]);
  removals.add([]);
  removals.add([4]);
  assert.equal(r.calls, [], 'nothing removed at once: the request that caused them does not wait');
  await until(() => r.calls.length > 0);
  assert.equal(r.calls, [[1, 2, 3, 4]]);
  // Added together later: one more removal.
  removals.add([5]);
  removals.add([6, 7]);
  await until(() => r.calls.length > 1);
  assert.equal(r.calls, [
    [1, 2, 3, 4],
    [5, 6, 7],
  ]);
});

test('rows removed now (an inline delivery) go at once, and the caller waits for it', async () => {
  const r = recorder();
  const removals = new Removals(r.remove, log);
  removals.add([1]);
  const first = removals.now([2]);
  assert.equal(r.calls, [], 'under way (the remover is asynchronous)');
  await first;
  assert.equal(r.calls, [[1, 2]], 'taken with what was gathered, without waiting for the gathering');
  // While a removal runs, the next `now` waits for it and then goes at once with what came meanwhile.
  const second = removals.now([3]);
  removals.add([4]);
  const third = removals.now([5]);
  await second;
  await third;
  assert.equal(r.calls, [[1, 2], [3], [4, 5]]);
});

test('hurry starts the gathered removal at once, and waits for the one under way', async () => {
  const started: number[][] = [];
  let finish: () => void = () => {};
  const removals = new Removals(async (ids: number[]) => {
    started.push([...ids]);
    await new Promise<void>((ok) => (finish = ok));
  }, log);
  await removals.hurry();
  assert.equal(started, [], 'nothing pending: nothing to do or wait for');
  removals.add([1, 2]);
  const first = removals.hurry();
  assert.equal(started, [[1, 2]], 'started at once, without waiting for the gathering');
  const again = removals.hurry();
  let done = false;
  void Promise.all([first, again]).then(() => (done = true));
  await sleep(20);
  assert.not.ok(done, 'both wait for the removal under way');
  removals.add([3]);
  const next = removals.hurry();
  finish();
  await Promise.all([first, again]);
  await until(() => started.length === 2);
  assert.equal(started[1], [3], 'what was added meanwhile goes right after');
  finish();
  await next;
});

test('a removal that fails is tried again with the same rows', async () => {
  const r = recorder();
  const removals = new Removals(r.remove, log);
  r.failNext(1);
  removals.add([10, 11]);
  await until(() => r.failures() === 1);
  removals.add([12]);
  await until(() => r.calls.length > 0);
  assert.equal(r.calls.flat().sort(), [10, 11, 12]);
});

test('flush removes everything at once and waits for it (an instance stopping)', async () => {
  const r = recorder();
  const removals = new Removals(r.remove, log);
  removals.add([20]);
  await removals.flush();
  assert.equal(r.calls, [[20]]);
  await removals.flush();
  assert.equal(r.calls, [[20]], 'nothing left to remove');
});

test.run();
