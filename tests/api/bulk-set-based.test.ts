import * as assert from 'uvu/assert';
import type { Alert, Action, StatusChange } from '../../shared/alerts.ts';
import type { LiveEvent } from '../../shared/events.ts';
import type { Caller } from '../../server/domain/caller.ts';
import { applyPerAlert, applyTo } from '../../server/domain/bulk.ts';
import { createAlert, getAlert } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { queryDb } from '../helpers/db.ts';
import { apiFor, appSuite, twoInstanceSuite, type AppContext } from '../helpers/app.ts';

/**
 * Bulk status changes and actions are set-based (domain/bulk-change.ts, issue #42 item 3): this
 * proves they leave every alert exactly as the per-alert path (each alert's own use case, kept as
 * applyPerAlert) does. Two identical sets of alerts take the same operations, one set through each
 * path; each alert's JSON, its history, the ids changed and refused, and the live events published
 * must be the same, alert for alert, but for ids, resources and times.
 */

const PLUGINS = 'remote_ip,reject,acked_by,timeout';
const equivalence = appSuite('bulk status and action: set-based = per-alert', {
  PLUGINS,
  ACK_TIMEOUT: '1800',
  SHELVE_TIMEOUT: '3600',
  HISTORY_LIMIT: '4',
});

const stamp = Date.now().toString(36);
const callerOf = (ctx: AppContext, user: string | null, customers: string[] | null = null): Caller => ({
  ip: '127.0.0.1',
  user,
  baseUrl: ctx.api.base,
  customers,
  header: () => '',
});

/** The alerts of one set, in the order of their recipe: states that every action meets in turn. */
const RECIPES: { fields: Record<string, unknown>; then: (Action | StatusChange)[] }[] = [
  { fields: { severity: 'major' }, then: [] },
  { fields: { severity: 'critical', tags: ['a', 'b'], attributes: { x: 1 } }, then: [] },
  { fields: { severity: 'minor' }, then: [{ action: 'ack', text: 'seen', timeout: null }] },
  { fields: { severity: 'warning' }, then: [{ action: 'shelve', text: 'later', timeout: 60 }] },
  { fields: { severity: 'major' }, then: [{ action: 'close', text: '', timeout: null }] },
  { fields: { severity: 'normal' }, then: [] },
  {
    fields: { severity: 'informational', value: '7' },
    then: [{ status: 'ack', text: 'by hand', timeout: 30 }],
  },
  {
    fields: { severity: 'critical' },
    then: [
      { action: 'ack', text: '', timeout: null },
      { action: 'unack', text: '', timeout: null },
      { action: 'shelve', text: '', timeout: null },
    ],
  },
];

/** The operations both sets take, one after the other, each on the whole set. */
const OPERATIONS: ({ type: 'status'; change: StatusChange } | { type: 'action'; action: Action })[] = [
  { type: 'action', action: { action: 'ack', text: 'bulk ack', timeout: 999 } },
  { type: 'action', action: { action: 'unack', text: '', timeout: null } },
  { type: 'action', action: { action: 'shelve', text: 'quiet', timeout: null } },
  { type: 'action', action: { action: 'unshelve', text: '', timeout: null } },
  { type: 'action', action: { action: 'runbook-7', text: 'custom', timeout: null } },
  { type: 'status', change: { status: 'ack', text: 'bulk status update', timeout: 120 } },
  { type: 'status', change: { status: 'open', text: 'reopened', timeout: null } },
  { type: 'action', action: { action: 'close', text: 'done', timeout: null } },
  { type: 'action', action: { action: 'open', text: '', timeout: null } },
  { type: 'action', action: { action: 'ack', text: '', timeout: null } },
  { type: 'status', change: { status: 'blackout', text: 'maintenance', timeout: 5 } },
];

async function makeSet(api: Api, label: string, group = `eq-${stamp}`): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, r] of RECIPES.entries()) {
    const alert = await createAlert(api, {
      resource: `${label}-${i}-${stamp}`,
      event: 'Equivalence',
      group,
      ...r.fields,
    });
    for (const step of r.then) {
      const path = 'action' in step ? 'action' : 'status';
      const res = await api.put(`/alert/${alert.id}/${path}`, step);
      assert.is(res.status, 200, await res.clone().text());
    }
    ids.push(alert.id);
  }
  return ids;
}

