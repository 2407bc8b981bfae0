import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Hawk from 'hawk';
import type { Running } from '../../server/boot.ts';
import { enqueue } from '../../server/db/forward-queue.ts';
import { apiFor, bootInstance } from '../helpers/app.ts';
import type { Api } from '../helpers/api.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';
import { freePort } from '../../scripts/cluster.ts';

// ---- instances ------------------------------------------------------------------------------

const ADMIN_KEY = 'forwarding-test-admin-key-0123456789';
const AUTH = { Authorization: `Key ${ADMIN_KEY}` };
const FAST_RETRIES = { FWD_RETRY_DELAY: '0.1', FWD_RETRY_MAX_DELAY: '0.5' };

interface Peer {
  name: string;
  port: number;
  /** Its BASE_URL: what peers call it and what loop headers name it by. */
  base: string;
  db: { name: string; url: string };
  settings: Record<string, string>;
  running: Running;
  api: Api;
}

const baseOf = (port: number) => `http://127.0.0.1:${port}/api`;

/**
 * A peer's address before it runs: the others' FWD_DESTINATIONS name it. The port is free now;
 * `freePort` takes it from outside the range outgoing connections use, so nothing takes it before
 * the peer binds it.
 */
async function reserve(name: string): Promise<Pick<Peer, 'name' | 'port' | 'base'>> {
  const port = await freePort();
  return { name, port, base: baseOf(port) };
}

/** Boots a server on its own database, AUTH_REQUIRED with an admin key, named by its BASE_URL. */
async function boot(
  at: Pick<Peer, 'name' | 'port' | 'base'>,
  settings: Record<string, string>,
  db?: Peer['db'],
): Promise<Peer> {
  const database = db ?? (await createTestDatabase(`fwd_${at.name}`));
  const all = {
    PORT: String(at.port),
    BASE_URL: at.base,
    PLUGINS: 'remote_ip,reject,heartbeat,blackout,forwarder',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'forwarding-test-secret-key',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_KEY,
    ACTIONS: 'investigate',
    ...FAST_RETRIES,
    ...settings,
  };
  const running = await bootInstance(database.url, all);
  return { ...at, db: database, settings: all, running, api: apiFor(running) };
}

async function shutdown(peers: (Peer | undefined)[]) {
  await Promise.all(peers.map((p) => p?.running.close()));
  await Promise.all(peers.map((p) => p && dropTestDatabase(p.db.name)));
}

/**
 * Boots peers together; if one fails, the others are shut down before the error is passed on (a
 * peer left running would keep the test process alive until the runner kills it).
 */
async function bootAll<const T extends readonly Promise<Peer>[]>(
  boots: T,
): Promise<{ -readonly [K in keyof T]: Peer }> {
  const settled = await Promise.allSettled(boots);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) {
    await shutdown(settled.map((r) => (r.status === 'fulfilled' ? r.value : undefined)));
    throw failed.reason;
  }
  return settled.map((r) => (r as PromiseFulfilledResult<Peer>).value) as { -readonly [K in keyof T]: Peer };
}

const destinations = (...list: [string, Record<string, unknown>, string[]][]) => JSON.stringify(list);
const hmacCredentials = (key: string, secret: string) =>
  JSON.stringify([{ key, secret, algorithm: 'sha256' }]);

// ---- requests and waiting --------------------------------------------------------------------

interface AlertBody {
  id: string;
  status: string;
  severity: string;
  duplicateCount: number;
  lastReceiveId: string;
  history: { type: string; status: string | null; text: string }[];
}

async function json<T>(res: Response | Promise<Response>): Promise<T> {
  const r = await res;
  const text = await r.text();
  return (text ? JSON.parse(text) : {}) as T;
}

async function createAlert(p: Peer, alert: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await p.api.post(
    '/alert',
    { environment: 'Production', service: ['web'], severity: 'major', ...alert },
    { headers: { ...AUTH, ...headers } },
  );
  const body = await json<{ id: string; alert: AlertBody }>(res);
  assert.is(res.status, 201, JSON.stringify(body));
  return body.alert;
}

async function alertOn(p: Peer, id: string): Promise<AlertBody | null> {
  const res = await p.api.get(`/alert/${id}`, { headers: AUTH });
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  return (await json<{ alert: AlertBody }>(res)).alert;
}

