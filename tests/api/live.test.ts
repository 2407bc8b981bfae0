import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert, LiveAlert } from '../../shared/alerts.ts';
import type { ViewCounts } from '../../shared/events.ts';
import { boot, type Running } from '../../server/boot.ts';
import { createToken } from '../../server/auth/tokens.ts';
import { loadConfig } from '../../server/config.ts';
import { createLog } from '../../server/log.ts';
import { createAlert, postAlert } from '../helpers/alerts.ts';
import { createApi, type Api, type RequestOptions } from '../helpers/api.ts';
import { liveAppSuite, type LiveAppContext } from '../helpers/app.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';
import { tokenUser } from '../helpers/users.ts';
import {
  LiveClient,
  countsOf,
  refused,
  sleep,
  until,
  type Credentials,
  type LiveView,
  type Received,
} from '../helpers/live.ts';
import { rng } from '../helpers/rng.ts';

/**
 * The live socket (docs/live.md): subscriptions to views, pushed changes, counts, positions,
 * catch-up after a reconnect, customers, and delivery across instances through Redis.
 */

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

/** Sorts object keys so two JSON values compare regardless of key order. */
function canon(v: unknown): string {
  const sortKeys = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sortKeys)
      : x && typeof x === 'object'
        ? Object.fromEntries(
            Object.entries(x as Record<string, unknown>)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, y]) => [k, sortKeys(y)]),
          )
        : x;
  return JSON.stringify(sortKeys(v));
}

interface ServerState {
  /** The first page is the whole view. */
  complete: boolean;
  /** id → "status/severity", as LiveView.summary() gives it. */
  alerts: Record<string, string>;
  counts: ViewCounts;
}

/** What GET /alerts and GET /alerts/count say about a view's query. */
async function serverState(api: Api, query: string, opts?: RequestOptions): Promise<ServerState> {
  const list = await api.get(`/alerts?${query}`, opts);
  assert.is(list.status, 200, `GET /alerts?${query}`);
  const body = (await list.json()) as { alerts: Alert[]; total: number };
  const count = await api.get(`/alerts/count?${query}`, opts);
  assert.is(count.status, 200, `GET /alerts/count?${query}`);
  return {
    complete: body.alerts.length === body.total,
    alerts: Object.fromEntries(body.alerts.map((a) => [a.id, `${a.status}/${a.severity}`] as const).sort()),
    counts: countsOf((await count.json()) as ViewCounts),
  };
}

/**
 * Once the writes are done: waits until the view holds exactly the server's state (ids, each
 * alert's status and severity, and the counts), then asserts it, so a timeout shows the diff.
 */
async function converges(view: LiveView, api: Api, opts?: RequestOptions, timeoutMs = 10_000) {
  const want = await serverState(api, view.query, opts);
  assert.ok(want.complete, `GET /alerts?${view.query} is more than one page`);
  await until(
    () =>
      canon(view.summary()) === canon(want.alerts) && canon(view.counts) === canon(want.counts)
        ? true
        : undefined,
    timeoutMs,
    `view ${view.query} to equal the server`,
  ).catch(() => {});
  assert.equal(view.summary(), want.alerts, `alerts of view ${view.query}${traceOf(view, want.alerts)}`);
  assert.equal(view.counts, want.counts, `counts of view ${view.query}`);
  return want;
}

/**
 * For a failure's message: how the view started, and every message it got about the alerts it
 * holds differently from the server (so an intermittent failure can be read from the CI log).
 */
function traceOf(view: LiveView, want: Record<string, string>): string {
  const have = view.summary();
  const ids = new Set([...Object.keys(have), ...Object.keys(want)].filter((id) => have[id] !== want[id]));
  if (!ids.size) return '';
  const lines = view.messages.flatMap((m) => {
    const touched =
      m.event === 'alert.updated'
        ? [
            ...m.data.alerts.map((a) => `${a.id} ${a.status}/${a.severity}`),
            ...(m.data.patches ?? []).map((p) => `${p.id} patch`),
          ]
        : m.event === 'alert.removed-from-view'
          ? m.data.ids.map((id) => `${id} removed`)
          : [];
    const mine = touched.filter((t) => ids.has(t.split(' ')[0]!));
    return mine.length ? [`  seq ${m.data.seq} ${m.event}: ${mine.join(', ')}`] : [];
  });
  const start = `mode ${view.mode} at ${JSON.stringify(view.answer.position)}, now seq ${view.seq}, ${view.skipped} skipped as stale`;
  return `\n${start}; messages about ${[...ids].join(', ')}:\n${lines.join('\n') || '  none'}`;
}

/** The seq of every message of each view never decreases. */
function assertMonotonic(...views: LiveView[]) {
  for (const v of views) {
    const seqs = v.seqs();
    for (let i = 1; i < seqs.length; i++) {
      assert.ok(
        seqs[i]! >= seqs[i - 1]!,
        `seq went backwards in view ${v.query}: ${seqs[i - 1]} then ${seqs[i]} (all: ${seqs.join(',')})`,
      );
    }
  }
}

const updatedWith = (id: string, view?: LiveView) => (m: Received) =>
  m.event === 'alert.updated' &&
  (!view || m.data.view === view.name) &&
  m.data.alerts.some((a) => a.id === id);