const TIMES = new Set(['createTime', 'receiveTime', 'lastReceiveTime', 'updateTime']);
/** An alert without what differs between the two sets: ids, resources, hrefs and times. */
function comparable(a: Alert): unknown {
  const own = new Set([a.id, a.lastReceiveId, a.resource]);
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => !TIMES.has(k) && k !== 'href' && k !== 'id' && k !== 'resource')
          .map(([k, x]) => [k, strip(x)]),
      );
    return typeof v === 'string' && own.has(v) ? '<own>' : v;
  };
  return strip(a);
}

/** A result's ids as their places in the set (ids differ between sets, places do not). */
const placed = (ids: string[], r: { changed: string[]; errors: string[] }) => ({
  changed: r.changed.map((id) => ids.indexOf(id)),
  errors: r.errors.map((e) => {
    const i = e.indexOf(': ');
    return `${ids.indexOf(e.slice(0, i))}${e.slice(i)}`;
  }),
});

equivalence(
  'every operation leaves each alert, its history and its events as the per-alert path',
  async (ctx) => {
    const { deps } = ctx.running;
    const old = await makeSet(ctx.api, 'old');
    const next = await makeSet(ctx.api, 'new');
    // An alert gone before the operation: both paths report it not found.
    const gone = await createAlert(ctx.api, { resource: `gone-${stamp}`, event: 'Gone' });
    assert.is((await ctx.api.delete(`/alert/${gone.id}`)).status, 200);
    const events = new Map<string, number>();
    const stop = deps.bus.subscribe((e: LiveEvent) => {
      if (e.type === 'alert.updated') events.set(e.alert.id, (events.get(e.alert.id) ?? 0) + 1);
    });
    try {
      for (const [step, op] of OPERATIONS.entries()) {
        for (const user of ['alice', null]) {
          const caller = callerOf(ctx, user);
          events.clear();
          const a = await applyPerAlert(deps, op, [...old, gone.id], caller);
          const b = await applyTo(deps, op, [...next, gone.id], caller);
          const label = `step ${step} (${JSON.stringify(op)}) as ${user}`;
          assert.equal(placed([...next, gone.id], b), placed([...old, gone.id], a), label);
          await new Promise((r) => setTimeout(r, 20));
          for (const [i, id] of old.entries()) {
            const [x, y] = [await getAlert(ctx.api, id), await getAlert(ctx.api, next[i]!)];
            assert.equal(comparable(y), comparable(x), `${label}, alert ${i}`);
            assert.is(events.get(next[i]!) ?? 0, events.get(id) ?? 0, `${label}, events of alert ${i}`);
          }
        }
      }
    } finally {
      stop();
    }
  },
);

