/**
 * Blackouts (api.md §6, heartbeats-blackouts.md §2, docs/blackouts.md): create/read/list/update/
 * delete, validation, status and remaining over time, matching each field on a real receipt
 * (202 suppression), NOTIFICATION_BLACKOUT and BLACKOUT_ACCEPT, and customer scoping.
 *
 * Blackouts match by environment, so every test works in an environment of its own.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BlackoutListSchema, BlackoutSchema, type Blackout } from '../../shared/blackouts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import type { AlertDraft } from '../../server/domain/alert-types.ts';
import { alertDraft } from '../helpers/alert-draft.ts';
import type { Caller } from '../../server/domain/caller.ts';
import * as domain from '../../server/domain/blackouts.ts';
import { AppError } from '../../server/errors.ts';
import { postAlert } from '../helpers/alerts.ts';
import type { Answer, Api } from '../helpers/api.ts';
import { queryDb } from '../helpers/db.ts';
import { type AppContext, appSuite, startApp, stopApp } from '../helpers/app.ts';

let n = 0;
/** An environment no other test uses. */
const freshEnv = (label: string) => `${label}-${++n}-${Date.now()}`;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const call = (api: Api, method: string, path: string, body?: unknown): Promise<Answer> =>
  api.call(method, path, body);

/** POSTs a blackout and asserts 201 with the documented shape. */
async function createBlackout(api: Api, fields: Record<string, unknown>): Promise<Blackout> {
  const r = await call(api, 'POST', '/blackout', fields);
  assert.is(r.status, 201, JSON.stringify(r.body));
  assert.equal(Object.keys(r.body).sort(), ['blackout', 'id', 'status']);
  const blackout = BlackoutSchema.parse(r.body.blackout);
  assert.is(r.body.id, blackout.id);
  assert.is(r.headers.get('location'), blackout.href);
  return blackout;
}

/** Asserts the one JSON error shape, with this status and (optionally) message. */
function assertError(r: Answer, status: number, message?: string | RegExp) {
  assert.is(r.status, status, JSON.stringify(r.body));
  const body = ErrorBodySchema.parse(r.body);
  assert.is(body.code, status);
  if (typeof message === 'string') assert.is(body.message, message);
  else if (message) assert.match(body.message, message);
}

/** Receives an alert; true when the blackout plugin suppressed it (202). */
async function suppressed(api: Api, fields: Record<string, unknown>): Promise<boolean> {
  const r = await postAlert(api, { resource: 'web01', event: 'NodeDown', severity: 'major', ...fields });
  if (r.status === 202) {
    assert.equal(r.body, { status: 'ok', message: 'Suppressed alert during blackout period', id: r.body.id });
    return true;
  }
  assert.is(r.status, 201, JSON.stringify(r.body));
  return false;
}

const caller = (customers: string[] | null, user: string | null = null): Caller => ({
  ip: '127.0.0.1',
  header: () => '',
  user,
  baseUrl: 'http://blackouts.test/api',
  customers,
});

