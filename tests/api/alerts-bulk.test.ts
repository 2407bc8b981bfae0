import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { ErrorBodySchema } from '../../shared/errors.ts';
import type { ChangeEvent, LiveEvent } from '../../shared/events.ts';
import { createAlert, getAlert, put } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { type AppContext, appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

// The contract under test: docs/queries.md, "Bulk operations" and "One selection, everywhere".

const BIG = 5000;
const stamp = Date.now().toString(36);
let n = 0;
/** A group (or resource) name no other test uses. */
const fresh = (label: string) => `bulk-${label}-${++n}-${stamp}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const enc = encodeURIComponent;
const sorted = (xs: readonly string[]) => [...xs].sort();

type Op = 'status' | 'action' | 'tag' | 'untag' | 'attributes' | 'delete';
const OPS: Op[] = ['status', 'action', 'tag', 'untag', 'attributes', 'delete'];
/** How the 202 message names each operation ("<n> alerts queued for <operation>"). */
const OP_NAME: Record<Op, string> = {
  status: 'status',
  action: 'action',
  tag: 'tag',
  untag: 'untag',
  attributes: 'attributes?',
  delete: 'delet(e|ion)',
};

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const TASK_KEYS = ['createTime', 'id', 'progress', 'result', 'status', 'type', 'updateTime'];
const TaskSchema = z.object({
  status: z.enum(['pending', 'started', 'success', 'failure']),
  id: z.string().min(1),
  type: z.enum(['status', 'action', 'tag', 'untag', 'attributes', 'delete']),
  progress: z.object({ done: z.number().int().min(0), total: z.number().int().min(0) }),
  result: z
    .object({
      count: z.number().int().min(0),
      updated: z.array(z.string()).optional(),
      deleted: z.array(z.string()).optional(),
      errors: z.array(z.unknown()),
    })
    .nullable(),
  createTime: z.string().regex(ISO_TIME),
  updateTime: z.string().regex(ISO_TIME),
});
type Task = z.infer<typeof TaskSchema>;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  location: string | null;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${res.status} answer is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, body, location: res.headers.get('location') };
}

/** One bulk request; `selection` is the query string including the leading `?` (or ''). */
async function bulk(api: Api, op: Op, selection: string, body?: unknown): Promise<Answer> {
  const res =
    op === 'delete'
      ? await api.delete(`/_bulk/alerts${selection}`)
      : await api.put(`/_bulk/alerts/${op}${selection}`, body);
  return answer(res);
}

/** A typical valid body for each operation, for tests about selection and limits. */
const BODY: Record<Op, unknown> = {
  status: { status: 'assign' },
  action: { action: 'ack' },
  tag: { tags: ['limit-tag'] },
  untag: { tags: ['limit-tag'] },
  attributes: { attributes: { limit: 'yes' } },
  delete: undefined,
};

async function expectError(res: Response | Answer, status: number, message?: RegExp) {
  const a = res instanceof Response ? await answer(res) : res;
  assert.is(a.status, status, JSON.stringify(a.body));
  const body = ErrorBodySchema.parse(a.body);
  assert.is(body.code, status);
  if (message) assert.match(body.message, message);
  return body;
}

/** POSTs `count` alerts, `concurrency` at a time; returns their ids in order. */
async function seed(
  api: Api,
  count: number,
  make: (i: number) => Record<string, unknown>,
  concurrency = 50,
): Promise<string[]> {
  const ids = new Array<string>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await api.post('/alert', {
        environment: 'Production',
        service: ['web'],
        event: 'e',
        severity: 'major',
        ...make(i),
      });
      const body = (await res.json()) as { id: string };
      if (res.status !== 201) throw new Error(`seeding alert ${i}: ${res.status} ${JSON.stringify(body)}`);
      ids[i] = body.id;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  assert.is(new Set(ids).size, count, 'every seeded alert is a distinct alert');
  return ids;
}

/** Seeds `count` alerts in `group` (resources `<group>-r<i>`). */
const seedGroup = (api: Api, group: string, count: number, extra: Record<string, unknown> = {}) =>
  seed(api, count, (i) => ({ resource: `${group}-r${i}`, group, ...extra }));

async function count(api: Api, selection: string): Promise<number> {
  const res = await api.get(`/alerts/count${selection}`);
  const body = (await res.json()) as { total: number };
  assert.is(res.status, 200, JSON.stringify(body));
  assert.type(body.total, 'number');
  return body.total;
}

/** Checks a 202 answer and returns the task id. */
function expectQueued(api: Api, a: Answer, total: number, op: Op): string {
  assert.is(a.status, 202, JSON.stringify(a.body));
  assert.is(a.body.status, 'ok');
  const id = a.body.id;
  if (typeof id !== 'string' || id === '') throw new Error(`task id missing: ${JSON.stringify(a.body)}`);
  assert.match(String(a.body.message), new RegExp(`^${total} alerts queued for ${OP_NAME[op]}$`));
  assert.is(a.location, `${api.base}/_bulk/task/${id}`);
  return id;
}

/** Polls GET /_bulk/task/:id until it ends, checking the task's shape on every poll. */
async function waitTask(api: Api, id: string, timeoutMs = 60_000): Promise<Task> {
  const deadline = Date.now() + timeoutMs;
  let last: Task | undefined;
  for (;;) {
    const res = await api.get(`/_bulk/task/${id}`);
    const raw = (await res.json()) as Record<string, unknown>;
    assert.is(res.status, 200, JSON.stringify(raw));
    assert.equal(Object.keys(raw).sort(), TASK_KEYS);
    const task = TaskSchema.parse(raw);
    assert.is(task.id, id);
    assert.ok(task.progress.done <= task.progress.total, `progress ${JSON.stringify(task.progress)}`);
    assert.ok(Date.parse(task.createTime) <= Date.parse(task.updateTime), 'createTime <= updateTime');
    if (last) {
      assert.is(task.type, last.type, 'a task keeps its type');
      assert.is(task.createTime, last.createTime, 'a task keeps its createTime');
      assert.is(task.progress.total, last.progress.total, 'the selection is fixed');
      assert.ok(task.progress.done >= last.progress.done, 'progress never goes back');
    }
    if (task.status === 'success' || task.status === 'failure') {
      assert.ok(task.result !== null, 'a finished task has a result');
      return task;
    }
    assert.is(task.result, null, 'result is null until the task ends');
    if (Date.now() > deadline) assert.unreachable(`task ${id} still ${task.status} after ${timeoutMs} ms`);
    last = task;
    await sleep(100);
  }
}

/** Waits for a task and checks it succeeded on all `total` alerts with no errors. */
async function expectTaskSuccess(api: Api, id: string, total: number, key: 'updated' | 'deleted') {
  const task = await waitTask(api, id);
  assert.is(task.status, 'success', JSON.stringify({ ...task, result: { ...task.result, [key]: '…' } }));
  assert.equal(task.progress, { done: total, total });
  const result = task.result!;
  assert.is(result.count, total);
  assert.equal(result.errors, []);
  const ids = result[key];
  if (!ids) throw new Error(`result.${key} missing: ${JSON.stringify(result).slice(0, 300)}`);
  assert.is(ids.length, total);
  return { task, ids };
}

/** Records bus events from now on. */
function record(ctx: AppContext) {
  const events: ChangeEvent[] = [];
  const stop = ctx.running.deps.bus.subscribe((e) => {
    if (e.type !== 'views.reload' && e.type !== 'notifications.health') events.push(e);
  });
  const idOf = (e: ChangeEvent) =>
    e.type === 'alert.deleted' || e.type === 'heartbeat.deleted'
      ? e.id
      : e.type === 'heartbeat.updated'
        ? e.heartbeat.id
        : e.alert.id;
  return {
    events,
    stop,
    idOf,
    /** Ids of events of `type`, waiting (up to 10 s) until there are at least `atLeast` distinct ones. */
    async ids(type: LiveEvent['type'], atLeast: number): Promise<Set<string>> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const set = new Set(events.filter((e) => e.type === type).map(idOf));
        if (set.size >= atLeast || Date.now() > deadline) return set;
        await sleep(50);
      }
    },
  };
}

/** The events seen for each alert id, after a short settling pause. */
async function eventsById(rec: ReturnType<typeof record>) {
  await sleep(150);
  const by = new Map<string, string[]>();
  for (const e of rec.events) by.set(rec.idOf(e), [...(by.get(rec.idOf(e)) ?? []), e.type]);
  return Object.fromEntries(by);
}

/**
 * Runs `op` over the BIG alerts of `selection` as a task and checks that it reports exactly `ids`
 * as `key`.
 */
async function bigTask(
  api: Api,
  op: Op,
  selection: string,
  body: unknown,
  ids: string[],
  key: 'updated' | 'deleted' = 'updated',
) {
  const r = await bulk(api, op, selection, body);
  const { ids: done } = await expectTaskSuccess(api, expectQueued(api, r, BIG, op), BIG, key);
  assert.equal(sorted(done), sorted(ids));
}

/** Waits for `type` events of `ids`, stops recording, and checks they came for those alerts alone. */
async function expectPublished(rec: ReturnType<typeof record>, type: LiveEvent['type'], ids: string[]) {
  const published = await rec.ids(type, ids.length);
  rec.stop();
  assert.is(published.size, ids.length, 'every changed alert is published, and no other');
  assert.ok(ids.every((id) => published.has(id)));
  return published;
}

/** Checks that every alert of `group` has exactly one history entry of this type, status and text. */
async function expectOneEntryEach(
  url: string,
  group: string,
  entry: { type: string; status: string; text: string },
) {
  const [h] = await queryDb<{ entries: number; alerts: number }>(
    url,
    `SELECT count(*)::int AS entries, count(DISTINCT h.alert_id)::int AS alerts
       FROM alert_history h JOIN alerts a ON a.id = h.alert_id
      WHERE a."group" = $1 AND h.type = $2 AND h.status = $3 AND h.text = $4`,
    [group, entry.type, entry.status, entry.text],
  );
  assert.equal(h, { entries: BIG, alerts: BIG }, `one ${entry.type} history entry per alert`);
}

interface Snapshot {
  status: string;
  severity: string;
  tags: string[];
  attributes: Record<string, unknown>;
  history: number;
  updateTime: string;
}
async function snapshot(api: Api, id: string): Promise<Snapshot> {
  const a = await getAlert(api, id);
  return {
    status: a.status,
    severity: a.severity,
    tags: sorted(a.tags),
    attributes: a.attributes,
    history: a.history.length,
    updateTime: a.updateTime,
  };
}

// ---------------------------------------------------------------------------------------------

const bulkSuite = appSuite('bulk operations', { TEST_LABEL: 'bulk', PLUGINS: 'remote_ip' });

bulkSuite(
  'no match: status and action are 404; tag, untag, attributes and delete answer empty',
  async (ctx) => {
    const { api } = ctx;
    const other = await createAlert(api, {
      resource: fresh('none-other'),
      group: fresh('none-other'),
      event: 'e',
      severity: 'major',
      tags: ['t'],
      attributes: { k: 'v' },
    });
    const before = await snapshot(api, other.id);
    const nothing = `?group=${enc(fresh('none'))}`;
    const rec = record(ctx);

    await expectError(await bulk(api, 'status', nothing, { status: 'closed' }), 404);
    await expectError(await bulk(api, 'action', nothing, { action: 'close' }), 404);
    for (const [op, body] of [
      ['tag', { tags: ['x'] }],
      ['untag', { tags: ['t'] }],
      ['attributes', { attributes: { k: null } }],
    ] as const) {
      const r = await bulk(api, op, nothing, body);
      assert.is(r.status, 200, `${op}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body, { status: 'ok', updated: [], count: 0 }, op);
    }
    const del = await bulk(api, 'delete', nothing);
    assert.is(del.status, 200, JSON.stringify(del.body));
    assert.equal(del.body, { status: 'ok', deleted: [], count: 0 });

    assert.equal(await snapshot(api, other.id), before, 'an alert outside the selection is untouched');
    assert.equal(await eventsById(rec), {}, 'nothing changed, nothing published');
    rec.stop();
  },
);

