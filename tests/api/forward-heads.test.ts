/**
 * The forward queue's head marks (migration 0036, server/db/forward-queue.ts): a row queued behind
 * one that a delivery is removing at that very moment must end up marked as its alert's head —
 * either by the removal, or because it found nothing to queue behind — whichever of the two
 * statements comes first. Driven here in both orders with one transaction held open, so the
 * outcome does not depend on timing luck.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { enqueue, markHeads, settle, type ForwardEvent } from '../../server/db/forward-queue.ts';
import { createDb, type Db } from '../../server/db/pool.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

/** `other`: a second pool, standing for another connection (another request, another instance). */
const test = suite<AppContext & { other: Db }>('forward queue heads', {} as AppContext & { other: Db });
test.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'fwdheads' });
  ctx.other = await createDb(ctx.db.url);
});
test.after(async (ctx) => {
  await ctx.other?.end();
  await stopApp(ctx);
});

const DESTINATION = 'http://destination.example/api';
const OWNER = 'instance-1';
const event = (alertId: string, requestId: string, leaseMs = 0): ForwardEvent => ({
  destination: DESTINATION,
  kind: 'alert',
  alertId,
  body: { resource: alertId },
  loop: 'http://here.example/api',
  requestId,
  leaseMs,
});
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** The alert's queued rows, in order, as `request id: head or not`. */
async function rows(ctx: AppContext, alertId: string) {
  const list = await queryDb<{ request_id: string; head: boolean }>(
    ctx.db.url,
    'SELECT request_id, head FROM forward_queue WHERE alert_id = $1 ORDER BY id',
    [alertId],
  );
  return list.map((r) => `${r.request_id}: ${r.head ? 'head' : 'behind'}`);
}

/**
 * Runs `work` on a signal, in the async context of the caller: slonik refuses a query on another
 * pool from inside a transaction's callback (as a mistake), and here it is the point of the test.
 */
function onSignal<T>(work: () => Promise<T>) {
  let go!: () => void;
  const result = new Promise<void>((ok) => (go = ok)).then(work);
  return { go, result };
}

/** Has the promise settled? (Without waiting for it.) */
async function isDone(p: Promise<unknown>) {
  return Promise.race([p.then(() => true), sleep(0).then(() => false)]);
}

test('the first row of an alert is its head, the next ones are queued behind it', async (ctx) => {
  const db = ctx.running.deps.db;
  await enqueue(db, [event('a-plain', 'first')]);
  await enqueue(db, [event('a-plain', 'second')]);
  assert.equal(await rows(ctx, 'a-plain'), ['first: head', 'second: behind']);
});

test('queued while the row ahead is being removed: the removal waits, then marks it', async (ctx) => {
  const db = ctx.running.deps.db;
  const [ahead] = await enqueue(db, [event('a-queued-first', 'ahead', 60_000)], OWNER);
  assert.ok(ahead, 'inserted leased');
  const removal = onSignal(() => settle(ctx.other, [ahead.id], OWNER));
  await db.transaction(async (t) => {
    await enqueue(t, [event('a-queued-first', 'behind')]);
    removal.go();
    await sleep(200);
    assert.not.ok(
      await isDone(removal.result),
      'the removal waits for the transaction that queued behind it',
    );
  });
  assert.equal(await removal.result, [DESTINATION], 'the destination is named: it has a new head');
  assert.equal(await rows(ctx, 'a-queued-first'), ['behind: head']);
});

test('queued while the removal of the row ahead is not yet committed: it waits, then is a head', async (ctx) => {
  const db = ctx.running.deps.db;
  const [ahead] = await enqueue(db, [event('a-removed-first', 'ahead', 60_000)], OWNER);
  assert.ok(ahead, 'inserted leased');
  const queued = onSignal(() => enqueue(ctx.other, [event('a-removed-first', 'behind')]));
  await db.transaction(async (t) => {
    assert.equal(await settle(t, [ahead.id], OWNER), [], 'nothing is behind it yet');
    queued.go();
    await sleep(200);
    assert.not.ok(
      await isDone(queued.result),
      'the new row waits for the removal of the row it would queue behind',
    );
  });
  await queued.result;
  assert.equal(await rows(ctx, 'a-removed-first'), ['behind: head']);
});

