import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import type { Api } from '../helpers/api.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';
import { LiveClient, sleep, until, type LiveView } from '../helpers/live.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis.ts';

/**
 * Redis is off the write path (docs/live.md, "When Redis is down"): with the product's Redis
 * stopped, writes answer as fast as with it up and are stored once; the server starts without it;
 * when it is back, every screen ends with every change, as numbered deltas or after a resync.
 */

interface Ctx extends AppContext {
  redis: PrivateRedis;
  clients: LiveClient[];
}

interface BusStatus {
  kind: string;
  connected: boolean;
  since: string;
  outbox: number;
  outboxBytes: number;
  dropped: number;
}

const unique = (p: string) => `${p}-${randomUUID().slice(0, 8)}`;

async function busStatus(api: Api): Promise<BusStatus> {
  const res = await api.get('/management/status');
  assert.is(res.status, 200);
  return ((await res.json()) as { bus: BusStatus }).bus;
}

async function metric(api: Api, name: string): Promise<number> {
  const text = await (await api.get('/management/metrics')).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

/** POST /alert, timed; anything but 201 fails the test. */
async function post(api: Api, fields: Record<string, unknown>): Promise<{ alert: Alert; ms: number }> {
  const started = performance.now();
  const res = await api.post('/alert', { environment: 'Production', service: ['web'], ...fields });
  const ms = performance.now() - started;
  const body = (await res.json()) as { alert: Alert };
  assert.is(res.status, 201, JSON.stringify(body));
  return { alert: body.alert, ms };
}

async function setStatus(api: Api, id: string, status: string): Promise<number> {
  const started = performance.now();
  const res = await api.put(`/alert/${id}/status`, { status, text: 'seen' });
  assert.is(res.status, 200, await res.text());
  return performance.now() - started;
}

/** id → "status/severity" of the alerts of a group, as LiveView.summary() gives it. */
async function stored(api: Api, group: string): Promise<Record<string, string>> {
  const res = await api.get(`/alerts?group=${group}&page-size=1000`);
  const { alerts } = (await res.json()) as { alerts: Alert[] };
  return Object.fromEntries(alerts.map((a) => [a.id, `${a.status}/${a.severity}`] as const).sort());
}

/**
 * A screen as the web UI keeps one: a view that subscribes again (a fresh snapshot) whenever it is
 * told to resync. `resyncs` counts those; `views` lists every view it held, the current one last.
 */
async function screen(client: LiveClient, query: string) {
  const s = { views: [await client.view(query)], resyncs: 0 };
  client.socket.on('resync', ({ view }) => {
    if (view !== s.views.at(-1)!.name) return;
    s.resyncs++;
    void client.view(query).then((v) => s.views.push(v));
  });
  return {
    get view(): LiveView {
      return s.views.at(-1)!;
    },
    get resyncs() {
      return s.resyncs;
    },
  };
}

/** The `seq` of each message a view applied never goes down: changes arrive in order. */
function assertInOrder(view: LiveView) {
  const seqs = view.seqs();
  assert.ok(
    seqs.every((n, i) => i === 0 || n >= seqs[i - 1]!),
    `seqs in arrival order: ${JSON.stringify(seqs)}`,
  );
}

/**
 * A suite of one app on a Redis of its own (bus channel `<label>-…`); its sockets in `clients`, the
 * app and the Redis are closed after the last test, a paused Redis resumed first.
 */
function redisAppSuite(name: string, label: string, settings: Record<string, string> = {}) {
  const test = suite<Ctx>(name, {} as Ctx);
  test.before(async (ctx) => {
    ctx.clients = [];
    ctx.redis = await startPrivateRedis();
    await startApp(ctx, {
      TEST_LABEL: `redis_${label}`,
      REDIS_URL: ctx.redis.url,
      BUS_CHANNEL: unique(label),
      ...settings,
    });
  });
  test.after(async (ctx) => {
    for (const c of ctx.clients) c.close();
    ctx.redis?.resume();
    await stopApp(ctx);
    await ctx.redis?.remove();
  });
  return test;
}

/** Posts major alerts `<prefix>-0`..`<prefix>-<count - 1>` into `group`, one after another. */
async function postMajors(api: Api, prefix: string, count: number, group: string) {
  const ids: string[] = [];
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const { alert, ms } = await post(api, {
      resource: `${prefix}-${i}`,
      event: 'e',
      group,
      severity: 'major',
    });
    ids.push(alert.id);
    times.push(ms);
  }
  return { ids, times };
}

/** A screen of `group` on a socket of the suite's app; the suite closes the socket. */
async function groupScreen(ctx: Ctx, group: string) {
  const client = await LiveClient.connect(ctx.origin, {});
  ctx.clients.push(client);
  return { client, wall: await screen(client, `group=${group}`) };
}

const outage = redisAppSuite('with Redis stopped: writes, status, and screens when it is back', 'outage');