/** Two alerts in a fresh group: `target` (minor) is selected by `group=…&severity=minor`, `other` (major) not. */
async function pair(api: Api, label: string, extra: Record<string, unknown> = {}) {
  const group = fresh(label);
  const target = await createAlert(api, {
    resource: `${group}-t`,
    group,
    event: 'e',
    severity: 'minor',
    ...extra,
  });
  const other = await createAlert(api, {
    resource: `${group}-o`,
    group,
    event: 'e',
    severity: 'major',
    ...extra,
  });
  return { group, target, other, selection: `?group=${enc(group)}&severity=minor` };
}

bulkSuite('one match, status: 200 with the id, history written, one event', async (ctx) => {
  const { api } = ctx;
  const { target, other, selection } = await pair(api, 'one-status');
  const otherBefore = await snapshot(api, other.id);
  const rec = record(ctx);
  const r = await bulk(api, 'status', selection, { status: 'assign', text: 'bulk one', timeout: 600 });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body, { status: 'ok', updated: [target.id], count: 1 });
  const s = await getAlert(api, target.id);
  assert.equal([s.status, s.timeout, s.severity], ['assign', 600, 'minor']);
  assert.equal(
    s.history.map((h) => h.type),
    ['new', 'status'],
  );
  const entry = s.history.at(-1)!;
  assert.equal([entry.status, entry.text, entry.timeout], ['assign', 'bulk one', 600]);
  assert.equal(await snapshot(api, other.id), otherBefore);
  assert.equal(await eventsById(rec), { [target.id]: ['alert.updated'] });
  rec.stop();
});

