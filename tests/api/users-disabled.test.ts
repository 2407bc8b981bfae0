/**
 * A user who is disabled (status other than `active`) or deleted loses every credential at once
 * (issue #37 item 7, docs/users.md): its bearer tokens and API keys are refused at the next request,
 * on every instance sharing the database, a live socket cannot (re)connect with them, and one
 * already connected is ended within a tick of the hub (5 s) with `session.expired`. A key whose
 * owner is no user here keeps working.
 */
import * as assert from 'uvu/assert';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { UserSchema } from '../../shared/users.ts';
import type { Answer, Api } from '../helpers/api.ts';
import { apiFor, twoInstanceSuite, type TwoInstances } from '../helpers/app.ts';
import { LiveClient, refused, sleep, until } from '../helpers/live.ts';

interface Ctx extends TwoInstances {
  otherApi: Api;
  admin: Record<string, string>;
}

const SETTINGS = {
  TEST_LABEL: 'users_disabled',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'disabled-users-secret',
  ADMIN_USERS: 'admin@example.com',
  ADMIN_PASSWORD: 'admin-pass',
  PLUGINS: 'remote_ip',
  // One address for both instances, as behind a load balancer: a token is for that audience.
  BASE_URL: 'http://alertwall.example/api',
};

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const keyed = (key: string) => ({ Authorization: `Key ${key}` });