outage.after.each(async (ctx) => {
  if (!ctx.redis.isRunning()) await ctx.redis.start();
  ctx.redis.resume();
});

outage(
  'POST /alert and PUT /alert/:id/status answer at once, each change stored once; status and metrics say Redis is down; gtg stays 200',
  async (ctx) => {
    const { api } = ctx;
    const group = unique('writes');
    assert.equal((await busStatus(api)).connected, true);
    const up: number[] = [];
    for (let i = 0; i < 5; i++) up.push((await post(api, { resource: `up-${i}`, event: 'e', group })).ms);

    await ctx.redis.stop();
    await until(async () => ((await busStatus(api)).connected ? undefined : true), 5000, 'the bus notices');
    const { ids, times: down } = await postMajors(api, 'down', 10, group);
    for (const id of ids.slice(0, 5)) down.push(await setStatus(api, id, 'ack'));
    const slowest = Math.max(...down);
    assert.ok(
      slowest < 1000,
      `with Redis down the slowest write took ${slowest.toFixed(0)} ms (up: ${up.map((m) => m.toFixed(0)).join(', ')} ms)`,
    );

    // Each stored once (no 500 for a client to retry into a duplicate), with the status set.
    const list = (await (await api.get(`/alerts?group=${group}&page-size=100`)).json()) as {
      alerts: Alert[];
      total: number;
    };
    assert.is(list.total, 15);
    assert.ok(list.alerts.every((a) => a.duplicateCount === 0));
    assert.is(list.alerts.filter((a) => a.status === 'ack').length, 5);

    const status = await busStatus(api);
    assert.equal(
      [status.kind, status.connected, status.outbox >= 15, status.dropped],
      ['redis', false, true, 0],
    );
    assert.ok(Date.now() - Date.parse(status.since) < 60_000, status.since);
    assert.is(await metric(api, 'bus_connected'), 0);
    assert.ok((await metric(api, 'bus_outbox_messages')) >= 15);
    // The write path works without Redis: ready and healthy.
    assert.is((await api.get('/management/gtg')).status, 200);
    assert.is((await api.get('/management/healthcheck')).status, 200);

    await ctx.redis.start();
    await until(
      async () => {
        const s = await busStatus(api);
        return s.connected && s.outbox === 0 ? s : undefined;
      },
      10_000,
      'connected again with the outbox sent',
    );
    assert.is(await metric(api, 'bus_connected'), 1);
    assert.is(await metric(api, 'bus_outbox_messages'), 0);
  },
);

outage(
  'a screen subscribed before Redis stopped ends with every change made while it was down (resync and a snapshot holding them), and push works again',
  async (ctx) => {
    const { api } = ctx;
    const group = unique('screen');
    const first = await post(api, { resource: 'before-1', event: 'e', group, severity: 'minor' });
    const second = await post(api, { resource: 'before-2', event: 'e', group, severity: 'minor' });
    const { wall } = await groupScreen(ctx, group);
    assert.is(wall.view.alerts.size, 2);

    await ctx.redis.stop();
    await until(async () => ((await busStatus(api)).connected ? undefined : true), 5000, 'the bus notices');
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push(
        (await post(api, { resource: `during-${i}`, event: 'e', group, severity: 'critical' })).alert.id,
      );
    await setStatus(api, first.alert.id, 'ack');
    assert.is((await api.delete(`/alert/${second.alert.id}`)).status, 200);

    await ctx.redis.start();
    const want = await stored(api, group);
    assert.is(Object.keys(want).length, 6);
    await until(
      () => (JSON.stringify(wall.view.summary()) === JSON.stringify(want) ? true : undefined),
      15_000,
      () => `the screen converges (${wall.resyncs} resyncs, ${wall.view.alerts.size} alerts)`,
    );
    assert.equal(wall.view.summary(), want);
    assert.ok(made.every((id) => wall.view.alerts.has(id)));
    assertInOrder(wall.view);

    // Push goes on from there.
    const after = await post(api, { resource: 'after', event: 'e', group, severity: 'warning' });
    await wall.view.waitUntil((v) => v.alerts.has(after.alert.id), 5000, 'a change after Redis is back');
    assertInOrder(wall.view);
  },
);

