/**
 * Plain duplicates written without a read (server/domain/receive/direct.ts): an identity this
 * instance has just written is tried first as one guarded update, which must take effect only
 * where reading the alert and deciding would have written the same, and otherwise leave the
 * receipt to the usual path. `receive_direct_total` tells which path each receipt took, so every
 * test checks that the path it means to exercise really ran.
 */
import * as assert from 'uvu/assert';
import { createAlert, getAlert, postAlert, put } from '../helpers/alerts.ts';
import { apiFor, twoInstanceSuite } from '../helpers/app.ts';
import type { Running } from '../../server/boot.ts';

let n = 0;
const fresh = (label: string) => `${label}-${++n}-${Date.now()}`;

const test = twoInstanceSuite('plain duplicates without a read', { TEST_LABEL: 'direct' });

/** This instance's `receive_direct_total`, by outcome. */
async function direct(r: Running): Promise<{ written: number; missed: number }> {
  const { values } = await r.deps.metrics.receiveDirect.get();
  const of = (outcome: string) => values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
  return { written: of('written'), missed: of('missed') };
}

/** What `receive_direct_total` moved by while `work` ran. */
async function counted(r: Running, work: () => Promise<unknown>) {
  const before = await direct(r);
  await work();
  const after = await direct(r);
  return { written: after.written - before.written, missed: after.missed - before.missed };
}

test('a duplicate is written without a read and answers what the read-then-write path answered', async (ctx) => {
  const resource = fresh('web');
  const first = await createAlert(ctx.api, {
    resource,
    event: 'HttpError',
    severity: 'major',
    value: '500',
    tags: ['a'],
    attributes: { region: 'eu', gone: 'soon' },
  });
  // The read-then-write path, from the other instance (which has no hint for this identity).
  const read = await counted(ctx.other, async () => {
    const r = await postAlert(apiFor(ctx.other), {
      resource,
      event: 'HttpError',
      severity: 'major',
      value: '500',
      text: 'second',
      tags: ['b'],
      attributes: { zone: 'z1' },
    });
    assert.is(r.status, 201);
  });
  assert.equal(read, { written: 0, missed: 0 });
  let r!: Awaited<ReturnType<typeof postAlert>>;
  const written = await counted(ctx.running, async () => {
    r = await postAlert(ctx.api, {
      resource,
      event: 'HttpError',
      severity: 'major',
      value: '500',
      text: 'third',
      tags: ['c', 'a'],
      attributes: { gone: null, notify: false },
      rawData: 'raw',
      timeout: 600,
    });
  });
  assert.equal(written, { written: 1, missed: 0 });
  assert.is(r.status, 201);
  const a = r.body.alert;
  assert.is(a.id, first.id);
  assert.is(a.duplicateCount, 2);
  assert.is(a.repeat, true);
  assert.is(a.status, 'open');
  assert.is(a.severity, 'major');
  assert.is(a.text, 'third');
  assert.is(a.rawData, 'raw');
  assert.is(a.timeout, 600);
  assert.is.not(a.lastReceiveId, first.lastReceiveId);
  assert.equal(a.tags, ['a', 'b', 'c']);
  // Merged over the stored attributes; null removes; notify is the server's.
  assert.is(a.attributes.region, 'eu');
  assert.is(a.attributes.zone, 'z1');
  assert.is('gone' in a.attributes, false);
  assert.is(a.attributes.notify, true);
  assert.is(a.createTime, first.createTime);
  assert.is(a.receiveTime, first.receiveTime);
  assert.is(a.updateTime, first.updateTime);
  assert.ok(a.lastReceiveTime >= first.lastReceiveTime);
  assert.equal(
    a.history.map((h) => h.type),
    ['new'],
  );
  // Stored as answered.
  const stored = await getAlert(ctx.api, first.id);
  assert.equal({ ...stored, history: stored.history.length }, { ...a, history: a.history.length });
});

test('a duplicate of a closed alert reopens it: the guarded write misses, the usual path decides', async (ctx) => {
  const fields = { resource: fresh('db'), event: 'DiskFull', severity: 'minor' };
  const a = await createAlert(ctx.api, fields);
  assert.is((await put(ctx.api, `/alert/${a.id}/action`, { action: 'close' })).status, 200);
  let r!: Awaited<ReturnType<typeof postAlert>>;
  const moved = await counted(ctx.running, async () => {
    r = await postAlert(ctx.api, fields);
  });
  assert.equal(moved, { written: 0, missed: 1 });
  assert.is(r.body.alert.status, 'open');
  const types = (await getAlert(ctx.api, a.id)).history.map((h) => `${h.type}:${h.status}`);
  // Closing set the severity to normal, so the reopening duplicate is a severity change.
  assert.equal(types, ['new:open', 'close:closed', 'severity:open']);
  // Reopened, the next duplicate is plain again.
  const next = await counted(ctx.running, () => postAlert(ctx.api, fields));
  assert.equal(next, { written: 1, missed: 0 });
});