async function act(p: Peer, id: string, action: string, text = '') {
  const res = await p.api.put(`/alert/${id}/action`, { action, text }, { headers: AUTH });
  assert.is(res.status, 200, await res.text());
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `probe` gives a value (not undefined/null/false), or fails after `ms`. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 10_000) {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > until) assert.unreachable(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface DestinationStatus {
  url: string;
  auth: string;
  queued: number;
  delivered: number;
  failed: number;
  rejected: number;
  expired: number;
  lastError: string | null;
}

async function statusOf(p: Peer) {
  return json<{
    forwarding: { enabled: boolean; baseUrl: string; destinations: DestinationStatus[] };
    metrics: { group: string; name: string; count?: number; value?: number }[];
  }>(p.api.get('/management/status', { headers: AUTH }));
}

const destinationStatus = async (p: Peer, url: string) =>
  (await statusOf(p)).forwarding.destinations.find((d) => d.url === url)!;

const queueRows = async (p: Peer) =>
  Number((await queryDb<{ n: string }>(p.db.url, 'SELECT count(*) AS n FROM forward_queue'))[0]!.n);

// ---- two servers, HMAC both ways --------------------------------------------------------------

interface PairContext {
  a: Peer;
  b: Peer;
  wrong?: Peer;
}
const pair = suite<PairContext>('forwarding between two servers, HMAC both ways', {} as PairContext);

pair.before(async (ctx) => {
  const [a, b] = await Promise.all([reserve('a'), reserve('b')]);
  [ctx.a, ctx.b] = await bootAll([
    boot(a, {
      HMAC_AUTH_CREDENTIALS: hmacCredentials('b-to-a', 'secret-of-b'),
      FWD_DESTINATIONS: destinations([b.base, { key: 'a-to-b', secret: 'secret-of-a' }, ['*']]),
    }),
    boot(b, {
      HMAC_AUTH_CREDENTIALS: hmacCredentials('a-to-b', 'secret-of-a'),
      FWD_DESTINATIONS: destinations([a.base, { key: 'b-to-a', secret: 'secret-of-b' }, ['*']]),
    }),
  ]);
});
pair.after((ctx) => shutdown([ctx.a, ctx.b, ctx.wrong]));

pair('an alert made on A appears on B under the same id, and B does not send it back', async ({ a, b }) => {
  const made = await createAlert(a, { resource: 'pair-01', event: 'DiskFull', text: 'disk at 97%' });
  const copy = await eventually('the alert on B', () => alertOn(b, made.id));
  assert.is(copy.severity, 'major');
  assert.is(copy.status, 'open');
  // B skipped A (named in the loop header), so A's alert was received exactly once.
  await eventually('B to settle', async () => (await destinationStatus(a, b.base)).queued === 0);
  await sleep(300);
  assert.is((await alertOn(a, made.id))!.duplicateCount, 0);
  assert.is((await destinationStatus(b, a.base)).delivered, 0);
  assert.is(await queueRows(b), 0);
});

pair('an ack, a custom action and a delete made on A are applied on B', async ({ a, b }) => {
  const made = await createAlert(a, { resource: 'pair-02', event: 'NodeDown' });
  await eventually('the alert on B', () => alertOn(b, made.id));

  await act(a, made.id, 'ack', 'looking into it');
  const acked = await eventually('the ack on B', async () => {
    const copy = await alertOn(b, made.id);
    return copy?.status === 'ack' && copy;
  });
  assert.ok(acked.history.some((h) => h.type === 'ack' && h.text === 'looking into it'));

  await act(a, made.id, 'investigate', 'escalated to the db team');
  await eventually('the custom action on B', async () =>
    (await alertOn(b, made.id))?.history.some(
      (h) => h.type === 'action' && h.text === 'escalated to the db team',
    ),
  );

  const res = await a.api.delete(`/alert/${made.id}`, { headers: AUTH });
  assert.is(res.status, 200, await res.text());
  await eventually('the delete on B', async () => (await alertOn(b, made.id)) === null);
});

pair(
  'an alert made on B appears on A (signed with B’s key), and a duplicate updates it',
  async ({ a, b }) => {
    const first = await createAlert(b, { resource: 'pair-03', event: 'HighLoad', value: '7' });
    await eventually('the alert on A', () => alertOn(a, first.id));
    await createAlert(b, { resource: 'pair-03', event: 'HighLoad', value: '9' });
    const copy = await eventually('the duplicate on A', async () => {
      const c = await alertOn(a, first.id);
      return c?.duplicateCount === 1 && c;
    });
    assert.is(copy.id, first.id);
  },
);

pair('heartbeats are never forwarded', async ({ a, b }) => {
  const hb = await a.api.post('/heartbeat', { origin: 'pair/hb', timeout: 60 }, { headers: AUTH });
  assert.is(hb.status, 201, await hb.text());
  // The heartbeat plugin turns this alert into a heartbeat too (202): nothing stored, nothing sent.
  const converted = await a.api.post(
    '/alert',
    {
      resource: 'pair-hb',
      event: 'Heartbeat',
      environment: 'Production',
      service: ['web'],
      origin: 'pair/hb2',
    },
    { headers: AUTH },
  );
  assert.is(converted.status, 202, await converted.text());
  const marker = await createAlert(a, { resource: 'pair-04', event: 'Marker' });
  await eventually('the marker on B', () => alertOn(b, marker.id));
  await eventually('A to settle', async () => (await destinationStatus(a, b.base)).queued === 0);
  const beats = await json<{ heartbeats: unknown[] }>(b.api.get('/heartbeats', { headers: AUTH }));
  assert.equal(beats.heartbeats, []);
});

pair(
  'a request whose loop header names the receiver is not processed (202), with either header name',
  async ({ a }) => {
    for (const header of ['X-Service-Loop', 'X-Alerta-Loop']) {
      const res = await a.api.post(
        '/alert',
        { resource: `pair-loop-${header}`, event: 'Looping', environment: 'Production', service: ['web'] },
        {
          headers: {
            ...AUTH,
            [header]: `http://peer.example/api, ${a.base}/`,
            Origin: 'http://peer.example',
          },
        },
      );
      const body = await json<{ status: string; message: string }>(res);
      assert.is(res.status, 202, header);
      assert.equal(body, {
        status: 'ok',
        message: `Alert forwarded by http://peer.example already processed by ${a.base}`,
      });
    }
    const list = await json<{ total: number }>(a.api.get('/alerts?resource=~pair-loop', { headers: AUTH }));
    assert.is(list.total, 0);

    const made = await createAlert(a, { resource: 'pair-05', event: 'Looping' });
    const action = await a.api.put(
      `/alert/${made.id}/action`,
      { action: 'ack', text: '' },
      { headers: { ...AUTH, 'X-Service-Loop': a.base } },
    );
    assert.is(action.status, 202);
    assert.match(
      (await json<{ message: string }>(action)).message,
      /^Action ack forwarded by .* already processed by/,
    );
    const del = await a.api.delete(`/alert/${made.id}`, { headers: { ...AUTH, 'X-Alerta-Loop': a.base } });
    assert.is(del.status, 202);
    const still = (await alertOn(a, made.id))!;
    assert.is(still.status, 'open');

    // A server named by the header is still asked for credentials first.
    const anonymous = await a.api.post(
      '/alert',
      { resource: 'x', event: 'y' },
      { headers: { 'X-Service-Loop': a.base } },
    );
    assert.is(anonymous.status, 401);
    // A similar but different server name is not this one.
    const other = await a.api.post(
      '/alert',
      { resource: 'pair-06', event: 'NotALoop', environment: 'Production', service: ['web'] },
      { headers: { ...AUTH, 'X-Service-Loop': `${a.base}x,http://127.0.0.1:${a.port}0/api` } },
    );
    assert.is(other.status, 201);
  },
);

pair('B has each event when the request on A that caused it returns (inline delivery)', async ({ a, b }) => {
  // No waiting here: the first attempt is made before A answers (FWD_INLINE_TIMEOUT, default 2 s).
  for (let i = 0; i < 3; i++) {
    const made = await createAlert(a, { resource: `pair-inline-${i}`, event: 'Inline' });
    assert.ok(await alertOn(b, made.id), `alert ${i} on B`);
    await act(a, made.id, 'ack', 'inline ack');
    assert.is((await alertOn(b, made.id))?.status, 'ack', `ack ${i} on B`);
    assert.is((await a.api.delete(`/alert/${made.id}`, { headers: AUTH })).status, 200);
    assert.is(await alertOn(b, made.id), null, `delete ${i} on B`);
    // The delivered rows' removal is gathered with others (10 ms) after the request returned.
    await eventually(`A's queue empty after ${i}`, async () => (await queueRows(a)) === 0, 2000);
  }
});

pair('A answers once B has the event, without waiting for the removal of its queue row', async ({ a, b }) => {
  // Every removal on A takes 1.5 s: a request that waited for it would take that long.
  await queryDb(
    a.db.url,
    `CREATE FUNCTION slow_removal() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN PERFORM pg_sleep(1.5); RETURN OLD; END $$;
     CREATE TRIGGER slow_removal BEFORE DELETE ON forward_queue FOR EACH ROW EXECUTE FUNCTION slow_removal()`,
  );
  try {
    const started = Date.now();
    const made = await createAlert(a, { resource: 'pair-slow-removal', event: 'Inline' });
    const took = Date.now() - started;
    assert.ok(took < 1000, `answered in ${took} ms`);
    assert.ok(await alertOn(b, made.id), 'on B when A answered');
    // The alert's next events wait for that removal instead (it is under way: queuing behind the
    // row waits for its lock), so that they are sent inline too: a duplicate receipt (queued by the
    // receipt's own statement) and an action. Before the removal starts, `removedBefore` starts it.
    const again = await createAlert(a, { resource: 'pair-slow-removal', event: 'Inline' });
    assert.is(again.id, made.id);
    assert.is((await alertOn(b, made.id))?.duplicateCount, 1, 'the duplicate on B when A answered');
    await act(a, made.id, 'ack', 'after a slow removal');
    assert.is((await alertOn(b, made.id))?.status, 'ack', 'ack on B when A answered');
    await eventually("A's queue empty", async () => (await queueRows(a)) === 0);
  } finally {
    await queryDb(a.db.url, 'DROP TRIGGER slow_removal ON forward_queue; DROP FUNCTION slow_removal()');
  }
});

pair(
  'an alert whose delivered row is not removed yet: its next event has the removal run first',
  async ({ a, b }) => {
    const forwarder = a.running.deps.forwarder!;
    const [row] = await enqueue(
      a.running.deps.db,
      [
        {
          destination: b.base,
          kind: 'alert',
          alertId: 'pair-unremoved',
          body: { resource: 'pair-unremoved' },
          loop: a.base,
          requestId: 'pair-unremoved-1',
          leaseMs: 60_000,
        },
      ],
      forwarder.owner,
    );
    assert.ok(row, 'inserted leased, as for an inline delivery');
    forwarder.settle([row]);
    assert.is(forwarder.removedBefore('another-alert'), undefined, 'nothing to wait for');
    const ready = forwarder.removedBefore('pair-unremoved');
    assert.ok(ready, 'a removal to wait for');
    await ready;
    assert.is(await queueRows(a), 0, 'removed when the wait ends');
    assert.is(forwarder.removedBefore('pair-unremoved'), undefined, 'and nothing left to wait for');
  },
);

pair('a wrong HMAC secret is refused by the destination (401), counted, not retried', async (ctx) => {
  const { b } = ctx;
  ctx.wrong = await boot(await reserve('wrong'), {
    FWD_DESTINATIONS: destinations([b.base, { key: 'a-to-b', secret: 'not-the-secret' }, ['alerts']]),
  });
  const made = await createAlert(ctx.wrong, { resource: 'pair-07', event: 'WrongSecret' });
  // Rejected is counted when B answers; the row goes with the next gathered removal (10 ms).
  const status = await eventually('the refusal, and the row to leave the queue', async () => {
    const s = await destinationStatus(ctx.wrong!, b.base);
    return s.rejected === 1 && s.queued === 0 && s;
  });
  assert.equal(
    [status.queued, status.delivered, status.failed, status.lastError],
    [0, 0, 0, 'HTTP 401 (refused, not retried)'],
  );
  assert.is(await alertOn(b, made.id), null);
});

pair('/management/status and /management/metrics show deliveries per destination', async ({ a, b }) => {
  const status = await statusOf(a);
  assert.is(status.forwarding.enabled, true);
  assert.is(status.forwarding.baseUrl, a.base);
  const [dest] = status.forwarding.destinations;
  assert.is(dest!.url, b.base);
  assert.is(dest!.auth, 'hawk');
  assert.ok(dest!.delivered >= 8, `delivered ${dest!.delivered}`);
  assert.equal([dest!.queued, dest!.failed, dest!.rejected, dest!.expired], [0, 0, 0, 0]);
  const delivered = status.metrics.find((m) => m.group === 'forwarding' && m.name === 'delivered');
  assert.is(delivered?.count, dest!.delivered);
  const text = await (await a.api.get('/management/metrics', { headers: AUTH })).text();
  assert.match(text, `forward_events_total{destination="${b.base}",kind="alert",outcome="delivered"}`);
  assert.match(text, `forward_queue_events{destination="${b.base}"} 0`);
  assert.match(text, /forward_loops_total \d+/);
});

pair.run();

// ---- a ring A → B → C → A ---------------------------------------------------------------------

interface RingContext {
  peers: Peer[];
}
const ring = suite<RingContext>('a ring of three servers', {} as RingContext);

ring.before(async (ctx) => {
  const at = await Promise.all(['ra', 'rb', 'rc'].map(reserve));
  ctx.peers = await bootAll(
    at.map((me, i) =>
      boot(me, {
        HMAC_AUTH_CREDENTIALS: hmacCredentials('ring', 'ring-secret'),
        FWD_DESTINATIONS: destinations([
          at[(i + 1) % 3]!.base,
          { key: 'ring', secret: 'ring-secret' },
          ['*'],
        ]),
      }),
    ),
  );
});
ring.after((ctx) => shutdown(ctx.peers));

ring('an alert made on A reaches B and C once each and stops before A', async ({ peers }) => {
  const [a, b, c] = peers as [Peer, Peer, Peer];
  const made = await createAlert(a, { resource: 'ring-01', event: 'Loop' });
  for (const p of [b, c]) await eventually(`the alert on ${p.name}`, () => alertOn(p, made.id));
  await sleep(500);
  for (const p of peers) {
    assert.is((await alertOn(p, made.id))!.duplicateCount, 0, p.name);
    assert.is(await queueRows(p), 0, p.name);
  }
  assert.is((await destinationStatus(a, b.base)).delivered, 1);
  assert.is((await destinationStatus(b, c.base)).delivered, 1);
  assert.is((await destinationStatus(c, a.base)).delivered, 0);
});

ring('an ack made on B goes round to C and A and is applied once on each', async ({ peers }) => {
  const [a, b, c] = peers as [Peer, Peer, Peer];
  const made = await createAlert(a, { resource: 'ring-02', event: 'Loop' });
  await eventually('the alert on C', () => alertOn(c, made.id));
  await act(b, made.id, 'ack', 'ring ack');
  for (const p of [c, a]) {
    await eventually(`the ack on ${p.name}`, async () => (await alertOn(p, made.id))?.status === 'ack');
  }
  await sleep(500);
  for (const p of peers) {
    const acks = (await alertOn(p, made.id))!.history.filter((h) => h.type === 'ack');
    assert.is(acks.length, 1, p.name);
  }
});

ring.run();

// ---- a dead destination -----------------------------------------------------------------------

interface OutageContext {
  a: Peer;
  baseline: Peer;
  dead: Pick<Peer, 'name' | 'port' | 'base'>;
  d?: Peer;
  hole: Server;
  holeBase: string;
  holeSockets: Set<Socket>;
  /** The alerts made during the outage, oldest first. */
  ids: string[];
}
const outage = suite<OutageContext>('a dead or silent destination', {} as OutageContext);

outage.before(async (ctx) => {
  // Accepts connections and never answers: a forwarder that waited on it would stall every request.
  ctx.holeSockets = new Set();
  ctx.hole = createServer(() => {});
  ctx.hole.on('connection', (s) => ctx.holeSockets.add(s));
  await new Promise<void>((ok) => ctx.hole.listen(0, '127.0.0.1', ok));
  ctx.holeBase = baseOf((ctx.hole.address() as AddressInfo).port);
  ctx.dead = await reserve('dead');
  const [a, baseline] = await Promise.all([reserve('oa'), reserve('obase')]);
  [ctx.a, ctx.baseline] = await bootAll([
    boot(a, {
      FWD_MAX_ATTEMPTS: '1000',
      FWD_DESTINATIONS: destinations(
        [ctx.dead.base, { key: 'outage', secret: 'outage-secret' }, ['*']],
        [ctx.holeBase, { token: 'hole-token', timeout: 1 }, ['alerts']],
      ),
    }),
    boot(baseline, { PLUGINS: 'remote_ip,reject,heartbeat,blackout' }),
  ]);
});
outage.after(async (ctx) => {
  for (const s of ctx.holeSockets) s.destroy();
  await new Promise((ok) => ctx.hole.close(ok));
  await shutdown([ctx.a, ctx.baseline, ctx.d]);
});

interface Timing {
  ids: string[];
  times: number[];
}

const percentile = (times: number[], q: number) =>
  [...times].sort((x, y) => x - y)[Math.floor(times.length * q)]!;
const describeTiming = (t: Timing) =>
  `p50 ${percentile(t.times, 0.5).toFixed(1)} ms, p95 ${percentile(t.times, 0.95).toFixed(1)} ms, ` +
  `total ${t.times.reduce((a, b) => a + b, 0).toFixed(0)} ms`;

outage(
  'alert intake keeps its pace while one destination refuses connections and another never answers',
  async (ctx) => {
    const N = 60;
    const base: Timing = { ids: [], times: [] };
    const fwd: Timing = { ids: [], times: [] };
    // Interleaved, so both see the same load from whatever else runs on the machine.
    for (let i = 0; i < N; i++) {
      for (const [p, t, prefix] of [
        [ctx.baseline, base, 'base'],
        [ctx.a, fwd, 'out'],
      ] as const) {
        const started = performance.now();
        t.ids.push((await createAlert(p, { resource: `${prefix}-${i}`, event: 'Outage' })).id);
        t.times.push(performance.now() - started);
      }
    }
    console.log(
      `  intake of ${N} alerts each: without forwarding ${describeTiming(base)}; ` +
        `forwarding to a dead and a silent destination ${describeTiming(fwd)}`,
    );
    // Waiting on the silent destination would cost its 1 s timeout per alert.
    assert.ok(percentile(fwd.times, 0.95) < 500, describeTiming(fwd));
    assert.ok(
      percentile(fwd.times, 0.5) < percentile(base.times, 0.5) * 3 + 10,
      `${describeTiming(fwd)} against ${describeTiming(base)} without forwarding`,
    );

    const dead = await eventually('a failed attempt', async () => {
      const s = await destinationStatus(ctx.a, ctx.dead.base);
      return s.failed > 0 && s;
    });
    assert.is(dead.queued, N);
    assert.is(dead.delivered, 0);
    assert.match(dead.lastError ?? '', /ECONNREFUSED/);
    const hole = await eventually('a timed-out attempt', async () => {
      const s = await destinationStatus(ctx.a, ctx.holeBase);
      return s.failed > 0 && s;
    });
    assert.match(hole.lastError ?? '', /no answer within 1000 ms/);
    ctx.ids = fwd.ids;
  },
);

outage(
  'the queue survives a restart and is delivered, in order, when the destination comes back',
  async (ctx) => {
    const { ids } = ctx;
    await act(ctx.a, ids[0]!, 'ack', 'acked during the outage');
    assert.is((await ctx.a.api.delete(`/alert/${ids[1]}`, { headers: AUTH })).status, 200);

    // Restart A on its database and address: the queue is all that remembers the events.
    await ctx.a.running.close();
    const again = await bootInstance(ctx.a.db.url, ctx.a.settings);
    ctx.a = { ...ctx.a, running: again, api: apiFor(again) };
    assert.is((await destinationStatus(ctx.a, ctx.dead.base)).queued, ids.length + 2);

    ctx.d = await boot(ctx.dead, { HMAC_AUTH_CREDENTIALS: hmacCredentials('outage', 'outage-secret') });
    await eventually(
      'the queue to drain',
      async () => (await destinationStatus(ctx.a, ctx.dead.base)).queued === 0,
      15_000,
    );
    const list = await json<{ total: number }>(ctx.d.api.get('/alerts?resource=~out-', { headers: AUTH }));
    assert.is(list.total, ids.length - 1);
    assert.is((await alertOn(ctx.d, ids[0]!))!.status, 'ack');
    assert.is(await alertOn(ctx.d, ids[1]!), null);
    assert.ok((await destinationStatus(ctx.a, ctx.dead.base)).delivered >= ids.length + 2);
  },
);

outage.run();

// ---- destinations that are not servers like this one ------------------------------------------

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** For /hawk: what an independent Hawk implementation (the hawk package) says of the signature. */
  hawk?: 'valid' | string;
}