bulkSuite('one match, action: always a task; ack applied with history and one event', async (ctx) => {
  const { api } = ctx;
  const { target, other, selection } = await pair(api, 'one-action');
  const otherBefore = await snapshot(api, other.id);
  const rec = record(ctx);
  const r = await bulk(api, 'action', selection, { action: 'ack', text: 'bulk ack one' });
  const taskId = expectQueued(api, r, 1, 'action');
  assert.is(r.body.message, '1 alerts queued for action');
  const { ids } = await expectTaskSuccess(api, taskId, 1, 'updated');
  assert.equal(ids, [target.id]);
  const s = await getAlert(api, target.id);
  assert.is(s.status, 'ack');
  assert.equal(
    s.history.map((h) => h.type),
    ['new', 'ack'],
    'the same history as PUT /alert/:id/action',
  );
  const entry = s.history.at(-1)!;
  assert.equal([entry.status, entry.text], ['ack', 'bulk ack one']);
  assert.equal(await snapshot(api, other.id), otherBefore);
  const seen = await eventsById(rec);
  assert.equal(Object.keys(seen), [target.id], 'only the changed alert is published');
  const types = seen[target.id] ?? [];
  assert.ok(types.length >= 1 && types.every((t) => t === 'alert.updated'), JSON.stringify(types));
  rec.stop();
  // A finished task can be read again, unchanged.
  const again = TaskSchema.parse(await (await api.get(`/_bulk/task/${taskId}`)).json());
  assert.equal([again.status, again.progress, again.result?.count], ['success', { done: 1, total: 1 }, 1]);
});

