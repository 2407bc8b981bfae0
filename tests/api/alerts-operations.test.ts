import * as assert from 'uvu/assert';
import { NoteSchema } from '../../shared/alerts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import type { LiveEvent } from '../../shared/events.ts';
import { createAlert, getAlert, postAlert, put } from '../helpers/alerts.ts';
import { appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

let n = 0;
const fresh = (label: string) => `${label}-${++n}-${Date.now()}`;
const ops = appSuite('per-alert operations', {
  TEST_LABEL: 'ops',
  ACTIONS: 'escalate',
  PLUGINS: 'remote_ip,reject,acked_by,escalate',
});

async function expectError(res: Response, status: number, message?: RegExp) {
  const body = ErrorBodySchema.parse(await res.json());
  assert.is(res.status, status);
  if (message) assert.match(body.message, message);
  return body;
}

ops('GET /alert/:id by full id, short prefix and lastReceiveId; 404 JSON for unknown', async ({ api }) => {
  const a = await createAlert(api, { resource: fresh('get'), event: 'e', severity: 'minor', rawData: 'raw' });
  const full = await api.get(`/alert/${a.id}`);
  const body = (await full.json()) as {
    status: string;
    total: number;
    alert: { id: string; rawData: string };
  };
  assert.equal(
    [full.status, body.status, body.total, body.alert.id, body.alert.rawData],
    [200, 'ok', 1, a.id, 'raw'],
  );
  assert.is((await getAlert(api, a.id.slice(0, 8))).id, a.id);
  assert.is((await getAlert(api, a.id.slice(0, 8).toUpperCase())).id, a.id);
  const dup = (await postAlert(api, { resource: a.resource, event: 'e', severity: 'minor' })).body.alert;
  assert.is((await getAlert(api, dup.lastReceiveId)).id, a.id);
  await expectError(await api.get('/alert/00000000-0000-4000-8000-000000000000'), 404, /not found/);
  await expectError(await api.get('/alert/%25%5F'), 400);
});

ops(
  'PUT /status sets any listed status with history, timeout and text; refuses unknown ones',
  async ({ api }) => {
    const a = await createAlert(api, { resource: fresh('status'), event: 'e', severity: 'major' });
    const r = await put(api, `/alert/${a.id}/status`, { status: 'assign', text: 'to ops', timeout: 600 });
    assert.equal([r.status, r.body.status], [200, 'ok']);
    const b = await getAlert(api, a.id);
    assert.is(b.status, 'assign');
    assert.is(b.timeout, 600);
    assert.is(b.severity, 'major');
    assert.ok(b.updateTime >= a.updateTime);
    const entry = b.history.at(-1)!;
    assert.equal([entry.type, entry.status, entry.text, entry.timeout], ['status', 'assign', 'to ops', 600]);
    await put(api, `/alert/${a.id}/status`, { status: 'open' });
    assert.is(
      (await getAlert(api, a.id)).timeout,
      86400,
      'a status change without timeout resets it to ALERT_TIMEOUT',
    );
    await expectError(
      await api.put(`/alert/${a.id}/status`, { status: 'asleep' }),
      400,
      /invalid status 'asleep'/,
    );
    await expectError(await api.put(`/alert/${a.id}/status`, {}), 400, /must supply 'status' as json data/);
    await expectError(
      await api.put(`/alert/${a.id}/status`, { status: 'ack', timeout: -1 }),
      400,
      /negative/,
    );
    await expectError(await api.put('/alert/nope-nope/status', { status: 'ack' }), 404);
  },
);

ops(
  'ack → 409 on second ack → unack restores → shelve → unshelve → close → open restores severity',
  async ({ api }) => {
    const a = await createAlert(api, { resource: fresh('actions'), event: 'e', severity: 'major' });
    const act = (action: string, extra: Record<string, unknown> = {}) =>
      put(api, `/alert/${a.id}/action`, { action, ...extra });

    assert.is((await act('ack', { text: 'looking' })).status, 200);
    let s = await getAlert(api, a.id);
    assert.is(s.status, 'ack');
    const ackEntry = s.history.at(-1)!;
    assert.equal(
      [ackEntry.type, ackEntry.status, ackEntry.text, ackEntry.timeout],
      ['ack', 'ack', 'looking', 0],
    );
    assert.is(s.attributes['acked-by'], undefined, 'anonymous callers leave no acked-by');

    const again = await act('ack');
    assert.is(again.status, 409);
    assert.is(again.body.message, 'alert is already in ack status');

    await act('unack');
    s = await getAlert(api, a.id);
    assert.is(s.status, 'open');
    assert.is(s.history.at(-1)!.text, 'unack operator action');

    await act('shelve', { timeout: 120 });
    s = await getAlert(api, a.id);
    assert.equal([s.status, s.history.at(-1)!.timeout], ['shelved', 120]);
    const shelvedAgain = await act('shelve');
    assert.equal(
      [shelvedAgain.status, shelvedAgain.body.message],
      [409, 'alert is already in shelved status'],
    );
    assert.is((await act('ack')).body.message, 'invalid action for current shelved status');

    await act('unshelve');
    assert.is((await getAlert(api, a.id)).status, 'open');

    await act('close');
    s = await getAlert(api, a.id);
    assert.equal([s.status, s.severity, s.previousSeverity], ['closed', 'normal', 'major']);
    assert.is((await act('close')).body.message, 'alert is already in closed status');
    assert.is((await act('ack')).body.message, 'invalid action for current closed status');

    await act('open');
    s = await getAlert(api, a.id);
    assert.equal([s.status, s.severity], ['open', 'major']);
    assert.is((await act('open')).body.message, 'alert is already in open status');
    assert.equal(
      s.history.map((h) => h.type),
      ['new', 'ack', 'unack', 'shelve', 'unshelve', 'close', 'open'],
    );
  },
);

ops('short id prefixes work on every per-alert operation', async ({ api }) => {
  const a = await createAlert(api, { resource: fresh('prefix'), event: 'e', severity: 'major' });
  const short = a.id.slice(0, 8);
  assert.is((await put(api, `/alert/${short}/action`, { action: 'shelve' })).status, 200);
  assert.is((await put(api, `/alert/${short}/status`, { status: 'open' })).status, 200);
  assert.is((await put(api, `/alert/${short}/tag`, { tags: ['p'] })).status, 200);
  assert.is((await put(api, `/alert/${short}/attributes`, { attributes: { p: 1 } })).status, 200);
  assert.is((await api.put(`/alert/${short}/note`, { text: 'n' })).status, 201);
  assert.is((await api.get(`/alert/${short}/notes`)).status, 200);
  const s = await getAlert(api, a.id);
  assert.equal([s.tags, s.attributes.p, s.history.at(-2)!.type], [['p'], 1, 'status']);
  const shelve = s.history.find((h) => h.type === 'shelve')!;
  assert.is(shelve.timeout, 7200, 'shelve without a timeout records SHELVE_TIMEOUT');
  assert.is((await api.delete(`/alert/${short}`)).status, 200);
  assert.is((await api.get(`/alert/${a.id}`)).status, 404);
});

ops('ack from assign changes nothing (ALL-*)', async ({ api }) => {
  const a = await createAlert(api, { resource: fresh('unack'), event: 'e', severity: 'minor' });
  await put(api, `/alert/${a.id}/status`, { status: 'assign' });
  await put(api, `/alert/${a.id}/action`, { action: 'ack' });
  const s = await getAlert(api, a.id);
  assert.is(s.status, 'assign', 'ack changes nothing from assign (ALL-*)');
});

ops('an acked alert re-opens on a real severity increase, stays acked otherwise', async ({ api }) => {
  const resource = fresh('ack4');
  const a = await createAlert(api, { resource, event: 'e', severity: 'minor' });
  await put(api, `/alert/${a.id}/action`, { action: 'ack' });
  const dup = (await postAlert(api, { resource, event: 'e', severity: 'minor' })).body.alert;
  assert.is(dup.status, 'ack');
  const less = (await postAlert(api, { resource, event: 'e', severity: 'warning' })).body.alert;
  assert.is(less.status, 'ack');
  const worse = (await postAlert(api, { resource, event: 'e', severity: 'critical' })).body.alert;
  assert.is(worse.status, 'open');
  assert.is(worse.history.at(-1)!.status, 'open');
});

ops('a shelved alert stays shelved on duplicates and correlates; a clear closes it', async ({ api }) => {
  const resource = fresh('shelf');
  const a = await createAlert(api, { resource, event: 'e', severity: 'minor' });
  await put(api, `/alert/${a.id}/action`, { action: 'shelve' });
  assert.is((await postAlert(api, { resource, event: 'e', severity: 'major' })).body.alert.status, 'shelved');
  assert.is(
    (await postAlert(api, { resource, event: 'e', severity: 'major' })).body.alert.attributes.notify,
    false,
  );
  assert.is((await postAlert(api, { resource, event: 'e', severity: 'normal' })).body.alert.status, 'closed');
});

ops(
  'custom actions run plugins without changing status; any other name is a custom action too',
  async ({ api }) => {
    const a = await createAlert(api, { resource: fresh('esc'), event: 'e', severity: 'minor' });
    const r = await put(api, `/alert/${a.id}/action`, { action: 'escalate' });
    assert.is(r.status, 200);
    const s = await getAlert(api, a.id);
    assert.equal([s.severity, s.status, s.previousSeverity], ['major', 'open', 'minor']);
    assert.is(s.history.at(-1)!.type, 'action');
    const other = await put(api, `/alert/${a.id}/action`, { action: 'dance' });
    assert.is(other.status, 200);
    const d = await getAlert(api, a.id);
    assert.equal([d.severity, d.status, d.history.at(-1)!.type], ['major', 'open', 'action']);
    await expectError(
      await api.put(`/alert/${a.id}/action`, { text: 'x' }),
      400,
      /must supply 'action' as json data/,
    );
  },
);

ops('tag and untag have set semantics, are idempotent and add no history', async ({ api }) => {
  const a = await createAlert(api, { resource: fresh('tags'), event: 'e', tags: ['x'] });
  for (let i = 0; i < 2; i++)
    assert.is((await put(api, `/alert/${a.id}/tag`, { tags: ['y', 'z', 'y'] })).status, 200);
  let s = await getAlert(api, a.id);
  assert.equal([...s.tags].sort(), ['x', 'y', 'z']);
  for (let i = 0; i < 2; i++) await put(api, `/alert/${a.id}/untag`, { tags: ['x', 'missing'] });
  s = await getAlert(api, a.id);
  assert.equal([...s.tags].sort(), ['y', 'z']);
  assert.is(s.history.length, 1);
  assert.is(s.updateTime, a.updateTime);
  await expectError(await api.put(`/alert/${a.id}/tag`, {}), 400, /must supply 'tags' as json list/);
  await expectError(
    await api.put(`/alert/${a.id}/untag`, { tags: [] }),
    400,
    /must supply 'tags' as json list/,
  );
  await expectError(await api.put(`/alert/${a.id}/tag`, { tags: 'x' }), 400);
});

ops('attributes merge; a null value deletes the key', async ({ api }) => {
  const a = await createAlert(api, {
    resource: fresh('attrs'),
    event: 'e',
    attributes: { keep: 1, drop: 2 },
  });
  assert.is(
    (await put(api, `/alert/${a.id}/attributes`, { attributes: { drop: null, added: 'yes' } })).status,
    200,
  );
  const s = await getAlert(api, a.id);
  assert.is(s.attributes.keep, 1);
  assert.is(s.attributes.added, 'yes');
  assert.ok(!('drop' in s.attributes));
  await expectError(
    await api.put(`/alert/${a.id}/attributes`, { attributes: {} }),
    400,
    /must supply 'attributes'/,
  );
  await expectError(
    await api.put(`/alert/${a.id}/attributes`, { attributes: { a$b: 1 } }),
    400,
    /must not contain/,
  );
});

ops('notes: add ({text} or {note}), list, edit, delete with history entries', async ({ api, origin }) => {
  const a = await createAlert(api, { resource: fresh('notes'), event: 'e', severity: 'minor' });
  const add = await api.put(`/alert/${a.id}/note`, { text: 'first' });
  assert.is(add.status, 201);
  const added = (await add.json()) as { status: string; id: string; note: unknown };
  const note = NoteSchema.parse(added.note);
  assert.is(added.id, note.id);
  assert.is(add.headers.get('location'), `${origin}/api/alert/${a.id}/note/${note.id}`);
  assert.equal([note.text, note.related.alert, note.attributes.severity], ['first', a.id, 'minor']);
  const second = (await (await api.put(`/alert/${a.id}/note`, { note: 'second' })).json()) as { id: string };

  const list = (await (await api.get(`/alert/${a.id}/notes`)).json()) as {
    notes: { id: string; text: string }[];
    total: number;
  };
  assert.equal(
    list.notes.map((x) => x.text),
    ['first', 'second'],
  );
  assert.is(list.total, 2);

  const edit = await api.put(`/alert/${a.id}/note/${note.id}`, { text: 'edited' });
  assert.is(edit.status, 200);
  const edited = NoteSchema.parse(((await edit.json()) as { note: unknown }).note);
  assert.is(edited.text, 'edited');
  assert.ok(edited.updateTime);
  await expectError(await api.put(`/alert/${a.id}/note/${note.id}`, {}), 400, /nothing to change/);

  assert.is((await api.delete(`/alert/${a.id}/note/${second.id}`)).status, 200);
  await expectError(await api.delete(`/alert/${a.id}/note/${second.id}`), 404, /note not found/);
  await expectError(await api.put(`/alert/${a.id}/note/not-a-uuid`, { text: 'x' }), 404, /note not found/);
  await expectError(await api.put(`/alert/${a.id}/note`, { text: '' }), 400, /must supply 'note' text/);

  const s = await getAlert(api, a.id);
  assert.equal(
    s.history.map((h) => [h.type, h.text]),
    [
      ['new', ''],
      ['note', 'first'],
      ['note', 'second'],
      ['dismiss', 'note dismissed'],
    ],
  );
  const empty = (await (
    await api.get(`/alert/${(await createAlert(api, { resource: fresh('nonotes'), event: 'e' })).id}/notes`)
  ).json()) as Record<string, unknown>;
  assert.equal([empty.message, empty.total], ['not found', 0]);
});

ops('DELETE /alert/:id removes the alert and its history, keeps notes; then 404', async ({ api, db }) => {
  const a = await createAlert(api, { resource: fresh('del'), event: 'e' });
  await api.put(`/alert/${a.id}/note`, { text: 'kept' });
  assert.is((await api.delete(`/alert/${a.id}`)).status, 200);
  await expectError(await api.get(`/alert/${a.id}`), 404);
  await expectError(await api.delete(`/alert/${a.id}`), 404);
  assert.is((await queryDb(db.url, 'SELECT 1 FROM alert_history WHERE alert_id = $1', [a.id])).length, 0);
  assert.is((await queryDb(db.url, 'SELECT 1 FROM notes WHERE alert = $1', [a.id])).length, 1);
});

ops('every successful write publishes one small event after commit', async ({ api, running }) => {
  const events: LiveEvent[] = [];
  const off = running.deps.bus.subscribe((e) => events.push(e));
  const resource = fresh('events');
  const a = await createAlert(api, { resource, event: 'e', severity: 'minor' });
  await postAlert(api, { resource, event: 'e', severity: 'minor' });
  await postAlert(api, { resource, event: 'e', severity: 'major' });
  await put(api, `/alert/${a.id}/status`, { status: 'assign' });
  await put(api, `/alert/${a.id}/action`, { action: 'ack' });
  await put(api, `/alert/${a.id}/tag`, { tags: ['t'] });
  await put(api, `/alert/${a.id}/attributes`, { attributes: { k: 'v' } });
  await api.put(`/alert/${a.id}/note`, { text: 'n' });
  await api.delete(`/alert/${a.id}`);
  await put(api, `/alert/${a.id}/action`, { action: 'ack' }); // 404: publishes nothing
  await new Promise((r) => setTimeout(r, 100));
  off();
  assert.equal(
    events.map((e) => e.type),
    [
      'alert.received',
      'alert.updated',
      'alert.updated',
      'alert.updated',
      'alert.updated',
      'alert.updated',
      'alert.updated',
      'alert.updated',
      'alert.deleted',
    ],
  );
  for (const e of events) {
    if (e.type === 'alert.deleted') assert.is(e.id, a.id);
    else if (e.type === 'alert.received' || e.type === 'alert.updated') {
      assert.is(e.alert.id, a.id);
      assert.ok(!('history' in e.alert) && !('rawData' in e.alert), 'events carry no history or rawData');
    }
  }
});

ops.run();

const concurrency = appSuite('concurrent receipts', { TEST_LABEL: 'concurrency', DATABASE_POOL_SIZE: '20' });

concurrency(
  '100 concurrent POSTs of one new alert make one alert with duplicateCount 99',
  async ({ api, db }) => {
    const body = {
      environment: 'Production',
      service: ['network'],
      resource: 'router01',
      event: 'node_down',
      severity: 'major',
    };
    const results = await Promise.all(Array.from({ length: 100 }, () => api.post('/alert', body)));
    assert.equal(
      results.map((r) => r.status).filter((s) => s !== 201),
      [],
    );
    const bodies = await Promise.all(
      results.map(async (r) => (await r.json()) as { id: string; alert: { duplicateCount: number } }),
    );
    assert.is(new Set(bodies.map((b) => b.id)).size, 1);
    assert.equal(
      bodies.map((b) => b.alert.duplicateCount).sort((x, y) => x - y),
      Array.from({ length: 100 }, (_, i) => i),
      'each receipt is answered with the count as it stood after it',
    );
    const rows = await queryDb<{ duplicate_count: number }>(
      db.url,
      `SELECT duplicate_count FROM alerts WHERE resource = 'router01'`,
    );
    assert.equal(rows, [{ duplicate_count: 99 }]);
  },
);

concurrency('each combined duplicate is answered with its own submission id', async ({ api }) => {
  const base = {
    environment: 'Production',
    service: ['network'],
    resource: 'router03',
    event: 'node_down',
    severity: 'major',
  };
  await api.post('/alert', base);
  const ids = Array.from({ length: 40 }, () => crypto.randomUUID());
  const answers = await Promise.all(
    ids.map(
      async (id) =>
        ((await (await api.post('/alert', { ...base, id })).json()) as { alert: { lastReceiveId: string } })
          .alert,
    ),
  );
  assert.equal(
    answers.map((a) => a.lastReceiveId),
    ids,
  );
});

concurrency('concurrent correlates and duplicates lose no counts', async ({ api, db }) => {
  const base = { environment: 'Production', service: ['network'], resource: 'router02', event: 'flap' };
  await api.post('/alert', { ...base, severity: 'minor' });
  const results = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      api.post('/alert', { ...base, severity: i % 2 ? 'minor' : 'major' }),
    ),
  );
  assert.ok(results.every((r) => r.status === 201));
  const rows = await queryDb<{ n: string }>(
    db.url,
    `SELECT count(*) AS n FROM alerts WHERE resource = 'router02'`,
  );
  assert.is(rows[0]!.n, '1');
});

