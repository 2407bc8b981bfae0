/**
 * Login, signup, logout, userinfo and tokens (auth.md §6, §8, §13; docs/users.md): good and bad
 * logins with one message for unknown users, inactive users, expired and tampered tokens, the
 * admin bootstrap (and that a restart adds nobody), and the login rate limit.
 */
import { SignJWT } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { boot } from '../../server/boot.ts';
import { loadConfig } from '../../server/config.ts';
import { createToken } from '../../server/auth/tokens.ts';
import { createLog } from '../../server/log.ts';
import { UserSchema } from '../../shared/users.ts';
import { queryDb } from '../helpers/db.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { assertError, callUnleaked, securedSettings } from '../helpers/secured.ts';

const SETTINGS = securedSettings('users', 'test-secret-key-123', {
  ADMIN_PASSWORD: 'admin-pass',
  // The rate-limit test speaks for other client addresses through X-Forwarded-For.
  USE_PROXYFIX: 'True',
});

/** A request whose answer holds no password and no password hash. */
const call = (
  ctx: AppContext,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  callUnleaked(
    ctx.api,
    { 'a bcrypt hash': /\$2[aby]?\$/, 'a password': /admin-pass|sign-me-up-1/ },
    method,
    path,
    body,
    headers,
  );

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const from = (ip: string) => ({ 'X-Forwarded-For': ip });

async function login(ctx: AppContext, username: string, password: string, ip = '10.0.0.1') {
  return call(ctx, 'POST', '/auth/login', { username, password }, from(ip));
}

async function adminToken(ctx: AppContext): Promise<string> {
  const r = await login(ctx, 'admin@example.com', 'admin-pass');
  assert.is(r.status, 200, r.text);
  return r.body.token as string;
}

const test = suite<AppContext>('login, signup, tokens', {} as AppContext);
test.before((ctx) => startApp(ctx, SETTINGS));
test.after(stopApp);

test('the bootstrapped admin exists and logs in; the answer is just {token}', async (ctx) => {
  const r = await login(ctx, 'admin@example.com', 'admin-pass');
  assert.is(r.status, 200, r.text);
  assert.equal(Object.keys(r.body), ['token']);
  const me = await call(ctx, 'GET', '/user/me', undefined, bearer(r.body.token as string));
  const user = UserSchema.parse(me.body.user);
  assert.equal(
    [user.login, user.email, user.roles, user.email_verified, user.text],
    ['admin@example.com', 'admin@example.com', ['admin'], true, 'Created by alertad script'],
  );
  assert.ok(user.lastLogin, 'lastLogin set by the login');
});

test('signup → token → GET /user/me; duplicate email 409', async (ctx) => {
  const r = await call(ctx, 'POST', '/auth/signup', {
    name: 'Sam',
    email: 'sam@corp.example',
    password: 'sign-me-up-1',
    text: 'hello',
  });
  assert.is(r.status, 200, r.text);
  assert.equal(Object.keys(r.body), ['token']);
  const me = await call(ctx, 'GET', '/user/me', undefined, bearer(r.body.token as string));
  assert.is(me.status, 200, me.text);
  const user = UserSchema.parse(me.body.user);
  assert.equal(
    [user.name, user.login, user.email, user.roles, user.text, user.status],
    ['Sam', 'sam@corp.example', 'sam@corp.example', ['user'], 'hello', 'active'],
  );
  assertError(
    await call(ctx, 'POST', '/auth/signup', { name: 'Sam2', email: 'SAM@corp.example', password: 'x' }),
    409,
    'user with that email already exists',
  );
  assertError(await call(ctx, 'POST', '/auth/signup', { email: 'n@corp.example', password: 'x' }), 400);
  assertError(
    await call(ctx, 'POST', '/auth/signup', { name: 'N', email: 'not-an-email', password: 'x' }),
    400,
  );
  // The signed-up user logs in with email and password.
  assert.is((await login(ctx, 'sam@corp.example', 'sign-me-up-1')).status, 200);
  assert.is(
    (await call(ctx, 'POST', '/auth/login', { email: 'sam@corp.example', password: 'sign-me-up-1' })).status,
    200,
    'email accepted instead of username',
  );
});

test('bad password and unknown user: 401 with the same message; missing fields 401', async (ctx) => {
  const bad = await login(ctx, 'sam@corp.example', 'wrong', '10.0.1.1');
  const unknown = await login(ctx, 'nobody@corp.example', 'wrong', '10.0.1.1');
  assertError(bad, 401, 'Invalid username or password');
  assertError(unknown, 401, 'Invalid username or password');
  assertError(
    await call(ctx, 'POST', '/auth/login', { username: 'sam@corp.example' }),
    401,
    "must supply 'username' and 'password'",
  );
  assertError(await call(ctx, 'POST', '/auth/login', { username: 1, password: 2 }), 401);
});

test('an inactive user gets 403 User <login> not active', async (ctx) => {
  const admin = bearer(await adminToken(ctx));
  const created = await call(
    ctx,
    'POST',
    '/user',
    { name: 'Ina', email: 'ina@corp.example', password: 'ina-pw', status: 'inactive' },
    admin,
  );
  assert.is(created.status, 201, created.text);
  assertError(await login(ctx, 'ina@corp.example', 'ina-pw'), 403, 'User ina@corp.example not active');
});

test('tokens: claims via /userinfo; expired → 401 Token has expired; tampered → 401 Token is invalid', async (ctx) => {
  const token = await adminToken(ctx);
  const info = await call(ctx, 'GET', '/userinfo', undefined, bearer(token));
  assert.is(info.status, 200, info.text);
  assert.is(info.body.preferred_username, 'admin@example.com');
  assert.is(info.body.email, 'admin@example.com');
  assert.is(info.body.provider, 'basic');
  assert.is(info.body.typ, 'Bearer');
  assert.is(info.body.scope, 'admin read write');
  assert.equal(info.body.roles, ['admin']);
  // As the established server signs them: the request's root URL, with its trailing slash.
  assert.is(info.body.aud, `${ctx.api.base}/`);
  assert.is(info.body.iss, `${ctx.api.base}/`);
  assert.type(info.body.sub, 'string');
  assert.not.ok('customers' in info.body, 'no customers claim without CUSTOMER_VIEWS');

  // /userinfo is for token callers only.
  const basic = `Basic ${Buffer.from('admin@example.com:admin-pass').toString('base64')}`;
  assertError(
    await call(ctx, 'GET', '/userinfo', undefined, { Authorization: basic }),
    401,
    'Missing authorization Bearer token',
  );

  const config = ctx.running.deps.config;
  const subject = {
    userId: info.body.sub as string,
    login: 'admin@example.com',
    provider: 'basic',
    scopes: ['admin'],
  };
  const expired = await createToken(config, subject, ctx.api.base, Date.now() - 30 * 86400e3);
  assertError(await call(ctx, 'GET', '/user/me', undefined, bearer(expired)), 401, 'Token has expired');

  const [head, payload, sig] = token.split('.') as [string, string, string];
  const flipped = sig[5] === 'A' ? 'B' : 'A';
  const tampered = `${head}.${payload}.${sig.slice(0, 5)}${flipped}${sig.slice(6)}`;
  assertError(await call(ctx, 'GET', '/user/me', undefined, bearer(tampered)), 401, 'Token is invalid');
  assertError(await call(ctx, 'GET', '/user/me', undefined, bearer('garbage')), 401, 'Token is invalid');
  assertError(await call(ctx, 'GET', '/userinfo'), 401, 'Missing authorization API Key or Bearer Token');
});

test('tokens signed by the established server (aud with or without the trailing slash) are accepted', async (ctx) => {
  const info = await call(ctx, 'GET', '/userinfo', undefined, bearer(await adminToken(ctx)));
  const sign = (aud: string) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      typ: 'Bearer',
      preferred_username: 'admin@example.com',
      provider: 'basic',
      scope: 'admin read write',
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(`${ctx.api.base}/`)
      .setSubject(info.body.sub as string)
      .setAudience(aud)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode(SETTINGS.SECRET_KEY));
  };
  for (const aud of [`${ctx.api.base}/`, ctx.api.base]) {
    const me = await call(ctx, 'GET', '/user/me', undefined, bearer(await sign(aud)));
    assert.is(me.status, 200, `aud ${aud}: ${me.text}`);
    assert.is((me.body.user as { login: string }).login, 'admin@example.com');
  }
  for (const aud of ['http://elsewhere.example/api/', `${ctx.api.base}//`, `${ctx.api.base}/x`]) {
    assertError(
      await call(ctx, 'GET', '/user/me', undefined, bearer(await sign(aud))),
      401,
      'Invalid audience',
    );
  }
});