bulkSuite('one match, tag: set semantics, no history, one event', async (ctx) => {
  const { api } = ctx;
  const { target, other, selection } = await pair(api, 'one-tag', { tags: ['base'] });
  const otherBefore = await snapshot(api, other.id);
  const rec = record(ctx);
  const r = await bulk(api, 'tag', selection, { tags: ['t1', 't2', 't1', 'base'] });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body, { status: 'ok', updated: [target.id], count: 1 });
  const s = await getAlert(api, target.id);
  assert.equal(sorted(s.tags), ['base', 't1', 't2']);
  assert.is(s.history.length, 1, 'tagging adds no history');
  assert.equal(await snapshot(api, other.id), otherBefore);
  assert.equal(await eventsById(rec), { [target.id]: ['alert.updated'] });
  rec.stop();
});

bulkSuite('one match, untag: removes only the given tags, one event', async (ctx) => {
  const { api } = ctx;
  const { target, other, selection } = await pair(api, 'one-untag', { tags: ['keep', 'drop'] });
  const otherBefore = await snapshot(api, other.id);
  const rec = record(ctx);
  const r = await bulk(api, 'untag', selection, { tags: ['drop', 'missing'] });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body, { status: 'ok', updated: [target.id], count: 1 });
  const s = await getAlert(api, target.id);
  assert.equal(s.tags, ['keep']);
  assert.is(s.history.length, 1);
  assert.equal(await snapshot(api, other.id), otherBefore);
  assert.equal(await eventsById(rec), { [target.id]: ['alert.updated'] });
  rec.stop();
});

bulkSuite('one match, attributes: merged, null deletes a key, one event', async (ctx) => {
  const { api } = ctx;
  const { target, other, selection } = await pair(api, 'one-attrs', { attributes: { keep: 1, drop: 2 } });
  const otherBefore = await snapshot(api, other.id);
  const rec = record(ctx);
  const r = await bulk(api, 'attributes', selection, { attributes: { drop: null, added: 'yes' } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body, { status: 'ok', updated: [target.id], count: 1 });
  const s = await getAlert(api, target.id);
  assert.is(s.attributes.keep, 1);
  assert.is(s.attributes.added, 'yes');
  assert.ok(!('drop' in s.attributes), `drop still there: ${JSON.stringify(s.attributes)}`);
  assert.equal(await snapshot(api, other.id), otherBefore);
  assert.equal(await eventsById(rec), { [target.id]: ['alert.updated'] });
  rec.stop();
});

bulkSuite('one match, delete: 200 with the id, alert and history gone, one event', async (ctx) => {
  const { api, db } = ctx;
  const { target, other, selection } = await pair(api, 'one-delete');
  const otherBefore = await snapshot(api, other.id);
  const rec = record(ctx);
  const r = await bulk(api, 'delete', selection);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body, { status: 'ok', deleted: [target.id], count: 1 });
  await expectError(await api.get(`/alert/${target.id}`), 404);
  assert.equal(
    await queryDb(db.url, 'SELECT 1 FROM alert_history WHERE alert_id = $1', [target.id]),
    [],
    'history deleted with the alert',
  );
  assert.equal(await snapshot(api, other.id), otherBefore);
  assert.equal(await eventsById(rec), { [target.id]: ['alert.deleted'] });
  const e = rec.events[0];
  assert.equal(e, { type: 'alert.deleted', id: target.id, customer: null });
  rec.stop();
});

bulkSuite('small N: every changed alert is published, unchanged ones are not', async (ctx) => {
  const { api } = ctx;
  const group = fresh('events');
  const ids = await seedGroup(api, group, 4);
  const outside = await createAlert(api, { resource: fresh('events-out'), event: 'e', severity: 'major' });
  let rec = record(ctx);
  let r = await bulk(api, 'tag', `?group=${enc(group)}`, { tags: ['ev'] });
  assert.equal([r.status, r.body.count], [200, 4]);
  assert.equal(sorted(r.body.updated as string[]), sorted(ids));
  let seen = await eventsById(rec);
  rec.stop();
  assert.equal(sorted(Object.keys(seen)), sorted(ids));
  for (const id of ids) assert.equal(seen[id], ['alert.updated']);

  rec = record(ctx);
  r = await bulk(api, 'delete', `?group=${enc(group)}`);
  assert.equal([r.status, r.body.count], [200, 4]);
  assert.equal(sorted(r.body.deleted as string[]), sorted(ids));
  seen = await eventsById(rec);
  rec.stop();
  assert.equal(sorted(Object.keys(seen)), sorted(ids));
  for (const id of ids) assert.equal(seen[id], ['alert.deleted']);
  assert.ok(!(outside.id in seen));
  assert.is((await getAlert(api, outside.id)).id, outside.id);
});