interface StubContext {
  s: Peer;
  stub: Server;
  stubBase: string;
  received: Received[];
}
const stubs = suite<StubContext>('destinations that only implement the three routes', {} as StubContext);

const STOCK_SECRET = 'secret-shared-with-a-stock-server';

stubs.before(async (ctx) => {
  ctx.received = [];
  ctx.stub = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const [, prefix = '', rest = ''] = /^\/([^/]+)(\/.*)$/.exec(req.url ?? '') ?? [];
      const got: Received = {
        method: req.method ?? '',
        path: `/${prefix}${rest}`,
        headers: req.headers,
        body,
      };
      if (prefix === 'hawk') {
        try {
          const credentials = { key: STOCK_SECRET, algorithm: 'sha256' as const };
          const server = (Hawk as unknown as { server: HawkServer }).server;
          await server.authenticate(req, async (id) => (id === 'stock-key' ? credentials : null), {
            payload: body,
          });
          got.hawk = 'valid';
        } catch (err) {
          got.hawk = (err as Error).message;
        }
      }
      ctx.received.push(got);
      res.statusCode = prefix === 'flaky' ? 503 : prefix === 'refuse' ? 400 : 200;
      res.end(prefix === 'basic' ? 'not json at all' : '{}');
    });
  });
  await new Promise<void>((ok) => ctx.stub.listen(0, '127.0.0.1', ok));
  const stubBase = `http://127.0.0.1:${(ctx.stub.address() as AddressInfo).port}`;
  ctx.stubBase = stubBase;
  ctx.s = await boot(await reserve('s'), {
    FWD_MAX_ATTEMPTS: '3',
    FWD_RETRY_DELAY: '0.05',
    FWD_RETRY_MAX_DELAY: '0.2',
    HMAC_AUTH_CREDENTIALS: hmacCredentials('stock-key', STOCK_SECRET),
    FWD_DESTINATIONS: destinations(
      [`${stubBase}/basic`, { username: 'fwd', password: 'p@ss:word', timeout: 2, ssl_verify: false }, ['*']],
      [`${stubBase}/key`, { key: 'api-key-for-stub' }, ['alerts']],
      [`${stubBase}/bearer`, { token: 'bearer-token-for-stub' }, ['ack', 'delete']],
      [`${stubBase}/hawk`, { key: 'stock-key', secret: STOCK_SECRET }, ['*']],
      [`${stubBase}/flaky`, {}, ['alerts']],
      [`${stubBase}/refuse`, {}, ['alerts']],
    ),
  });
});
stubs.after(async (ctx) => {
  await shutdown([ctx.s]);
  ctx.stub.closeAllConnections();
  await new Promise((ok) => ctx.stub.close(ok));
});

