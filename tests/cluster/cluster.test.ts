import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { startCluster, type Cluster } from '../../scripts/cluster.ts';
import { createApi, type Api, type RequestOptions } from '../helpers/api.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';
import { LiveClient, sleep, until, type LiveView, type SocketChoices } from '../helpers/live.ts';

/**
 * Scale-out (docs/operations.md): two server processes on one PostgreSQL and one Redis, nginx in
 * front with deploy/nginx/*.conf, started by scripts/cluster.ts. API requests are balanced; live
 * sockets over WebSocket, long-polling and polling-then-upgrade are pinned to an instance by client
 * address; every socket sees every change whichever instance made it; killing an instance loses
 * nothing and its sockets carry on from the other with a catch-up.
 */

interface Ctx {
  cluster: Cluster;
  db: { name: string; url: string };
  api: Api;
  auth: RequestOptions;
  key: string;
  clients: Tracked[];
  agents: Agent[];
}

type Transport = 'websocket' | 'polling' | 'upgrade';
interface Tracked {
  transport: Transport;
  /** The instance nginx pins this client's address to. */
  instance: number;
  client: LiveClient;
  view: LiveView;
  /** Connections after the first one, and disconnections. */
  reconnects: number;
  disconnects: number;
}

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = randomBytes(3).toString('hex');
const TRANSPORTS: Record<Transport, SocketChoices['transports']> = {
  websocket: ['websocket'],
  polling: ['polling'],
  upgrade: ['polling', 'websocket'],
};

const cluster = suite<Ctx>('two instances behind nginx on one PostgreSQL and Redis', {} as Ctx);

cluster.before(async (ctx) => {
  ctx.db = await createTestDatabase('cluster');
  ctx.key = randomBytes(20).toString('hex');
  ctx.cluster = await startCluster({
    instances: 2,
    databaseUrl: ctx.db.url,
    redisUrl: REDIS_URL,
    env: {
      AUTH_REQUIRED: 'True',
      SECRET_KEY: randomBytes(24).toString('base64url'),
      ADMIN_USERS: 'ops@example.com',
      ADMIN_PASSWORD: randomBytes(12).toString('hex'),
      ADMIN_KEY: ctx.key,
    },
  });
  ctx.api = createApi(`${ctx.cluster.url}/api`);
  ctx.auth = { headers: { Authorization: `Key ${ctx.key}` } };
  ctx.clients = [];
  ctx.agents = [];
});