async function failure(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

// ---------------------------------------------------------------------------------------------

const crud = appSuite('blackouts: create, read, update, delete', {
  TEST_LABEL: 'blackouts',
  PLUGINS: 'blackout',
  BLACKOUT_ACCEPT: 'normal',
});

crud('POST applies the defaults: start now, BLACKOUT_DURATION, priority 1, active', async ({ api }) => {
  const env = freshEnv('defaults');
  const before = Date.now();
  const b = await createBlackout(api, { environment: env });
  const start = Date.parse(b.startTime);
  assert.ok(start >= before - 5 && start <= Date.now() + 5);
  assert.is(Date.parse(b.endTime) - start, 3600_000);
  assert.is(b.duration, 3600);
  assert.is(b.remaining, 3600);
  assert.is(b.status, 'active');
  assert.is(b.priority, 1);
  assert.equal(
    [b.service, b.tags, b.resource, b.event, b.group, b.origin, b.customer],
    [[], [], null, null, null, null, null],
  );
  assert.is(b.text, '');
  assert.match(b.href, new RegExp(`/blackout/${b.id}$`));
});

crud('duration sets endTime; endTime wins over duration; duration is whole seconds', async ({ api }) => {
  const env = freshEnv('duration');
  const a = await createBlackout(api, { environment: env, duration: 120 });
  assert.is(Date.parse(a.endTime) - Date.parse(a.startTime), 120_000);
  assert.equal([a.duration, a.remaining], [120, 120]);
  const start = Date.now() + 60_000;
  const b = await createBlackout(api, {
    environment: env,
    startTime: iso(start),
    endTime: iso(start + 90_500),
    duration: 5,
  });
  assert.equal([b.startTime, b.endTime, b.duration], [iso(start), iso(start + 90_500), 90]);
});

crud('GET /blackout/:id by id and by prefix; unknown → 404', async ({ api }) => {
  const b = await createBlackout(api, { environment: freshEnv('get'), text: 'maintenance' });
  for (const id of [b.id, b.id.slice(0, 8), b.id.toUpperCase()]) {
    const r = await call(api, 'GET', `/blackout/${id}`);
    assert.is(r.status, 200);
    assert.equal(Object.keys(r.body).sort(), ['blackout', 'status', 'total']);
    assert.is(r.body.total, 1);
    assert.is(BlackoutSchema.parse(r.body.blackout).id, b.id);
  }
  assertError(await call(api, 'GET', `/blackout/${crypto.randomUUID()}`), 404, 'not found');
  assertError(await call(api, 'GET', '/blackout/no-such-blackout'), 404, 'not found');
  assertError(await call(api, 'GET', `/blackout/${encodeURIComponent('50%')}`), 400);
});

crud('priority follows which fields are set', async ({ api }) => {
  const cases: [Record<string, unknown>, number][] = [
    [{}, 1],
    [{ resource: 'r' }, 2],
    [{ service: ['web'] }, 3],
    [{ service: ['web'], resource: 'r', event: 'e' }, 3],
    [{ resource: 'r', service: ['web'] }, 2],
    [{ event: 'e' }, 4],
    [{ group: 'g' }, 5],
    [{ resource: 'r', event: 'e' }, 6],
    [{ resource: 'r', event: 'e', group: 'g' }, 5], // group is checked before resource + event
    [{ tags: ['t'] }, 7],
    [{ origin: 'o' }, 8],
    [{ origin: 'o', resource: 'r', tags: ['t'] }, 8],
    [{ service: [], tags: [] }, 1],
  ];
  const env = freshEnv('priority');
  for (const [fields, priority] of cases) {
    const b = await createBlackout(api, { environment: env, ...fields });
    assert.is(b.priority, priority, JSON.stringify(fields));
  }
});

crud('validation: every bad body is a 400 JSON error naming the field', async ({ api }) => {
  const env = freshEnv('invalid');
  const start = Date.now() + 3600_000;
  const cases: [unknown, string | RegExp][] = [
    [{}, 'Missing mandatory value for "environment"'],
    [{ environment: null }, 'Missing mandatory value for "environment"'],
    [{ environment: '' }, 'Missing mandatory value for "environment"'],
    [{ environment: 42 }, 'environment must be a string'],
    [{ environment: env, service: 'web' }, 'service must be a list'],
    [{ environment: env, service: [1] }, 'service must be a list of strings'],
    [{ environment: env, tags: { a: 1 } }, 'tags must be a list'],
    [{ environment: env, resource: '' }, 'resource can not be an empty string'],
    [{ environment: env, event: '' }, 'event can not be an empty string'],
    [{ environment: env, group: '' }, 'group can not be an empty string'],
    [{ environment: env, origin: '' }, 'origin can not be an empty string'],
    [{ environment: env, resource: 7 }, 'resource must be a string'],
    [{ environment: env, customer: '' }, 'customer must not be an empty string'],
    [{ environment: env, duration: 'long' }, 'duration must be an integer'],
    [{ environment: env, duration: 1.5 }, 'duration must be an integer'],
    [{ environment: env, duration: -1 }, 'duration must not be negative'],
    [{ environment: env, duration: 2 ** 40 }, /duration must be at most/],
    [{ environment: env, startTime: 'tomorrow' }, /dates must be ISO 8601/],
    [{ environment: env, endTime: 12345 }, /dates must be ISO 8601/],
    [{ environment: env, text: ['x'] }, 'text must be a string'],
    [{ environment: env, text: 'a\u0000b' }, /NUL/],
    [
      { environment: env, startTime: iso(start), endTime: iso(start - 1000) },
      'endTime must not be before startTime',
    ],
    [
      { environment: env, startTime: '2020-01-01T00:00:00.000Z', endTime: '9999-01-01T00:00:00.000Z' },
      /duration must be at most/,
    ],
    [[], 'expected a JSON object'],
    ['blackout', 'expected a JSON object'],
    [null, 'Missing mandatory value for "environment"'],
  ];
  for (const [body, message] of cases) {
    assertError(await call(api, 'POST', '/blackout', body), 400, message);
  }
  // Several bad fields: each one is listed.
  const r = await call(api, 'POST', '/blackout', { environment: 1, service: 'x', duration: 'y' });
  assertError(r, 400, '3 invalid fields');
  assert.is((r.body.errors as string[]).length, 3);
  // Nothing half-done was stored.
  const list = BlackoutListSchema.parse((await call(api, 'GET', `/blackouts?environment=${env}`)).body);
  assert.is(list.total, 0);
});

crud(
  'PUT changes only what the body names; null clears; priority recomputed, duration only when given',
  async ({ api }) => {
    const env = freshEnv('put');
    const b = await createBlackout(api, {
      environment: env,
      resource: 'web01',
      service: ['web'],
      tags: ['dc1'],
      group: 'Web',
      text: 'planned',
      duration: 600,
    });
    assert.is(b.priority, 2);

    let r = await call(api, 'PUT', `/blackout/${b.id}`, { event: 'NodeDown' });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.equal(Object.keys(r.body).sort(), ['blackout', 'status']);
    let u = BlackoutSchema.parse(r.body.blackout);
    assert.equal(
      [u.resource, u.event, u.group, u.service, u.tags, u.text],
      ['web01', 'NodeDown', 'Web', ['web'], ['dc1'], 'planned'],
    );
    assert.is(u.priority, 3); // resource + event + service: service is checked first
    assert.equal([u.startTime, u.endTime, u.createTime], [b.startTime, b.endTime, b.createTime]);

    r = await call(api, 'PUT', `/blackout/${b.id.slice(0, 13)}`, {
      resource: null,
      service: null,
      environment: null,
      startTime: null,
      endTime: null,
      text: null,
    });
    u = BlackoutSchema.parse(r.body.blackout);
    assert.equal(
      [u.environment, u.resource, u.service, u.text, u.startTime],
      [env, null, [], '', b.startTime],
    );
    assert.is(u.priority, 4); // event without resource

    const start = Date.parse(b.startTime);
    r = await call(api, 'PUT', `/blackout/${b.id}`, { endTime: iso(start + 30_000) });
    u = BlackoutSchema.parse(r.body.blackout);
    // As the established server: a new start or end leaves the stored duration alone.
    assert.equal([u.endTime, u.duration, u.remaining <= 30], [iso(start + 30_000), 600, true]);
    r = await call(api, 'PUT', `/blackout/${b.id}`, { duration: 45 });
    u = BlackoutSchema.parse(r.body.blackout);
    assert.equal([u.endTime, u.duration], [iso(start + 45_000), 45]);
    r = await call(api, 'PUT', `/blackout/${b.id}`, { endTime: iso(start + 50_000), duration: 7 });
    u = BlackoutSchema.parse(r.body.blackout);
    assert.equal([u.endTime, u.duration], [iso(start + 50_000), 7]);

    const fetched = BlackoutSchema.parse((await call(api, 'GET', `/blackout/${b.id}`)).body.blackout);
    assert.equal({ ...fetched, remaining: 0 }, { ...u, remaining: 0 });
  },
);

crud('PUT extends an old blackout far ahead: 200, stored duration kept (not recomputed)', async ({ api }) => {
  const env = freshEnv('extend');
  const b = await createBlackout(api, {
    environment: env,
    startTime: '2020-01-01T00:00:00.000Z',
    endTime: '2020-01-02T00:00:00.000Z',
  });
  assert.equal([b.status, b.duration], ['expired', 86_400]);
  const r = await call(api, 'PUT', `/blackout/${b.id}`, { endTime: '2099-12-31T00:00:00.000Z' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const u = BlackoutSchema.parse(r.body.blackout);
  assert.equal(
    [u.startTime, u.endTime, u.duration, u.status],
    ['2020-01-01T00:00:00.000Z', '2099-12-31T00:00:00.000Z', 86_400, 'active'],
  );
  assert.ok(await suppressed(api, { environment: env }), 'the extended blackout is in force');
  const moved = await call(api, 'PUT', `/blackout/${b.id}`, { startTime: '2019-06-01T00:00:00.000Z' });
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  assert.is(BlackoutSchema.parse(moved.body.blackout).duration, 86_400);
});

crud('PUT errors: nothing to change, bad types, end before start, unknown id', async ({ api }) => {
  const b = await createBlackout(api, { environment: freshEnv('put-errors') });
  assertError(await call(api, 'PUT', `/blackout/${b.id}`, {}), 400, 'nothing to change');
  assertError(await call(api, 'PUT', `/blackout/${b.id}`, null), 400, 'nothing to change');
  assertError(await call(api, 'PUT', `/blackout/${b.id}`, []), 400, 'expected a JSON object');
  assertError(await call(api, 'PUT', `/blackout/${b.id}`, { tags: 'x' }), 400, 'tags must be a list');
  assertError(
    await call(api, 'PUT', `/blackout/${b.id}`, { environment: '' }),
    400,
    'environment can not be an empty string',
  );
  assertError(
    await call(api, 'PUT', `/blackout/${b.id}`, { endTime: iso(Date.parse(b.startTime) - 1000) }),
    400,
    'endTime must not be before startTime',
  );
  assertError(await call(api, 'PUT', `/blackout/${crypto.randomUUID()}`, { text: 'x' }), 404, 'not found');
  const after = BlackoutSchema.parse((await call(api, 'GET', `/blackout/${b.id}`)).body.blackout);
  assert.equal([after.endTime, after.tags], [b.endTime, []]);
});

crud('DELETE removes it for good; a second DELETE is 404', async ({ api }) => {
  const env = freshEnv('delete');
  const b = await createBlackout(api, { environment: env });
  assert.ok(await suppressed(api, { environment: env }));
  const r = await call(api, 'DELETE', `/blackout/${b.id}`);
  assert.is(r.status, 200);
  assert.equal(r.body, { status: 'ok' });
  assertError(await call(api, 'GET', `/blackout/${b.id}`), 404);
  assertError(await call(api, 'DELETE', `/blackout/${b.id}`), 404);
  assertError(await call(api, 'DELETE', '/blackout/zzz'), 404);
  assert.not.ok(await suppressed(api, { environment: env }));
});

crud('status and remaining: pending, active, expired, and over time', async ({ api }) => {
  const env = freshEnv('status');
  const now = Date.now();
  const pending = await createBlackout(api, {
    environment: env,
    startTime: iso(now + 3600_000),
    endTime: iso(now + 7200_000),
  });
  assert.equal([pending.status, pending.remaining, pending.duration], ['pending', 3600, 3600]);
  const expired = await createBlackout(api, {
    environment: env,
    startTime: iso(now - 7200_000),
    endTime: iso(now - 3600_000),
  });
  assert.equal([expired.status, expired.remaining, expired.duration], ['expired', 0, 3600]);
  const started = await createBlackout(api, {
    environment: env,
    startTime: iso(now - 60_000),
    duration: 120,
  });
  assert.is(started.status, 'active');
  assert.ok(started.remaining <= 60 && started.remaining >= 58, String(started.remaining));

  // A one-second blackout: active, then expired; receipts follow it.
  const shortEnv = freshEnv('short');
  const short = await createBlackout(api, { environment: shortEnv, duration: 1 });
  assert.equal([short.status, short.remaining], ['active', 1]);
  assert.ok(await suppressed(api, { environment: shortEnv }));
  await sleep(1100);
  const later = BlackoutSchema.parse((await call(api, 'GET', `/blackout/${short.id}`)).body.blackout);
  assert.equal([later.status, later.remaining], ['expired', 0]);
  assert.not.ok(await suppressed(api, { environment: shortEnv }));
});

crud('a pending blackout does not suppress; matching uses the alert createTime', async ({ api }) => {
  const env = freshEnv('window');
  const now = Date.now();
  await createBlackout(api, { environment: env, startTime: iso(now + 600_000), duration: 600 });
  assert.not.ok(await suppressed(api, { environment: env }));
  // An alert created (at its origin) inside the window is suppressed even though it arrives before it.
  assert.ok(await suppressed(api, { environment: env, createTime: iso(now + 700_000) }));
  assert.not.ok(await suppressed(api, { environment: env, createTime: iso(now + 1200_000) }));
  // The window is [start, end): the end itself is outside, the start inside.
  assert.ok(await suppressed(api, { environment: env, createTime: iso(now + 600_000) }));
});

crud('matching: each field set on the blackout must match', async ({ api }) => {
  const base = {
    resource: 'web01',
    event: 'NodeDown',
    group: 'Net',
    service: ['web', 'api'],
    tags: ['dc1', 'linux'],
    origin: 'nagios',
  };
  const cases: [string, Record<string, unknown>, Record<string, unknown>, boolean][] = [
    ['environment only', {}, {}, true],
    ['resource equal', { resource: 'web01' }, {}, true],
    ['resource differs', { resource: 'web02' }, {}, false],
    ['resource is case-sensitive', { resource: 'WEB01' }, {}, false],
    ['event equal', { event: 'NodeDown' }, {}, true],
    ['event differs', { event: 'NodeUp' }, {}, false],
    ['group equal', { group: 'Net' }, {}, true],
    ['group differs', { group: 'Other' }, {}, false],
    ['origin equal', { origin: 'nagios' }, {}, true],
    ['origin differs', { origin: 'zabbix' }, {}, false],
    ['service subset', { service: ['web'] }, {}, true],
    ['service equal set', { service: ['api', 'web'] }, {}, true],
    ['service not all in the alert', { service: ['web', 'db'] }, {}, false],
    ['service disjoint', { service: ['db'] }, {}, false],
    ['service, alert has none', { service: ['web'] }, { service: [] }, false],
    ['tags subset', { tags: ['dc1'] }, {}, true],
    ['tags all', { tags: ['linux', 'dc1'] }, {}, true],
    ['tags not a subset', { tags: ['dc1', 'windows'] }, {}, false],
    ['tags, alert has none', { tags: ['dc1'] }, { tags: [] }, false],
    ['all fields match', { ...base }, {}, true],
    ['all but one match (event)', { ...base, event: 'Other' }, {}, false],
    ['all but one match (tags)', { ...base, tags: ['dc9'] }, {}, false],
    ['all but one match (origin)', { ...base, origin: 'x' }, {}, false],
    ['customer ignored without CUSTOMER_VIEWS', { customer: 'acme' }, { customer: 'other' }, true],
  ];
  for (const [label, blackout, alert, expected] of cases) {
    const env = freshEnv('match');
    const b = await createBlackout(api, { environment: env, ...blackout });
    const got = await suppressed(api, { environment: env, ...base, ...alert });
    assert.is(got, expected, label);
    // The same rule, stated in plain code, agrees with the database.
    const row = { ...b, startTime: Date.parse(b.startTime), endTime: Date.parse(b.endTime), createTime: 0 };
    assert.is(
      domain.matchesBlackout(
        row,
        alertDraft({ environment: env, ...base, ...alert, createTime: Date.now() } as Partial<AlertDraft>),
        false,
      ),
      expected,
      `${label} (pure)`,
    );
  }
  // Another environment never matches.
  const env = freshEnv('match');
  await createBlackout(api, { environment: env });
  assert.not.ok(await suppressed(api, { environment: `${env}-other` }));
});

crud('a suppressed alert is not stored; BLACKOUT_ACCEPT severities pass', async ({ api, db }) => {
  const env = freshEnv('suppress');
  await createBlackout(api, { environment: env });
  const r = await postAlert(api, { environment: env, resource: 'r1', event: 'e1', severity: 'critical' });
  assert.is(r.status, 202);
  assert.is(r.body.message, 'Suppressed alert during blackout period');
  assertError(await call(api, 'GET', `/alert/${r.body.id}`), 404);
  const stored = await queryDb(db.url, 'SELECT 1 FROM alerts WHERE environment = $1', [env]);
  assert.is(stored.length, 0);
  // BLACKOUT_ACCEPT=normal: a clear still gets through.
  const clear = await postAlert(api, { environment: env, resource: 'r1', event: 'e1', severity: 'normal' });
  assert.is(clear.status, 201, JSON.stringify(clear.body));
  assert.is(clear.body.alert.status, 'closed');
});

crud('customer matching with CUSTOMER_VIEWS: blackout customer null or equal', async ({ running, api }) => {
  const withViews = domain.createBlackoutCache({
    ...running.deps,
    config: { ...running.deps.config, CUSTOMER_VIEWS: true },
  });
  const env = freshEnv('customer');
  const any = await createBlackout(api, { environment: env, resource: 'any' });
  const acme = await createBlackout(api, { environment: env, resource: 'acme', customer: 'acme' });
  const find = (over: Partial<AlertDraft>) => withViews.findActive(alertDraft({ environment: env, ...over }));
  assert.is((await find({ resource: 'any', customer: 'zeta' }))?.id, any.id);
  assert.is((await find({ resource: 'any', customer: null }))?.id, any.id);
  assert.is((await find({ resource: 'acme', customer: 'acme' }))?.id, acme.id);
  assert.is(await find({ resource: 'acme', customer: 'zeta' }), null);
  assert.is(await find({ resource: 'acme', customer: null }), null);
  // Without CUSTOMER_VIEWS the customer is not looked at.
  assert.is(
    (
      await running.deps.blackoutCache.findActive(
        alertDraft({ environment: env, resource: 'acme', customer: 'zeta' }),
      )
    )?.id,
    acme.id,
  );
});

crud(
  'customer scoping: restricted callers create, see, change and delete only their own',
  async ({ running }) => {
    const deps = running.deps;
    const env = freshEnv('scope');
    const mine = await domain.createBlackout(deps, { environment: env }, caller(['acme']));
    assert.is(mine.customer, 'acme');
    const theirs = await domain.createBlackout(deps, { environment: env, customer: 'zeta' }, caller(null));
    const both = await domain.createBlackout(
      deps,
      { environment: env, customer: 'zeta' },
      caller(['acme', 'zeta']),
    );
    assert.is(both.customer, 'zeta');

    const refused = await failure(() =>
      domain.createBlackout(deps, { environment: env, customer: 'zeta' }, caller(['acme'])),
    );
    assert.instance(refused, AppError);
    assert.equal(
      [(refused as AppError).status, (refused as AppError).message],
      [400, "not allowed to set customer to 'zeta'"],
    );
    const ambiguous = await failure(() =>
      domain.createBlackout(deps, { environment: env }, caller(['acme', 'zeta'])),
    );
    assert.is((ambiguous as AppError).message, 'must define customer as more than one possibility');

    const listed = await domain.listBlackouts(
      deps,
      new URLSearchParams({ environment: env }),
      caller(['acme']),
    );
    assert.equal(
      listed.blackouts.map((b) => b.id),
      [mine.id],
    );
    assert.is(listed.total, 1);
    const all = await domain.listBlackouts(deps, new URLSearchParams({ environment: env }), caller(null));
    assert.is(all.total, 3);

    for (const op of [
      () => domain.getBlackout(deps, theirs.id, caller(['acme'])),
      () => domain.updateBlackout(deps, theirs.id, { text: 'x' }, caller(['acme'])),
      () => domain.deleteBlackout(deps, theirs.id, caller(['acme'])),
    ]) {
      const err = await failure(op);
      assert.instance(err, AppError);
      assert.is((err as AppError).status, 404);
    }
    const moved = await failure(() =>
      domain.updateBlackout(deps, mine.id, { customer: 'zeta' }, caller(['acme'])),
    );
    assert.is((moved as AppError).status, 400);
    const kept = await domain.updateBlackout(deps, mine.id, { customer: null, text: 'x' }, caller(['acme']));
    assert.is(kept.customer, 'acme');
    assert.is((await domain.getBlackout(deps, theirs.id, caller(['zeta']))).id, theirs.id);
    await domain.deleteBlackout(deps, mine.id, caller(['acme']));
  },
);

crud('user: the logged-in caller, else the body’s', async ({ running }) => {
  const env = freshEnv('user');
  const anon = await domain.createBlackout(running.deps, { environment: env, user: 'alice' }, caller(null));
  assert.is(anon.user, 'alice');
  const bob = await domain.createBlackout(
    running.deps,
    { environment: env, user: 'alice' },
    caller(null, 'bob'),
  );
  assert.is(bob.user, 'bob');
  const changed = await domain.updateBlackout(running.deps, anon.id, { text: 'x' }, caller(null, 'carol'));
  assert.is(changed.user, 'carol');
});

crud.run();

// ---------------------------------------------------------------------------------------------

const listing = suite<AppContext & { env: string; ids: Record<string, string> }>(
  'blackouts: list, filters, sort, paging',
  {} as AppContext & { env: string; ids: Record<string, string> },
);
listing.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'blackouts_list', PLUGINS: 'blackout', DEFAULT_PAGE_SIZE: '1000' });
  const now = Date.now();
  ctx.env = 'Listing';
  ctx.ids = {};
  const seed: [string, Record<string, unknown>][] = [
    ['env', { text: 'whole environment', duration: 600 }],
    ['res', { resource: 'web01', service: ['web'], duration: 300 }],
    ['svc', { service: ['web', 'api'], tags: ['dc1'], duration: 900 }],
    ['evt', { event: 'NodeDown', startTime: iso(now + 3600_000), duration: 60 }],
    [
      'old',
      { group: 'Net', tags: ['dc1', 'linux'], startTime: iso(now - 7200_000), endTime: iso(now - 3600_000) },
    ],
    ['org', { origin: 'nagios', customer: 'acme', duration: 1200 }],
  ];
  for (const [key, fields] of seed) {
    ctx.ids[key] = (await createBlackout(ctx.api, { environment: ctx.env, ...fields })).id;
  }
  await createBlackout(ctx.api, { environment: 'Elsewhere', resource: 'web01' });
});
listing.after(stopApp);