interface HawkServer {
  authenticate(
    req: IncomingMessage,
    credentials: (id: string) => Promise<{ key: string; algorithm: 'sha256' } | null>,
    options: { payload: string },
  ): Promise<unknown>;
}

const at = (ctx: StubContext, prefix: string) => ctx.received.filter((r) => r.path.startsWith(`/${prefix}/`));
const routes = (list: Received[]) => list.map((r) => `${r.method} ${r.path.replace(/^\/[^/]+/, '')}`);

stubs(
  'alerts, actions and deletes reach each destination its filter names, with its credentials',
  async (ctx) => {
    const made = await createAlert(ctx.s, {
      resource: 'stub-01',
      event: 'Stubbed',
      rawData: 'raw',
      tags: ['t1'],
    });
    const path = `/alert/${made.id}`;
    await act(ctx.s, made.id, 'ack', 'acked');
    await act(ctx.s, made.id, 'investigate', 'custom');
    assert.is((await ctx.s.api.delete(path, { headers: AUTH })).status, 200);
    const all = ['POST /alert', `PUT ${path}/action`, `PUT ${path}/action`, `DELETE ${path}`];
    await eventually(
      'every delivery',
      async () => at(ctx, 'basic').length === 4 && at(ctx, 'hawk').length === 4,
    );
    await eventually(
      'the other two',
      async () => at(ctx, 'bearer').length === 2 && at(ctx, 'key').length === 1,
    );

    assert.equal(routes(at(ctx, 'basic')), all);
    assert.equal(routes(at(ctx, 'hawk')), all);
    assert.equal(routes(at(ctx, 'key')), ['POST /alert']);
    assert.equal(routes(at(ctx, 'bearer')), [`PUT ${path}/action`, `DELETE ${path}`]);
    assert.is(JSON.parse(at(ctx, 'bearer')[0]!.body).action, 'ack');

    const basic = `Basic ${Buffer.from('fwd:p@ss:word').toString('base64')}`;
    for (const r of at(ctx, 'basic')) assert.is(r.headers.authorization, basic);
    assert.is(at(ctx, 'key')[0]!.headers.authorization, 'Key api-key-for-stub');
    for (const r of at(ctx, 'bearer')) assert.is(r.headers.authorization, 'Bearer bearer-token-for-stub');
    // An independent Hawk implementation accepts every signed request, the bodiless DELETE included.
    assert.equal(
      at(ctx, 'hawk').map((r) => r.hawk),
      ['valid', 'valid', 'valid', 'valid'],
    );
    for (const r of [...at(ctx, 'basic'), ...at(ctx, 'hawk')]) {
      assert.is(r.headers['content-type'], 'application/json');
      assert.is(r.headers['x-service-loop'], ctx.s.base);
      assert.is(r.headers['x-alerta-loop'], ctx.s.base);
      assert.match(String(r.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    }
    const ids = new Set(at(ctx, 'hawk').map((r) => r.headers['x-request-id']));
    assert.is(ids.size, 4);

    const sent = JSON.parse(at(ctx, 'basic')[0]!.body) as Record<string, unknown>;
    assert.is(sent.id, made.lastReceiveId);
    assert.equal(
      [sent.resource, sent.event, sent.severity, sent.tags],
      ['stub-01', 'Stubbed', 'major', ['t1']],
    );
    assert.is(sent.rawData, null);
    assert.is(sent.status, undefined);
    assert.is(sent.duplicateCount, undefined);
    assert.match(String(sent.createTime), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(JSON.parse(at(ctx, 'basic')[2]!.body), {
      action: 'investigate',
      text: 'custom',
      timeout: null,
    });
    assert.is(at(ctx, 'basic')[3]!.body, '');
  },
);

stubs(
  'a failing destination is retried with backoff up to FWD_MAX_ATTEMPTS; a refusal is not retried',
  async (ctx) => {
    const flaky = `${ctx.stubBase}/flaky`;
    const refuse = `${ctx.stubBase}/refuse`;
    // Expired is counted when the last attempt fails; the row goes with the next removal of
    // settled rows (gathered over 10 ms in the background), so wait for both.
    await eventually('the flaky event to expire and leave the queue', async () => {
      const s = await destinationStatus(ctx.s, flaky);
      return s.expired === 1 && s.queued === 0;
    });
    const f = await destinationStatus(ctx.s, flaky);
    assert.equal([f.failed, f.expired, f.queued, f.lastError], [2, 1, 0, 'HTTP 503']);
    assert.is(at(ctx, 'flaky').length, 3);
    const r = await destinationStatus(ctx.s, refuse);
    assert.equal([r.rejected, r.failed, r.queued], [1, 0, 0]);
    assert.is(at(ctx, 'refuse').length, 1);
  },
);

stubs(
  'a stock server’s signed request is accepted, and sent on with its loop header extended',
  async (ctx) => {
    const stock = 'http://stock.example:8080/api';
    const url = `${ctx.s.api.base}/alert`;
    const payload = JSON.stringify({
      resource: 'stub-02',
      event: 'FromStock',
      environment: 'Production',
      service: ['web'],
    });
    const send = (loop: string) =>
      fetch(url, {
        method: 'POST',
        body: payload,
        headers: {
          'Content-Type': 'application/json',
          'X-Alerta-Loop': loop,
          Authorization: Hawk.client.header(url, 'POST', {
            credentials: { id: 'stock-key', key: STOCK_SECRET, algorithm: 'sha256' },
            payload,
            contentType: 'application/json',
          }).header,
        },
      });
    const res = await send(stock);
    assert.is(res.status, 201, await res.text());
    await eventually('the onward request', async () =>
      at(ctx, 'key').find((r) => JSON.parse(r.body).resource === 'stub-02'),
    );
    const onward = at(ctx, 'key').find((r) => JSON.parse(r.body).resource === 'stub-02')!;
    assert.is(onward.headers['x-service-loop'], `${stock},${ctx.s.base}`);
    assert.is(onward.headers['x-alerta-loop'], `${stock},${ctx.s.base}`);

    const looped = await send(`${stock},${ctx.s.base}`);
    assert.is(looped.status, 202);
    const wrong = await fetch(url, {
      method: 'POST',
      body: payload,
      headers: {
        'Content-Type': 'application/json',
        Authorization: Hawk.client.header(url, 'POST', {
          credentials: { id: 'stock-key', key: 'not-the-secret', algorithm: 'sha256' },
          payload,
          contentType: 'application/json',
        }).header,
      },
    });
    assert.is(wrong.status, 401);
  },
);

stubs('two instances on one database share the queue: every event is sent once', async (ctx) => {
  const twin = await bootInstance(ctx.s.db.url, { ...ctx.s.settings, PORT: '0' });
  try {
    const instances = [ctx.s, { ...ctx.s, running: twin, api: apiFor(twin) }];
    const made = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        createAlert(instances[i % 2]!, { resource: `stub-twin-${i}`, event: 'Shared' }),
      ),
    );
    const twins = () => at(ctx, 'key').filter((r) => JSON.parse(r.body).event === 'Shared');
    await eventually('all 30 at the destination', async () => twins().length >= 30);
    await sleep(1500); // two polls of each instance: a second copy would have been sent by now
    const sent = twins().map((r) => JSON.parse(r.body).id as string);
    assert.is(sent.length, 30);
    assert.equal(new Set(sent), new Set(made.map((a) => a.lastReceiveId)));
  } finally {
    await twin.close();
  }
});

stubs(
  'a queued row not marked as its alert’s head (as an earlier version left it) is found and sent',
  async (ctx) => {
    await queryDb(
      ctx.s.db.url,
      `INSERT INTO forward_queue (destination, kind, alert_id, body, loop, request_id, head)
     VALUES ($1, 'alert', 'unmarked-1', $2, $3, 'unmarked-request', false)`,
      [`${ctx.stubBase}/key`, JSON.stringify({ resource: 'stub-unmarked', event: 'Unmarked' }), ctx.s.base],
    );
    // An instance starting up marks it (and every instance does so now and then).
    const twin = await bootInstance(ctx.s.db.url, { ...ctx.s.settings, PORT: '0' });
    try {
      const sent = () => at(ctx, 'key').filter((r) => JSON.parse(r.body).resource === 'stub-unmarked');
      await eventually('the unmarked row sent', async () => sent().length > 0);
      await sleep(1500);
      assert.is(sent().length, 1);
      assert.is(sent()[0]!.headers['x-request-id'], 'unmarked-request');
    } finally {
      await twin.close();
    }
  },
);

stubs.run();

// ---- inline delivery, a destination that stalls, two instances --------------------------------

interface InlineContext {
  one: Peer;
  two: Peer;
  stub: Server;
  stubBase: string;
  /** Every request the stub got, answered or not. */
  received: Received[];
  /** Requests the stub answered 200, in the order it answered them. */
  answered: Received[];
  /** While true, /hold/ requests are never answered (the sender times out). */
  holding: boolean;
  /** How long /slow/ takes to answer. */
  slowMs: number;
}
const inline = suite<InlineContext>(
  'inline delivery: the first attempt before the request returns',
  {} as InlineContext,
);

// Long enough that a loaded test machine does not make an answered attempt look overdue.
const INLINE_TIMEOUT_MS = 1500;
const HOLD_TIMEOUT_S = 4;

inline.before(async (ctx) => {
  ctx.received = [];
  ctx.answered = [];
  ctx.holding = false;
  ctx.slowMs = 0;
  ctx.stub = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      ctx.received.push(got);
      if (got.path.startsWith('/hold/') && ctx.holding) return;
      const answer = () => {
        ctx.answered.push(got);
        res.end('{}');
      };
      if (got.path.startsWith('/slow/') && ctx.slowMs > 0) setTimeout(answer, ctx.slowMs);
      else answer();
    });
  });
  await new Promise<void>((ok) => ctx.stub.listen(0, '127.0.0.1', ok));
  ctx.stubBase = `http://127.0.0.1:${(ctx.stub.address() as AddressInfo).port}`;
  const settings = {
    FWD_INLINE_TIMEOUT: String(INLINE_TIMEOUT_MS / 1000),
    FWD_DESTINATIONS: destinations(
      [`${ctx.stubBase}/fast`, {}, ['*']],
      [`${ctx.stubBase}/slow`, { timeout: 5 }, ['*']],
      [`${ctx.stubBase}/hold`, { timeout: HOLD_TIMEOUT_S }, ['alerts']],
    ),
  };
  // Two instances on one database, each named by its own BASE_URL.
  ctx.one = await boot(await reserve('inline1'), settings);
  ctx.two = await boot(await reserve('inline2'), settings, ctx.one.db);
});
inline.after(async (ctx) => {
  await ctx.two?.running.close();
  await shutdown([ctx.one]);
  ctx.stub.closeAllConnections();
  await new Promise((ok) => ctx.stub.close(ok));
});

