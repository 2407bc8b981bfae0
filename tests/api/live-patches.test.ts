import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { LiveAlert } from '../../shared/alerts.ts';
import { createAlert, postAlert } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { liveAppSuite, type LiveAppContext } from '../helpers/app.ts';
import { LiveClient, until, type LiveView, type Received } from '../helpers/live.ts';

/**
 * Slim deltas (docs/live.md, "Patches"): a socket that subscribes with `patches` gets changed
 * alerts as only the fields that changed, and ends with exactly the states a client of full alerts
 * holds — after a snapshot, a catch-up, a late join, and for alerts off its page. Clients that did
 * not ask keep getting full alerts.
 */

const patches = liveAppSuite('live push: patches', { TEST_LABEL: 'live_patches', PLUGINS: 'remote_ip' });

const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

async function connect(ctx: LiveAppContext): Promise<LiveClient> {
  const c = await LiveClient.connect(ctx.origin, {});
  ctx.clients.push(c);
  return c;
}

async function ok(res: Promise<Response>, what: string): Promise<void> {
  const r = await res;
  assert.is(r.status, 200, `${what}: ${r.status} ${await r.clone().text()}`);
}

/** Every state a view holds, keyed and with sorted keys, to compare two views field by field. */
function states(view: LiveView, ids?: Iterable<string>): string {
  const pick = ids ? [...ids] : [...view.alerts.keys()];
  const canon = (a: LiveAlert | undefined) =>
    a && Object.fromEntries(Object.entries(a).sort(([x], [y]) => x.localeCompare(y)));
  return JSON.stringify(pick.sort().map((id) => [id, canon(view.alerts.get(id)) ?? null]));
}

/** Waits until `patched` holds the same states as `full` (for `ids`, or all), then asserts it. */
async function same(patched: LiveView, full: LiveView, what: string, ids?: string[]) {
  await until(() => (states(patched, ids) === states(full, ids) ? true : undefined), 10_000, what).catch(
    () => {},
  );
  assert.is(states(patched, ids), states(full, ids), what);
  assert.equal(patched.unknownPatches, [], `${what}: no patch without its base`);
}

/** Changes of every kind to the group's alerts: new receipts, severities, status, tags, attributes. */
async function changes(api: Api, group: string, ids: string[], round: number) {
  for (const [i, id] of ids.entries()) {
    const severity = ['major', 'minor', 'critical'][(i + round) % 3]!;
    const p = await postAlert(api, {
      resource: `${group}-${i}`,
      event: 'e',
      group,
      severity,
      value: `v${round}`,
      text: `round ${round}`,
    });
    assert.is(p.body.id, id, 'a new receipt of the same alert');
    if (i % 3 === 0) await ok(api.put(`/alert/${id}/tag`, { tags: [`t${round}`] }), 'tag');
    if (i % 3 === 1) await ok(api.put(`/alert/${id}/attributes`, { attributes: { round } }), 'attributes');
    if (i % 4 === 2) await ok(api.put(`/alert/${id}/status`, { status: 'ack', text: 'seen' }), 'ack');
  }
}

async function makeAlerts(api: Api, group: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = await createAlert(api, { resource: `${group}-${i}`, event: 'e', group, severity: 'major' });
    ids.push(a.id);
  }
  return ids;
}

const fullOnly = (c: LiveClient) =>
  c.received.filter((m) => m.event === 'alert.updated' && m.data.patches !== undefined).length;

