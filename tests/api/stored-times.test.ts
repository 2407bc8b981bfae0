/**
 * Datetimes outside the years 0001–9999 (issue #18, item 1): refused on every input with a 400 that
 * stores nothing, and tolerated on every read when a row already holds one (written before
 * validation, or by hand with SQL): `-infinity`, `infinity`, year 0 and BC dates, years past 9999.
 */
import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { createAlert, postAlert } from '../helpers/alerts.ts';
import type { Answer, Api } from '../helpers/api.ts';
import { type AppContext, appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { LiveClient } from '../helpers/live.ts';

const FIRST = '0001-01-01T00:00:00.000Z';
const LAST = '9999-12-31T23:59:59.999Z';
const RANGE = 'dates must be within the years 0001 to 9999 (UTC)';
const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

/** The JSON error shape with this status; `message` is the message or one of the listed errors. */
function assertError(r: Answer, status: number, message?: string | RegExp) {
  assert.is(r.status, status, JSON.stringify(r.body));
  const body = ErrorBodySchema.parse(r.body);
  assert.is(body.code, status);
  const said = [body.message, ...(body.errors ?? [])];
  if (typeof message === 'string') assert.ok(said.includes(message), JSON.stringify(body));
  else if (message)
    assert.ok(
      said.some((m) => message.test(m)),
      JSON.stringify(body),
    );
  assert.not.match(JSON.stringify(body), /out of range|timestamp|RangeError|Invalid time value/i);
}

/** GETs `path` and asserts 200, returning the body. */
async function read(api: Api, path: string): Promise<Record<string, unknown>> {
  const r = await api.call('GET', path);
  assert.is(r.status, 200, `GET ${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}

const count = async (ctx: AppContext, table: string, where: string, values: unknown[]) =>
  Number(
    (
      await queryDb<{ n: string }>(ctx.db.url, `SELECT count(*) AS n FROM ${table} WHERE ${where}`, values)
    )[0]!.n,
  );

// ---- input ------------------------------------------------------------------------------------

const input = appSuite('datetimes outside 0001–9999 are refused on input', { TEST_LABEL: 'times_in' });

input('POST /alert with a year-0 createTime is a 400 and stores nothing', async (ctx) => {
  const resource = unique('year0');
  const r = await ctx.api.call('POST', '/alert', {
    environment: 'Production',
    service: ['web'],
    resource,
    event: 'Old',
    severity: 'major',
    createTime: '0000-01-01T00:00:00.000Z',
  });
  assertError(r, 400, `createTime: ${RANGE}`);
  assert.is(await count(ctx, 'alerts', 'resource = $1', [resource]), 0);
  // A day that does not exist is refused instead of rolling over into March.
  const feb = await postAlert(ctx.api, {
    resource,
    event: 'Old',
    createTime: '2024-02-30T00:00:00.000Z',
  });
  assert.is(feb.status, 400, JSON.stringify(feb.body));
  assert.is(await count(ctx, 'alerts', 'resource = $1', [resource]), 0);
  // The first and last instants are fine.
  for (const createTime of [FIRST, LAST]) {
    const ok = await createAlert(ctx.api, { resource, event: `Edge${createTime}`, createTime });
    assert.is(ok.createTime, createTime);
  }
});

input('POST /key with a year-0 expireTime is a 400 and stores nothing', async (ctx) => {
  const r = await ctx.api.call('POST', '/key', {
    user: 'someone@example.com',
    scopes: ['read'],
    text: 'year0-key',
    expireTime: '0000-06-01T00:00:00.000Z',
  });
  assertError(r, 400, `expireTime: ${RANGE}`);
  assert.is(await count(ctx, 'keys', 'text = $1', ['year0-key']), 0);
});

input('blackouts: a year-0 start, and a duration that runs past 9999, are 400', async (ctx) => {
  const environment = unique('times');
  assertError(
    await ctx.api.call('POST', '/blackout', { environment, startTime: '0000-01-01T00:00:00.000Z' }),
    400,
    `startTime: ${RANGE}`,
  );
  assertError(
    await ctx.api.call('POST', '/blackout', {
      environment,
      startTime: '9999-12-31T23:00:00.000Z',
      duration: 7200,
    }),
    400,
    RANGE,
  );
  assert.is(await count(ctx, 'blackouts', 'environment = $1', [environment]), 0);
  const made = await ctx.api.call('POST', '/blackout', {
    environment,
    startTime: '9999-12-30T00:00:00.000Z',
    endTime: LAST,
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const id = (made.body as { id: string }).id;
  assertError(
    await ctx.api.call('PUT', `/blackout/${id}`, { startTime: '9999-12-31T23:00:00.000Z', duration: 7200 }),
    400,
    RANGE,
  );
});

input('POST /heartbeat with a year-0 createTime is a 400 and stores nothing', async (ctx) => {
  const origin = unique('hb');
  assertError(
    await ctx.api.call('POST', '/heartbeat', { origin, createTime: '0000-12-31T23:59:59.999Z' }),
    400,
    `createTime: ${RANGE}`,
  );
  assert.is(await count(ctx, 'heartbeats', 'origin = $1', [origin]), 0);
});

input('query parameters: dates out of range after normalising the offset are 400', async ({ api }) => {
  for (const [path, message] of [
    ['/alerts?from-date=0000-01-01', RANGE],
    ['/alerts?to-date=0001-01-01T00:30:00%2B01:00', RANGE],
    ['/alerts/count?to-date=9999-12-31T23:00:00-02:00', RANGE],
    ['/alerts/history?from-date=0000-06-01T00:00:00Z', RANGE],
    ['/alerts?createTime=0000-06-01T00:00:00Z', /createTime/],
    [`/alerts?q=${encodeURIComponent('createTime:[0000-01-01 TO *]')}`, /createTime/],
    [`/alerts?q=${encodeURIComponent('lastReceiveTime:>0000-01-01')}`, /lastReceiveTime/],
    ['/blackouts?startTime=0000-01-01T00:00:00Z', /startTime/],
    ['/keys?expireTime=0000-01-01', RANGE],
  ] as const) {
    const r = await api.call('GET', path);
    assertError(r, 400, message);
    assert.ok(JSON.stringify(r.body).includes(RANGE), `${path}: ${JSON.stringify(r.body)}`);
  }
});

input('webhooks: a year-0 time in a notification is a 400 naming it', async (ctx) => {
  const topic = unique('arn:aws:sns:eu-west-1:123456789012:times');
  const r = await ctx.api.call('POST', '/webhooks/cloudwatch', {
    Type: 'SubscriptionConfirmation',
    MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
    Token: '2336412f37',
    TopicArn: topic,
    Message: 'confirm',
    SubscribeURL: 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription',
    Timestamp: '0000-03-01T12:00:00.123Z',
    SignatureVersion: '1',
  });
  assertError(r, 400, /createTime: dates must be within the years 0001 to 9999/);
  assert.is(await count(ctx, 'alerts', 'resource = $1', [topic]), 0);
});

input.run();

// ---- stored rows -------------------------------------------------------------------------------

const stored = appSuite('rows holding times outside 0001–9999 are still read', { TEST_LABEL: 'times_rows' });

stored('alerts: every list, detail, count, report, live and write path answers', async (ctx) => {
  const { api } = ctx;
  const group = unique('poisoned');
  const fields = { environment: 'Production', service: ['web'], group, severity: 'major' };
  const a = await createAlert(api, { ...fields, resource: 'web01', event: 'A' });
  const b = await createAlert(api, { ...fields, resource: 'web02', event: 'B' });
  const c = await createAlert(api, { ...fields, resource: 'web03', event: 'C', tags: ['t'] });
  await api.call('PUT', `/alert/${a.id}/note`, { text: 'a note' });
  const sql = (text: string, values: unknown[]) => queryDb(ctx.db.url, text, values);
  await sql(
    `UPDATE alerts SET create_time = '-infinity', receive_time = '0002-06-01 00:00:00+00 BC',
       update_time = '12000-01-01 00:00:00+00' WHERE id = $1`,
    [a.id],
  );
  await sql(
    `UPDATE alerts SET create_time = 'infinity', last_receive_time = '0001-06-01 00:00:00+00 BC' WHERE id = $1`,
    [b.id],
  );
  await sql(`UPDATE alerts SET last_receive_time = '-infinity', create_time = '20000-01-01' WHERE id = $1`, [
    c.id,
  ]);
  await sql(`UPDATE alert_history SET update_time = '-infinity' WHERE alert_id = $1`, [a.id]);
  await sql(`UPDATE alert_history SET update_time = '10000-01-01' WHERE alert_id = $1`, [b.id]);
  await sql(`UPDATE notes SET create_time = '-infinity', update_time = 'infinity' WHERE alert = $1`, [a.id]);

  const list = (await read(api, `/alerts?group=${group}&show-history=true`)) as {
    alerts: { id: string; createTime: string; receiveTime: string; updateTime: string; history: unknown[] }[];
    total: number;
  };
  assert.is(list.total, 3);
  const byId = new Map(list.alerts.map((x) => [x.id, x]));
  assert.equal(
    [byId.get(a.id)!.createTime, byId.get(a.id)!.receiveTime, byId.get(a.id)!.updateTime],
    [FIRST, FIRST, LAST],
  );
  assert.is(byId.get(b.id)!.createTime, LAST);

  for (const path of [
    `/alerts?group=${group}`,
    `/alerts/count?group=${group}`,
    `/alerts/history?group=${group}`,
    `/alerts/top10/count?group=${group}`,
    `/alerts/top10/flapping?group=${group}`,
    `/alerts/top10/standing?group=${group}`,
    `/alerts/topn/standing?group=${group}&topn=5`,
    `/environments?group=${group}`,
    `/services?group=${group}`,
    `/alerts/groups?group=${group}`,
    `/alerts/tags?group=${group}`,
    `/alerts?group=${group}&sort-by=createTime`,
    `/alert/${a.id}/notes`,
  ]) {
    await read(api, path);
  }
  const history = (await read(api, `/alerts/history?group=${group}`)) as {
    history: { updateTime: string }[];
  };
  assert.ok(history.history.some((h) => h.updateTime === FIRST));
  assert.ok(history.history.some((h) => h.updateTime === LAST));
  const notes = (await read(api, `/alert/${a.id}/notes`)) as { notes: { createTime: string }[] };
  assert.is(notes.notes[0]!.createTime, FIRST);
  for (const x of [a, b, c]) {
    const one = (await read(api, `/alert/${x.id}`)) as { alert: { id: string } };
    assert.is(one.alert.id, x.id);
  }

  // The live socket's snapshot of a view holding them.
  const live = await LiveClient.connect(ctx.origin, {});
  try {
    const view = await live.view(`group=${group}`);
    assert.is(view.alerts.size, 3);
    assert.is(view.alerts.get(a.id)!.createTime, FIRST);
  } finally {
    live.close();
  }

  // Writes that read the stored row first: a duplicate, a status change, the expiry run.
  const dup = await postAlert(api, { ...fields, resource: 'web01', event: 'A' });
  assert.is(dup.status, 201, JSON.stringify(dup.body));
  assert.is(dup.body.alert.duplicateCount, 1);
  const ack = await api.call('PUT', `/alert/${b.id}/status`, { status: 'ack', text: 'seen' });
  assert.is(ack.status, 200, JSON.stringify(ack.body));
  await read(api, '/management/housekeeping');
  for (const x of [a, b, c]) {
    const del = await api.call('DELETE', `/alert/${x.id}`);
    assert.is(del.status, 200, JSON.stringify(del.body));
  }
});

stored('blackouts, heartbeats, keys, users and groups with such times are listed', async (ctx) => {
  const { api } = ctx;
  const sql = (text: string, values: unknown[] = []) => queryDb(ctx.db.url, text, values);
  const environment = 'Development';
  const resource = unique('forever');
  const made = await api.call('POST', '/blackout', { environment, resource });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const blackoutId = (made.body as { id: string }).id;
  await sql(`UPDATE blackouts SET start_time = '-infinity', end_time = 'infinity' WHERE id = $1`, [
    blackoutId,
  ]);
  const blackouts = (await read(api, `/blackouts?resource=${resource}`)) as {
    blackouts: { startTime: string; endTime: string; status: string; remaining: number }[];
  };
  assert.equal(
    [blackouts.blackouts[0]!.startTime, blackouts.blackouts[0]!.endTime, blackouts.blackouts[0]!.status],
    [FIRST, LAST, 'active'],
  );
  assert.ok(Number.isSafeInteger(blackouts.blackouts[0]!.remaining));
  await read(api, `/blackout/${blackoutId}`);
  await read(api, `/blackouts?resource=${resource}&status=active&sort-by=remaining`);
  // The receive path checks it (in force forever), in memory and in SQL for old alerts.
  const held = await postAlert(api, { environment, resource, event: 'e' });
  assert.is(held.status, 202, JSON.stringify(held.body));
  const old = await postAlert(api, { environment, resource, event: 'e', createTime: FIRST });
  assert.is(old.status, 202, JSON.stringify(old.body));

  const origin = unique('hb');
  const hb = await api.call('POST', '/heartbeat', { origin });
  assert.is(hb.status, 201, JSON.stringify(hb.body));
  await sql(
    `UPDATE heartbeats SET create_time = '-infinity', receive_time = '10000-01-01' WHERE origin = $1`,
    [origin],
  );
  const hbs = (await read(api, '/heartbeats')) as { heartbeats: { origin: string; createTime: string }[] };
  assert.is(hbs.heartbeats.find((h) => h.origin === origin)!.createTime, FIRST);
  for (const status of ['ok', 'slow', 'expired']) await read(api, `/heartbeats?status=${status}`);
  await read(api, `/heartbeat/${(hb.body as { id: string }).id}`);
  const health = await api.get('/management/healthcheck');
  assert.ok(health.status === 200 || health.status === 503, `healthcheck: ${health.status}`);

  await sql(
    `INSERT INTO keys (id, key, "user", scopes, expire_time, last_used_time)
     VALUES (gen_random_uuid(), $1, 'old@example.com', '{read}', '0001-06-01 00:00:00+00 BC', 'infinity')`,
    [unique('old-key-0123456789')],
  );
  const keys = (await read(api, '/keys')) as {
    keys: { user: string; expireTime: string; lastUsedTime: string; status: string }[];
  };
  const key = keys.keys.find((k) => k.user === 'old@example.com')!;
  assert.equal([key.expireTime, key.lastUsedTime, key.status], [FIRST, LAST, 'expired']);
  await read(api, '/keys?status=expired');

  const user = await api.call('POST', '/user', {
    name: 'Old Timer',
    email: `${unique('old')}@example.com`,
    password: 'long enough password',
  });
  assert.is(user.status, 201, JSON.stringify(user.body));
  await sql(`UPDATE users SET create_time = '0001-01-01 00:00:00+00 BC', last_login = '-infinity',
    update_time = 'infinity'`);
  const group = await api.call('POST', '/group', { name: unique('old-group') });
  assert.is(group.status, 201, JSON.stringify(group.body));
  await sql(`UPDATE groups SET update_time = '-infinity'`);
  const users = (await read(api, '/users')) as { users: { name: string; createTime: string }[] };
  assert.is(users.users.find((u) => u.name === 'Old Timer')!.createTime, FIRST);
  await read(api, '/groups');
});

stored.run();