const removedWith = (id: string, view?: LiveView) => (m: Received) =>
  m.event === 'alert.removed-from-view' && (!view || m.data.view === view.name) && m.data.ids.includes(id);

async function ok(res: Promise<Response>, what: string): Promise<void> {
  const r = await res;
  assert.is(r.status, 200, `${what}: ${r.status} ${await r.clone().text()}`);
}

const SEVERITIES = ['critical', 'major', 'minor', 'warning', 'informational'];
const ENVIRONMENTS = ['Production', 'Development'];

/**
 * `n` changes through `api` to alerts of `group` whose resource starts with `prefix`: new alerts,
 * new receipts with another severity, status changes, acks and at least one delete, one at a time.
 * `live` holds the ids this stream owns (and may start with some).
 */
async function burst(api: Api, group: string, prefix: string, n: number, seed: number, live: string[] = []) {
  const rand = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const resources = new Map<string, { resource: string; environment: string }>();
  let made = 0;
  let deleted = 0;
  for (let i = 0; i < n; i++) {
    const r = rand();
    const last = i === n - 1;
    if ((last && deleted === 0 && live.length) || (r < 0.08 && live.length > 3)) {
      const id = live.splice(Math.floor(rand() * live.length), 1)[0]!;
      await ok(api.delete(`/alert/${id}`), `delete ${id}`);
      deleted++;
    } else if (r < 0.45 || live.length < 3) {
      const resource = `${group}-${prefix}-${made++}`;
      const environment = pick(ENVIRONMENTS);
      const a = await createAlert(api, {
        resource,
        event: 'burst',
        group,
        environment,
        severity: pick(SEVERITIES),
      });
      live.push(a.id);
      resources.set(a.id, { resource, environment });
    } else if (r < 0.6 && live.length) {
      const id = pick(live);
      const known = resources.get(id);
      if (known) {
        // A new receipt of the same alert (same resource/event/environment) with another severity.
        const p = await postAlert(api, { ...known, event: 'burst', group, severity: pick(SEVERITIES) });
        assert.is(p.body.id, id, 'a new receipt correlates with the alert');
      } else await ok(api.put(`/alert/${id}/status`, { status: 'open', text: 'reopen' }), `open ${id}`);
    } else if (r < 0.8) {
      const id = pick(live);
      await ok(
        api.put(`/alert/${id}/status`, { status: pick(['ack', 'closed', 'open']), text: 'b' }),
        'status',
      );
    } else {
      const id = pick(live);
      const res = await api.put(`/alert/${id}/action`, { action: pick(['ack', 'unack', 'close', 'open']) });
      // 409: not a transition from the alert's current status (docs/alerts.md); nothing changes.
      assert.ok([200, 409].includes(res.status), `action: ${res.status} ${await res.text()}`);
    }
  }
  return live;
}

// ---- two instances on one database, one Redis channel ------------------------------------------

interface Multi {
  db: { name: string; url: string };
  channel: string;
  a: Running;
  b: Running;
  apiA: Api;
  apiB: Api;
  originA: string;
  originB: string;
  clients: LiveClient[];
}

async function instance(ctx: Multi, settings: Record<string, string> = {}): Promise<Running> {
  const config = loadConfig(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      PLUGINS: 'remote_ip',
      REDIS_URL,
      BUS_CHANNEL: ctx.channel,
      ...settings,
      DATABASE_URL: ctx.db.url,
    },
    { systemFile: null },
  );
  return boot(config, createLog(config.LOG_LEVEL));
}

/** Opens a socket that the suite closes afterwards, whatever happens. */
async function connect(ctx: { clients: LiveClient[] }, origin: string, auth: Credentials = {}) {
  const c = await LiveClient.connect(origin, auth);
  ctx.clients.push(c);
  return c;
}