patches('a patching client holds exactly what a client of full alerts holds', async (ctx) => {
  const group = unique('patch');
  const query = `group=${group}`;
  const ids = await makeAlerts(ctx.api, group, 6);
  const fc = await connect(ctx);
  const pc = await connect(ctx);
  const full = await fc.view(query);
  const patched = await pc.view(query, undefined, { patches: true });
  for (let round = 1; round <= 3; round++) await changes(ctx.api, group, ids, round);
  await ok(ctx.api.delete(`/alert/${ids[5]}`), 'delete');
  const back = await createAlert(ctx.api, { resource: `${group}-5`, event: 'e', group, severity: 'minor' });
  await postAlert(ctx.api, { resource: `${group}-5`, event: 'e', group, severity: 'minor', text: 'again' });
  await full.waitUntil((v) => v.alerts.get(back.id)?.text === 'again', 5000, 'the last change');
  await same(patched, full, 'the same states');
  assert.ok(patched.patched > 0, 'some changes came as patches');
  assert.is(fullOnly(fc), 0, 'a client that did not ask gets no patches');
  // A patch carries what changed, not the whole alert.
  const sent = pc.received.flatMap((m: Received) =>
    m.event === 'alert.updated' ? (m.data.patches ?? []) : [],
  );
  assert.ok(sent.length > 0);
  assert.ok(
    sent.every((p) => p.resource === undefined && p.href === undefined),
    'unchanged fields are left out',
  );
});

patches('after a reconnect with since, patches apply to the states the catch-up left', async (ctx) => {
  const group = unique('patch-catchup');
  const query = `group=${group}`;
  const ids = await makeAlerts(ctx.api, group, 6);
  const fc = await connect(ctx);
  const full = await fc.view(query);
  const first = await connect(ctx);
  const before = await first.view(query, undefined, { patches: true });
  await changes(ctx.api, group, ids, 1);
  await same(before, full, 'before the reconnect');
  first.close();
  await until(() => (first.socket.connected ? undefined : true), 2000, 'disconnected');
  await changes(ctx.api, group, ids.slice(0, 3), 2);
  const second = await connect(ctx);
  const after = await second.view(query, before, { patches: true });
  assert.is(after.mode, 'catch-up');
  await changes(ctx.api, group, ids, 3);
  await changes(ctx.api, group, ids, 4);
  await full.waitUntil((v) => v.alerts.get(ids[0]!)?.text === 'round 4', 5000, 'the last round');
  await same(after, full, 'after the catch-up');
  assert.ok(after.patched > 0, 'patches after the catch-up');
});

patches('alerts off the page, and a socket joining late, get full states first', async (ctx) => {
  const group = unique('patch-page');
  // Two alerts a page: most of the view is off the page, and only ever reaches clients as deltas.
  const query = `group=${group}&sort-by=resource&page-size=2`;
  const ids = await makeAlerts(ctx.api, group, 6);
  const fc = await connect(ctx);
  const full = await fc.view(query);
  const early = await connect(ctx);
  const first = await early.view(query, undefined, { patches: true });
  await changes(ctx.api, group, ids, 1);
  await changes(ctx.api, group, ids, 2);
  // Round 2 must have reached the clients before the late socket joins: a change still in flight
  // would reach it after its snapshot, as a third alert, off its page.
  await full.waitUntil((v) => v.alerts.get(ids[5]!)?.text === 'round 2', 5000, 'round 2');
  await same(first, full, 'the early socket', ids);
  assert.ok(first.patched > 0, 'the early socket got patches');
  // The view has sent every alert; a socket joining now holds two of them (its snapshot).
  const late = await connect(ctx);
  const second = await late.view(query, undefined, { patches: true });
  assert.is(second.alerts.size, 2);
  await changes(ctx.api, group, ids, 3);
  await full.waitUntil((v) => v.alerts.get(ids[5]!)?.text === 'round 3', 5000, 'round 3');
  await same(second, full, 'the late socket after its first changes', ids);
  const patchedBefore = second.patched;
  await changes(ctx.api, group, ids, 4);
  await full.waitUntil((v) => v.alerts.get(ids[5]!)?.text === 'round 4', 5000, 'round 4');
  await same(second, full, 'the late socket', ids);
  await same(first, full, 'the early socket, still', ids);
  assert.ok(second.patched > patchedBefore, 'once sent, the late socket gets patches too');
});

patches.run();
