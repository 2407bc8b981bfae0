/**
 * Plain duplicates written without a read while the forwarder has a destination
 * (server/domain/receive/direct.ts): each receipt's forward row is planned from the alert id this
 * instance remembers and written by the same guarded statement, so every receipt still reaches the
 * destination exactly once, with its own fields, in order, and a receipt whose guarded write
 * misses is forwarded once by the usual path. `receive_direct_total` proves which path ran.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Running } from '../../server/boot.ts';
import { createAlert, postAlert } from '../helpers/alerts.ts';
import { apiFor, bootInstance, startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

let n = 0;
const fresh = (label: string) => `${label}-${++n}-${Date.now()}`;

interface Received {
  method: string;
  url: string;
  body: { id: string; resource: string; text: string; value: string | null; createTime: string };
}

type Ctx = AppContext & { other: Running; stub: Server; base: string; received: Received[] };
const test = suite<Ctx>('plain duplicates without a read, forwarded', {} as Ctx);

test.before(async (ctx) => {
  ctx.received = [];
  // A destination that answers every request at once and records it.
  ctx.stub = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      ctx.received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body: (text ? JSON.parse(text) : null) as Received['body'],
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    });
  });
  await new Promise<void>((ok) => ctx.stub.listen(0, '127.0.0.1', ok));
  ctx.base = `http://127.0.0.1:${(ctx.stub.address() as AddressInfo).port}/api`;
  await startApp(ctx, {
    TEST_LABEL: 'direct_fwd',
    PLUGINS: 'remote_ip,reject,heartbeat,blackout,forwarder',
    BASE_URL: 'http://alertwall.test/api',
    FWD_DESTINATIONS: JSON.stringify([[ctx.base, { key: 'stub-key' }, ['*']]]),
  });
  // Shares the database, forwards nothing.
  ctx.other = await bootInstance(ctx.db.url);
});
test.after(async (ctx) => {
  await ctx.other?.close();
  await stopApp(ctx);
  await new Promise((ok) => ctx.stub?.close(ok));
});

/** What `receive_direct_total` moved by while `work` ran. */
async function counted(r: Running, work: () => Promise<unknown>) {
  const read = async () => {
    const { values } = await r.deps.metrics.receiveDirect.get();
    const of = (outcome: string) => values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    return { written: of('written'), missed: of('missed') };
  };
  const before = await read();
  await work();
  const after = await read();
  return { written: after.written - before.written, missed: after.missed - before.missed };
}

/** The alerts the destination was sent for `resource`, in the order it got them. */
const sentFor = (ctx: Ctx, resource: string) =>
  ctx.received.filter((r) => r.method === 'POST' && r.body.resource === resource).map((r) => r.body);

/** Waits until nothing is queued for the destination any more (delivered and removed). */
async function drained(ctx: Ctx) {
  for (let i = 0; i < 200; i++) {
    const rows = await queryDb<{ n: number }>(ctx.db.url, 'SELECT count(*)::int AS n FROM forward_queue');
    if (rows[0]!.n === 0) return;
    await new Promise((ok) => setTimeout(ok, 25));
  }
  assert.unreachable('the forward queue did not drain');
}

test('a duplicate written without a read is forwarded with its own fields', async (ctx) => {
  const resource = fresh('web');
  const fields = { resource, event: 'HttpError', severity: 'major', value: '500' };
  const first = await createAlert(ctx.api, fields);
  let r!: Awaited<ReturnType<typeof postAlert>>;
  const moved = await counted(ctx.running, async () => {
    r = await postAlert(ctx.api, { ...fields, id: 'receipt-two-of-web', text: 'second' });
  });
  assert.equal(moved, { written: 1, missed: 0 });
  assert.is(r.status, 201);
  assert.is(r.body.alert.id, first.id);
  assert.is(r.body.alert.duplicateCount, 1);
  // Delivered inline: the destination had it when the answer came.
  const sent = sentFor(ctx, resource);
  assert.equal(
    sent.map((b) => [b.id, b.text, b.value]),
    [
      [first.id, '', '500'],
      ['receipt-two-of-web', 'second', '500'],
    ],
  );
  await drained(ctx);
});