const multi = suite<Multi>('live push: two instances, one database, Redis', {} as Multi);
multi.before(async (ctx) => {
  ctx.clients = [];
  ctx.channel = unique('live-test');
  ctx.db = await createTestDatabase('live');
  ctx.a = await instance(ctx);
  ctx.b = await instance(ctx);
  ctx.originA = `http://127.0.0.1:${ctx.a.port}`;
  ctx.originB = `http://127.0.0.1:${ctx.b.port}`;
  ctx.apiA = createApi(`${ctx.originA}/api`);
  ctx.apiB = createApi(`${ctx.originB}/api`);
});
multi.after.each((ctx) => {
  for (const c of ctx.clients.splice(0)) c.close();
});
multi.after(async (ctx) => {
  for (const c of ctx.clients ?? []) c.close();
  await ctx.a?.close();
  await ctx.b?.close();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

multi('an alert posted to instance A reaches a socket subscribed on instance B within 2 s', async (ctx) => {
  const group = unique('cross');
  const onB = await connect(ctx, ctx.originB);
  const view = await onB.view(`group=${group}`);
  assert.is(view.mode, 'snapshot');
  assert.equal([view.alerts.size, view.counts.total], [0, 0]);

  const started = Date.now();
  const alert = await createAlert(ctx.apiA, { resource: 'cross-1', event: 'down', group, severity: 'major' });
  const m = await onB.waitFor(updatedWith(alert.id, view), 5000, 'alert.updated on B');
  const elapsed = m.at - started;
  assert.ok(elapsed < 2000, `took ${elapsed} ms`);
  assert.is(m.event, 'alert.updated');
  const pushed = view.alerts.get(alert.id);
  assert.ok(pushed, 'the view holds the alert');
  assert.equal(
    [pushed.resource, pushed.event, pushed.group, pushed.severity, pushed.status, pushed.environment],
    ['cross-1', 'down', group, 'major', 'open', 'Production'],
  );
  assert.not.ok('rawData' in pushed || 'history' in pushed, 'live alerts carry neither rawData nor history');
  await converges(view, ctx.apiA);
  assert.is(view.counts.total, 1);
});

multi(
  'subscribers at one position share one page read for 2 s; later ones and those after a change read again',
  async (ctx) => {
    const group = unique('reuse');
    const x = await createAlert(ctx.apiA, { resource: 'reuse-x', event: 'down', group, severity: 'major' });
    const y = await createAlert(ctx.apiA, { resource: 'reuse-y', event: 'down', group, severity: 'minor' });
    const first = await connect(ctx, ctx.originB);
    const view = await first.view(`group=${group}`);
    await converges(view, ctx.apiA);
    const snapshot = async (client: LiveClient) => {
      const answer = await client.subscribe(`group=${group}`);
      assert.ok(answer.status === 'ok' && answer.mode === 'snapshot', JSON.stringify(answer));
      return { position: answer.position, ids: answer.alerts.map((a) => a.id).sort() };
    };
    // Gone from the database without a change on the bus: only a new read of the page can tell.
    await queryDb(ctx.db.url, 'DELETE FROM alerts WHERE id = $1', [y.id]);
    const second = await snapshot(await connect(ctx, ctx.originB));
    assert.equal(second.position, view.position());
    assert.equal(second.ids, [x.id, y.id].sort(), 'the page read for the first subscriber');
    await sleep(2500);
    const third = await snapshot(await connect(ctx, ctx.originB));
    assert.equal(third.ids, [x.id], 'read again once 2 s have passed');
    // A change moves the view on: the next subscriber reads the page again at once.
    const z = await createAlert(ctx.apiA, { resource: 'reuse-z', event: 'down', group, severity: 'major' });
    await first.waitFor(updatedWith(z.id, view), 5000, 'alert.updated');
    const fourth = await snapshot(await connect(ctx, ctx.originB));
    assert.equal(fourth.ids, [x.id, z.id].sort());
  },
);

multi('both instances share one epoch; positions agree across them', async (ctx) => {
  const group = unique('epoch');
  const onA = await connect(ctx, ctx.originA);
  const onB = await connect(ctx, ctx.originB);
  const va = await onA.view(`group=${group}`);
  const vb = await onB.view(`group=${group}`);
  assert.is(va.epoch, vb.epoch, 'one epoch with Redis');
  for (let i = 0; i < 10; i++) {
    await createAlert(i % 2 ? ctx.apiA : ctx.apiB, {
      resource: `ep-${i}`,
      event: 'e',
      group,
      severity: 'minor',
    });
  }
  await converges(va, ctx.apiA);
  await converges(vb, ctx.apiB);
  assert.equal(va.summary(), vb.summary());
  await until(() => (va.seq === vb.seq ? true : undefined), 3000, 'both views at one position').catch(
    () => {},
  );
  assert.is(va.seq, vb.seq, 'the newest change both views reflect has the same seq on both instances');
  assert.ok(va.seq > va.answer.position.seq, 'seq grew');
  assertMonotonic(va, vb);
});

multi('tick arrives within 6 s with time, epoch and seq', async (ctx) => {
  const c = await connect(ctx, ctx.originA);
  const view = await c.view(`group=${unique('tick')}`);
  const t = await c.waitFor((m) => m.event === 'tick', 6500, 'tick');
  assert.is(t.event, 'tick');
  if (t.event !== 'tick') return;
  assert.equal(Object.keys(t.data).sort(), ['epoch', 'seq', 'time']);
  assert.type(t.data.time, 'number');
  assert.ok(Math.abs(t.data.time - Date.now()) < 5000, `server time ${t.data.time}`);
  assert.type(t.data.epoch, 'string');
  assert.ok(t.data.epoch.length > 0);
  assert.is(t.data.epoch, view.epoch, 'the tick and the snapshot are in one epoch');
  assert.ok(Number.isInteger(t.data.seq) && t.data.seq >= 0, `seq ${t.data.seq}`);
  assert.ok(t.data.seq >= view.answer.position.seq, 'tick position is not behind the snapshot');
});

multi(
  'an invalid query is answered {status: error, code: 400} with the message GET /alerts gives',
  async (ctx) => {
    const c = await connect(ctx, ctx.originA);
    for (const query of ['foo=bar', `q=${encodeURIComponent('(a')}`]) {
      const answer = await c.subscribe(query);
      const http = (await (await ctx.apiA.get(`/alerts?${query}`)).json()) as {
        message: string;
        errorCode: string;
      };
      assert.type(http.errorCode, 'string');
      assert.equal(
        answer,
        { status: 'error', message: http.message, code: 400, errorCode: http.errorCode },
        query,
      );
    }
    // The socket stays usable.
    const view = await c.view(`group=${unique('after-error')}`);
    assert.is(view.mode, 'snapshot');
  },
);

multi(
  'a filter subscription gets only matching alerts, and removals when they stop matching',
  async (ctx) => {
    const group = unique('filter');
    const c = await connect(ctx, ctx.originB);
    const critical = await c.view(`environment=Production&severity=critical&group=${group}`);
    const q = encodeURIComponent('severity:(critical OR major)');
    const lucene = await c.view(`group=${group}&q=${q}`);
    const open = await c.view(`group=${group}&status=open`);
    assert.is.not(critical.name, lucene.name);

    const post = (resource: string, environment: string, severity: string, api = ctx.apiA) =>
      createAlert(api, { resource, event: 'flt', group, environment, severity });
    const a = await post('f-a', 'Production', 'critical');
    const b = await post('f-b', 'Development', 'critical', ctx.apiB);
    const cc = await post('f-c', 'Production', 'major');
    const d = await post('f-d', 'Production', 'minor', ctx.apiB);
    const e = await post('f-e', 'Production', 'critical');

    await converges(critical, ctx.apiA);
    await converges(lucene, ctx.apiA);
    await converges(open, ctx.apiA);
    assert.equal([...critical.alerts.keys()].sort(), [a.id, e.id].sort());
    assert.equal([...lucene.alerts.keys()].sort(), [a.id, b.id, cc.id, e.id].sort());
    assert.equal([...open.alerts.keys()].sort(), [a.id, b.id, cc.id, d.id, e.id].sort());
    // Nothing that does not match was ever pushed to the filtered views.
    const pushed = (v: LiveView) =>
      v.messages.flatMap((m) => (m.event === 'alert.updated' ? m.data.alerts : ([] as LiveAlert[])));
    for (const x of pushed(critical)) assert.equal([x.environment, x.severity], ['Production', 'critical']);
    for (const x of pushed(lucene)) assert.ok(['critical', 'major'].includes(x.severity), x.severity);

    // A new receipt lowers a's severity: it leaves the critical view, stays in the q view as major.
    await postAlert(ctx.apiB, {
      resource: 'f-a',
      event: 'flt',
      group,
      environment: 'Production',
      severity: 'major',
    });
    await c.waitFor(removedWith(a.id, critical), 5000, 'a removed from the critical view');
    await lucene.waitUntil((v) => v.alerts.get(a.id)?.severity === 'major', 5000, 'a major in the q view');
    // Acked by PUT status: c leaves the status=open view.
    await ok(ctx.apiA.put(`/alert/${cc.id}/status`, { status: 'ack', text: 'looking' }), 'ack c');
    await c.waitFor(removedWith(cc.id, open), 5000, 'c removed from the open view');
    await lucene.waitUntil((v) => v.alerts.get(cc.id)?.status === 'ack', 5000, 'c ack in the q view');
    // Deleted: e leaves every view it was in.
    await ok(ctx.apiB.delete(`/alert/${e.id}`), 'delete e');
    for (const v of [critical, lucene, open])
      await c.waitFor(removedWith(e.id, v), 5000, `e removed from ${v.query}`);
    // d (minor) changing status never concerned the critical view.
    await ok(ctx.apiA.put(`/alert/${d.id}/status`, { status: 'closed', text: 'x' }), 'close d');
    await c.waitFor(removedWith(d.id, open), 5000, 'd removed from the open view');

    for (const v of [critical, lucene, open]) await converges(v, ctx.apiA);
    assert.not.ok(
      critical.messages.some((m) => m.event !== 'counts' && JSON.stringify(m.data).includes(d.id)),
      'the critical view heard of d',
    );
    assertMonotonic(critical, lucene, open);
  },
);

multi('after a burst of changes on both instances the pushed counts equal GET /alerts/count', async (ctx) => {
  const group = unique('burst');
  const c = await connect(ctx, ctx.originA);
  const queries = [
    `environment=Production&severity=critical&group=${group}`,
    `group=${group}&q=${encodeURIComponent('severity:(critical OR major) OR status:ack')}`,
    `group=${group}&status=open`,
    `group=${group}&page-size=5&sort-by=severity`,
  ];
  const views = await Promise.all(queries.map((q) => c.view(q)));
  await Promise.all([burst(ctx.apiA, group, 'ba', 60, 1), burst(ctx.apiB, group, 'bb', 60, 2)]);
  for (const v of views) {
    const want = await serverState(ctx.apiA, v.query);
    await until(
      () => (canon(v.counts) === canon(want.counts) ? true : undefined),
      10_000,
      `counts of ${v.query}`,
    ).catch(() => {});
    assert.equal(v.counts, want.counts, `pushed counts of ${v.query}`);
  }
  // The complete views also hold exactly the server's alerts.
  for (const v of views.slice(0, 3)) await converges(v, ctx.apiA);
  assertMonotonic(...views);
});

multi('an ack over HTTP on one instance is seen on the socket of the other as status ack', async (ctx) => {
  const group = unique('ack');
  const c = await connect(ctx, ctx.originB);
  const view = await c.view(`group=${group}`);
  const alert = await createAlert(ctx.apiA, { resource: 'ack-1', event: 'e', group, severity: 'major' });
  await view.waitUntil((v) => v.alerts.get(alert.id)?.status === 'open', 5000, 'alert open');
  await ok(ctx.apiA.put(`/alert/${alert.id}/action`, { action: 'ack', text: 'mine' }), 'ack');
  await view.waitUntil((v) => v.alerts.get(alert.id)?.status === 'ack', 5000, 'alert ack on the socket');
  const m = [...view.messages]
    .reverse()
    .find((x) => x.event === 'alert.updated' && x.data.alerts.some((a) => a.id === alert.id));
  assert.ok(m && m.event === 'alert.updated');
  assert.is(m.data.alerts.find((a) => a.id === alert.id)?.status, 'ack');
  await view.waitUntil((v) => v.counts.statusCounts.ack === 1, 5000, 'counts show the ack');
  assert.equal(view.counts, { total: 1, severityCounts: { major: 1 }, statusCounts: { ack: 1 } });
});

multi(
  'seq never goes backwards within a view, also under concurrent writes to both instances',
  async (ctx) => {
    const group = unique('seq');
    const onA = await connect(ctx, ctx.originA);
    const onB = await connect(ctx, ctx.originB);
    const query = `group=${group}`;
    const views = [
      await onA.view(query),
      await onA.view(`${query}&severity=critical`),
      await onB.view(query),
      await onB.view(`${query}&status=open`),
    ];
    await Promise.all([
      burst(ctx.apiA, group, 'sa', 40, 3),
      burst(ctx.apiB, group, 'sb', 40, 4),
      burst(ctx.apiA, group, 'sc', 40, 5),
    ]);
    for (const v of views) await converges(v, ctx.apiB);
    for (const v of views) {
      assert.ok(v.messages.length > 0, `view ${v.query} got messages`);
      for (const m of v.messages)
        assert.ok(m.data.seq > 0 && Number.isInteger(m.data.seq), `seq ${m.data.seq}`);
    }
    assertMonotonic(...views);
    // Every tick is in the same epoch and its position never goes backwards either.
    for (const client of [onA, onB]) {
      const ticks = client.received.flatMap((m) => (m.event === 'tick' ? [m.data] : []));
      for (let i = 1; i < ticks.length; i++)
        assert.ok(ticks[i]!.seq >= ticks[i - 1]!.seq, 'tick seq went back');
    }
  },
);

/** Subscribes, applies a few changes, disconnects; `changes` run; reconnects with `since`. */
async function reconnectScenario(ctx: Multi, first: string, second: string, changes: number, seed: number) {
  const group = unique('reconnect');
  const query = `group=${group}&status=open&status=ack&page-size=1000`;
  // Some alerts before the first subscription, and a few changes seen live.
  const live = await burst(ctx.apiA, group, 'pre', 10, seed);
  const c1 = await connect(ctx, first);
  const before = await c1.view(query);
  assert.is(before.mode, 'snapshot');
  await burst(ctx.apiB, group, 'seen', 6, seed + 1, live);
  await converges(before, ctx.apiA);
  const position = before.position();
  assert.ok(position.seq >= before.answer.position.seq);
  c1.close();
  await until(() => (c1.socket.connected ? undefined : true), 2000, 'disconnected');

  // While away: new alerts, status changes, deletes, across both instances.
  const n = Math.floor(changes / 2);
  const otherLive = await burst(ctx.apiA, group, 'away-a', changes - n, seed + 2);
  await burst(ctx.apiB, group, 'away-b', n, seed + 3, live);
  await ok(ctx.apiA.delete(`/alert/${otherLive[0]!}`), 'one more delete');

  const c2 = await connect(ctx, second);
  const after = await c2.view(query, before);
  const want = await converges(after, ctx.apiA);
  assert.ok(Object.keys(want.alerts).length > 0, 'the view is not empty');
  assertMonotonic(after);
  if (after.mode === 'catch-up') {
    const answer = after.answer as Extract<typeof after.answer, { mode: 'catch-up' }>;
    assert.type(answer.replayed, 'number');
    assert.ok(answer.replayed > 0, 'changes were replayed');
    assert.is(answer.position.epoch, position.epoch);
    assert.ok(answer.position.seq > position.seq, 'the catch-up position is past the old one');
    assert.ok(
      after.messages.every((m) => m.data.seq > position.seq),
      'only changes after the old position are replayed',
    );
  }
  // Still live after the catch-up.
  const late = await createAlert(ctx.apiB, {
    resource: `${group}-late`,
    event: 'e',
    group,
    severity: 'minor',
  });
  await after.waitUntil((v) => v.alerts.has(late.id), 5000, 'a change after the reconnect');
  await converges(after, ctx.apiA);
  return after;
}

multi('reconnecting to the same instance with since catches up on 100 missed changes', async (ctx) => {
  const after = await reconnectScenario(ctx, ctx.originB, ctx.originB, 100, 10);
  assert.is(after.mode, 'catch-up', '100 changes are well within LIVE_BUFFER_SIZE');
});

multi('reconnecting to the other instance with since ends with exactly the server state', async (ctx) => {
  const after = await reconnectScenario(ctx, ctx.originA, ctx.originB, 40, 20);
  assert.ok(['catch-up', 'snapshot'].includes(after.mode));
});

multi(
  'patches across instances and a reconnect to the other one: every field as a full client has it',
  async (ctx) => {
    const group = unique('patches');
    const query = `group=${group}&page-size=1000`;
    const live = await burst(ctx.apiA, group, 'pre', 10, 30);
    const full = await (await connect(ctx, ctx.originA)).view(query);
    const c1 = await connect(ctx, ctx.originB);
    const before = await c1.view(query, undefined, { patches: true });
    await burst(ctx.apiA, group, 'seen', 30, 31, live);
    await burst(ctx.apiB, group, 'seen-b', 30, 32, live);
    c1.close();
    await until(() => (c1.socket.connected ? undefined : true), 2000, 'disconnected');
    await burst(ctx.apiB, group, 'away', 20, 33, live);
    const c2 = await connect(ctx, ctx.originA);
    const after = await c2.view(query, before, { patches: true });
    await burst(ctx.apiA, group, 'back', 30, 34, live);
    await burst(ctx.apiB, group, 'back-b', 30, 35, live);
    const want = await converges(full, ctx.apiA);
    await converges(after, ctx.apiA);
    assert.ok(Object.keys(want.alerts).length > 0, 'the view is not empty');
    const ids = Object.keys(want.alerts);
    const fields = (v: LiveView) => canon(ids.map((id) => v.alerts.get(id) ?? null));
    await until(() => (fields(after) === fields(full) ? true : undefined), 5000, 'same fields').catch(
      () => {},
    );
    assert.is(fields(after), fields(full));
    assert.equal([before.unknownPatches, after.unknownPatches], [[], []]);
    assert.ok(before.patched + after.patched > 0, 'some changes came as patches');
  },
);

multi('since from an unknown epoch gets a fresh snapshot', async (ctx) => {
  const group = unique('epochless');
  const a = await createAlert(ctx.apiA, { resource: 'ee', event: 'e', group, severity: 'major' });
  const c = await connect(ctx, ctx.originA);
  const answer = await c.subscribe(`group=${group}`, { epoch: `not-${randomUUID()}`, seq: 3 });
  assert.is(answer.status, 'ok');
  if (answer.status !== 'ok') return;
  assert.is(answer.mode, 'snapshot');
  if (answer.mode !== 'snapshot') return;
  assert.equal(
    answer.alerts.map((x) => x.id),
    [a.id],
  );
  assert.equal([answer.total, answer.statusCounts], [1, { open: 1 }]);
});

multi('unsubscribe stops a view; the socket keeps its other views', async (ctx) => {
  const group = unique('unsub');
  const c = await connect(ctx, ctx.originA);
  const gone = await c.view(`group=${group}&severity=major`);
  const kept = await c.view(`group=${group}`);
  c.socket.emit('unsubscribe', gone.name);
  await sleep(200);
  const x = await createAlert(ctx.apiB, { resource: 'u1', event: 'e', group, severity: 'major' });
  await kept.waitUntil((v) => v.alerts.has(x.id), 5000, 'kept view hears the alert');
  await sleep(300);
  assert.is(gone.messages.length, 0, 'the unsubscribed view got messages');
});

multi(
  'a change the instance never heard (a gap in the shared sequence): views reload, sockets resync, no catch-up across it',
  async (ctx) => {
    const group = unique('gap');
    const query = `group=${group}&status=open&status=ack`;
    const x = await createAlert(ctx.apiA, { resource: 'gap-x', event: 'e', group, severity: 'major' });
    const y = await createAlert(ctx.apiA, { resource: 'gap-y', event: 'e', group, severity: 'minor' });
    const c = await connect(ctx, ctx.originB);
    const view = await c.view(query);
    await converges(view, ctx.apiA);
    const position = view.position();

    // A change whose message is lost: written straight to the database, its number taken from the
    // shared sequence and never published (as while a subscriber reconnects to Redis).
    await queryDb(ctx.db.url, `UPDATE alerts SET status = 'closed' WHERE id = $1`, [x.id]);
    const redis = new Redis(REDIS_URL);
    try {
      await redis.incr(`${ctx.channel}:seq`);
    } finally {
      redis.disconnect();
    }
    // The next change published shows the gap.
    const z = await createAlert(ctx.apiB, { resource: 'gap-z', event: 'e', group, severity: 'warning' });
    await c.waitFor(
      (m) => m.event === 'resync' && (m.data as { view: string }).view === view.name,
      5000,
      'resync after the gap',
    );

    // Subscribing again: a view loaded afresh, whose counts know of the change nobody heard of.
    const fresh = await c.view(query);
    assert.is(fresh.mode, 'snapshot');
    const want = await converges(fresh, ctx.apiA);
    assert.equal(Object.keys(want.alerts).sort(), [y.id, z.id].sort());
    assert.equal([fresh.counts.total, fresh.counts.statusCounts], [2, { open: 2 }]);
    // A catch-up from before the gap would miss that change: a snapshot instead.
    const other = await connect(ctx, ctx.originB);
    const answer = await other.subscribe(query, position);
    assert.ok(answer.status === 'ok' && answer.mode === 'snapshot', JSON.stringify(answer).slice(0, 200));
  },
);

multi.run();

// ---- customers ---------------------------------------------------------------------------------

const KEYS = {
  acme: 'live-acme-key-00000000000000000000000000',
  acmeReader: 'live-acme-reader-key-000000000000000000',
  globex: 'live-globex-key-0000000000000000000000000',
  admin: 'live-admin-key-00000000000000000000000000',
  heartbeatsOnly: 'live-hb-only-key-00000000000000000000000',
};
const auth = (key: string) => ({ Authorization: `Key ${key}` });
const as = (key: string): RequestOptions => ({ headers: auth(key) });

const tenancy = liveAppSuite('live push: customers and credentials', {
  TEST_LABEL: 'live_tenancy',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'live-tenancy-secret',
  CUSTOMER_VIEWS: 'True',
  ADMIN_USERS: 'admin@example.com',
  PLUGINS: 'remote_ip',
});
tenancy.before(async (ctx) => {
  const rows: [string, string, string[], string | null][] = [
    [KEYS.acme, 'acme@example.com', ['read', 'write'], 'acme'],
    [KEYS.acmeReader, 'reader@example.com', ['read'], 'acme'],
    [KEYS.globex, 'globex@example.com', ['read', 'write'], 'globex'],
    [KEYS.admin, 'admin@example.com', ['admin', 'read', 'write'], null],
    [KEYS.heartbeatsOnly, 'hb@example.com', ['write:heartbeats'], 'acme'],
  ];
  for (const [key, user, scopes, customer] of rows) {
    await queryDb(
      ctx.db.url,
      `INSERT INTO keys (id, key, "user", scopes, expire_time, customer)
       VALUES (gen_random_uuid(), $1, $2, $3, now() + interval '1 day', $4)`,
      [key, user, scopes, customer],
    );
  }
});

const tokenFor = async (ctx: LiveAppContext, customers: string[], now = Date.now()) =>
  createToken(
    ctx.running.deps.config,
    {
      userId: await tokenUser(ctx.db.url, `${customers.join('+')}-user@example.com`),
      login: `${customers.join('+')}-user@example.com`,
      provider: 'basic',
      scopes: ['read', 'write'],
      customers,
    },
    ctx.api.base,
    now,
  );

tenancy(
  'without credentials, with a bad token or key, or without read:alerts, a socket is refused',
  async (ctx) => {
    const none = await refused(ctx.origin, {});
    assert.is(none.message, 'Missing authorization API Key or Bearer Token');
    const garbage = await refused(ctx.origin, { token: 'not.a.token' });
    assert.is(garbage.message, 'Token is invalid');
    const expired = await refused(ctx.origin, {
      token: await tokenFor(ctx, ['acme'], Date.now() - 30 * 86400e3),
    });
    assert.is(expired.message, 'Token has expired');
    const unknownKey = 'no-such-key-000000000000000000000000000';
    const badKey = await refused(ctx.origin, { key: unknownKey });
    assert.is(badKey.message, `API key parameter '${unknownKey}' is invalid`);
    // A key that cannot read alerts.
    await refused(ctx.origin, { key: KEYS.heartbeatsOnly });
  },
);

tenancy(
  'a socket hears only its customers: alerts and heartbeats of globex never reach acme',
  async (ctx) => {
    // One alert each before anyone subscribes: snapshots are per customer too.
    const pre = {
      acme: (
        await postAlert(ctx.api, { resource: 'pre', event: 'acme-pre', severity: 'minor' }, auth(KEYS.acme))
      ).body.alert,
      globex: (
        await postAlert(
          ctx.api,
          { resource: 'pre', event: 'globex-pre', severity: 'minor' },
          auth(KEYS.globex),
        )
      ).body.alert,
    };
    assert.equal([pre.acme.customer, pre.globex.customer], ['acme', 'globex']);

    const acmeKey = await connect(ctx, ctx.origin, { key: KEYS.acme });
    const acmeToken = await connect(ctx, ctx.origin, { token: await tokenFor(ctx, ['acme']) });
    const reader = await connect(ctx, ctx.origin, { key: KEYS.acmeReader });
    const globex = await connect(ctx, ctx.origin, { key: KEYS.globex });
    const admin = await connect(ctx, ctx.origin, { key: KEYS.admin });
    const acmeSockets = [acmeKey, acmeToken, reader];
    const views = new Map<LiveClient, LiveView>();
    for (const c of [...acmeSockets, globex, admin]) views.set(c, await c.view(''));
    for (const c of acmeSockets) {
      const v = views.get(c)!;
      assert.is(v.mode, 'snapshot');
      assert.equal([...v.alerts.keys()], [pre.acme.id], 'acme snapshot');
      assert.equal(v.counts, { total: 1, severityCounts: { minor: 1 }, statusCounts: { open: 1 } });
    }
    assert.equal([...views.get(globex)!.alerts.keys()], [pre.globex.id]);
    assert.is(views.get(admin)!.alerts.size, 2);

    // globex: an alert, a heartbeat, a change, then deletes both.
    const g = await postAlert(
      ctx.api,
      { resource: 'gx', event: 'globex-down', severity: 'critical' },
      auth(KEYS.globex),
    );
    assert.is(g.status, 201);
    const gHb = await ctx.api.post('/heartbeat', { origin: 'globex/probe', timeout: 60 }, as(KEYS.globex));
    assert.is(gHb.status, 201);
    const gHeartbeat = ((await gHb.json()) as { heartbeat: { id: string; customer: string } }).heartbeat;
    assert.is(gHeartbeat.customer, 'globex');
    await ok(ctx.api.put(`/alert/${g.body.id}/action`, { action: 'ack' }, as(KEYS.globex)), 'globex ack');
    for (const c of [globex, admin]) {
      await views.get(c)!.waitUntil((v) => v.alerts.get(g.body.id)?.status === 'ack', 5000, 'globex alert');
      await c.waitFor(
        (m) => m.event === 'heartbeat.updated' && m.data.heartbeat.id === gHeartbeat.id,
        5000,
        'globex heartbeat',
      );
    }
    await ok(ctx.api.delete(`/heartbeat/${gHeartbeat.id}`, as(KEYS.globex)), 'delete globex heartbeat');
    await ok(ctx.api.delete(`/alert/${g.body.id}`, as(KEYS.globex)), 'delete globex alert');
    for (const c of [globex, admin]) {
      await c.waitFor(removedWith(g.body.id), 5000, 'globex alert deleted');
      await c.waitFor(
        (m) => m.event === 'heartbeat.deleted' && m.data.id === gHeartbeat.id,
        5000,
        'hb deleted',
      );
    }

    // acme, afterwards: once acme's own sockets have its changes, globex's would have arrived too.
    const a = await postAlert(
      ctx.api,
      { resource: 'ax', event: 'acme-down', severity: 'major' },
      auth(KEYS.acme),
    );
    assert.is(a.status, 201);
    const aHb = await ctx.api.post('/heartbeat', { origin: 'acme/probe', timeout: 60 }, as(KEYS.acme));
    assert.is(aHb.status, 201);
    const aHeartbeat = ((await aHb.json()) as { heartbeat: { id: string } }).heartbeat;
    for (const c of acmeSockets) {
      await c.waitFor(updatedWith(a.body.id, views.get(c)), 5000, 'acme alert on an acme socket');
      await c.waitFor(
        (m) => m.event === 'heartbeat.updated' && m.data.heartbeat.id === aHeartbeat.id,
        5000,
        'acme heartbeat on an acme socket',
      );
    }
    await admin.waitFor(updatedWith(a.body.id), 5000, 'acme alert on the admin socket');
    await sleep(300);

    const mentions = (c: LiveClient, needles: string[]) =>
      c.received.filter((m) => m.event !== 'tick' && needles.some((n) => JSON.stringify(m.data).includes(n)));
    for (const c of acmeSockets) {
      const leaked = mentions(c, [g.body.id, pre.globex.id, gHeartbeat.id, 'globex']);
      assert.equal(leaked, [], 'an acme socket heard of globex');
      await converges(views.get(c)!, ctx.api, as(KEYS.acme));
    }
    assert.equal(
      mentions(globex, [a.body.id, pre.acme.id, aHeartbeat.id, 'acme']),
      [],
      'globex heard of acme',
    );
    await converges(views.get(globex)!, ctx.api, as(KEYS.globex));
    await converges(views.get(admin)!, ctx.api, as(KEYS.admin));
    assert.is(views.get(admin)!.alerts.size, 3);
  },
);

tenancy('a read-only key subscribes and follows changes, including an ack', async (ctx) => {
  const reader = await connect(ctx, ctx.origin, { key: KEYS.acmeReader });
  const group = unique('reader');
  const view = await reader.view(`group=${group}`);
  const a = await postAlert(
    ctx.api,
    { resource: 'r1', event: 'e', group, severity: 'warning' },
    auth(KEYS.acme),
  );
  assert.is(a.status, 201);
  await view.waitUntil((v) => v.alerts.has(a.body.id), 5000, 'the reader sees the new alert');
  await ok(ctx.api.put(`/alert/${a.body.id}/action`, { action: 'ack' }, as(KEYS.acme)), 'ack');
  await view.waitUntil((v) => v.alerts.get(a.body.id)?.status === 'ack', 5000, 'the reader sees the ack');
  await converges(view, ctx.api, as(KEYS.acmeReader));
  // Reading is all it may do over HTTP.
  assert.is(
    (await ctx.api.put(`/alert/${a.body.id}/action`, { action: 'unack' }, as(KEYS.acmeReader))).status,
    403,
  );
});

tenancy.run();

// ---- a small replay buffer: reconnecting beyond it gets a snapshot -----------------------------

const small = liveAppSuite('live push: reconnecting beyond LIVE_BUFFER_SIZE', {
  TEST_LABEL: 'live_buffer',
  PLUGINS: 'remote_ip',
  LIVE_BUFFER_SIZE: '100',
  REDIS_URL: '',
});

small(
  'more missed changes than the buffer holds: a fresh snapshot with exactly the server state',
  async (ctx) => {
    const group = unique('small');
    const query = `group=${group}&status!=closed&page-size=1000`;
    const live = await burst(ctx.api, group, 'pre', 8, 30);
    const c1 = await connect(ctx, ctx.origin);
    const before = await c1.view(query);
    await burst(ctx.api, group, 'seen', 4, 31, live);
    await converges(before, ctx.api);
    c1.close();
    await burst(ctx.api, group, 'away', 130, 32, live);
    const c2 = await connect(ctx, ctx.origin);
    const after = await c2.view(query, before);
    assert.is(after.mode, 'snapshot', '130 changes do not fit in a buffer of 100');
    await converges(after, ctx.api);
    // Within the buffer: a catch-up.
    const c3 = await connect(ctx, ctx.origin);
    const third = await c3.view(query);
    c3.close();
    await burst(ctx.api, group, 'few', 3, 33, live);
    const c4 = await connect(ctx, ctx.origin);
    const fourth = await c4.view(query, third);
    assert.is(fourth.mode, 'catch-up', '3 changes fit in a buffer of 100');
    await converges(fourth, ctx.api);
  },
);

small.run();
