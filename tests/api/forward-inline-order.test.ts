import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type AppContext, startApp, stopApp } from '../helpers/app.ts';

// Inline forwarding goes to every destination that wants the event, one after the other in the
// order of FWD_DESTINATIONS, each after the one before answered, and all before the request that
// caused it is answered — as the established server's forwarder does (its tests see the alert at
// 9000, then 9003). The destinations below mirror those tests' four.

const ADMIN_KEY = 'inline-order-admin-key-0123456789';
const AUTH = { Authorization: `Key ${ADMIN_KEY}` };
/** Each destination answers after this long: sent together, the later ones would arrive first. */
const ANSWER_MS = 150;
const INLINE_TIMEOUT_S = 2;
const HOLD_TIMEOUT_S = 6;

interface Arrival {
  destination: string;
  method: string;
  path: string;
  body: string;
  arrived: number;
  /** When the destination answered; undefined while it has not. */
  answered?: number;
}

interface OrderContext extends AppContext {
  stub: Server;
  stubBase: string;
  arrivals: Arrival[];
  /** While true, /hold/ requests are not answered. */
  holding: boolean;
}

const order = suite<OrderContext>('inline forwarding: every destination, in FWD_DESTINATIONS order', {
  arrivals: [],
  holding: false,
} as unknown as OrderContext);

order.before(async (ctx) => {
  ctx.stub = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [, destination = '', path = ''] = /^\/([^/]+)(\/.*)$/.exec(req.url ?? '') ?? [];
      const got: Arrival = {
        destination,
        method: req.method ?? '',
        path,
        body: Buffer.concat(chunks).toString('utf8'),
        arrived: performance.now(),
      };
      ctx.arrivals.push(got);
      if (destination === 'hold' && ctx.holding) return;
      setTimeout(() => {
        got.answered = performance.now();
        res.end('{"status": "ok"}');
      }, ANSWER_MS);
    });
  });
  await new Promise<void>((ok) => ctx.stub.listen(0, '127.0.0.1', ok));
  ctx.stubBase = `http://127.0.0.1:${(ctx.stub.address() as AddressInfo).port}`;
  const b = ctx.stubBase;
  await startApp(ctx, {
    TEST_LABEL: 'fwd_order',
    BASE_URL: 'http://ours.example:8080/api',
    PLUGINS: 'remote_ip,reject,heartbeat,blackout,forwarder',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'inline-order-secret-key',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_KEY,
    ACTIONS: 'investigate',
    FWD_INLINE_TIMEOUT: String(INLINE_TIMEOUT_S),
    FWD_RETRY_DELAY: '0.1',
    FWD_RETRY_MAX_DELAY: '0.5',
    FWD_DESTINATIONS: JSON.stringify([
      [`${b}/d9000`, { username: 'user', password: 'pa55w0rd', timeout: 10 }, ['alerts', 'actions']],
      [`${b}/d9001`, { key: 'e3b8afc0', secret: 'MDhjZGMyYTRkY2Yy' }, ['actions']],
      [`${b}/d9002`, { key: 'demo-key' }, ['delete']],
      [`${b}/d9003`, { token: 'bearer-token' }, ['*']],
      [`${b}/hold`, { timeout: HOLD_TIMEOUT_S }, ['investigate']],
      [`${b}/after`, {}, ['investigate']],
    ]),
  });
});
order.after(async (ctx) => {
  await stopApp(ctx);
  ctx.stub.closeAllConnections();
  await new Promise((ok) => ctx.stub.close(ok));
});

/** Sends a request and notes which arrivals had been answered when its answer came. */
async function timed(ctx: OrderContext, send: () => Promise<Response>) {
  const before = ctx.arrivals.length;
  const started = performance.now();
  const res = await send();
  const returned = performance.now();
  const body = (await res.json()) as { id?: string; alert?: { lastReceiveId: string } };
  const during = ctx.arrivals.slice(before);
  return { res, body, during, elapsed: returned - started, returned };
}

/**
 * The arrivals in the order they came are the destinations named, each arriving only after the one
 * before answered, and every one answered before the request returned.
 */