outage(
  'a paused Redis (the connection stays, commands time out): writes answer at once, and the screen gets the changes as numbered deltas in order, without a resync',
  async (ctx) => {
    const { api } = ctx;
    const group = unique('paused');
    const { wall } = await groupScreen(ctx, group);
    const before = wall.view.seq;

    ctx.redis.pause();
    const { ids, times } = await postMajors(api, 'p', 5, group);
    times.push(await setStatus(api, ids[0]!, 'ack'));
    assert.ok(Math.max(...times) < 1000, `writes took ${times.map((m) => m.toFixed(0)).join(', ')} ms`);
    // Longer than the bus's command timeout: the first batch is given up and sent again.
    await sleep(6000);
    assert.is(wall.view.alerts.size, 0, 'nothing can be pushed while Redis does not answer');
    ctx.redis.resume();

    const want = await stored(api, group);
    await until(
      () => (JSON.stringify(wall.view.summary()) === JSON.stringify(want) ? true : undefined),
      15_000,
      'the screen converges',
    );
    assert.is(wall.resyncs, 0);
    assertInOrder(wall.view);
    assert.ok(wall.view.seq > before);
    // Each change once: five new alerts, then the ack of the first.
    const pushed = wall.view.messages
      .filter((m) => m.event === 'alert.updated')
      .flatMap((m) => m.data.alerts.map((a) => `${a.resource}:${a.status}`));
    assert.equal(pushed.filter((p) => p === 'p-0:ack').length, 1);
    assert.equal(
      pushed.filter((p) => p.endsWith(':open')),
      pushed.filter((p) => p.endsWith(':open')).filter((p, i, all) => all.indexOf(p) === i),
    );
  },
);

outage.run();

// ---- start-up without Redis --------------------------------------------------------------------

interface Boot {
  redis: PrivateRedis;
  db: { name: string; url: string };
  server: ServerProcess;
  clients: LiveClient[];
}

const startup = suite<Boot>('start-up without Redis', {} as Boot);

startup.before(async (ctx) => {
  ctx.clients = [];
  ctx.redis = await startPrivateRedis();
  await ctx.redis.stop();
  ctx.db = await createTestDatabase('redis_startup');
});

startup.after(async (ctx) => {
  for (const c of ctx.clients) c.close();
  await ctx.server?.stop();
  await ctx.redis?.remove();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

startup(
  'starts, says so in the log and /management/status, takes writes, and connects when Redis appears; push works then',
  async (ctx) => {
    ctx.server = await startServerProcess({
      DATABASE_URL: ctx.db.url,
      REDIS_URL: ctx.redis.url,
      BUS_CHANNEL: unique('startup'),
      LOG_LEVEL: 'info',
    });
    assert.match(ctx.server.line, /not reachable yet/);
    assert.match(ctx.server.output(), /"msg":"bus\.redis\.down"/);
    const origin = new URL(ctx.server.url).origin;
    const api = (await import('../helpers/api.ts')).createApi(`${origin}/api`);
    assert.equal((await busStatus(api)).connected, false);
    assert.is((await api.get('/management/gtg')).status, 200);
    const group = unique('boot');
    const early = await post(api, { resource: 'early', event: 'e', group });
    assert.ok(early.ms < 1000, `${early.ms} ms`);
    const client = await LiveClient.connect(origin, {});
    ctx.clients.push(client);
    const wall = await screen(client, `group=${group}`);
    assert.ok(wall.view.alerts.has(early.alert.id), 'the snapshot comes from the database');

    await ctx.redis.start();
    await until(async () => ((await busStatus(api)).connected ? true : undefined), 10_000, 'connects');
    assert.match(ctx.server.output(), /"msg":"bus\.redis\.up"/);
    const late = await post(api, { resource: 'late', event: 'e', group });
    await wall.view.waitUntil((v) => v.alerts.has(late.alert.id), 10_000, 'pushed once Redis is there');
    assert.equal(wall.view.summary(), await stored(api, group));
  },
);

startup.run();

// ---- an outbox that overflows ------------------------------------------------------------------

const overflow = redisAppSuite('an outbox that outgrows BUS_OUTBOX_SIZE', 'overflow', {
  BUS_OUTBOX_SIZE: '4k',
});

overflow(
  'the oldest changes are dropped and counted, and the screen resyncs to a snapshot holding every change (a new epoch, not a silent loss)',
  async (ctx) => {
    const { api } = ctx;
    const group = unique('overflow');
    const { client, wall } = await groupScreen(ctx, group);

    // Paused, not stopped: the connection stays, so no reconnection reloads the views; only the
    // new epoch the dropped changes start can tell the screen.
    ctx.redis.pause();
    for (let i = 0; i < 15; i++)
      await post(api, { resource: `o-${i}`, event: 'e', group, severity: 'major' });
    const during = await busStatus(api);
    assert.ok(during.dropped > 0 && during.outboxBytes <= 4096, JSON.stringify(during));
    assert.is(await metric(api, 'bus_outbox_dropped_total'), during.dropped);
    ctx.redis.resume();

    await client.waitFor(
      (m) => m.event === 'resync' && m.data.reason === 'sequence restarted',
      15_000,
      'a resync for the new epoch',
    );
    const want = await stored(api, group);
    assert.is(Object.keys(want).length, 15);
    await until(
      () => (JSON.stringify(wall.view.summary()) === JSON.stringify(want) ? true : undefined),
      15_000,
      () => `the screen converges (${wall.resyncs} resyncs, ${wall.view.alerts.size} alerts)`,
    );
    assertInOrder(wall.view);
    assert.is(
      client.received.filter((m) => m.event === 'resync' && m.data.reason === 'bus reconnected').length,
      0,
    );
  },
);

overflow.run();