cluster.after(async (ctx) => {
  for (const t of ctx.clients ?? []) t.client.close();
  for (const agent of ctx.agents ?? []) agent.destroy();
  await ctx.cluster?.stop();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

const addressOf = (c: Cluster, i: number) => `127.0.0.1:${c.instances[i]!.port}`;

/** Which instance nginx sends the live traffic of a client at `localAddress` to. */
function pinnedInstance(c: Cluster, localAddress: string): Promise<number> {
  return new Promise((ok, fail) => {
    const req = request(`${c.url}/api/socket.io/`, { localAddress }, (res) => {
      res.resume();
      const upstream = String(res.headers['x-upstream-addr'] ?? '');
      ok(c.instances.findIndex((_, i) => addressOf(c, i) === upstream));
    });
    req.on('error', fail);
    req.end();
  });
}

/**
 * Loopback clients all come from 127.0.0.1, which nginx would pin to one instance; every 127.x
 * address is this machine too, so each client gets an address of its own, found to map to the
 * instance it should use.
 */
async function addressesFor(c: Cluster, perInstance: number): Promise<string[][]> {
  const found: string[][] = c.instances.map(() => []);
  for (let n = 2; n < 250 && found.some((a) => a.length < perInstance); n++) {
    const address = `127.0.0.${n}`;
    const i = await pinnedInstance(c, address);
    assert.ok(i >= 0, `nginx answered for ${address} from an unknown upstream`);
    if (found[i]!.length < perInstance) found[i]!.push(address);
  }
  assert.ok(
    found.every((a) => a.length === perInstance),
    `addresses per instance: ${found.map((a) => a.length)}`,
  );
  return found;
}

async function connect(ctx: Ctx, transport: Transport, instance: number, localAddress: string) {
  const agent = new Agent({ localAddress, keepAlive: true });
  ctx.agents.push(agent);
  const client = await LiveClient.connect(ctx.cluster.url, { key: ctx.key }, 15_000, {
    transports: TRANSPORTS[transport],
    // engine.io-client types `agent` for browsers; in Node it hands it to http.request and ws.
    agent: agent as unknown as string,
    reconnection: true,
    reconnectionDelay: 200,
    reconnectionDelayMax: 1000,
    randomizationFactor: 0,
  });
  const tracked: Tracked = {
    transport,
    instance,
    client,
    view: await client.view(''),
    reconnects: 0,
    disconnects: 0,
  };
  client.socket.on('connect', () => tracked.reconnects++);
  client.socket.on('disconnect', () => tracked.disconnects++);
  ctx.clients.push(tracked);
  return tracked;
}

/** `live_sockets` of one instance, asked directly. */
async function liveSockets(ctx: Ctx, i: number): Promise<number> {
  const res = await fetch(`${ctx.cluster.instances[i]!.origin}/api/management/metrics`, ctx.auth);
  assert.is(res.status, 200);
  return Number(/^live_sockets (\d+)/m.exec(await res.text())?.[1] ?? NaN);
}

/** POST /alert through nginx, again after a 502/503/504 or a cut connection, as an alert source should. */
async function postAlert(
  ctx: Ctx,
  fields: Record<string, unknown>,
): Promise<{ alert: Alert; upstream: string }> {
  let last = '';
  for (let attempt = 1; attempt <= 30; attempt++) {
    try {
      const res = await ctx.api.post(
        '/alert',
        { environment: 'Production', service: ['web'], ...fields },
        ctx.auth,
      );
      if (res.status === 201) {
        const body = (await res.json()) as { alert: Alert };
        return { alert: body.alert, upstream: res.headers.get('x-upstream-addr') ?? '' };
      }
      last = `${res.status} ${await res.text()}`;
      if (![502, 503, 504].includes(res.status)) break;
    } catch (err) {
      last = String(err);
    }
    await sleep(100);
  }
  throw new Error(`POST /alert ${JSON.stringify(fields)}: ${last}`);
}

/** id → "status/severity" of every alert, as LiveView.summary() gives it. */
async function stored(ctx: Ctx): Promise<Record<string, string>> {
  const res = await ctx.api.get('/alerts?page-size=10000', ctx.auth);
  assert.is(res.status, 200);
  const { alerts, total } = (await res.json()) as { alerts: Alert[]; total: number };
  assert.is(alerts.length, total);
  return Object.fromEntries(alerts.map((a) => [a.id, `${a.status}/${a.severity}`] as const).sort());
}

/** Waits until every client's view holds exactly what the database holds, then asserts it. */
async function allConverge(ctx: Ctx, clients: Tracked[]) {
  const want = await stored(ctx);
  const text = JSON.stringify(want);
  await until(
    () => (clients.every((t) => JSON.stringify(t.view.summary()) === text) ? true : undefined),
    20_000,
    () =>
      clients
        .map((t) => `${t.transport}@${t.instance}: ${t.view.alerts.size} of ${Object.keys(want).length}`)
        .join(', '),
  );
  for (const t of clients) {
    assert.equal(t.view.summary(), want, `${t.transport} client on instance ${t.instance}`);
    assert.is(t.view.counts.total, Object.keys(want).length);
  }
}

cluster(
  'API requests are balanced over both instances; the ADMIN_KEY made at start works on each',
  async (ctx) => {
    const served = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const res = await ctx.api.get('/alerts?page-size=1', ctx.auth);
      assert.is(res.status, 200);
      served.add(res.headers.get('x-upstream-addr') ?? '');
    }
    assert.equal([...served].sort(), [addressOf(ctx.cluster, 0), addressOf(ctx.cluster, 1)].sort());
    const anonymous = await ctx.api.get('/alerts');
    assert.is(anonymous.status, 401);
    for (const s of ctx.cluster.instances) {
      assert.is((await fetch(`${s.origin}/api/alerts?page-size=1`, ctx.auth)).status, 200, s.origin);
    }
  },
);

cluster('sockets on both instances, over WebSocket and long-polling, see every change', async (ctx) => {
  const addresses = await addressesFor(ctx.cluster, 3);
  for (const [instance, [ws, polling, upgrade]] of addresses.entries()) {
    await connect(ctx, 'websocket', instance, ws!);
    await connect(ctx, 'polling', instance, polling!);
    await connect(ctx, 'upgrade', instance, upgrade!);
  }
  assert.equal([await liveSockets(ctx, 0), await liveSockets(ctx, 1)], [3, 3]);
  for (const t of ctx.clients.filter((c) => c.transport === 'upgrade')) {
    // The upgrade request goes to the instance that holds the polling session, or it fails.
    await until(
      () => (t.client.socket.io.engine.transport.name === 'websocket' ? true : undefined),
      10_000,
      `the polling client on instance ${t.instance} upgrades to a WebSocket`,
    );
  }

  const upstreams = new Set<string>();
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const { alert, upstream } = await postAlert(ctx, {
      resource: `web-${run}-${i}`,
      event: 'HttpDown',
      severity: 'major',
    });
    ids.push(alert.id);
    upstreams.add(upstream);
  }
  assert.is(upstreams.size, 2, 'alerts were received by both instances');
  for (let i = 0; i < 5; i++) {
    await postAlert(ctx, { resource: `web-${run}-${i}`, event: 'HttpDown', severity: 'critical' });
  }
  for (const id of ids.slice(5, 8)) {
    const res = await ctx.api.put(`/alert/${id}/status`, { status: 'ack', text: 'on it' }, ctx.auth);
    assert.is(res.status, 200);
  }
  for (const id of ids.slice(8, 10)) {
    assert.is((await ctx.api.delete(`/alert/${id}`, ctx.auth)).status, 200);
  }

  await allConverge(ctx, ctx.clients);
  const summary = await stored(ctx);
  assert.is(Object.keys(summary).length, 18);
  assert.is(Object.values(summary).filter((s) => s === 'open/critical').length, 5);
  assert.is(Object.values(summary).filter((s) => s === 'ack/major').length, 3);
  // A long-polling request sent to the other instance would end the session: none did.
  for (const t of ctx.clients) assert.is(t.disconnects, 0, `${t.transport} client on instance ${t.instance}`);
  for (const t of ctx.clients.filter((c) => c.transport === 'polling')) {
    assert.is(t.client.socket.io.engine.transport.name, 'polling');
  }
});

