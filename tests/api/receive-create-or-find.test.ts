/**
 * Receipts most likely new created without a read first (server/db/alert-create-or-find.ts): a
 * receipt of an identity this instance has not written lately is inserted in the statement that
 * would otherwise only have read for it, and when an alert matches it after all, the statement
 * gives that alert and the receipt is decided against it as after a read. Each answer must be the
 * one the read-then-write path gives. `receive_create_or_find_total` tells which way each receipt
 * went, so every test checks that the path it means to exercise really ran.
 */
import * as assert from 'uvu/assert';
import { createAlert, getAlert, postAlert } from '../helpers/alerts.ts';
import { apiFor, twoInstanceSuite } from '../helpers/app.ts';
import type { Running } from '../../server/boot.ts';

let n = 0;
const fresh = (label: string) => `${label}-${++n}-${Date.now()}`;

const test = twoInstanceSuite('new receipts created without a read', { TEST_LABEL: 'create_or_find' });

/** This instance's `receive_create_or_find_total`, by outcome. */
async function outcomes(r: Running): Promise<{ created: number; found: number; again: number }> {
  const { values } = await r.deps.metrics.receiveCreateOrFind.get();
  const of = (outcome: string) => values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
  return { created: of('created'), found: of('found'), again: of('again') };
}

/** What `receive_create_or_find_total` moved by while `work` ran. */
async function counted(r: Running, work: () => Promise<unknown>) {
  const before = await outcomes(r);
  await work();
  const after = await outcomes(r);
  return {
    created: after.created - before.created,
    found: after.found - before.found,
    again: after.again - before.again,
  };
}

const total = async (ctx: { api: ReturnType<typeof apiFor> }, qs: string) =>
  ((await (await ctx.api.get(`/alerts/count?${qs}`)).json()) as { total: number }).total;

test('a new alert is created in one statement: its first history entry and its count', async (ctx) => {
  const resource = fresh('db');
  const before = await total(ctx, `resource=${resource}`);
  let alert!: Awaited<ReturnType<typeof createAlert>>;
  const moved = await counted(ctx.running, async () => {
    alert = await createAlert(ctx.api, { resource, event: 'DiskFull', severity: 'major', value: '91%' });
  });
  assert.equal(moved, { created: 1, found: 0, again: 0 });
  assert.is(before, 0);
  assert.is(await total(ctx, `resource=${resource}`), 1);
  assert.is(alert.status, 'open');
  assert.is(alert.duplicateCount, 0);
  assert.is(alert.repeat, false);
  assert.is(alert.trendIndication, 'moreSevere');
  assert.equal(
    alert.history.map((h) => [h.type, h.severity, h.status, h.value]),
    [['new', 'major', 'open', '91%']],
  );
  const stored = await getAlert(ctx.api, alert.id);
  assert.equal({ ...stored, history: stored.history.length }, { ...alert, history: alert.history.length });
  // The next receipt of the identity is a duplicate this instance knows of: not created this way.
  const next = await counted(ctx.running, () =>
    createAlert(ctx.api, { resource, event: 'DiskFull', severity: 'major', value: '91%' }),
  );
  assert.equal(next, { created: 0, found: 0, again: 0 });
});

test('an alert written by the other instance is found, and the receipt is its duplicate', async (ctx) => {
  const resource = fresh('web');
  const first = await createAlert(apiFor(ctx.other), {
    resource,
    event: 'HttpError',
    severity: 'minor',
    tags: ['a'],
  });
  let r!: Awaited<ReturnType<typeof postAlert>>;
  const moved = await counted(ctx.running, async () => {
    r = await postAlert(ctx.api, {
      resource,
      event: 'HttpError',
      severity: 'minor',
      tags: ['b'],
      text: 'again',
    });
  });
  assert.equal(moved, { created: 0, found: 1, again: 0 });
  assert.is(r.status, 201);
  const a = r.body.alert;
  assert.is(a.id, first.id);
  assert.is(a.duplicateCount, 1);
  assert.is(a.repeat, true);
  assert.is(a.text, 'again');
  assert.equal([...a.tags].sort(), ['a', 'b']);
  assert.equal(
    a.history.map((h) => h.type),
    ['new'],
  );
  assert.is(await total(ctx, `resource=${resource}`), 1);
});

test('a correlating event is found and correlates: one alert, a severity entry', async (ctx) => {
  const resource = fresh('node');
  const correlate = ['NodeDown', 'NodeUp'];
  const down = await createAlert(apiFor(ctx.other), {
    resource,
    event: 'NodeDown',
    severity: 'major',
    correlate,
  });
  let r!: Awaited<ReturnType<typeof postAlert>>;
  const moved = await counted(ctx.running, async () => {
    r = await postAlert(ctx.api, { resource, event: 'NodeUp', severity: 'normal', correlate });
  });
  assert.equal(moved, { created: 0, found: 1, again: 0 });
  assert.is(r.status, 201);
  const a = r.body.alert;
  assert.is(a.id, down.id);
  assert.is(a.event, 'NodeUp');
  assert.is(a.severity, 'normal');
  assert.is(a.previousSeverity, 'major');
  assert.is(a.status, 'closed');
  // History oldest first, as the established server answers.
  assert.equal(
    a.history.map((h) => `${h.type}:${h.severity}`),
    ['new:major', 'severity:normal'],
  );
  assert.equal(
    (await getAlert(ctx.api, a.id)).history.map((h) => `${h.type}:${h.severity}`),
    ['new:major', 'severity:normal'],
  );
  assert.is(await total(ctx, `resource=${resource}`), 1);
  assert.is(await total(ctx, `resource=${resource}&status=closed`), 1);
});

test('a new alert naming another alert’s id is refused with a 409, as after a read', async (ctx) => {
  const taken = await createAlert(apiFor(ctx.other), { resource: fresh('id'), event: 'Owned' });
  const resource = fresh('clash');
  const r = await postAlert(ctx.api, { id: taken.id, resource, event: 'Other' });
  assert.is(r.status, 409, JSON.stringify(r.body));
  assert.is(r.body.status, 'error');
  assert.is(await total(ctx, `resource=${resource}`), 0);
  assert.is((await getAlert(ctx.api, taken.id)).event, 'Owned');
});

test('receipts arriving together: each new identity once, correlating events held back', async (ctx) => {
  const resources = Array.from({ length: 8 }, () => fresh('burst'));
  const correlate = ['LinkDown', 'LinkUp'];
  const moved = await counted(ctx.running, async () => {
    const posts = resources.flatMap((resource) => [
      postAlert(ctx.api, { resource, event: 'LinkDown', severity: 'major', correlate }),
      postAlert(ctx.api, { resource, event: 'LinkUp', severity: 'normal', correlate }),
      postAlert(apiFor(ctx.other), { resource, event: 'LinkDown', severity: 'major', correlate }),
    ]);
    for (const r of await Promise.all(posts)) assert.is(r.status, 201, JSON.stringify(r.body));
  });
  assert.ok(moved.created >= 1 && moved.created <= 8, JSON.stringify(moved));
  for (const resource of resources) assert.is(await total(ctx, `resource=${resource}`), 1, resource);
});

test.run();