bulkSuite(
  'an action invalid for some alerts lists them in result.errors and applies the valid ones',
  async (ctx) => {
    const { api } = ctx;
    const group = fresh('mixed');
    const ids = await seedGroup(api, group, 4);
    const [acked1, acked2, open1, open2] = ids as [string, string, string, string];
    for (const id of [acked1, acked2])
      assert.is((await put(api, `/alert/${id}/action`, { action: 'ack' })).status, 200);
    // The single endpoint refuses unack on an open alert with 409.
    const single = await put(api, `/alert/${open1}/action`, { action: 'unack' });
    assert.is(single.status, 409);
    const refusal = String(single.body.message);
    assert.is(refusal, 'invalid action for current open status');

    const rec = record(ctx);
    const r = await bulk(api, 'action', `?group=${enc(group)}`, { action: 'unack', text: 'bulk unack' });
    const task = await waitTask(api, expectQueued(api, r, 4, 'action'));
    assert.is(task.status, 'success', JSON.stringify(task));
    assert.equal(task.progress, { done: 4, total: 4 });
    const result = task.result!;
    assert.is(result.count, 2);
    assert.equal(sorted(result.updated ?? []), sorted([acked1, acked2]));
    assert.is(result.errors.length, 2, JSON.stringify(result.errors));
    const errorsText = JSON.stringify(result.errors);
    for (const id of [open1, open2]) assert.ok(errorsText.includes(id), `errors name ${id}: ${errorsText}`);
    for (const id of [acked1, acked2]) assert.ok(!errorsText.includes(id), `errors do not name ${id}`);
    assert.ok(errorsText.includes(refusal), `errors give the reason: ${errorsText}`);

    for (const id of [acked1, acked2]) {
      const s = await getAlert(api, id);
      assert.is(s.status, 'open');
      assert.equal(
        s.history.map((h) => h.type),
        ['new', 'ack', 'unack'],
      );
      assert.is(s.history.at(-1)!.text, 'bulk unack');
    }
    for (const id of [open1, open2]) {
      const s = await getAlert(api, id);
      assert.equal([s.status, s.history.length], ['open', 1], 'refused alerts are untouched');
    }
    const seen = await eventsById(rec);
    rec.stop();
    assert.equal(sorted(Object.keys(seen)), sorted([acked1, acked2]), 'only changed alerts are published');
  },
);

bulkSuite('the selection takes q exactly as GET /alerts does', async ({ api }) => {
  const tok = `bq${stamp}x`;
  const a1 = await createAlert(api, { resource: `${tok}a1`, event: 'e', severity: 'major' });
  const a2 = await createAlert(api, { resource: `${tok}a2`, event: 'e', severity: 'minor' });
  const b1 = await createAlert(api, { resource: `${tok}b1`, event: 'e', severity: 'minor' });
  const q = `?q=${enc(`resource:${tok}a`)}`;
  assert.is(await count(api, q), 2, 'GET /alerts/count agrees');

  let r = await bulk(api, 'tag', q, { tags: ['by-q'] });
  assert.equal([r.status, r.body.count], [200, 2], JSON.stringify(r.body));
  assert.equal(sorted(r.body.updated as string[]), sorted([a1.id, a2.id]));

  // q combines with filters (AND).
  r = await bulk(api, 'attributes', `${q}&severity=minor`, { attributes: { qf: 'yes' } });
  assert.equal([r.status, r.body.updated], [200, [a2.id]], JSON.stringify(r.body));

  // A Lucene OR expression.
  r = await bulk(api, 'status', `?q=${enc(`resource:${tok}a1 OR resource:${tok}b1`)}`, { status: 'assign' });
  assert.equal([r.status, r.body.count], [200, 2], JSON.stringify(r.body));
  assert.equal(sorted(r.body.updated as string[]), sorted([a1.id, b1.id]));

  const [s1, s2, s3] = await Promise.all([getAlert(api, a1.id), getAlert(api, a2.id), getAlert(api, b1.id)]);
  assert.equal([sorted(s1.tags), sorted(s2.tags), sorted(s3.tags)], [['by-q'], ['by-q'], []]);
  assert.equal([s1.attributes.qf, s2.attributes.qf, s3.attributes.qf], [undefined, 'yes', undefined]);
  assert.equal([s1.status, s2.status, s3.status], ['assign', 'open', 'assign']);
});