test('acked and shelved alerts keep their status; a shelved one is not notified', async (ctx) => {
  const acked = { resource: fresh('fw'), event: 'PortDown', severity: 'major' };
  const shelved = { resource: fresh('fw'), event: 'PortDown', severity: 'major' };
  const a = await createAlert(ctx.api, acked);
  const s = await createAlert(ctx.api, shelved);
  await put(ctx.api, `/alert/${a.id}/action`, { action: 'ack' });
  await put(ctx.api, `/alert/${s.id}/action`, { action: 'shelve', timeout: 600 });
  let ra!: Awaited<ReturnType<typeof postAlert>>;
  let rs!: Awaited<ReturnType<typeof postAlert>>;
  const moved = await counted(ctx.running, async () => {
    ra = await postAlert(ctx.api, acked);
    rs = await postAlert(ctx.api, shelved);
  });
  assert.equal(moved, { written: 2, missed: 0 });
  assert.is(ra.body.alert.status, 'ack');
  assert.is(ra.body.alert.attributes.notify, true);
  assert.is(ra.body.alert.duplicateCount, 1);
  assert.is(rs.body.alert.status, 'shelved');
  assert.is(rs.body.alert.attributes.notify, false);
});

test('a deleted alert is created again', async (ctx) => {
  const fields = { resource: fresh('lb'), event: 'Unreachable', severity: 'critical' };
  const a = await createAlert(ctx.api, fields);
  assert.is((await ctx.api.delete(`/alert/${a.id}`)).status, 200);
  let r!: Awaited<ReturnType<typeof postAlert>>;
  const moved = await counted(ctx.running, async () => {
    r = await postAlert(ctx.api, fields);
  });
  assert.equal(moved, { written: 0, missed: 1 });
  assert.is(r.status, 201);
  assert.is.not(r.body.alert.id, a.id);
  assert.is(r.body.alert.duplicateCount, 0);
  assert.equal(
    r.body.alert.history.map((h) => h.type),
    ['new'],
  );
});

test('a changed value is history (HISTORY_ON_VALUE_CHANGE): the guarded write misses', async (ctx) => {
  const fields = { resource: fresh('disk'), event: 'DiskUsage', severity: 'warning', value: '91%' };
  const a = await createAlert(ctx.api, fields);
  const moved = await counted(ctx.running, () => postAlert(ctx.api, { ...fields, value: '95%' }));
  assert.equal(moved, { written: 0, missed: 1 });
  const stored = await getAlert(ctx.api, a.id);
  assert.is(stored.value, '95%');
  assert.equal(
    stored.history.map((h) => `${h.type}:${h.value}`),
    ['new:91%', 'value:95%'],
  );
});

test('another instance changed the severity: the stale hint misses and the severity changes back', async (ctx) => {
  const fields = { resource: fresh('sw'), event: 'Temperature', severity: 'major' };
  const a = await createAlert(ctx.api, fields);
  const other = await postAlert(apiFor(ctx.other), { ...fields, severity: 'critical' });
  assert.is(other.body.alert.severity, 'critical');
  let r!: Awaited<ReturnType<typeof postAlert>>;
  const moved = await counted(ctx.running, async () => {
    r = await postAlert(ctx.api, fields);
  });
  assert.equal(moved, { written: 0, missed: 1 });
  assert.is(r.body.alert.id, a.id);
  assert.is(r.body.alert.severity, 'major');
  assert.is(r.body.alert.previousSeverity, 'critical');
  assert.is(r.body.alert.trendIndication, 'lessSevere');
  assert.is(r.body.alert.duplicateCount, 0);
});

test('a burst of duplicates of one alert is one write with every receipt counted', async (ctx) => {
  const fields = { resource: fresh('app'), event: 'Slow', severity: 'minor' };
  const a = await createAlert(ctx.api, fields);
  const moved = await counted(ctx.running, () =>
    Promise.all(Array.from({ length: 20 }, (_, i) => postAlert(ctx.api, { ...fields, text: `t${i}` }))),
  );
  assert.equal(moved, { written: 20, missed: 0 });
  const stored = await getAlert(ctx.api, a.id);
  assert.is(stored.duplicateCount, 20);
  assert.is(stored.history.length, 1);
});

test.run();
