import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { startCluster, type Cluster } from '../../scripts/cluster.ts';
import { createApi, type Api } from '../helpers/api.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';
import { LiveClient, until, type LiveView } from '../helpers/live.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis.ts';

/**
 * Redis off the write path, scaled out (docs/live.md, "When Redis is down"): two instances on one
 * PostgreSQL and a Redis of the test's own, which it stops and starts. Writes on one instance while
 * Redis is down answer at once; once it is back, a screen on the other instance ends with every one
 * of them, even when the instance that made them was killed before Redis came back.
 */

interface Ctx {
  redis: PrivateRedis;
  cluster: Cluster;
  db: { name: string; url: string };
  /** The API of each instance, directly (not through nginx). */
  apis: Api[];
  clients: LiveClient[];
}

const run = randomBytes(3).toString('hex');
const outage = suite<Ctx>('two instances while their Redis is stopped and started', {} as Ctx);

outage.before(async (ctx) => {
  ctx.clients = [];
  ctx.redis = await startPrivateRedis();
  ctx.db = await createTestDatabase('cluster_redis');
  ctx.cluster = await startCluster({ instances: 2, databaseUrl: ctx.db.url, redisUrl: ctx.redis.url });
  ctx.apis = ctx.cluster.instances.map((s) => createApi(`${s.origin}/api`));
});

outage.after(async (ctx) => {
  for (const c of ctx.clients ?? []) c.close();
  await ctx.cluster?.stop();
  await ctx.redis?.remove();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

const connected = async (api: Api) =>
  ((await (await api.get('/management/status')).json()) as { bus: { connected: boolean } }).bus.connected;

async function post(api: Api, fields: Record<string, unknown>): Promise<{ alert: Alert; ms: number }> {
  const started = performance.now();
  const res = await api.post('/alert', { environment: 'Production', service: ['web'], ...fields });
  const ms = performance.now() - started;
  const text = await res.text();
  assert.is(res.status, 201, text);
  return { alert: (JSON.parse(text) as { alert: Alert }).alert, ms };
}

async function stored(api: Api, group: string): Promise<Record<string, string>> {
  const res = await api.get(`/alerts?group=${group}&page-size=1000`);
  const { alerts } = (await res.json()) as { alerts: Alert[] };
  return Object.fromEntries(alerts.map((a) => [a.id, `${a.status}/${a.severity}`] as const).sort());
}

/** A view that subscribes again whenever it is told to resync, as the web UI does. */
async function screen(ctx: Ctx, origin: string, query: string) {
  const client = await LiveClient.connect(origin, {}, 15_000);
  ctx.clients.push(client);
  const views = [await client.view(query)];
  client.socket.on('resync', ({ view }) => {
    if (view === views.at(-1)!.name) void client.view(query).then((v) => views.push(v));
  });
  return { current: (): LiveView => views.at(-1)! };
}

async function converges(wall: { current(): LiveView }, api: Api, group: string, what: string) {
  const want = await stored(api, group);
  await until(
    () => (JSON.stringify(wall.current().summary()) === JSON.stringify(want) ? true : undefined),
    20_000,
    () => `${what}: ${wall.current().alerts.size} of ${Object.keys(want).length} alerts`,
  );
  const seqs = wall.current().seqs();
  assert.ok(
    seqs.every((n, i) => i === 0 || n >= seqs[i - 1]!),
    `${what}: in order ${JSON.stringify(seqs)}`,
  );
  return want;
}

const stopRedis = async (ctx: Ctx) => {
  await ctx.redis.stop();
  for (const api of ctx.apis)
    await until(async () => ((await connected(api)) ? undefined : true), 5000, 'the instance notices');
};

outage(
  'writes on instance A while Redis is down answer at once; a screen on instance B gets every one once Redis is back',
  async (ctx) => {
    const [a, b] = ctx.apis as [Api, Api];
    const [originA, originB] = ctx.cluster.instances.map((s) => s.origin) as [string, string];
    const group = `outage-${run}`;
    const base = await post(a, { resource: 'base', event: 'e', group, severity: 'minor' });
    const onB = await screen(ctx, originB, `group=${group}`);
    const onA = await screen(ctx, originA, `group=${group}`);
    await onB.current().waitUntil((v) => v.alerts.has(base.alert.id), 5000, 'the first alert');

    await stopRedis(ctx);
    const times: number[] = [];
    const made: string[] = [];
    for (let i = 0; i < 10; i++) {
      const { alert, ms } = await post(a, { resource: `a-${i}`, event: 'e', group, severity: 'major' });
      made.push(alert.id);
      times.push(ms);
    }
    for (const id of made.slice(0, 3)) {
      const started = performance.now();
      assert.is((await a.put(`/alert/${id}/status`, { status: 'ack', text: '' })).status, 200);
      times.push(performance.now() - started);
    }
    assert.is((await a.delete(`/alert/${made[9]}`)).status, 200);
    for (let i = 0; i < 3; i++) times.push((await post(b, { resource: `b-${i}`, event: 'e', group })).ms);
    assert.ok(Math.max(...times) < 1000, `writes took ${times.map((t) => t.toFixed(0)).join(', ')} ms`);

    await ctx.redis.start();
    for (const api of ctx.apis)
      await until(async () => ((await connected(api)) ? true : undefined), 10_000, 'connected again');
    const want = await converges(onB, a, group, 'the screen on B');
    await converges(onA, a, group, 'the screen on A');
    assert.is(Object.keys(want).length, 1 + 9 + 3);
    assert.is(Object.values(want).filter((s) => s === 'ack/major').length, 3);

    const after = await post(a, { resource: 'after', event: 'e', group });
    await onB.current().waitUntil((v) => v.alerts.has(after.alert.id), 5000, 'push from A to B again');
  },
);

outage(
  'instance A killed while Redis is down (its unpublished changes gone with it): the screen on B still ends with them',
  async (ctx) => {
    const [a, b] = ctx.apis as [Api, Api];
    const originB = ctx.cluster.instances[1]!.origin;
    const group = `killed-${run}`;
    const onB = await screen(ctx, originB, `group=${group}`);

    await stopRedis(ctx);
    for (let i = 0; i < 5; i++)
      await post(a, { resource: `k-${i}`, event: 'e', group, severity: 'critical' });
    await ctx.cluster.instances[0]!.stop('SIGKILL');
    await ctx.redis.start();
    await until(async () => ((await connected(b)) ? true : undefined), 10_000, 'B connected again');
    const want = await converges(onB, b, group, 'the screen on B');
    assert.is(Object.keys(want).length, 5);

    const back = await ctx.cluster.restart(0);
    const again = createApi(`${back.origin}/api`);
    const late = await post(again, { resource: 'late', event: 'e', group });
    await onB.current().waitUntil((v) => v.alerts.has(late.alert.id), 10_000, 'push from the restarted A');
  },
);

outage.run();