bulkSuite('the selection takes id prefixes (case-insensitive, repeatable)', async ({ api }) => {
  const prefix = `BulkPfx${stamp}`;
  const [a1, a2, b1] = [`${prefix}-A1`, `${prefix}-A2`, `${prefix}-B1`];
  const ids = [a1, a2, b1];
  for (const id of ids) await createAlert(api, { id, resource: `${id}-res`, event: 'e', severity: 'major' });

  let r = await bulk(api, 'attributes', `?id=${enc(`${prefix}-a`.toLowerCase())}`, {
    attributes: { pfx: 'a' },
  });
  assert.equal([r.status, r.body.count], [200, 2], JSON.stringify(r.body));
  assert.equal(sorted(r.body.updated as string[]), sorted([a1, a2]));
  assert.equal(await Promise.all(ids.map(async (id) => (await getAlert(api, id)).attributes.pfx)), [
    'a',
    'a',
    undefined,
  ]);

  r = await bulk(api, 'delete', `?id=${enc(a1)}&id=${enc(b1.slice(0, -1))}`);
  assert.equal([r.status, r.body.count], [200, 2], JSON.stringify(r.body));
  assert.equal(sorted(r.body.deleted as string[]), sorted([a1, b1]));
  await expectError(await api.get(`/alert/${a1}`), 404);
  await expectError(await api.get(`/alert/${b1}`), 404);
  assert.is((await getAlert(api, a2)).id, a2);
});

bulkSuite('1000 alerts are answered inline, 1001 become a task', async ({ api }) => {
  const group = fresh('sync-limit');
  const ids = await seedGroup(api, group, 1000);
  const last = (await seed(api, 1, () => ({ resource: `${group}-minor`, group, severity: 'minor' })))[0]!;
  const inline = await bulk(api, 'tag', `?group=${enc(group)}&severity=major`, { tags: ['inline'] });
  assert.is(inline.status, 200, JSON.stringify(inline.body).slice(0, 300));
  assert.is(inline.body.count, 1000);
  assert.equal(sorted(inline.body.updated as string[]), sorted(ids));
  assert.is(await count(api, `?group=${enc(group)}&tag=inline`), 1000);

  const queued = await bulk(api, 'tag', `?group=${enc(group)}`, { tags: ['queued'] });
  const { ids: updated } = await expectTaskSuccess(
    api,
    expectQueued(api, queued, 1001, 'tag'),
    1001,
    'updated',
  );
  assert.equal(sorted(updated), sorted([...ids, last]));
  assert.is(await count(api, `?group=${enc(group)}&tag=queued`), 1001);
});

// --- 5,000 alerts: every operation becomes a task and changes every selected alert ------------

bulkSuite(
  `${BIG} alerts, status: task, every alert changed with a 'bulk status update' entry`,
  async (ctx) => {
    const { api, db } = ctx;
    const group = fresh('status-5k');
    const ids = await seedGroup(api, group, BIG);
    const sel = `?group=${enc(group)}`;
    const rec = record(ctx);
    await bigTask(api, 'status', sel, { status: 'assign' }, ids);
    assert.is(await count(api, `${sel}&status=assign`), BIG);
    assert.is(await count(api, sel), BIG);
    await expectOneEntryEach(db.url, group, { type: 'status', status: 'assign', text: 'bulk status update' });
    await expectPublished(rec, 'alert.updated', ids);
  },
);

bulkSuite(`${BIG} alerts, action: ack applied to every alert with history`, async (ctx) => {
  const { api, db } = ctx;
  const group = fresh('action-5k');
  const ids = await seedGroup(api, group, BIG);
  const sel = `?group=${enc(group)}`;
  const rec = record(ctx);
  await bigTask(api, 'action', sel, { action: 'ack', text: 'bulk ack 5k' }, ids);
  assert.is(await count(api, `${sel}&status=ack`), BIG);
  await expectOneEntryEach(db.url, group, { type: 'ack', status: 'ack', text: 'bulk ack 5k' });
  await expectPublished(rec, 'alert.updated', ids);
});

bulkSuite(`${BIG} alerts, tag: every alert tagged; an alert added after the request is not`, async (ctx) => {
  const { api, db } = ctx;
  const group = fresh('tag-5k');
  const ids = await seedGroup(api, group, BIG);
  const sel = `?group=${enc(group)}`;
  const rec = record(ctx);
  const r = await bulk(api, 'tag', sel, { tags: ['big1', 'big2'] });
  const taskId = expectQueued(api, r, BIG, 'tag');
  // Selected ids are fixed when the task is created: a later alert in the same group is outside it.
  const late = await createAlert(api, { resource: `${group}-late`, group, event: 'e', severity: 'major' });
  const { ids: updated } = await expectTaskSuccess(api, taskId, BIG, 'updated');
  assert.equal(sorted(updated), sorted(ids));
  assert.is(await count(api, `${sel}&tag=big1`), BIG);
  assert.is(await count(api, `${sel}&tag=big2`), BIG);
  const rows = await queryDb<{ n: number }>(
    db.url,
    `SELECT count(*)::int AS n FROM alerts WHERE "group" = $1 AND tags @> ARRAY['big1', 'big2']`,
    [group],
  );
  assert.equal(rows, [{ n: BIG }]);
  assert.equal((await getAlert(api, late.id)).tags, [], 'the later alert is not in the selection');
  assert.is(await count(api, sel), BIG + 1);
  const published = await rec.ids('alert.updated', BIG + 1);
  rec.stop();
  assert.ok(
    ids.every((id) => published.has(id)),
    'every changed alert is published',
  );
});

