import * as assert from 'uvu/assert';
import { AlertSchema } from '../../shared/alerts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { createAlert, getAlert, postAlert } from '../helpers/alerts.ts';
import { type AppContext, appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let n = 0;
/** A resource name no other test uses, so tests stay independent inside the suite. */
const fresh = (label: string) => `${label}-${++n}-${Date.now()}`;

const receive = appSuite('POST /alert: new, duplicate, correlate', { TEST_LABEL: 'receive' });

receive('a new alert gets every server-set field with the reference defaults', async ({ api, origin }) => {
  const resource = fresh('router');
  const r = await postAlert(api, { resource, event: 'node_down', severity: 'major', text: 'down' });
  assert.is(r.status, 201);
  assert.is(r.body.status, 'ok');
  const a = AlertSchema.parse(r.body.alert);
  assert.is(r.body.id, a.id);
  assert.is(a.href, `${origin}/api/alert/${a.id}`);
  assert.is(a.status, 'open');
  assert.is(a.duplicateCount, 0);
  assert.is(a.repeat, false);
  assert.is(a.previousSeverity, 'indeterminate');
  assert.is(a.trendIndication, 'moreSevere');
  assert.is(a.timeout, 86400);
  assert.is(a.customer, null);
  assert.is(a.group, 'Misc');
  assert.is(a.type, 'exceptionAlert');
  assert.is(a.value, null);
  assert.is(a.rawData, null);
  assert.is(a.lastReceiveId, a.id);
  for (const t of [a.createTime, a.receiveTime, a.lastReceiveTime, a.updateTime]) assert.match(t, ISO);
  assert.is(a.attributes.ip, '127.0.0.1');
  assert.is(a.attributes.notify, true);
  assert.is(a.attributes.flapping, false);
  assert.is(a.history.length, 1);
  assert.equal(
    [a.history[0]!.type, a.history[0]!.severity, a.history[0]!.status, a.history[0]!.text],
    ['new', 'major', 'open', 'down'],
  );
});

receive('a client-supplied id and createTime are used; X-Forwarded-For gives ip', async ({ api }) => {
  const id = crypto.randomUUID();
  const createTime = '2026-01-02T03:04:05.678Z';
  const r = await postAlert(
    api,
    { id, resource: fresh('db'), event: 'DiskFull', createTime },
    { 'X-Forwarded-For': '10.1.2.3, 10.0.0.1' },
  );
  assert.is(r.body.alert.id, id);
  assert.is(r.body.alert.createTime, createTime);
  assert.is(r.body.alert.attributes.ip, '10.1.2.3');
  assert.is(r.body.alert.history[0]!.updateTime, createTime);
});

receive('null fields are treated as absent, as real clients send them', async ({ api }) => {
  const r = await postAlert(api, {
    resource: fresh('nulls'),
    event: 'e',
    severity: null,
    group: null,
    value: null,
    tags: null,
    attributes: null,
    timeout: null,
    customer: null,
    correlate: null,
    rawData: null,
    createTime: null,
  });
  assert.is(r.status, 201);
  assert.is(r.body.alert.severity, 'normal');
  assert.is(r.body.alert.status, 'closed');
  assert.equal(r.body.alert.tags, []);
  assert.is(r.body.alert.timeout, 86400);
});

receive(
  'the same alert again is a duplicate: count, repeat, union of tags, merged attributes',
  async ({ api }) => {
    const resource = fresh('web');
    const first = await createAlert(api, {
      resource,
      event: 'HighLoad',
      severity: 'minor',
      tags: ['a'],
      attributes: { x: 1 },
      value: '90%',
    });
    const second = await postAlert(api, {
      resource,
      event: 'HighLoad',
      severity: 'minor',
      tags: ['b', 'a'],
      attributes: { y: 2 },
      value: '90%',
      text: 'again',
    });
    assert.is(second.status, 201);
    const d = second.body.alert;
    assert.is(second.body.id, first.id);
    assert.is(d.id, first.id);
    assert.is(d.duplicateCount, 1);
    assert.is(d.repeat, true);
    assert.is(d.text, 'again');
    assert.equal([...d.tags].sort(), ['a', 'b']);
    assert.equal([d.attributes.x, d.attributes.y], [1, 2]);
    assert.is(d.createTime, first.createTime, 'createTime kept');
    assert.is(d.receiveTime, first.receiveTime, 'receiveTime kept');
    assert.is.not(d.lastReceiveId, first.lastReceiveId);
    assert.is(d.updateTime, first.updateTime, 'updateTime moves only when status changes');
    assert.is(d.history.length, 1, 'no history for a duplicate that changes nothing');
    const third = await postAlert(api, { resource, event: 'HighLoad', severity: 'minor', value: '95%' });
    assert.is(third.body.alert.duplicateCount, 2);
    const value = third.body.alert.history.at(-1)!;
    assert.equal([value.type, value.value], ['value', '95%']);
  },
);

receive(
  'a different severity of the same event correlates: previousSeverity and trend follow the sequence',
  async ({ api }) => {
    const resource = fresh('switch');
    const seq: [string, string, string][] = [
      // severity, expected previousSeverity, expected trendIndication
      ['minor', 'indeterminate', 'moreSevere'],
      ['major', 'minor', 'moreSevere'],
      ['warning', 'major', 'lessSevere'],
      ['critical', 'warning', 'moreSevere'],
      ['critical', 'warning', 'moreSevere'], // duplicate: both kept
    ];
    let id = '';
    for (const [severity, previousSeverity, trend] of seq) {
      const a = (await postAlert(api, { resource, event: 'PortFlap', severity })).body.alert;
      id ||= a.id;
      assert.is(a.id, id);
      assert.equal(
        [a.severity, a.previousSeverity, a.trendIndication],
        [severity, previousSeverity, trend],
        severity,
      );
    }
    const a = await getAlert(api, id);
    assert.is(a.duplicateCount, 1);
    assert.equal(
      a.history.map((h) => [h.type, h.severity]),
      [
        ['new', 'minor'],
        ['severity', 'major'],
        ['severity', 'warning'],
        ['severity', 'critical'],
      ],
    );
    assert.is(a.attributes.flapping, true, 'more than two severity changes in 30 minutes');
  },
);

receive('a correlate resets the duplicate count and replaces createTime and receiveTime', async ({ api }) => {
  const resource = fresh('lb');
  await createAlert(api, { resource, event: 'Slow', severity: 'minor' });
  const dup = (await postAlert(api, { resource, event: 'Slow', severity: 'minor' })).body.alert;
  assert.is(dup.duplicateCount, 1);
  const corr = (
    await postAlert(api, {
      resource,
      event: 'Slow',
      severity: 'major',
      createTime: '2030-01-01T00:00:00.000Z',
    })
  ).body.alert;
  assert.equal([corr.duplicateCount, corr.repeat], [0, false]);
  assert.is(corr.createTime, '2030-01-01T00:00:00.000Z');
  assert.ok(corr.receiveTime >= dup.receiveTime);
});

receive(
  "an event listed in a stored alert's correlate list updates that alert, replacing its event",
  async ({ api }) => {
    const resource = fresh('host');
    const first = await createAlert(api, {
      resource,
      event: 'NodeDown',
      severity: 'critical',
      correlate: ['NodeDown', 'NodeUp'],
    });
    const up = (await postAlert(api, { resource, event: 'NodeUp', severity: 'normal' })).body.alert;
    assert.is(up.id, first.id);
    assert.is(up.event, 'NodeUp');
    assert.is(up.status, 'closed');
    assert.is(up.previousSeverity, 'critical');
    assert.is(up.trendIndication, 'lessSevere');
    const other = await createAlert(api, { resource, event: 'DiskFull', severity: 'minor' });
    assert.is.not(other.id, first.id, 'an event not in the list makes a new alert');
  },
);

receive('the event is added to a non-empty correlate list', async ({ api }) => {
  const a = await createAlert(api, { resource: fresh('c'), event: 'Up', correlate: ['Down'] });
  assert.equal(a.correlate, ['Down', 'Up']);
});

receive('environment and customer are part of the identity', async ({ api }) => {
  const resource = fresh('multi');
  const prod = await createAlert(api, { resource, event: 'e', environment: 'Production' });
  const dev = await createAlert(api, { resource, event: 'e', environment: 'Development' });
  const cust = await createAlert(api, { resource, event: 'e', environment: 'Production', customer: 'acme' });
  assert.is(new Set([prod.id, dev.id, cust.id]).size, 3);
});

receive('normal-level severities create closed alerts; a clear closes an open alert', async ({ api }) => {
  const resource = fresh('svc');
  const open = await createAlert(api, { resource, event: 'Down', severity: 'major' });
  assert.is(open.status, 'open');
  const cleared = (await postAlert(api, { resource, event: 'Down', severity: 'ok' })).body.alert;
  assert.equal([cleared.status, cleared.severity], ['closed', 'ok']);
  const reopened = (await postAlert(api, { resource, event: 'Down', severity: 'major' })).body.alert;
  assert.is(reopened.status, 'open');
});

receive('a submitted status other than open is kept (SET-*)', async ({ api }) => {
  const a = await createAlert(api, { resource: fresh('set'), event: 'e', severity: 'major', status: 'ack' });
  assert.is(a.status, 'ack');
});

receive('rawData objects are stored as JSON text', async ({ api }) => {
  const a = await createAlert(api, { resource: fresh('raw'), event: 'e', rawData: { a: 1 } });
  assert.is(a.rawData, '{"a":1}');
});

receive('the alert is stored once: a row per alert, history beside it', async ({ api, db }) => {
  const resource = fresh('rows');
  for (let i = 0; i < 3; i++) await postAlert(api, { resource, event: 'e', severity: 'minor' });
  const rows = await queryDb<{ n: string }>(db.url, 'SELECT count(*) AS n FROM alerts WHERE resource = $1', [
    resource,
  ]);
  assert.is(rows[0]!.n, '1');
});

receive.run();

const invalid = appSuite('POST /alert: bad input', { TEST_LABEL: 'invalid' });

async function expect400(api: AppContext['api'], body: unknown, message: RegExp) {
  const res = await api.post('/alert', body);
  const err = ErrorBodySchema.parse(await res.json());
  assert.is(res.status, 400, JSON.stringify(body));
  assert.is(err.code, 400);
  assert.match(err.message, message);
  return err;
}

invalid('missing resource or event → 400 with the reference message', async ({ api }) => {
  await expect400(
    api,
    { event: 'e', environment: 'Production', service: ['s'] },
    /^Missing mandatory value for "resource"$/,
  );
  await expect400(
    api,
    { resource: 'r', environment: 'Production', service: ['s'] },
    /^Missing mandatory value for "event"$/,
  );
  await expect400(api, { resource: '', event: 'e' }, /Missing mandatory value for "resource"/);
});

invalid('wrong types → 400 listing every bad field', async ({ api }) => {
  const err = await expect400(
    api,
    {
      resource: 1,
      event: 'e',
      service: 'web',
      tags: { a: 1 },
      timeout: 'soon',
      attributes: [],
      correlate: 'x',
    },
    /6 invalid fields/,
  );
  const fields = err.errors!.map((e) => e.split(':')[0]);
  assert.equal(fields.sort(), ['attributes', 'correlate', 'resource', 'service', 'tags', 'timeout']);
  assert.ok(err.errors!.includes('service: service must be a list'));
});

invalid(
  'unknown severity → 400 naming the allowed ones (the established server says 500)',
  async ({ api }) => {
    await expect400(
      api,
      { resource: 'r', event: 'e', severity: 'apocalyptic', environment: 'Production', service: ['s'] },
      /^Severity \(apocalyptic\) is not one of security, critical, major, minor, warning/,
    );
  },
);

invalid('timeouts: negative, fractional and too large are refused', async ({ api }) => {
  await expect400(api, { resource: 'r', event: 'e', timeout: -5 }, /Invalid negative 'timeout' value \(-5\)/);
  await expect400(api, { resource: 'r', event: 'e', timeout: 1.5 }, /timeout must be an integer/);
  await expect400(api, { resource: 'r', event: 'e', timeout: 2 ** 40 }, /timeout must be at most/);
});

invalid('bad dates, attribute keys, empty customer and ids are refused', async ({ api }) => {
  await expect400(
    api,
    { resource: 'r', event: 'e', createTime: '2026-01-01 10:00' },
    /dates must be ISO 8601/,
  );
  await expect400(
    api,
    { resource: 'r', event: 'e', createTime: '2026-13-45T10:00:00.000Z' },
    /dates must be ISO 8601/,
  );
  await expect400(
    api,
    { resource: 'r', event: 'e', attributes: { 'a.b': 1 } },
    /Attribute keys must not contain/,
  );
  await expect400(api, { resource: 'r', event: 'e', customer: '' }, /customer must not be an empty string/);
  await expect400(api, { resource: 'r', event: 'e', id: 'has spaces/and slash' }, /id must be/);
});

invalid('a body that is not a JSON object → 400', async ({ api }) => {
  for (const body of [[], 'x', true, 5]) await expect400(api, body, /expected a JSON object/);
});

invalid('nothing is stored by a refused request', async ({ api, db }) => {
  await api.post('/alert', {
    resource: 'never-stored',
    event: 'e',
    severity: 'nope',
    environment: 'Production',
    service: ['s'],
  });
  const rows = await queryDb(db.url, `SELECT 1 FROM alerts WHERE resource = 'never-stored'`);
  assert.is(rows.length, 0);
});

invalid(
  'the reject plugin refuses disallowed environments and missing services with 403',
  async ({ api }) => {
    const env = await api.post('/alert', {
      resource: 'r',
      event: 'e',
      environment: 'Staging',
      service: ['s'],
    });
    assert.is(env.status, 403);
    assert.match(
      ((await env.json()) as { message: string }).message,
      /^\[POLICY\] Alert environment does not match one of Production, Development$/,
    );
    const svc = await api.post('/alert', { resource: 'r', event: 'e', environment: 'Production' });
    assert.is(svc.status, 403);
    assert.match(
      ((await svc.json()) as { message: string }).message,
      /^\[POLICY\] Alert must define a service$/,
    );
  },
);

invalid(
  'an alert whose event is Heartbeat becomes a heartbeat: 202, no alert stored',
  async ({ api, db }) => {
    const res = await api.post('/alert', {
      resource: 'hb',
      event: 'Heartbeat',
      origin: 'cron/host9',
      environment: 'Production',
      service: ['s'],
    });
    assert.is(res.status, 202);
    const body = (await res.json()) as { status: string; message: string; id: string };
    assert.equal([body.status, body.message], ['ok', 'Alert converted to Heartbeat']);
    const alerts = await queryDb(db.url, `SELECT 1 FROM alerts WHERE resource = 'hb'`);
    assert.is(alerts.length, 0);
    const beats = await queryDb<{ id: string }>(
      db.url,
      `SELECT id::text FROM heartbeats WHERE origin = 'cron/host9'`,
    );
    assert.equal(
      beats.map((b) => b.id),
      [body.id],
    );
  },
);

invalid.run();

const limits = appSuite('history settings', {
  TEST_LABEL: 'histlimit',
  HISTORY_LIMIT: '3',
  HISTORY_ON_VALUE_CHANGE: 'False',
  PLUGINS: '',
});

limits('HISTORY_LIMIT keeps only the newest entries', async ({ api, db }) => {
  const sevs = ['minor', 'major', 'critical', 'warning', 'minor'];
  let id = '';
  for (const severity of sevs)
    id = (await postAlert(api, { resource: 'capped', event: 'e', severity })).body.alert.id;
  const a = await getAlert(api, id);
  assert.equal(
    a.history.map((h) => h.severity),
    ['critical', 'warning', 'minor'],
  );
  const rows = await queryDb<{ n: string }>(
    db.url,
    'SELECT count(*) AS n FROM alert_history WHERE alert_id = $1',
    [id],
  );
  assert.is(rows[0]!.n, '3');
});

limits('HISTORY_ON_VALUE_CHANGE=False adds no value entries', async ({ api }) => {
  const a = await createAlert(api, { resource: 'values', event: 'e', severity: 'minor', value: '1' });
  const b = (await postAlert(api, { resource: 'values', event: 'e', severity: 'minor', value: '2' })).body
    .alert;
  assert.is(b.id, a.id);
  assert.is(b.history.length, 1);
  assert.is(b.value, '2');
});

limits('with PLUGINS empty nothing is rejected or added', async ({ api }) => {
  const a = await createAlert(api, { resource: 'bare', event: 'e', environment: 'Anywhere', service: [] });
  assert.is(a.attributes.ip, undefined);
});

limits.run();
