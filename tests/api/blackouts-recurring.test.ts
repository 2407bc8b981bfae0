/**
 * Recurring blackouts over HTTP (docs/blackouts.md, "Recurring blackouts"): create, read, list and
 * update with rrule/timezone, 400s naming the field, suppression on receive (in memory and, for old
 * alerts, through SQL), NOTIFICATION_BLACKOUT, the notifications worker's answer, and stored windows
 * refreshed once they pass.
 */
import * as assert from 'uvu/assert';
import { BlackoutListSchema, BlackoutSchema, type Blackout } from '../../shared/blackouts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import type { NotifiedAlert } from '../../server/domain/alert-fields.ts';
import { refreshWindows } from '../../server/domain/blackout-windows.ts';
import { blackoutsNow } from '../../server/notifications/worker.ts';
import { alertDraft } from '../helpers/alert-draft.ts';
import { postAlert } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { queryDb } from '../helpers/db.ts';
import { appSuite } from '../helpers/app.ts';

let n = 0;
const freshEnv = (label: string) => `${label}-${++n}-${Date.now()}`;
const MINUTE = 60_000;
const HOUR = 3600_000;
const DAY = 86_400_000;

/** A daily rule whose occurrence starts `offset` ms from now (UTC, to the minute). */
function dailyAt(offset: number) {
  const t = new Date(Date.now() + offset);
  return `FREQ=DAILY;BYHOUR=${t.getUTCHours()};BYMINUTE=${t.getUTCMinutes()}`;
}

async function create(api: Api, fields: Record<string, unknown>): Promise<Blackout> {
  const r = await api.call('POST', '/blackout', fields);
  assert.is(r.status, 201, JSON.stringify(r.body));
  return BlackoutSchema.parse(r.body.blackout);
}

async function refused(api: Api, method: string, path: string, body: unknown, field: string) {
  const r = await api.call(method, path, body);
  assert.is(r.status, 400, JSON.stringify(r.body));
  const e = ErrorBodySchema.parse(r.body);
  assert.ok(
    e.errors?.some((x) => x.startsWith(`${field}: `)),
    JSON.stringify(e),
  );
}

const status = async (api: Api, fields: Record<string, unknown>) =>
  (await postAlert(api, { resource: 'db01', event: 'Backup', severity: 'major', ...fields })).status;

// ---------------------------------------------------------------------------------------------

const recurring = appSuite('blackouts: recurring', {
  TEST_LABEL: 'blackouts_recurring',
  PLUGINS: 'blackout',
});

recurring(
  'POST with rrule and timezone: stored normalised, shown with the rule in words',
  async ({ api }) => {
    const b = await create(api, {
      environment: freshEnv('words'),
      rrule: 'rrule:freq=weekly;byday=mo,tu,we,th,fr;byhour=18;byminute=0',
      timezone: 'europe/berlin',
      duration: 14 * 3600,
    });
    assert.equal(
      [b.rrule, b.timezone],
      ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18;BYMINUTE=0', 'Europe/Berlin'],
    );
    assert.equal([b.status, b.duration, b.endTime], ['active', 50400, '9999-12-31T23:59:59.999Z']);
    assert.is(b.recurrence?.description, 'every weekday 18:00–08:00 Europe/Berlin');
    const o = b.recurrence!.occurrence!;
    assert.is(Date.parse(o.endTime) - Date.parse(o.startTime), 14 * HOUR);
    assert.is(b.remaining, b.recurrence!.remaining);
    // GET by id says the same.
    const got = await api.call('GET', `/blackout/${b.id}`);
    assert.equal(BlackoutSchema.parse(got.body.blackout).recurrence, b.recurrence);
    // Without a zone: UTC. A one-off blackout has none of the new keys.
    const utc = await create(api, { environment: freshEnv('utc'), rrule: 'FREQ=DAILY;BYHOUR=1' });
    assert.is(utc.timezone, 'UTC');
    const plain = await create(api, { environment: freshEnv('plain'), timezone: 'Europe/Berlin' });
    assert.not.ok('rrule' in plain || 'timezone' in plain || 'recurrence' in plain);
  },
);