/** The requests of `list` to one stub destination, optionally only those about one alert (by id or resource). */
const to = (list: Received[], prefix: string, about?: string) =>
  list.filter(
    (r) =>
      r.path.startsWith(`/${prefix}/`) &&
      (about === undefined ||
        r.path.includes(about) ||
        (r.body !== '' && JSON.parse(r.body).resource === about)),
  );
const requestIds = (list: Received[]) => list.map((r) => String(r.headers['x-request-id']));

inline(
  'a destination that does not answer holds a request no longer than FWD_INLINE_TIMEOUT; the queue delivers it later, once',
  async (ctx) => {
    ctx.holding = true;
    let started = performance.now();
    const first = await createAlert(ctx.one, { resource: 'inline-held-1', event: 'Held' });
    const firstMs = performance.now() - started;
    // It waited for the inline attempts, but not for the held one's own 3 s timeout.
    assert.ok(firstMs >= INLINE_TIMEOUT_MS - 50, `answered in ${firstMs.toFixed(0)} ms`);
    assert.ok(firstMs < HOLD_TIMEOUT_S * 1000 - 1000, `answered in ${firstMs.toFixed(0)} ms`);
    // The destinations that answer had it before the request returned.
    assert.is(to(ctx.answered, 'fast', 'inline-held-1').length, 1);
    assert.is(to(ctx.answered, 'slow', 'inline-held-1').length, 1);

    // While that attempt is still unanswered (it runs on to its own timeout), the next event for
    // the destination is only queued: the request does not wait, and the queue sends it at once.
    ctx.holding = false;
    started = performance.now();
    const second = await createAlert(ctx.one, { resource: 'inline-held-2', event: 'Held' });
    const secondMs = performance.now() - started;
    assert.ok(secondMs < INLINE_TIMEOUT_MS - 500, `the second answered in ${secondMs.toFixed(0)} ms`);
    assert.is(to(ctx.answered, 'fast', 'inline-held-2').length, 1);

    const hold = `${ctx.stubBase}/hold`;
    await eventually(
      'the queue to deliver both',
      async () =>
        (await destinationStatus(ctx.one, hold)).queued === 0 && to(ctx.answered, 'hold').length >= 2,
      15_000,
    );
    await sleep(1500); // each instance polls once a second: a second copy would have been sent by now
    // The first after its held attempt timed out and was retried.
    const delivered = to(ctx.answered, 'hold');
    assert.equal(
      delivered.map((r) => JSON.parse(r.body).id as string),
      [second.lastReceiveId, first.lastReceiveId],
    );
    // The held request and its retry are one event: one request id, answered once.
    const heldIds = requestIds(to(ctx.received, 'hold', 'inline-held-1'));
    assert.is(heldIds.length, 2);
    assert.is(new Set(heldIds).size, 1);
    assert.is(new Set(requestIds(delivered)).size, 2);
    assert.is((await destinationStatus(ctx.one, hold)).failed, 1);
  },
);