bulkSuite(`${BIG} alerts, untag: the tag removed from every alert, others kept`, async (ctx) => {
  const { api, db } = ctx;
  const group = fresh('untag-5k');
  const ids = await seedGroup(api, group, BIG, { tags: ['keep', 'drop5k'] });
  const sel = `?group=${enc(group)}`;
  assert.is(await count(api, `${sel}&tag=drop5k`), BIG);
  const rec = record(ctx);
  await bigTask(api, 'untag', sel, { tags: ['drop5k'] }, ids);
  assert.is(await count(api, `${sel}&tag=drop5k`), 0);
  assert.is(await count(api, `${sel}&tag=keep`), BIG);
  const rows = await queryDb<{ n: number }>(
    db.url,
    `SELECT count(*)::int AS n FROM alerts WHERE "group" = $1 AND tags = ARRAY['keep']`,
    [group],
  );
  assert.equal(rows, [{ n: BIG }]);
  await expectPublished(rec, 'alert.updated', ids);
});

bulkSuite(`${BIG} alerts, attributes: merged into every alert, null deletes`, async (ctx) => {
  const { api, db } = ctx;
  const group = fresh('attrs-5k');
  const ids = await seedGroup(api, group, BIG, { attributes: { keep: 'k', drop: 'd' } });
  const sel = `?group=${enc(group)}`;
  const rec = record(ctx);
  await bigTask(api, 'attributes', sel, { attributes: { drop: null, added: 'yes' } }, ids);
  assert.is(await count(api, `${sel}&attributes.added=yes`), BIG);
  const [row] = await queryDb<{ n: number; dropped: number }>(
    db.url,
    `SELECT count(*) FILTER (WHERE attributes->>'added' = 'yes' AND attributes->>'keep' = 'k'
                             AND NOT attributes ? 'drop')::int AS n,
            count(*) FILTER (WHERE attributes ? 'drop')::int AS dropped
       FROM alerts WHERE "group" = $1`,
    [group],
  );
  assert.equal(row, { n: BIG, dropped: 0 });
  await expectPublished(rec, 'alert.updated', ids);
});

bulkSuite(`${BIG} alerts, delete: all gone with their history; other alerts untouched`, async (ctx) => {
  const { api, db } = ctx;
  const group = fresh('delete-5k');
  const ids = await seedGroup(api, group, BIG);
  const neighbour = await createAlert(api, {
    resource: `${group}-neighbour`,
    group: `${group}-neighbour`,
    event: 'e',
    severity: 'major',
  });
  const everything = await count(api, '');
  const sel = `?group=${enc(group)}`;
  const rec = record(ctx);
  await bigTask(api, 'delete', sel, undefined, ids, 'deleted');
  assert.is(await count(api, sel), 0);
  assert.is(await count(api, ''), everything - BIG, 'only the selection is deleted');
  assert.is((await getAlert(api, neighbour.id)).id, neighbour.id);
  const [row] = await queryDb<{ alerts: number; history: number }>(
    db.url,
    `SELECT (SELECT count(*)::int FROM alerts WHERE id = ANY($1)) AS alerts,
            (SELECT count(*)::int FROM alert_history WHERE alert_id = ANY($1)) AS history`,
    [ids],
  );
  assert.equal(row, { alerts: 0, history: 0 });
  const published = await expectPublished(rec, 'alert.deleted', ids);
  assert.ok(!published.has(neighbour.id));
});

// --- validation ----------------------------------------------------------------------------------

bulkSuite('invalid bodies are 400 (never 500) and change nothing', async (ctx) => {
  const { api } = ctx;
  const group = fresh('invalid');
  const a = await createAlert(api, {
    resource: group,
    group,
    event: 'e',
    severity: 'major',
    tags: ['v'],
    attributes: { v: 1 },
  });
  const before = await snapshot(api, a.id);
  const sel = `?group=${enc(group)}`;
  const rec = record(ctx);

  await expectError(await bulk(api, 'status', sel, { status: 'asleep' }), 400, /asleep/);
  await expectError(await bulk(api, 'status', sel, {}), 400);
  await expectError(await bulk(api, 'status', sel, { status: 42 }), 400);
  await expectError(await bulk(api, 'action', sel, { action: 'two words' }), 400, /action/);
  await expectError(await bulk(api, 'action', sel, {}), 400);
  for (const op of ['tag', 'untag'] as const) {
    for (const body of [{}, { tags: [] }, { tags: 'x' }, { tags: null }, { tags: [1] }, []]) {
      await expectError(await bulk(api, op, sel, body), 400);
    }
  }
  for (const body of [
    {},
    { attributes: 'x' },
    { attributes: [1, 2] },
    { attributes: null },
    { attributes: 3 },
  ]) {
    await expectError(await bulk(api, 'attributes', sel, body), 400);
  }

  assert.equal(await snapshot(api, a.id), before, 'a refused request changes nothing');
  assert.equal(await eventsById(rec), {}, 'a refused request publishes nothing');
  rec.stop();
});