cluster(
  'an instance killed mid-run loses nothing; its sockets reconnect to the other and catch up',
  async (ctx) => {
    const victims = ctx.clients.filter((t) => t.instance === 0);
    const survivors = ctx.clients.filter((t) => t.instance === 1);
    assert.is(victims.length, 3);
    const before = new Map(victims.map((t) => [t, t.view]));

    let accepted = 0;
    let killed: Promise<unknown> | null = null;
    let dead = false;
    const answeredAfterDeath = new Set<string>();
    const poster = async (lane: number) => {
      for (let i = 0; i < 30; i++) {
        const severity = ['minor', 'major', 'critical'][i % 3];
        const sentAfterDeath = dead;
        const { upstream } = await postAlert(ctx, {
          resource: `db-${run}-${lane}-${i}`,
          event: 'Replication',
          severity,
        });
        // nginx lists every instance it tried ("A, B" when A refused the connection): the last one answered.
        if (sentAfterDeath) answeredAfterDeath.add(upstream.split(', ').at(-1)!);
        if (++accepted === 20) killed = ctx.cluster.instances[0]!.stop('SIGKILL').then(() => (dead = true));
      }
    };
    await Promise.all([poster(0), poster(1)]);
    await killed;
    assert.is(accepted, 60);
    assert.equal(
      [...answeredAfterDeath],
      [addressOf(ctx.cluster, 1)],
      'once it is dead only the survivor answers',
    );

    for (const t of victims) {
      await until(
        () => (t.client.socket.connected && t.reconnects > 0 ? true : undefined),
        20_000,
        `${t.transport} client reconnects`,
      );
      t.view = await t.client.view('', before.get(t));
      assert.is(t.view.mode, 'catch-up', `${t.transport} client resumes from its position`);
    }
    assert.is(await liveSockets(ctx, 1), 6);
    for (const t of survivors) assert.is(t.disconnects, 0, `${t.transport} client on the survivor`);

    const summary = await stored(ctx);
    assert.is(Object.keys(summary).length, 18 + 60);
    await allConverge(ctx, ctx.clients);

    // The killed instance comes back on its port and serves the same state.
    const back = await ctx.cluster.restart(0);
    const direct = await LiveClient.connect(back.origin, { key: ctx.key }, 15_000);
    try {
      const view = await direct.view('');
      assert.is(view.mode, 'snapshot');
      assert.equal(view.summary(), summary);
    } finally {
      direct.close();
    }
  },
);

cluster.run();