inline(
  'one alert’s events, made on two instances while the destination is slow, reach it in order, once each',
  async (ctx) => {
    ctx.slowMs = INLINE_TIMEOUT_MS + 300;
    const { one, two } = ctx;
    const made = await createAlert(one, { resource: 'inline-order', event: 'Ordered' });
    await act(two, made.id, 'ack', 'acked on two');
    await act(one, made.id, 'close', 'closed on one');
    assert.is((await two.api.delete(`/alert/${made.id}`, { headers: AUTH })).status, 200);
    const path = `/alert/${made.id}`;
    // In the order the destination answered them: the receipt by its body, the rest by their path.
    const slow = () =>
      to(ctx.answered, 'slow').filter((r) => r.path.includes(made.id) || r.body.includes('"inline-order"'));
    await eventually('all four at the slow destination', async () => slow().length >= 4, 30_000);
    ctx.slowMs = 0;
    await sleep(1500);
    const got = slow();
    assert.equal(
      got.map(
        (r) =>
          `${r.method} ${r.path.replace('/slow', '')} ${r.body ? (JSON.parse(r.body).action ?? '') : ''}`,
      ),
      ['POST /alert ', `PUT ${path}/action ack`, `PUT ${path}/action close`, `DELETE ${path} `],
    );
    assert.is(new Set(requestIds(got)).size, 4);
    assert.is(await queueRows(one), 0);
  },
);