bulkSuite('a body that is not JSON is 415', async ({ api }) => {
  const group = fresh('415');
  const a = await createAlert(api, { resource: group, group, event: 'e', severity: 'major' });
  const before = await snapshot(api, a.id);
  for (const op of ['status', 'action', 'tag', 'untag', 'attributes'] as const) {
    const res = await api.put(`/_bulk/alerts/${op}?group=${enc(group)}`, undefined, {
      raw: 'status=closed&action=close&tags=x',
      headers: { 'Content-Type': 'text/plain' },
    });
    await expectError(res, 415);
  }
  assert.equal(await snapshot(api, a.id), before);
});

bulkSuite('a bad selection is 400 on every bulk operation and changes nothing', async ({ api }) => {
  const group = fresh('badsel');
  const a = await createAlert(api, { resource: group, group, event: 'e', severity: 'major' });
  const before = await snapshot(api, a.id);
  const g = `group=${enc(group)}`;
  for (const op of OPS) {
    await expectError(await bulk(api, op, `?${g}&foo=bar`, BODY[op]), 400, /Invalid filter parameter: foo/);
    await expectError(await bulk(api, op, `?${g}&duplicateCount=abc`, BODY[op]), 400, /duplicateCount/);
    await expectError(await bulk(api, op, `?${g}&q=${enc('resource:(')}`, BODY[op]), 400);
    await expectError(await bulk(api, op, `?${g}&from-date=yesterday`, BODY[op]), 400, /ISO 8601/);
  }
  assert.equal(await snapshot(api, a.id), before);
});

bulkSuite('an unknown task is 404', async ({ api }) => {
  await expectError(await api.get(`/_bulk/task/${randomUUID()}`), 404);
  await expectError(await api.get('/_bulk/task/not-a-task'), 404);
});

bulkSuite.run();

// --- BULK_QUERY_LIMIT -------------------------------------------------------------------------------

const limit = appSuite('BULK_QUERY_LIMIT', {
  TEST_LABEL: 'bulk_limit',
  PLUGINS: 'remote_ip',
  BULK_QUERY_LIMIT: '3',
});

limit(
  'a selection larger than BULK_QUERY_LIMIT is 400 for every operation and changes nothing',
  async (ctx) => {
    const { api } = ctx;
    const group = fresh('over');
    const ids = await seedGroup(api, group, 4);
    const before = await Promise.all(ids.map((id) => snapshot(api, id)));
    const rec = record(ctx);
    for (const op of OPS) await expectError(await bulk(api, op, `?group=${enc(group)}`, BODY[op]), 400);
    // No parameters selects every alert the caller may see: also over the limit.
    await expectError(await bulk(api, 'tag', '', BODY.tag), 400);
    await expectError(await bulk(api, 'delete', ''), 400);
    assert.equal(await Promise.all(ids.map((id) => snapshot(api, id))), before);
    assert.equal(await eventsById(rec), {});
    rec.stop();
  },
);

limit('a selection of exactly BULK_QUERY_LIMIT alerts is accepted by every operation', async ({ api }) => {
  const group = fresh('at');
  const ids = await seedGroup(api, group, 3);
  const sel = `?group=${enc(group)}`;
  const sync = [
    ['status', { status: 'assign' }],
    ['tag', { tags: ['at', 'gone'] }],
    ['untag', { tags: ['gone'] }],
    ['attributes', { attributes: { at: 'limit' } }],
  ] as const;
  const action = await bulk(api, 'action', sel, { action: 'ack' });
  const { ids: acked } = await expectTaskSuccess(api, expectQueued(api, action, 3, 'action'), 3, 'updated');
  assert.equal(sorted(acked), sorted(ids));
  for (const [op, body] of sync) {
    const r = await bulk(api, op, sel, body);
    assert.is(r.status, 200, `${op}: ${JSON.stringify(r.body)}`);
    assert.is(r.body.count, 3, op);
    assert.equal(sorted(r.body.updated as string[]), sorted(ids), op);
  }
  for (const id of ids) {
    const s = await getAlert(api, id);
    assert.equal([s.status, s.tags, s.attributes.at], ['assign', ['at'], 'limit']);
    assert.equal(
      s.history.map((h) => h.type),
      ['new', 'ack', 'status'],
    );
  }
  const del = await bulk(api, 'delete', sel);
  assert.is(del.status, 200, JSON.stringify(del.body));
  assert.is(del.body.count, 3);
  assert.equal(sorted(del.body.deleted as string[]), sorted(ids));
  assert.is(await count(api, sel), 0);
});

limit.run();
