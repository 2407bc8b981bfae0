import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { callerOf } from '../../server/domain/caller.ts';
import { AppError } from '../../server/errors.ts';
import { webhookAlertInputs } from '../../server/webhooks/receive.ts';
import { seenResources } from '../fixtures/plugins/payload-order.ts';
import { getAlert } from '../helpers/alerts.ts';
import { appSuite, type AppContext } from '../helpers/app.ts';

// A payload's alerts are received together (server/webhooks/receive.ts); every case here is run
// twice on identities of its own: once through POST /webhooks/pass-through, once one after another
// through the receive path as the webhooks did before (`inOrder`), and the answers, the stored
// alerts with their history, the heartbeats and the order in which the pre-receive plugins saw
// the alerts must be the same.

const batch = appSuite('webhook payloads received together', {
  TEST_LABEL: 'webhooks_batch',
  PLUGINS: 'remote_ip,reject,heartbeat,blackout,./tests/fixtures/plugins/payload-order.ts',
  ALLOWED_ENVIRONMENTS: 'Production,Development',
  CUSTOM_WEBHOOKS: './tests/fixtures/webhooks/pass-through.ts',
});

let n = 0;
const fresh = (label: string) => `${label}${++n}x${Date.now()}`;

type Spec = Record<string, unknown>;
/** An alert of resource `<tag>-<name>`, Production, service web. */
const alert = (tag: string, name: string, extra: Spec = {}): Spec => ({
  resource: `${tag}-${name}`,
  event: 'Down',
  environment: 'Production',
  service: ['web'],
  severity: 'major',
  origin: `test/${tag}`,
  ...extra,
});

interface Outcome {
  status: number;
  body: unknown;
}

/** Receipt one after another, stopping at the first signal or error: what the webhooks did before. */
async function inOrder({ running }: AppContext, alerts: Spec[]): Promise<Outcome> {
  const { deps } = running;
  const caller = callerOf(deps.config, undefined, {
    ip: '127.0.0.1',
    header: () => '',
    baseUrl: 'http://127.0.0.1/api',
  });
  try {
    const stored: Alert[] = [];
    for (const input of webhookAlertInputs(deps, 'pass-through', alerts)) {
      const outcome = await deps.receiver.receiveAlert(input, caller);
      if (outcome.kind === 'signal') return { status: outcome.status, body: outcome.body };
      stored.push(outcome.alert);
    }
    if (stored.length === 1)
      return { status: 201, body: { status: 'ok', id: stored[0]!.id, alert: stored[0] } };
    return { status: 201, body: { status: 'ok', ids: stored.map((a) => a.id) } };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { status: err.status, body: { status: 'error', message: err.message, code: err.status } };
  }
}

async function throughWebhook({ api }: AppContext, alerts: Spec[]): Promise<Outcome> {
  const res = await api.post('/webhooks/pass-through', { alerts });
  const body = (await res.json()) as Record<string, unknown>;
  if (body.status === 'error')
    return { status: res.status, body: { status: 'error', message: body.message, code: body.code } };
  return { status: res.status, body };
}

const TIMES = new Set([
  'createTime',
  'receiveTime',
  'lastReceiveTime',
  'updateTime',
  'href',
  'latency',
  'since',
]);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** `value` with the run's tag as `T`, every uuid as `#k` in order of appearance, times and the remote address left out. */
function normal(value: unknown, tag: string, ids: Map<string, string>): unknown {
  if (typeof value === 'string')
    return value.replaceAll(tag, 'T').replace(UUID, (id) => {
      if (!ids.has(id)) ids.set(id, `#${ids.size}`);
      return ids.get(id)!;
    });
  if (Array.isArray(value)) return value.map((v) => normal(v, tag, ids));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !TIMES.has(k) && k !== 'ip')
        .map(([k, v]) => [k, normal(v, tag, ids)]),
    );
  return value;
}

/** Everything the run left: its alerts (by resource, with history) and heartbeats. */
async function leftBy({ api }: AppContext, tag: string, alerts: Spec[]) {
  const resources = [...new Set(alerts.map((a) => String(a.resource)))];
  const stored = [];
  for (const resource of resources) {
    const res = await api.get(`/alerts?resource=${encodeURIComponent(resource)}`);
    const found = ((await res.json()) as { alerts: Alert[] }).alerts;
    for (const a of found) stored.push(await getAlert(api, a.id));
  }
  // Alerts received together share their receive times: the order GET /alerts gives is not the point.
  stored.sort((a, b) => a.resource.localeCompare(b.resource) || a.event.localeCompare(b.event));
  const hb = (await (await api.get('/heartbeats')).json()) as { heartbeats: { origin: string }[] };
  return { stored, heartbeats: hb.heartbeats.filter((h) => h.origin.includes(tag)) };
}

/**
 * Runs `build`'s payload through the webhook and one after another (each after `setup` for its
 * tag), and asserts both give the same answer, leave the same alerts and heartbeats, and show the
 * plugins the same alerts in the same order. Returns the webhook's answer.
 */
async function same(
  ctx: AppContext,
  build: (tag: string) => Spec[],
  setup: (tag: string) => Promise<void> = async () => {},
): Promise<Outcome> {
  const runs = [];
  for (const via of [throughWebhook, inOrder]) {
    const tag = fresh('t');
    await setup(tag);
    const alerts = build(tag);
    seenResources.length = 0;
    const outcome = await via(ctx, alerts);
    const seen = [...seenResources];
    const left = await leftBy(ctx, tag, alerts);
    const ids = new Map<string, string>();
    runs.push({ outcome, normal: normal({ outcome, seen, left }, tag, ids) });
  }
  assert.equal(runs[0]!.normal, runs[1]!.normal);
  return runs[0]!.outcome;
}