concurrency.run();

const ackedBy = appSuite('acked_by plugin with a known login', {
  TEST_LABEL: 'acked_by',
  PLUGINS: 'remote_ip,reject,acked_by',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'acked-by-secret-123',
  ADMIN_USERS: 'ops@example.com',
  ADMIN_PASSWORD: 'ops-pass',
});

const asOps = { Authorization: `Basic ${Buffer.from('ops@example.com:ops-pass').toString('base64')}` };

ackedBy('an ack records acked-by; a closed alert re-opened by a new receipt loses it', async ({ api }) => {
  const alert = { environment: 'Production', service: ['web'], resource: fresh('reopen'), event: 'e' };
  const receive = async (severity: string) => {
    const r = await api.call('POST', '/alert', { ...alert, severity }, { headers: asOps });
    assert.is(r.status, 201, JSON.stringify(r.body));
    return (r.body as { alert: { id: string; status: string; attributes: Record<string, unknown> } }).alert;
  };
  const { id } = await receive('major');
  const ack = await api.call('PUT', `/alert/${id}/action`, { action: 'ack' }, { headers: asOps });
  assert.is(ack.status, 200, JSON.stringify(ack.body));
  const acked = await api.call('GET', `/alert/${id}`, undefined, { headers: asOps });
  const stored = (acked.body as { alert: { attributes: Record<string, unknown>; tags: string[] } }).alert;
  assert.is(stored.attributes['acked-by'], 'ops@example.com');
  assert.ok(stored.tags.includes('watch:ops@example.com'));

  // A clear closes it (acked-by stays, as in the established server), then a new fault re-opens it.
  const closed = await receive('normal');
  assert.equal([closed.status, closed.attributes['acked-by']], ['closed', 'ops@example.com']);
  const reopened = await receive('major');
  assert.is(reopened.status, 'open');
  assert.is(reopened.attributes['acked-by'], undefined, 'the stored acked-by is removed on re-open');
  const after = await api.call('GET', `/alert/${id}`, undefined, { headers: asOps });
  assert.is(
    (after.body as { alert: { attributes: Record<string, unknown> } }).alert.attributes['acked-by'],
    undefined,
  );
});

ackedBy.run();
