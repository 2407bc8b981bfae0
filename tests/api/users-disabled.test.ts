/**
 * A user who is disabled (status other than `active`) or deleted loses every credential at once
 * (issue #37 item 7, docs/users.md): its bearer tokens and API keys are refused at the next request,
 * on every instance sharing the database, and a live socket cannot (re)connect with them. A key
 * whose owner is no user here keeps working.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Running } from '../../server/boot.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { UserSchema } from '../../shared/users.ts';
import type { Answer, Api } from '../helpers/api.ts';
import { apiFor, bootInstance, startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { refused } from '../helpers/live.ts';

interface Ctx extends AppContext {
  /** A second instance on the same database. */
  other: Running;
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

const setStatus = async (ctx: Ctx, id: string, status: string) =>
  assert.is((await call(ctx.api, 'PUT', `/user/${id}`, ctx.admin, { status })).status, 200);

const test = suite<Ctx>('disabled and deleted users lose their credentials at once', {} as Ctx);
test.before(async (ctx) => {
  await startApp(ctx, SETTINGS);
  ctx.other = await bootInstance(ctx.db.url, { ...SETTINGS, LOG_LEVEL: 'silent' });
  ctx.otherApi = apiFor(ctx.other);
  const signedIn = await login(ctx.api, 'admin@example.com', 'admin-pass');
  ctx.admin = bearer(signedIn.body.token as string);
});
test.after(async (ctx) => {
  await ctx.other?.close();
  await stopApp(ctx);
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

test.run();