function assertInOrder(during: Arrival[], returned: number, destinations: string[], what: string) {
  assert.equal(
    during.map((a) => a.destination),
    destinations,
    `${what}: destinations in the order they were reached`,
  );
  for (const [i, a] of during.entries()) {
    assert.ok(a.answered !== undefined && a.answered <= returned, `${what}: ${a.destination} answered first`);
    const previous = during[i - 1];
    if (previous)
      assert.ok(
        a.arrived >= previous.answered!,
        `${what}: ${a.destination} reached only after ${previous.destination} answered`,
      );
  }
}

order(
  'an alert, a duplicate, an ack and a delete reach their destinations in order, before the answer',
  async (ctx) => {
    const alert = {
      resource: 'inline-order-01',
      event: 'node_marginal',
      environment: 'Production',
      service: ['Network'],
      severity: 'major',
      correlate: ['node_down', 'node_marginal', 'node_up'],
      timeout: 40,
    };
    const created = await timed(ctx, () => ctx.api.post('/alert', alert, { headers: AUTH }));
    assert.is(created.res.status, 201);
    assertInOrder(created.during, created.returned, ['d9000', 'd9003'], 'new alert');
    const id = created.body.id!;
    assert.is(JSON.parse(created.during[0]!.body).id, created.body.alert!.lastReceiveId);

    // A plain duplicate takes the receive path's shortest way (no read of the alert): the same order.
    const duplicate = await timed(ctx, () => ctx.api.post('/alert', alert, { headers: AUTH }));
    assert.is(duplicate.res.status, 201);
    assertInOrder(duplicate.during, duplicate.returned, ['d9000', 'd9003'], 'duplicate');

    const ack = await timed(ctx, () =>
      ctx.api.put(`/alert/${id}/action`, { action: 'ack', text: 'on it' }, { headers: AUTH }),
    );
    assert.is(ack.res.status, 200);
    assertInOrder(ack.during, ack.returned, ['d9000', 'd9001', 'd9003'], 'ack');
    for (const a of ack.during) assert.is(a.path, `/alert/${id}/action`);

    const deleted = await timed(ctx, () => ctx.api.delete(`/alert/${id}`, { headers: AUTH }));
    assert.is(deleted.res.status, 200);
    assertInOrder(deleted.during, deleted.returned, ['d9002', 'd9003'], 'delete');
    for (const a of deleted.during) assert.equal([a.method, a.path], ['DELETE', `/alert/${id}`]);
  },
);

order(
  'a destination that does not answer ends the wait at FWD_INLINE_TIMEOUT; the ones after it get the event from the queue at once',
  async (ctx) => {
    const made = await ctx.api.post(
      '/alert',
      { resource: 'inline-order-02', event: 'Held', environment: 'Production', service: ['web'] },
      { headers: AUTH },
    );
    const { id } = (await made.json()) as { id: string };
    ctx.holding = true;
    try {
      const held = await timed(ctx, () =>
        ctx.api.put(`/alert/${id}/action`, { action: 'investigate', text: '' }, { headers: AUTH }),
      );
      assert.is(held.res.status, 200);
      assert.ok(held.elapsed >= INLINE_TIMEOUT_S * 1000 - 50, `answered in ${held.elapsed.toFixed(0)} ms`);
      assert.ok(held.elapsed < HOLD_TIMEOUT_S * 1000 - 2000, `answered in ${held.elapsed.toFixed(0)} ms`);
      // d9000, d9001 and d9003 take actions and come before: reached in order, inline.
      assertInOrder(held.during.slice(0, 3), held.returned, ['d9000', 'd9001', 'd9003'], 'investigate');
      // The one after the held destination is handed to the queue, which sends it without waiting
      // for the held attempt's own timeout.
      const until = performance.now() + 2000;
      while (!ctx.arrivals.some((a) => a.destination === 'after' && a.path === `/alert/${id}/action`)) {
        assert.ok(performance.now() < until, 'the destination after the held one got the event');
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      ctx.holding = false;
    }
  },
);

order.run();