test('logout answers ok by GET and POST', async (ctx) => {
  const expected = { status: 'ok', message: 'OIDC end_session_endpoint not configured' };
  assert.equal((await call(ctx, 'GET', '/auth/logout')).body, expected);
  assert.equal((await call(ctx, 'POST', '/auth/logout', {})).body, expected);
});

test('rate limit: the 11th bad login in 5 minutes gets 429 + Retry-After; another address still logs in', async (ctx) => {
  for (let i = 0; i < 10; i++) {
    assertError(await login(ctx, 'sam@corp.example', `wrong-${i}`, '10.9.9.9'), 401);
  }
  const limited = await login(ctx, 'sam@corp.example', 'wrong-again', '10.9.9.9');
  assertError(limited, 429);
  assert.match(String(limited.body.message), /Too many failed login attempts; try again in \d+ seconds/);
  const retry = Number(limited.headers.get('retry-after'));
  assert.ok(retry > 0 && retry <= 300, `Retry-After ${retry}`);
  // Even the right password waits while the limit holds for this login from this address …
  assertError(await login(ctx, 'sam@corp.example', 'sign-me-up-1', '10.9.9.9'), 429);
  // … but the same user from another address, and other users from this one, are not blocked.
  assert.is((await login(ctx, 'sam@corp.example', 'sign-me-up-1', '10.8.8.8')).status, 200);
  assert.is((await login(ctx, 'admin@example.com', 'admin-pass', '10.9.9.9')).status, 200);
});