recurring(
  'bad rule, zone or occurrence length: 400 naming the field, nothing stored',
  async ({ api, db }) => {
    const env = freshEnv('bad');
    await refused(api, 'POST', '/blackout', { environment: env, rrule: 'FREQ=DAILY;BYHOUR=24' }, 'rrule');
    await refused(api, 'POST', '/blackout', { environment: env, rrule: 'FREQ=NEVER' }, 'rrule');
    await refused(api, 'POST', '/blackout', { environment: env, rrule: '' }, 'rrule');
    await refused(api, 'POST', '/blackout', { environment: env, rrule: 42 }, 'rrule');
    await refused(
      api,
      'POST',
      '/blackout',
      { environment: env, rrule: 'FREQ=DAILY', timezone: 'Moon/Base' },
      'timezone',
    );
    await refused(
      api,
      'POST',
      '/blackout',
      { environment: env, rrule: 'FREQ=DAILY', duration: 0 },
      'duration',
    );
    const stored = await queryDb(db.url, 'SELECT 1 FROM blackouts WHERE environment = $1', [env]);
    assert.is(stored.length, 0);
    const b = await create(api, { environment: env, rrule: 'FREQ=DAILY' });
    await refused(api, 'PUT', `/blackout/${b.id}`, { rrule: 'FREQ=DAILY;BYSETPOS=1' }, 'rrule');
    await refused(api, 'PUT', `/blackout/${b.id}`, { timezone: 'Nowhere' }, 'timezone');
  },
);

recurring('receive: 202 inside an occurrence, 201 between them, for new and old alerts', async ({ api }) => {
  const env = freshEnv('receive');
  const startTime = new Date(Date.now() - 3 * DAY).toISOString();
  // On now: started five minutes ago, for an hour, every day.
  await create(api, {
    environment: env,
    resource: 'db01',
    rrule: dailyAt(-5 * MINUTE),
    duration: 3600,
    startTime,
  });
  // Not on now: starts in two hours.
  await create(api, {
    environment: env,
    resource: 'db02',
    rrule: dailyAt(2 * HOUR),
    duration: 600,
    startTime,
  });
  assert.is(await status(api, { environment: env, resource: 'db01' }), 202);
  assert.is(await status(api, { environment: env, resource: 'db02' }), 201);
  // Alerts created yesterday (matched in SQL, then by the rule): inside and outside yesterday's window.
  const yesterday = (offset: number) => new Date(Date.now() - DAY + offset).toISOString();
  assert.is(await status(api, { environment: env, resource: 'db01', createTime: yesterday(0) }), 202);
  assert.is(await status(api, { environment: env, resource: 'db01', createTime: yesterday(-HOUR) }), 201);
  assert.is(
    await status(api, { environment: env, resource: 'db02', createTime: yesterday(2 * HOUR + MINUTE) }),
    202,
  );
  // Before the series started: nothing.
  assert.is(
    await status(api, {
      environment: env,
      resource: 'db01',
      createTime: new Date(Date.now() - 5 * DAY).toISOString(),
    }),
    201,
  );
});

recurring(
  'the notifications worker asks the same question and gets the same answer',
  async ({ api, running }) => {
    const env = freshEnv('notify');
    await create(api, { environment: env, resource: 'on', rrule: dailyAt(-MINUTE), duration: 3600 });
    await create(api, { environment: env, resource: 'off', rrule: dailyAt(3 * HOUR), duration: 3600 });
    const isBlackedOut = await blackoutsNow(running.deps);
    const alert = (resource: string) =>
      alertDraft({ environment: env, resource }) as unknown as NotifiedAlert;
    assert.ok(isBlackedOut(alert('on')));
    assert.not.ok(isBlackedOut(alert('off')));
  },
);