async function list(api: Api, query: string) {
  const r = await call(api, 'GET', `/blackouts${query}`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return BlackoutListSchema.parse(r.body);
}

const keysOf = (ids: Record<string, string>, blackouts: { id: string }[]) => {
  const byId = new Map(Object.entries(ids).map(([k, v]) => [v, k]));
  return blackouts.map((b) => byId.get(b.id) ?? '?');
};

listing('everything, expired included, newest start first', async ({ api, ids }) => {
  const all = await list(api, '');
  assert.is(all.total, 7);
  assert.equal([all.page, all.pageSize, all.pages, all.more], [1, 1000, 1, false]);
  assert.is(all.message, undefined);
  const mine = await list(api, '?environment=Listing');
  assert.is(mine.total, 6);
  assert.equal(keysOf(ids, mine.blackouts).slice(0, 1), ['evt']);
  assert.equal(keysOf(ids, mine.blackouts).at(-1), 'old');
});

listing('status= filter (repeatable)', async ({ api, ids }) => {
  assert.equal(keysOf(ids, (await list(api, '?environment=Listing&status=pending')).blackouts), ['evt']);
  assert.equal(keysOf(ids, (await list(api, '?environment=Listing&status=expired')).blackouts), ['old']);
  const active = await list(api, '?environment=Listing&status=active');
  assert.equal(keysOf(ids, active.blackouts).sort(), ['env', 'org', 'res', 'svc']);
  assert.is(active.total, 4);
  assert.ok(active.blackouts.every((b) => b.status === 'active'));
  const two = await list(api, '?environment=Listing&status=pending&status=expired&sort-by=priority');
  assert.equal(keysOf(ids, two.blackouts), ['evt', 'old']);
});

listing(
  'field filters: equality, any-of, ~ substring, ! negation, lists, numbers and times',
  async ({ api, ids }) => {
    const q = async (query: string) =>
      keysOf(ids, (await list(api, `?environment=Listing&sort-by=priority&${query}`)).blackouts);
    assert.equal(await q('resource=web01'), ['res']);
    assert.equal(await q('service=api'), ['svc']);
    assert.equal(await q('service=web'), ['res', 'svc']);
    assert.equal(await q('tag=linux'), ['old']);
    assert.equal(await q('tags=dc1'), ['svc', 'old']);
    assert.equal(await q('event=NodeDown'), ['evt']);
    assert.equal(await q('group=Net'), ['old']);
    assert.equal(await q('origin=nagios'), ['org']);
    assert.equal(await q('customer=acme'), ['org']);
    assert.equal(await q('priority=3'), ['svc']);
    assert.equal(await q('priority=3&priority=4'), ['svc', 'evt']);
    assert.equal(await q('duration=600'), ['env']);
    assert.equal(await q('text=~ENVIRON'), ['env']);
    assert.equal(await q('priority!=1&priority!=8&tag!=dc1'), ['res', 'evt']);
    assert.equal(await q(`id=${ids.res!.slice(0, 8)}`), ['res']);
    const evt = BlackoutSchema.parse((await call(api, 'GET', `/blackout/${ids.evt}`)).body.blackout);
    assert.equal(await q(`startTime=${evt.startTime}`), ['evt']);
    assert.equal(await q('resource=nothing'), []);
  },
);

listing('sort-by and reverse', async ({ api, ids }) => {
  const q = async (query: string) =>
    keysOf(ids, (await list(api, `?environment=Listing&${query}`)).blackouts);
  assert.equal(await q('sort-by=priority'), ['env', 'res', 'svc', 'evt', 'old', 'org']);
  assert.equal(await q('sort-by=-priority'), ['org', 'old', 'evt', 'svc', 'res', 'env']);
  assert.equal(await q('sort-by=priority&reverse=true'), ['org', 'old', 'evt', 'svc', 'res', 'env']);
  // remaining: expired 0, then res 300, env 600, svc 900, org 1200; pending evt counts its whole 60 s.
  assert.equal(await q('sort-by=remaining'), ['old', 'evt', 'res', 'env', 'svc', 'org']);
  assert.equal(await q('sort-by=-remaining'), ['org', 'svc', 'env', 'res', 'evt', 'old']);
  assert.equal((await q('sort-by=endTime')).at(-1), 'old');
  assert.equal((await q('sort-by=tags&sort-by=priority')).slice(0, 4), ['env', 'res', 'evt', 'org']);
});

listing('paging, 416 past the end, and the empty form', async ({ api, ids }) => {
  const p1 = await list(api, '?environment=Listing&sort-by=priority&page-size=4');
  assert.equal([p1.total, p1.page, p1.pageSize, p1.pages, p1.more], [6, 1, 4, 2, true]);
  assert.equal(keysOf(ids, p1.blackouts), ['env', 'res', 'svc', 'evt']);
  const p2 = await list(api, '?environment=Listing&sort-by=priority&page-size=4&page=2');
  assert.equal([p2.page, p2.more], [2, false]);
  assert.equal(keysOf(ids, p2.blackouts), ['old', 'org']);
  assertError(
    await call(api, 'GET', '/blackouts?environment=Listing&page-size=4&page=3'),
    416,
    'page out of range: 1-2',
  );
  const empty = await call(api, 'GET', '/blackouts?environment=Nowhere');
  assert.is(empty.status, 200);
  assert.equal(empty.body, {
    status: 'ok',
    message: 'not found',
    blackouts: [],
    total: 0,
    page: 1,
    pageSize: 1000,
    pages: 0,
    more: false,
  });
});

listing('bad list parameters are 400s, never 500s', async ({ api }) => {
  const cases: [string, string | RegExp][] = [
    ['?foo=bar', 'Invalid filter parameter: foo'],
    ['?status=bogus', "Invalid value for status: 'bogus'"],
    ['?priority=abc', /Invalid value for priority/],
    ['?startTime=yesterday', /Invalid value for startTime/],
    ['?priority=~1', /cannot be matched with ~/],
    ['?sort-by=nothing', "Sorting by 'nothing' field not supported."],
    ['?sort-by=tag', "Sorting by 'tag' field not supported."],
    ['?page=0', /page must be a whole number/],
    ['?page-size=-1', /page-size must be a whole number/],
    ['?reverse=maybe', 'reverse must be true or false'],
    ['?id!=abc', 'Invalid filter parameter: id!'],
    ['?resource=%00', 'query parameters must not contain NUL characters'],
  ];
  for (const [query, message] of cases)
    assertError(await call(api, 'GET', `/blackouts${query}`), 400, message);
  // A ~ regex Postgres cannot compile is a 400, not a 500.
  assertError(await call(api, 'GET', '/blackouts?resource=~(&resource=~x'), 400);
});

listing.run();

// ---------------------------------------------------------------------------------------------

const notify = appSuite('blackouts: NOTIFICATION_BLACKOUT', {
  TEST_LABEL: 'blackouts_notify',
  PLUGINS: 'reject,blackout',
  NOTIFICATION_BLACKOUT: 'True',
  BLACKOUT_ACCEPT: 'critical',
});

notify('matching alerts are stored with status blackout; others are not touched', async ({ api }) => {
  await createBlackout(api, { environment: 'Development', resource: 'db01' });
  const r = await postAlert(api, {
    environment: 'Development',
    resource: 'db01',
    event: 'DiskFull',
    severity: 'critical',
  });
  assert.is(r.status, 201, JSON.stringify(r.body));
  assert.is(r.body.alert.status, 'blackout'); // BLACKOUT_ACCEPT applies only when alerts are dropped
  const again = await postAlert(api, {
    environment: 'Development',
    resource: 'db01',
    event: 'DiskFull',
    severity: 'critical',
  });
  assert.equal(
    [again.status, again.body.alert.duplicateCount, again.body.alert.status],
    [201, 1, 'blackout'],
  );
  const other = await postAlert(api, {
    environment: 'Development',
    resource: 'db02',
    event: 'DiskFull',
    severity: 'major',
  });
  assert.equal([other.status, other.body.alert.status], [201, 'open']);
});

notify.run();
