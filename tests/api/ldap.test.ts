/**
 * LDAP login with per-domain DN templates (auth.md §10, docs/auth-providers.md) against a real
 * slapd holding two domains: tokens and local user rows for users of both domains (the same uid in
 * each is two people), groups of both kinds feeding scopes, Basic credentials bound against the
 * directory, the refusals (wrong password, empty password, unknown domain, injection attempts),
 * sign-up and the e-mail flows refused, inactive users, and an unreachable server.
 */
import { decodeJwt } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Answer } from '../helpers/api.ts';
import { queryDb } from '../helpers/db.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import {
  assertError,
  basicAuth as basic,
  callUnleaked,
  keyAuth,
  securedSettings,
} from '../helpers/secured.ts';
import { reportFailure, startSlapd, USERS, type Slapd } from '../helpers/slapd.ts';

const ADMIN_KEY = 'ldap-test-admin-key-0123456789abcdef';
const GROUPS_COM =
  '(|(&(objectClass=groupOfNames)(member={userdn}))(&(objectClass=posixGroup)(memberUid={username})))';

interface Ctx extends AppContext {
  slapd: Slapd;
}

/** A request whose answer holds no directory password. */
const call = (ctx: Ctx, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  callUnleaked(ctx.api, { 'a password': /-pw\b/ }, method, path, body, headers);

const asAdmin = keyAuth(ADMIN_KEY);
async function login(ctx: Ctx, username: string, password: string): Promise<Answer> {
  return call(ctx, 'POST', '/auth/login', { username, password });
}

async function tokenOf(ctx: Ctx, username: string, password: string): Promise<string> {
  const a = await login(ctx, username, password);
  assert.is(a.status, 200, JSON.stringify(a.body));
  assert.type(a.body.token, 'string');
  return a.body.token as string;
}

const ldap = suite<Ctx>('LDAP login with DN templates', {} as Ctx);

ldap.before((ctx) =>
  reportFailure(async () => {
    ctx.slapd = await startSlapd();
    await startApp(
      ctx,
      securedSettings('ldap', 'test-secret-key-123', {
        AUTH_PROVIDER: 'ldap',
        LDAP_URL: ctx.slapd.url,
        LDAP_DOMAINS: JSON.stringify({
          'example.com': 'uid=%s,ou=people,dc=example,dc=com',
          // Domains in settings compare without case, like logins.
          'Example.ORG': 'uid={},ou=users,dc=example,dc=org',
        }),
        LDAP_DOMAINS_BASEDN: JSON.stringify({
          'example.com': 'ou=groups,dc=example,dc=com',
          'example.org': 'ou=groups,dc=example,dc=org',
        }),
        LDAP_DOMAINS_GROUP: JSON.stringify({ 'example.com': GROUPS_COM, 'EXAMPLE.org': '(member={userdn})' }),
        ADMIN_KEY,
      }),
    );
  }),
);
ldap.after(async (ctx) => {
  await stopApp(ctx);
  await ctx.slapd?.stop();
});

ldap(
  'a user of the first domain gets a token with provider ldap, directory name, mail and groups',
  async (ctx) => {
    const claims = decodeJwt(await tokenOf(ctx, 'alice@example.com', USERS.alice.password));
    assert.is(claims.provider, 'ldap');
    assert.is(claims.preferred_username, 'alice@example.com');
    assert.is(claims.name, 'Alice Liddell');
    assert.is(claims.email, 'alice@example.com');
    assert.is(claims.email_verified, true);
    assert.equal(claims.groups, ['devs', 'ops']);
    assert.equal(claims.roles, ['user']);
    assert.is(claims.scope, 'read write');
  },
);

ldap('the token works and the local user row says ldap, with no password', async (ctx) => {
  const token = await tokenOf(ctx, 'alice@example.com', USERS.alice.password);
  const auth = { Authorization: `Bearer ${token}` };
  assert.is((await call(ctx, 'GET', '/alerts', undefined, auth)).status, 200);
  const me = await call(ctx, 'GET', '/user/me', undefined, auth);
  assert.is(me.status, 200);
  const user = me.body.user as Record<string, unknown>;
  assert.is(user.login, 'alice@example.com');
  assert.is(user.provider, 'ldap');
  assert.is(user.text, 'LDAP user');
  assert.is(user.name, 'Alice Liddell');
  assert.equal(user.roles, ['user']);
  assert.type(user.lastLogin, 'string');
  const rows = await queryDb<{ password: string; n: string }>(
    ctx.db.url,
    `SELECT password, count(*) OVER ()::text AS n FROM users WHERE login = 'alice@example.com'`,
  );
  assert.equal(rows, [{ password: '', n: '1' }], 'one row, no local password');
});

ldap('a user without mail gets <user>@<domain>, unverified; posixGroup membership counts', async (ctx) => {
  const claims = decodeJwt(await tokenOf(ctx, 'bob@example.com', USERS.bob.password));
  assert.is(claims.preferred_username, 'bob@example.com');
  assert.is(claims.email, 'bob@example.com');
  assert.is(claims.email_verified, false);
  assert.equal(claims.groups, ['dbas', 'devs']);
});

ldap('the second domain: DOMAIN\\user works, {} templates, its own groups', async (ctx) => {
  const claims = decodeJwt(await tokenOf(ctx, 'example.org\\dave', USERS.dave.password));
  assert.is(claims.preferred_username, 'dave@example.org');
  assert.is(claims.email, 'dave@example.org');
  assert.equal(claims.groups, ['support']);
});

ldap('the same uid in both domains is two people with their own passwords', async (ctx) => {
  assertError(
    await login(ctx, 'alice@example.org', USERS.alice.password),
    401,
    'Invalid username or password',
  );
  const org = decodeJwt(await tokenOf(ctx, 'alice@example.org', USERS.aliceOrg.password));
  const com = decodeJwt(await tokenOf(ctx, 'Alice@Example.COM', USERS.alice.password));
  assert.is(org.preferred_username, 'alice@example.org');
  assert.is(com.preferred_username, 'alice@example.com', 'logins are lower-cased: one row per person');
  assert.is.not(org.sub, com.sub);
  assert.is(org.groups, undefined, 'no groups: none found in the org tree');
});

ldap('wrong or missing credentials and unknown domains are refused', async (ctx) => {
  assertError(await login(ctx, 'alice@example.com', 'nope'), 401, 'Invalid username or password');
  assertError(await login(ctx, 'nobody@example.com', 'nope'), 401, 'Invalid username or password');
  assertError(await login(ctx, 'alice@example.com', ''), 401, 'password not allowed to be empty');
  assertError(await login(ctx, 'alice', USERS.alice.password), 401, 'expected username with domain');
  assertError(await login(ctx, 'alice@example.net', USERS.alice.password), 403, 'unauthorized domain');
  assertError(
    await call(ctx, 'POST', '/auth/login', { username: 'alice@example.com' }),
    401,
    "must supply 'username' and 'password'",
  );
});

ldap('names that try to change the DN or the group filter find nobody (401, never 500)', async (ctx) => {
  for (const name of [
    '*@example.com',
    'alice,ou=people@example.com',
    'x,uid=alice@example.com',
    'alice)(uid=*@example.com',
    '#alice @example.com',
  ]) {
    const a = await login(ctx, name, USERS.alice.password);
    assert.is(a.status, 401, `${name}: ${JSON.stringify(a.body)}`);
  }
});

ldap('directory groups map to scopes through permissions', async (ctx) => {
  const perm = await call(ctx, 'POST', '/perm', { match: 'ops', scopes: ['admin:alerts'] }, asAdmin);
  assert.is(perm.status, 201, JSON.stringify(perm.body));
  const alice = decodeJwt(await tokenOf(ctx, 'alice@example.com', USERS.alice.password));
  const bob = decodeJwt(await tokenOf(ctx, 'bob@example.com', USERS.bob.password));
  assert.is(alice.scope, 'admin:alerts read write');
  assert.is(bob.scope, 'read write');
});

ldap('Basic credentials bind against the directory on each request', async (ctx) => {
  const me = await call(ctx, 'GET', '/user/me', undefined, basic('dave@example.org', USERS.dave.password));
  assert.is(me.status, 200, JSON.stringify(me.body));
  assert.is((me.body.user as { login: string }).login, 'dave@example.org');
  const created = await call(
    ctx,
    'POST',
    '/alert',
    { resource: 'ldap01', event: 'Basic', environment: 'Production', service: ['x'] },
    basic('alice@example.com', USERS.alice.password),
  );
  assert.is(created.status, 201, JSON.stringify(created.body));
  const wrong = await call(ctx, 'GET', '/alerts', undefined, basic('alice@example.com', 'nope'));
  assertError(wrong, 401, 'Authorization required');
  assert.is(wrong.headers.get('www-authenticate'), 'Basic realm=Alerta');
  const noDomain = await call(ctx, 'GET', '/alerts', undefined, basic('alice', USERS.alice.password));
  assert.is(noDomain.status, 401);
  assert.is(noDomain.headers.get('www-authenticate'), 'Basic realm=Alerta');
});

ldap('sign-up, e-mail verification and password reset are refused with the reason', async (ctx) => {
  const signup = await call(ctx, 'POST', '/auth/signup', {
    name: 'Eve',
    email: 'eve@example.com',
    password: 'eve-pw',
  });
  assertError(
    signup,
    403,
    "user signup is not supported with AUTH_PROVIDER 'ldap': accounts come from that provider",
  );
  const forgot = await call(ctx, 'POST', '/auth/forgot', { email: 'alice@example.com' });
  assert.is(forgot.status, 403);
  assert.match(String(forgot.body.message), /^password reset is not supported with AUTH_PROVIDER 'ldap'/);
  assert.is((await call(ctx, 'POST', '/auth/reset/abc', { password: 'x' })).status, 403);
  const confirm = await call(ctx, 'POST', '/auth/confirm/abc', {});
  assert.is(confirm.status, 403);
  assert.match(String(confirm.body.message), /^e-mail verification is not supported/);
  const users = await queryDb(ctx.db.url, `SELECT 1 FROM users WHERE login = 'eve@example.com'`);
  assert.is(users.length, 0);
  const create = await call(
    ctx,
    'POST',
    '/user',
    { name: 'Eve', email: 'eve@example.com', password: 'x' },
    asAdmin,
  );
  assertError(create, 400, 'must use ldap login flow to create new user');
});

ldap('an inactive local row stops the directory user (403), Basic too', async (ctx) => {
  const [row] = await queryDb<{ id: string }>(
    ctx.db.url,
    `SELECT id FROM users WHERE login = 'bob@example.com'`,
  );
  const put = await call(ctx, 'PUT', `/user/${row!.id}`, { status: 'inactive' }, asAdmin);
  assert.is(put.status, 200, JSON.stringify(put.body));
  assertError(
    await login(ctx, 'bob@example.com', USERS.bob.password),
    403,
    'User bob@example.com not active',
  );
  const b = await call(ctx, 'GET', '/alerts', undefined, basic('bob@example.com', USERS.bob.password));
  assert.is(b.status, 403);
});

ldap('an unreachable directory answers 503, not a login failure', async (ctx) => {
  await ctx.slapd.stop();
  assertError(await login(ctx, 'alice@example.com', USERS.alice.password), 503, 'LDAP server unavailable');
});

ldap.run();