batch('a reject in the middle: 403, the alerts before it stored, none after it tried', async (ctx) => {
  const r = await same(ctx, (t) => [
    alert(t, 'a'),
    alert(t, 'b'),
    alert(t, 'c', { environment: 'Staging' }),
    alert(t, 'd'),
    alert(t, 'a'),
  ]);
  assert.is(r.status, 403);
  assert.match(String((r.body as { message: string }).message), /^\[POLICY\] Alert environment/);
});

batch('a blackout in the middle: 202, later alerts untouched', async (ctx) => {
  const r = await same(
    ctx,
    (t) => [alert(t, 'a'), alert(t, 'maint'), alert(t, 'b'), alert(t, 'maint')],
    async (t) => {
      const res = await ctx.api.post('/blackout', { environment: 'Production', resource: `${t}-maint` });
      assert.is(res.status, 201);
    },
  );
  assert.is(r.status, 202);
  assert.is((r.body as { message: string }).message, 'Suppressed alert during blackout period');
});

batch('a heartbeat in the middle: 202 with its id, stored once, later alerts untouched', async (ctx) => {
  const r = await same(ctx, (t) => [
    alert(t, 'a'),
    alert(t, 'hb', { event: 'Heartbeat', severity: 'informational' }),
    alert(t, 'b'),
    alert(t, 'hb2', { event: 'Heartbeat', severity: 'informational' }),
  ]);
  assert.is(r.status, 202);
  assert.is((r.body as { message: string }).message, 'Alert converted to Heartbeat');
});

batch('rate-limited in the middle: 429, the plugin saw nothing after it', async (ctx) => {
  const r = await same(ctx, (t) => [alert(t, 'a'), alert(t, 'b', { tags: ['limit-me'] }), alert(t, 'c')]);
  assert.is(r.status, 429);
});

batch('an unknown severity in the middle: 400 naming it, later alerts untouched', async (ctx) => {
  const r = await same(ctx, (t) => [
    alert(t, 'a'),
    alert(t, 'b', { severity: 'apocalyptic' }),
    alert(t, 'c'),
  ]);
  assert.is(r.status, 400);
  const first = await same(ctx, (t) => [alert(t, 'a', { severity: 'apocalyptic' }), alert(t, 'b')]);
  assert.is(first.status, 400);
});

batch('an id of another alert in the middle: 409, later alerts untouched', async (ctx) => {
  const taken = new Map<string, string>();
  const r = await same(
    ctx,
    (t) => [alert(t, 'a'), alert(t, 'b', { id: taken.get(t) }), alert(t, 'c')],
    async (t) => {
      const res = await ctx.api.post('/alert', alert(t, 'owner'));
      taken.set(t, ((await res.json()) as { id: string }).id);
    },
  );
  assert.is(r.status, 409);
});

batch('duplicates in one payload: duplicateCount, history and ids as one after another', async (ctx) => {
  const r = await same(ctx, (t) => [
    alert(t, 'a', { tags: ['slow'] }),
    alert(t, 'b'),
    alert(t, 'a', { value: '1' }),
    alert(t, 'a', { value: '2', tags: ['x'] }),
    alert(t, 'a', { severity: 'critical', text: 'worse' }),
    alert(t, 'b', { status: 'ack', tags: ['slow'] }),
    alert(t, 'a', { severity: 'critical', attributes: { k: 'v' } }),
    alert(t, 'b'),
    alert(t, 'a', { severity: 'normal' }),
    alert(t, 'a', { severity: 'major' }),
  ]);
  assert.is(r.status, 201);
  const ids = (r.body as { ids: string[] }).ids;
  assert.is(ids.length, 10);
  assert.is(new Set(ids).size, 2);
});

batch('correlated events of one resource in one payload are applied in order', async (ctx) => {
  const pair = { correlate: ['NodeDown', 'NodeUp'] };
  const r = await same(ctx, (t) => [
    alert(t, 'n', { ...pair, event: 'NodeDown', tags: ['slow'] }),
    alert(t, 'm', { ...pair, event: 'NodeDown' }),
    alert(t, 'n', { ...pair, event: 'NodeUp', severity: 'normal' }),
    alert(t, 'n', { ...pair, event: 'NodeDown', severity: 'critical' }),
    alert(t, 'm', { ...pair, event: 'NodeUp', severity: 'normal' }),
  ]);
  assert.is(r.status, 201);
});

batch('fifty alerts, one and none: the same answers', async (ctx) => {
  const many = await same(ctx, (t) =>
    Array.from({ length: 50 }, (_, i) => alert(t, `h${i % 40}`, { event: `E${i % 3}` })),
  );
  assert.is(many.status, 201);
  assert.is((many.body as { ids: string[] }).ids.length, 50);
  const one = await same(ctx, (t) => [alert(t, 'solo')]);
  assert.is(one.status, 201);
  assert.is((one.body as { alert: Alert }).alert.resource.endsWith('-solo'), true);
  const none = await same(ctx, () => []);
  assert.equal([none.status, none.body], [201, { status: 'ok', ids: [] }]);
  const blacked = await same(
    ctx,
    (t) => [alert(t, 'maint'), alert(t, 'a')],
    async (t) => {
      await ctx.api.post('/blackout', { environment: 'Production', resource: `${t}-maint` });
    },
  );
  assert.is(blacked.status, 202);
});

batch.run();