inline('receipts on two instances at once: every event delivered once to each destination', async (ctx) => {
  const made = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      createAlert(i % 2 ? ctx.two : ctx.one, { resource: `inline-many-${i}`, event: 'Many' }),
    ),
  );
  const want = made.map((a) => a.lastReceiveId).sort();
  const sentTo = (prefix: string) =>
    to(ctx.answered, prefix).filter((r) => r.method === 'POST' && JSON.parse(r.body).event === 'Many');
  // Each went inline, before its request returned: the destination that answers at once has them all.
  assert.is(sentTo('fast').length, 24);
  await eventually('every alert everywhere', async () =>
    ['fast', 'slow', 'hold'].every((p) => sentTo(p).length >= 24),
  );
  await sleep(1500);
  for (const prefix of ['fast', 'slow', 'hold']) {
    const got = sentTo(prefix);
    assert.equal(got.map((r) => JSON.parse(r.body).id as string).sort(), want, prefix);
    assert.is(new Set(requestIds(got)).size, 24, prefix);
  }
  assert.is(await queueRows(ctx.one), 0);
});

inline(
  'receipts of one alert queued behind a held one follow it in order, once each, as soon as it is delivered',
  async (ctx) => {
    ctx.holding = true;
    await createAlert(ctx.one, { resource: 'inline-chain', event: 'Chained', value: '0' });
    // The held attempt is overdue: the next receipts are only queued, behind it, on both instances.
    const values = Array.from({ length: 20 }, (_, i) => String(i + 1));
    for (const [i, value] of values.entries())
      await createAlert(i % 2 ? ctx.two : ctx.one, { resource: 'inline-chain', event: 'Chained', value });
    ctx.holding = false;
    const chained = () => to(ctx.answered, 'hold', 'inline-chain');
    await eventually('all 21 at the held destination', async () => chained().length >= 21, 20_000);
    await eventually('an empty queue', async () => (await queueRows(ctx.one)) === 0);
    await sleep(1500);
    assert.equal(
      chained().map((r) => JSON.parse(r.body).value as string),
      ['0', ...values],
    );
    assert.is(new Set(requestIds(chained())).size, 21);
  },
);

inline(
  'concurrent receipts of one alert on two instances: each reaches every destination once, promptly',
  async (ctx) => {
    const values = Array.from({ length: 60 }, (_, i) => String(i));
    // Six at a time: rows are queued behind others while those are being delivered and removed.
    for (let i = 0; i < values.length; i += 6)
      await Promise.all(
        values
          .slice(i, i + 6)
          .map((value, j) =>
            createAlert(j % 2 ? ctx.two : ctx.one, { resource: 'inline-race', event: 'Raced', value }),
          ),
      );
    const raced = (prefix: string) => to(ctx.answered, prefix, 'inline-race');
    // Well within the 30 s after which the safety net would mark a row that no removal marked.
    await eventually(
      'all 60 everywhere and an empty queue',
      async () =>
        ['fast', 'slow', 'hold'].every((p) => raced(p).length >= 60) && (await queueRows(ctx.one)) === 0,
      10_000,
    );
    await sleep(1500);
    for (const prefix of ['fast', 'slow', 'hold'])
      assert.equal(
        raced(prefix)
          .map((r) => JSON.parse(r.body).value as string)
          .sort(),
        [...values].sort(),
        prefix,
      );
  },
);

inline.run();