recurring(
  'list: status, words, status filter and remaining; a passed window is stored anew',
  async ({ api, db, running }) => {
    const env = freshEnv('list');
    const on = await create(api, {
      environment: env,
      resource: 'on',
      rrule: dailyAt(-10 * MINUTE),
      duration: 3600,
    });
    const done = await create(api, {
      environment: env,
      resource: 'done',
      rrule: 'FREQ=DAILY;COUNT=1',
      startTime: new Date(Date.now() - 2 * DAY).toISOString(),
      duration: 60,
    });
    assert.is(done.status, 'expired');
    assert.equal([done.recurrence?.occurrence, done.remaining], [null, 0]);
    const list = async (q: string) =>
      BlackoutListSchema.parse((await api.call('GET', `/blackouts?environment=${env}${q}`)).body).blackouts;
    assert.equal(
      (await list('&status=active')).map((b) => b.id),
      [on.id],
    );
    assert.equal(
      (await list('&status=expired')).map((b) => b.id),
      [done.id],
    );
    assert.ok(on.recurrence!.activeNow);
    assert.ok(on.remaining > 49 * 60 && on.remaining <= 50 * 60, String(on.remaining));
    // The window as stored yesterday (passed): the listing stores today's before answering.
    await queryDb(
      db.url,
      `UPDATE blackouts SET window_from = window_from - interval '1 day', window_start = window_start - interval '1 day',
       window_end = window_end - interval '1 day' WHERE id = $1`,
      [on.id],
    );
    // Receipts are right meanwhile (the rule answers what the passed window does not know).
    assert.is(await status(api, { environment: env, resource: 'on' }), 202);
    const [listed] = await list('&resource=on');
    assert.equal(listed!.recurrence, { ...on.recurrence!, remaining: listed!.recurrence!.remaining });
    const [row] = await queryDb<{ ok: boolean }>(
      db.url,
      'SELECT window_end > now() AS ok, window_from::text, window_start::text, window_end::text, now()::text FROM blackouts WHERE id = $1',
      [on.id],
    );
    assert.ok(row!.ok, JSON.stringify(row));
    // Two instances refreshing the same passed window: the first stores it, the second finds nothing to do.
    await queryDb(db.url, `UPDATE blackouts SET window_end = window_start WHERE id = $1`, [on.id]);
    const now = Date.now();
    const counts = await Promise.all([refreshWindows(running.deps, now), refreshWindows(running.deps, now)]);
    assert.is(counts[0] + counts[1], 1);
  },
);

recurring('PUT: a new rule or zone recomputes; rrule null makes it one-off again', async ({ api }) => {
  const env = freshEnv('put');
  const b = await create(api, { environment: env, rrule: 'FREQ=DAILY;BYHOUR=3;BYMINUTE=0', duration: 1800 });
  const put = async (body: unknown) => {
    const r = await api.call('PUT', `/blackout/${b.id}`, body);
    assert.is(r.status, 200, JSON.stringify(r.body));
    return BlackoutSchema.parse(r.body.blackout);
  };
  const zoned = await put({ timezone: 'Australia/Sydney' });
  assert.is(zoned.recurrence?.description, 'every day 03:00–03:30 Australia/Sydney');
  const ruled = await put({ rrule: 'FREQ=WEEKLY;BYDAY=SA;BYHOUR=22;BYMINUTE=0' });
  assert.equal(
    [ruled.timezone, ruled.recurrence?.description],
    ['Australia/Sydney', 'every week on Saturday 22:00–22:30 Australia/Sydney'],
  );
  const oneOff = await put({ rrule: null });
  assert.not.ok('rrule' in oneOff);
  assert.is(Date.parse(oneOff.endTime) - Date.parse(oneOff.startTime), 1800_000);
  // A one-off blackout that becomes recurring keeps its length per occurrence, and its series is open.
  const again = await put({ rrule: 'FREQ=DAILY;BYHOUR=4;BYMINUTE=0' });
  assert.equal([again.duration, again.endTime], [1800, '9999-12-31T23:59:59.999Z']);
});

recurring.run();

// ---------------------------------------------------------------------------------------------

const stored = appSuite('blackouts: recurring with NOTIFICATION_BLACKOUT', {
  TEST_LABEL: 'blackouts_recurring_notify',
  PLUGINS: 'blackout',
  NOTIFICATION_BLACKOUT: 'True',
});

stored(
  'an alert inside an occurrence is stored with status blackout, one outside is not',
  async ({ api }) => {
    const env = freshEnv('stored');
    await create(api, { environment: env, resource: 'db01', rrule: dailyAt(-MINUTE), duration: 3600 });
    await create(api, { environment: env, resource: 'db02', rrule: dailyAt(2 * HOUR), duration: 3600 });
    const inside = await postAlert(api, {
      environment: env,
      resource: 'db01',
      event: 'e',
      severity: 'major',
    });
    const outside = await postAlert(api, {
      environment: env,
      resource: 'db02',
      event: 'e',
      severity: 'major',
    });
    assert.equal([inside.status, inside.body.alert.status], [201, 'blackout']);
    assert.equal([outside.status, outside.body.alert.status], [201, 'open']);
  },
);

stored.run();