test('restart: the admin bootstrap adds nobody and leaves the existing admin untouched', async (ctx) => {
  const config = loadConfig(
    {
      ...SETTINGS,
      ADMIN_PASSWORD: 'other-pass',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: ctx.db.url,
    },
    { systemFile: null },
  );
  const second = await boot(config, createLog('silent'));
  await second.close();
  const rows = await queryDb<{ n: number }>(
    ctx.db.url,
    `SELECT count(*)::int AS n FROM users WHERE login = 'admin@example.com'`,
  );
  assert.is(rows[0]!.n, 1);
  assert.is((await login(ctx, 'admin@example.com', 'admin-pass', '10.7.7.7')).status, 200);
});

test.run();

const noPassword = suite<AppContext>('admin bootstrap without ADMIN_PASSWORD', {} as AppContext);
noPassword.before((ctx) => startApp(ctx, { ...SETTINGS, ADMIN_PASSWORD: '' }));
noPassword.after(stopApp);

noPassword('creates no admin user (and logs a warning)', async (ctx) => {
  const rows = await queryDb<{ n: number }>(ctx.db.url, 'SELECT count(*)::int AS n FROM users');
  assert.is(rows[0]!.n, 0);
  assertError(await login(ctx, 'admin@example.com', 'admin-pass'), 401, 'Invalid username or password');
});

noPassword.run();
