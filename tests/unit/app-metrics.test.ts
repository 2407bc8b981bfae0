import { Registry, Summary } from 'prom-client';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createMetrics, SumCountSummary } from '../../server/metrics.ts';

/** prom-client's Summary without percentiles beside ours, each in a registry of its own. */
function pair() {
  const config = { name: 'service_alerts_received', help: 'Total time and number of received alerts' };
  const theirs = new Registry();
  const ours = new Registry();
  return {
    summary: new Summary({ ...config, percentiles: [], registers: [theirs] }),
    sumCount: new SumCountSummary({ ...config, registers: [ours] }),
    theirs,
    ours,
  };
}

test('a sum-and-count summary is exposed exactly as a Summary without percentiles', async () => {
  const { summary, sumCount, theirs, ours } = pair();
  assert.is(await ours.metrics(), await theirs.metrics());
  assert.equal(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
  for (const ms of [0.1, 12.5, 3.3333, 1e-7, 250, 0, 1 / 3]) {
    summary.observe(ms);
    sumCount.observe(ms);
  }
  assert.is(await ours.metrics(), await theirs.metrics());
  assert.equal(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
  summary.reset();
  sumCount.reset();
  assert.is(await ours.metrics(), await theirs.metrics());
});

test('a number that is not finite is refused, as by a Summary', () => {
  const { summary, sumCount } = pair();
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => summary.observe(bad), TypeError);
    assert.throws(() => sumCount.observe(bad), TypeError);
  }
});

test('the status page reads the timers’ count and total time', async () => {
  const metrics = createMetrics();
  metrics.app.time('received', 2.4);
  metrics.app.time('received', 3.3);
  const timer = (await metrics.app.snapshot()).find((m) => m.name === 'received');
  assert.equal(timer && timer.type === 'timer' ? [timer.count, timer.totalTime] : null, [2, 6]);
});

test.run();