const call = (api: Api, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  api.call(method, path, body, { headers });

function assertError(a: Answer, status: number, message?: string) {
  assert.is(a.status, status, JSON.stringify(a.body));
  const body = ErrorBodySchema.parse(a.body);
  assert.is(body.code, status);
  if (message !== undefined) assert.is(body.message, message);
}

async function login(api: Api, username: string, password: string): Promise<Answer> {
  return api.call('POST', '/auth/login', { username, password });
}

/** A new local user; returns its id and a token from its login. */
async function userWithToken(ctx: Ctx, email: string): Promise<{ id: string; token: string }> {
  const made = await call(ctx.api, 'POST', '/user', ctx.admin, { name: email, email, password: 'pw-123456' });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const signedIn = await login(ctx.api, email, 'pw-123456');
  assert.is(signedIn.status, 200, JSON.stringify(signedIn.body));
  return { id: made.body.id as string, token: signedIn.body.token as string };
}

/** The hub's tick (TICK_MS in server/realtime/hub.ts), in which a connected socket is ended, and a margin. */
const BOUND_MS = 5000 + 2000;

/** A connected socket subscribed to every alert, with what ended it (if anything) recorded. */
async function watching(origin: string, auth: { token: string } | { key: string }) {
  const client = await LiveClient.connect(origin, auth);
  const ended: { message?: string; at?: number; reason?: string } = {};
  client.socket.on('session.expired', (m) => Object.assign(ended, { message: m.message, at: Date.now() }));
  client.socket.on('disconnect', (reason) => (ended.reason = reason));
  await client.view('');
  return { client, ended };
}

async function endedWithin(ended: { message?: string; reason?: string }, ms: number) {
  const deadline = Date.now() + ms;
  while (!(ended.message && ended.reason) && Date.now() < deadline) await sleep(50);
}

/** The same alert through both instances: each instance's bus tells its own sockets. */
async function postAlert(ctx: Ctx, resource: string) {
  for (const api of [ctx.api, ctx.otherApi]) {
    const body = { resource, event: 'Down', environment: 'Production', severity: 'major' };
    const res = await call(api, 'POST', '/alert', ctx.admin, body);
    assert.is(res.status, 201, JSON.stringify(res.body));
  }
}

const pushedAbout = (client: LiveClient, resource: string) =>
  client.received.some(
    (m) => m.event === 'alert.updated' && m.data.alerts.some((a) => a.resource === resource),
  );

const setStatus = async (ctx: Ctx, id: string, status: string) =>
  assert.is((await call(ctx.api, 'PUT', `/user/${id}`, ctx.admin, { status })).status, 200);

const test = twoInstanceSuite<Ctx>('disabled and deleted users lose their credentials at once', SETTINGS, {
  ...SETTINGS,
  LOG_LEVEL: 'silent',
});
test.before(async (ctx) => {
  ctx.otherApi = apiFor(ctx.other);
  const signedIn = await login(ctx.api, 'admin@example.com', 'admin-pass');
  ctx.admin = bearer(signedIn.body.token as string);
});

test("a disabled user's token is refused at its next request, on both instances", async (ctx) => {
  const gina = await userWithToken(ctx, 'gina@corp.example');
  const me = bearer(gina.token);
  for (const api of [ctx.api, ctx.otherApi]) assert.is((await call(api, 'GET', '/user/me', me)).status, 200);

  await setStatus(ctx, gina.id, 'inactive');
  for (const api of [ctx.api, ctx.otherApi]) {
    assertError(await call(api, 'GET', '/user/me', me), 401, 'User gina@corp.example not active');
    assertError(await call(api, 'GET', '/alerts', me), 401);
  }
  // It cannot switch itself back on with the token it still holds, nor sign in again.
  assertError(await call(ctx.api, 'PUT', '/user/me', me, { status: 'active' }), 401);
  assertError(
    await login(ctx.api, 'gina@corp.example', 'pw-123456'),
    403,
    'User gina@corp.example not active',
  );
  const stored = UserSchema.parse((await call(ctx.api, 'GET', `/user/${gina.id}`, ctx.admin)).body.user);
  assert.is(stored.status, 'inactive');
  // Nor open a live socket on either instance.
  for (const r of [ctx.running, ctx.other]) {
    const err = await refused(`http://127.0.0.1:${r.port}`, { token: gina.token });
    assert.is(err.message, 'User gina@corp.example not active');
  }

  // An admin switching the user back on restores the token.
  await setStatus(ctx, gina.id, 'active');
  assert.is((await call(ctx.otherApi, 'GET', '/user/me', me)).status, 200);
  await setStatus(ctx, gina.id, 'unknown');
  assertError(await call(ctx.otherApi, 'GET', '/user/me', me), 401, 'User gina@corp.example not active');
});

test("a deleted user's token is refused", async (ctx) => {
  const hal = await userWithToken(ctx, 'hal@corp.example');
  assert.is((await call(ctx.otherApi, 'GET', '/alerts', bearer(hal.token))).status, 200);
  assert.is((await call(ctx.api, 'DELETE', `/user/${hal.id}`, ctx.admin)).status, 200);
  for (const api of [ctx.api, ctx.otherApi]) {
    assertError(
      await call(api, 'GET', '/alerts', bearer(hal.token)),
      401,
      'Token is invalid: its user does not exist',
    );
  }
});

test('keys of a user who is not active are refused; keys of no user keep working', async (ctx) => {
  const ivy = await userWithToken(ctx, 'ivy@corp.example');
  const made = await call(ctx.api, 'POST', '/key', bearer(ivy.token), { scopes: ['read'] });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const key = made.body.key as string;
  const service = await call(ctx.api, 'POST', '/key', ctx.admin, { user: 'backup-job', scopes: ['read'] });
  const serviceKey = service.body.key as string;
  assert.is((await call(ctx.otherApi, 'GET', '/alerts', keyed(key))).status, 200);

  await setStatus(ctx, ivy.id, 'inactive');
  for (const api of [ctx.api, ctx.otherApi]) {
    assertError(await call(api, 'GET', '/alerts', keyed(key)), 401, 'User ivy@corp.example not active');
    assertError(await api.call('GET', `/alerts?api-key=${key}`), 401);
    assert.is((await call(api, 'GET', '/alerts', keyed(serviceKey))).status, 200);
  }
  const err = await refused(ctx.origin, { key });
  assert.is(err.message, 'User ivy@corp.example not active');

  await setStatus(ctx, ivy.id, 'active');
  assert.is((await call(ctx.api, 'GET', '/alerts', keyed(key))).status, 200);
});

test('a connected socket of a user disabled meanwhile is ended within a tick, on both instances', async (ctx) => {
  const una = await userWithToken(ctx, 'una@corp.example');
  const vic = await userWithToken(ctx, 'vic@corp.example');
  const unaKey = (await call(ctx.api, 'POST', '/key', bearer(una.token), { scopes: ['read'] })).body
    .key as string;
  const serviceKey = (await call(ctx.api, 'POST', '/key', ctx.admin, { user: 'wall-job', scopes: ['read'] }))
    .body.key as string;
  const otherOrigin = `http://127.0.0.1:${ctx.other.port}`;
  const unaHere = await watching(ctx.origin, { token: una.token });
  const unaThere = await watching(otherOrigin, { token: una.token });
  const unaKeyed = await watching(otherOrigin, { key: unaKey });
  const vicThere = await watching(otherOrigin, { token: vic.token });
  const service = await watching(ctx.origin, { key: serviceKey });
  const sockets = [unaHere, unaThere, unaKeyed, vicThere, service];
  try {
    await postAlert(ctx, 'before');
    for (const s of sockets)
      await until(() => pushedAbout(s.client, 'before') || undefined, 5000, 'every socket hears "before"');

    await setStatus(ctx, una.id, 'inactive');
    const at = Date.now();
    for (const s of [unaHere, unaThere, unaKeyed]) {
      await endedWithin(s.ended, BOUND_MS - (Date.now() - at));
      assert.is(s.ended.message, 'User una@corp.example not active');
      assert.is(s.ended.reason, 'io server disconnect');
      assert.ok(s.ended.at! - at <= BOUND_MS, `ended after ${s.ended.at! - at} ms`);
      assert.not.ok(s.client.socket.connected);
    }

    // Sockets of an active user and of a key of no user stay, and hear what follows; the ended
    // ones hear nothing more.
    await postAlert(ctx, 'after');
    for (const s of [vicThere, service])
      await until(() => pushedAbout(s.client, 'after') || undefined, 5000, 'active sockets hear "after"');
    for (const s of [vicThere, service]) {
      assert.ok(s.client.socket.connected);
      assert.is(s.ended.message, undefined);
    }
    for (const s of [unaHere, unaThere, unaKeyed]) assert.not.ok(pushedAbout(s.client, 'after'));
  } finally {
    for (const s of sockets) s.client.close();
  }
});

test('a connected socket of a user deleted meanwhile is ended within a tick', async (ctx) => {
  const wes = await userWithToken(ctx, 'wes@corp.example');
  const socket = await watching(`http://127.0.0.1:${ctx.other.port}`, { token: wes.token });
  try {
    assert.is((await call(ctx.api, 'DELETE', `/user/${wes.id}`, ctx.admin)).status, 200);
    await endedWithin(socket.ended, BOUND_MS);
    assert.is(socket.ended.message, 'Token is invalid: its user does not exist');
    assert.is(socket.ended.reason, 'io server disconnect');
  } finally {
    socket.client.close();
  }
});

test.run();