equivalence(
  'over HTTP: a bulk action task answers and stores as single PUT /alert/:id/action',
  async (ctx) => {
    const group = `http-${stamp}`;
    const single = await makeSet(ctx.api, 'http-single', `${group}-single`);
    const bulk = await makeSet(ctx.api, 'http-bulk', group);
    for (const action of ['ack', 'unack', 'shelve', 'close', 'open', 'ack']) {
      const body = { action, text: `bulk ${action}`, timeout: null };
      const errors: string[] = [];
      for (const [i, id] of single.entries()) {
        const r = await ctx.api.call('PUT', `/alert/${id}/action`, body);
        if (r.status !== 200) errors.push(`${i}: ${String(r.body.message)}`);
      }
      const started = await ctx.api.call('PUT', `/_bulk/alerts/action?group=${group}`, body);
      assert.is(started.status, 202, JSON.stringify(started.body));
      let task: { status: string; result: { updated: string[]; errors: string[] } | null } | undefined;
      for (const end = Date.now() + 30_000; Date.now() < end;) {
        task = (await (await ctx.api.get(`/_bulk/task/${String(started.body.id)}`)).json()) as typeof task;
        if (task!.status === 'success') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.is(task?.status, 'success', action);
      assert.equal(
        placed(bulk, { changed: [], errors: task!.result!.errors }).errors.sort(),
        errors.sort(),
        action,
      );
      for (const [i, id] of single.entries()) {
        const [x, y] = [await getAlert(ctx.api, id), await getAlert(ctx.api, bulk[i]!)];
        assert.equal(
          { ...(comparable(y) as object), group: 0 },
          { ...(comparable(x) as object), group: 0 },
          `${action}, alert ${i}`,
        );
      }
    }
  },
);

equivalence(
  'customer scoping: alerts of other customers are reported not found by both paths',
  async (ctx) => {
    const { deps } = ctx.running;
    const make = async (label: string) => {
      const ids: string[] = [];
      for (const customer of ['acme', 'other']) {
        const { id } = await createAlert(ctx.api, {
          resource: `${label}-${customer}-${stamp}`,
          event: 'Scoped',
          severity: 'major',
        });
        await queryDb(ctx.db.url, 'UPDATE alerts SET customer = $1 WHERE id = $2', [customer, id]);
        ids.push(id);
      }
      return ids;
    };
    const old = await make('scope-old');
    const next = await make('scope-new');
    const op = { type: 'action' as const, action: { action: 'ack', text: '', timeout: null } };
    const caller = callerOf(ctx, 'bob', ['acme']);
    const a = await applyPerAlert(deps, op, old, caller);
    const b = await applyTo(deps, op, next, caller);
    assert.equal(placed(next, b), placed(old, a));
    assert.equal(placed(next, b), { changed: [0], errors: ['1: not found'] });
    for (const [i, id] of old.entries())
      assert.equal(comparable(await getAlert(ctx.api, next[i]!)), comparable(await getAlert(ctx.api, id)));
  },
);

equivalence.run();

/**
 * A single-alert change racing with a bulk action on the same alerts, on another instance of the
 * same database, is never lost: the bulk path holds its chunk's row locks from its read to its
 * write, so each alert ends with both the bulk's ack (status, acked-by, watch tag, entry) and the
 * other instance's tags (single and bulk) and attribute.
 */
const race = twoInstanceSuite(
  'bulk action racing single-alert changes on two instances',
  { PLUGINS },
  { PLUGINS },
);

race('no update is lost either way', async (ctx) => {
  const other = apiFor(ctx.other);
  const group = `race-${stamp}`;
  const ids: string[] = [];
  for (let i = 0; i < 600; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, (_, k) =>
        createAlert(ctx.api, { resource: `race-${i + k}`, event: 'Race', group, severity: 'major' }),
      ),
    );
    ids.push(...batch.map((a) => a.id));
  }
  const op = { type: 'action' as const, action: { action: 'ack', text: 'bulk', timeout: null } };
  const bulk = applyTo(ctx.running.deps, op, ids, callerOf(ctx, 'carol'));
  let next = 0;
  const singles = Array.from({ length: 8 }, async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      assert.is((await other.put(`/alert/${id}/tag`, { tags: ['raced'] })).status, 200);
      assert.is((await other.put(`/alert/${id}/attributes`, { attributes: { raced: true } })).status, 200);
    }
  });
  // A bulk tag on the other instance over the same alerts: both lock in id order, so neither deadlocks.
  const tagged = other.call('PUT', `/_bulk/alerts/tag?group=${group}`, { tags: ['bulk-tagged'] });
  const [result, tag] = await Promise.all([bulk, tagged, ...singles]);
  assert.is(result.changed.length, ids.length);
  assert.equal(result.errors, []);
  assert.equal([tag.status, tag.body.count], [200, ids.length], JSON.stringify(tag.body));
  for (const id of ids) {
    const a = await getAlert(other, id);
    assert.is(a.status, 'ack', id);
    for (const t of ['raced', 'watch:carol', 'bulk-tagged'])
      assert.ok(a.tags.includes(t), `${id}: ${a.tags.join(',')}`);
    assert.equal([a.attributes.raced, a.attributes['acked-by']], [true, 'carol'], id);
    assert.is(a.history.filter((h) => h.type === 'ack').length, 1, id);
  }
});

race.run();