test('a burst of duplicates is one write and every receipt is forwarded once, in order', async (ctx) => {
  const resource = fresh('app');
  const fields = { resource, event: 'Slow', severity: 'minor' };
  const a = await createAlert(ctx.api, fields);
  const ids = Array.from({ length: 20 }, (_, i) => `burst-${resource}-${i}`);
  const answers: Awaited<ReturnType<typeof postAlert>>[] = [];
  const moved = await counted(ctx.running, () =>
    Promise.all(
      ids.map(async (id, i) => {
        answers[i] = await postAlert(ctx.api, { ...fields, id, text: `t${i}` });
      }),
    ),
  );
  assert.equal(moved, { written: 20, missed: 0 });
  await drained(ctx);
  const sent = sentFor(ctx, resource);
  assert.is(sent.length, 21);
  assert.is(sent[0]!.id, a.id);
  // Each receipt once, with its own text, in the order the alert took them (its duplicate count).
  const byCount = [...answers].sort((x, y) => x.body.alert.duplicateCount - y.body.alert.duplicateCount);
  assert.equal(
    byCount.map((x) => x.body.alert.duplicateCount),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  const texts = new Map(ids.map((id, i) => [id, `t${i}`]));
  assert.equal(
    sent.slice(1).map((b) => [b.id, b.text]),
    byCount.map((x) => {
      const id = ids[answers.indexOf(x)]!;
      return [id, texts.get(id)];
    }),
  );
});

test('a duplicate whose loop header names the destination is written directly and not forwarded', async (ctx) => {
  const resource = fresh('db');
  const fields = { resource, event: 'Replication', severity: 'warning' };
  const a = await createAlert(ctx.api, fields);
  const moved = await counted(ctx.running, async () => {
    const r = await postAlert(
      ctx.api,
      { ...fields, id: `looped-${resource}` },
      { 'X-Alerta-Loop': ctx.base },
    );
    assert.is(r.status, 201);
    assert.is(r.body.alert.duplicateCount, 1);
  });
  assert.equal(moved, { written: 1, missed: 0 });
  await drained(ctx);
  assert.equal(
    sentFor(ctx, resource).map((b) => b.id),
    [a.id],
  );
});

test('an alert deleted and created again elsewhere: the remembered id misses, the receipt is forwarded once', async (ctx) => {
  const resource = fresh('lb');
  const fields = { resource, event: 'Unreachable', severity: 'critical' };
  const a = await createAlert(ctx.api, fields);
  // The other instance (which forwards nothing) deletes it and receives it anew: a new alert id.
  const other = apiFor(ctx.other);
  assert.is((await other.delete(`/alert/${a.id}`)).status, 200);
  const again = await postAlert(other, fields);
  assert.is(again.status, 201);
  assert.is.not(again.body.alert.id, a.id);
  let r!: Awaited<ReturnType<typeof postAlert>>;
  const moved = await counted(ctx.running, async () => {
    r = await postAlert(ctx.api, { ...fields, id: `after-${resource}`, text: 'after' });
  });
  assert.equal(moved, { written: 0, missed: 1 });
  assert.is(r.body.alert.id, again.body.alert.id);
  assert.is(r.body.alert.duplicateCount, 1);
  await drained(ctx);
  assert.equal(
    sentFor(ctx, resource).map((b) => [b.id, b.text]),
    [
      [a.id, ''],
      [`after-${resource}`, 'after'],
    ],
  );
  // The usual path remembered the new alert: the next duplicate goes directly again, forwarded too.
  const next = await counted(ctx.running, () => postAlert(ctx.api, { ...fields, id: `next-${resource}` }));
  assert.equal(next, { written: 1, missed: 0 });
  await drained(ctx);
  assert.is(sentFor(ctx, resource).at(-1)!.id, `next-${resource}`);
});

test.run();
