import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Histogram, Registry } from 'prom-client';
import { KeyedHistogram } from '../../server/metrics.ts';

const test = suite('KeyedHistogram (server/metrics.ts)');

/** A KeyedHistogram and a plain Histogram of the same definition, each in a registry of its own. */
function pair() {
  const config = {
    name: 'timed_seconds',
    help: 'Something timed',
    labelNames: ['plugin', 'hook'] as const,
    buckets: [0.001, 0.01, 0.1, 1],
  };
  const keyedRegistry = new Registry();
  const plainRegistry = new Registry();
  const keyed = new KeyedHistogram({ ...config, registers: [keyedRegistry] });
  const plain = new Histogram({ ...config, registers: [plainRegistry] });
  return {
    both: (labels: Partial<Record<'plugin' | 'hook', string>>, value: number) => {
      keyed.observe(labels, value);
      plain.observe(labels, value);
    },
    keyed,
    plain,
    same: async () => assert.is(await keyedRegistry.metrics(), await plainRegistry.metrics()),
  };
}

test('the same series, buckets, sums and counts as a Histogram', async () => {
  const { both, keyed, plain, same } = pair();
  const a = { plugin: 'reject', hook: 'preReceive' };
  const b = { plugin: 'blackout', hook: 'preReceive' };
  // Every bucket, a value on a bound, one above every bound, zero.
  for (const v of [0, 0.0005, 0.001, 0.002, 0.01, 0.05, 0.5, 1, 3]) {
    both(a, v);
    both(b, v * 2);
  }
  // A label object made afresh each time (equal labels): the same series.
  for (let i = 0; i < 5; i++) both({ plugin: 'reject', hook: 'preReceive' }, 0.003);
  // The value-only form (no labels) still works.
  keyed.observe(0.2);
  plain.observe(0.2);
  await same();
  const values = (await keyed.get()).values;
  const count = values.find((v) => v.metricName === 'timed_seconds_count' && v.labels.plugin === 'reject');
  assert.is(count?.value, 14);
});

test('reset, zero and remove start the series afresh, also for label objects seen before', async () => {
  const { both, keyed, plain, same } = pair();
  const a = { plugin: 'reject', hook: 'preReceive' };
  both(a, 0.005);
  keyed.reset();
  plain.reset();
  both(a, 0.05);
  await same();
  keyed.zero(a);
  plain.zero(a);
  both(a, 0.5);
  await same();
  keyed.remove(a);
  plain.remove(a);
  both(a, 0.0001);
  await same();
  const count = (await keyed.get()).values.find((v) => v.metricName === 'timed_seconds_count');
  assert.is(count?.value, 1);
});

test('a value that is not a number is refused as by a Histogram, also for a known label set', () => {
  const { keyed } = pair();
  const a = { plugin: 'reject', hook: 'preReceive' };
  keyed.observe(a, 0.1);
  assert.throws(() => keyed.observe(a, Number.NaN), /not a valid number/);
  assert.throws(() => keyed.observe({ plugin: 'x', nope: 'y' } as never, 0.1), /label/i);
});

test.run();