test('two heads of one alert removed at once: the second removal waits, then marks the row behind', async (ctx) => {
  const db = ctx.running.deps.db;
  // Two receipts of one alert on two instances, each queuing before the other commits: neither
  // sees the other's row, so both are heads, inserted leased for inline delivery.
  const second = onSignal(() => enqueue(ctx.other, [event('a-two-heads', 'two', 60_000)], 'instance-2'));
  const [one] = await db.transaction(async (t) => {
    const leased = await enqueue(t, [event('a-two-heads', 'one', 60_000)], OWNER);
    second.go();
    await second.result;
    return leased;
  });
  const [two] = await second.result;
  assert.ok(one && two, 'both inserted leased');
  await enqueue(db, [event('a-two-heads', 'three')]);
  assert.equal(await rows(ctx, 'a-two-heads'), ['one: head', 'two: head', 'three: behind']);

  // Both delivered and removed at the same moment: each removal's marking, alone, would still see
  // the other head and mark nothing, leaving `three` to the safety net (tens of seconds).
  const removal = onSignal(() => settle(ctx.other, [two.id], 'instance-2'));
  await db.transaction(async (t) => {
    assert.equal(await settle(t, [one.id], OWNER), [], '`two` is still ahead of `three`');
    removal.go();
    await sleep(200);
    assert.not.ok(await isDone(removal.result), 'the second removal of the alert waits for the first');
  });
  assert.equal(await removal.result, [DESTINATION], 'the destination is named: it has a new head');
  assert.equal(await rows(ctx, 'a-two-heads'), ['three: head']);
});

test('a removal marks the oldest remaining row, and only rows its owner holds go', async (ctx) => {
  const db = ctx.running.deps.db;
  const [ahead] = await enqueue(db, [event('a-chain', 'r1', 60_000)], OWNER);
  for (const id of ['r2', 'r3', 'r4']) await enqueue(db, [event('a-chain', id)]);
  const ids = (
    await queryDb<{ id: string }>(
      ctx.db.url,
      "SELECT id FROM forward_queue WHERE alert_id = 'a-chain' ORDER BY id",
    )
  ).map((r) => Number(r.id));
  assert.equal(await settle(db, [ahead!.id], 'another-instance'), []);
  assert.equal(await rows(ctx, 'a-chain'), ['r1: head', 'r2: behind', 'r3: behind', 'r4: behind']);
  // Leased together (a chain), r1 and r2 delivered: r3 becomes the head.
  await queryDb(ctx.db.url, 'UPDATE forward_queue SET owner = $1 WHERE id = ANY($2)', [
    OWNER,
    ids.slice(0, 2),
  ]);
  assert.equal(await settle(db, ids.slice(0, 2), OWNER), [DESTINATION]);
  assert.equal(await rows(ctx, 'a-chain'), ['r3: head', 'r4: behind']);
});

test('the safety net marks the first row of each alert left without a head, and no other', async (ctx) => {
  const db = ctx.running.deps.db;
  const other = 'http://other.example/api';
  // One statement each, in order: a row sees the rows queued before it by earlier statements.
  for (const e of [
    event('m-lost', 'one'),
    event('m-lost', 'two'),
    event('m-lost', 'three'),
    event('m-kept', 'one'),
    event('m-kept', 'two'),
    { ...event('m-lost', 'elsewhere'), destination: other },
    { ...event('m-lost', 'elsewhere-2'), destination: other },
  ])
    await enqueue(db, [e]);
  // As an instance of an earlier version, or one stopped between a removal and its marking, leaves
  // them: m-lost's heads gone (here, unmarked), m-kept's in place.
  await queryDb(ctx.db.url, `UPDATE forward_queue SET head = false WHERE alert_id = 'm-lost'`);
  assert.equal(await rows(ctx, 'm-lost'), [
    'one: behind',
    'two: behind',
    'three: behind',
    'elsewhere: behind',
    'elsewhere-2: behind',
  ]);

  assert.equal([...(await markHeads(db))].sort(), [DESTINATION, other]);
  assert.equal(await rows(ctx, 'm-lost'), [
    'one: head',
    'two: behind',
    'three: behind',
    'elsewhere: head',
    'elsewhere-2: behind',
  ]);
  assert.equal(await rows(ctx, 'm-kept'), ['one: head', 'two: behind']);
  // Nothing left to mark: nothing marked, no destination named.
  assert.equal(await markHeads(db), []);
});

test.run();
