/**
 * OAuth 2.0 / OpenID Connect sign-in against a real OpenID Provider (the oidc-provider package on
 * loopback, tests/helpers/oidc-provider.ts): the code flow the web UI and the CLI finish with
 * `POST /auth/<provider>`, our own token in return, the local user per provider and subject, the
 * allow-lists (ALLOWED_EMAIL_DOMAINS, ALLOWED_KEYCLOAK_ROLES, ALLOWED_GITLAB_GROUPS), roles and groups
 * mapped to scopes and customers, discovery at start-up, and the settings checked there.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { calculatePKCECodeChallenge, randomPKCECodeVerifier } from 'openid-client';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { boot } from '../../server/boot.ts';
import { createLog } from '../../server/log.ts';
import { UserSchema } from '../../shared/users.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.ts';
import { assertError, keyAuth, securedSettings } from '../helpers/secured.ts';

const UI = 'http://localhost:8000/';
const CLI = 'http://localhost:9004';
const ADMIN_KEY = 'oidc-test-admin-key-0123456789';

interface Ctx extends AppContext {
  idp: TestOidcProvider;
}

const common = (idp: TestOidcProvider, extra: Record<string, string>) =>
  securedSettings('oidc', 'oidc-test-secret-key', {
    ADMIN_PASSWORD: 'admin-pass',
    ADMIN_KEY,
    OAUTH2_CLIENT_ID: 'alerta-ui',
    OAUTH2_CLIENT_SECRET: 'ui-secret',
    ...extra,
    ...(extra.AUTH_PROVIDER === 'openid' ? { OIDC_ISSUER_URL: idp.issuer } : {}),
  });

async function startProvider(ctx: Ctx, prefix = '', tokenAuthMethod?: 'client_secret_post') {
  ctx.idp = await startOidcProvider({
    prefix,
    clientId: 'alerta-ui',
    clientSecret: 'ui-secret',
    redirectUris: [UI, CLI],
    ...(tokenAuthMethod ? { tokenAuthMethod } : {}),
  });
}

async function stopAll(ctx: Ctx) {
  await stopApp(ctx);
  await ctx.idp?.close();
}

/** The browser's part (provider login, redirect with a code), then the client's POST /auth/<provider>. */
async function signIn(ctx: Ctx, provider: string, subject: string, redirectUri = UI) {
  const code = await ctx.idp.authorize(subject, redirectUri);
  const res = await ctx.api.post(`/auth/${provider}`, { code, clientId: 'alerta-ui', redirectUri });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, code, claims: res.ok ? decodeJwt(body.token as string) : {} };
}

const bearer = (token: unknown) => ({ headers: { Authorization: `Bearer ${String(token)}` } });
const asAdmin = { headers: keyAuth(ADMIN_KEY) };

// --- the generic OpenID Connect provider -------------------------------------------------------

const openid = suite<Ctx>('AUTH_PROVIDER = openid', {} as Ctx);
openid.before(async (ctx) => {
  await startProvider(ctx);
  await startApp(
    ctx,
    common(ctx.idp, { AUTH_PROVIDER: 'openid', ALLOWED_EMAIL_DOMAINS: 'example.com,example.org' }),
  );
  ctx.idp.accounts.set('sub-alice', {
    preferred_username: 'alice',
    name: 'Alice Liddell',
    email: 'alice@example.com',
    email_verified: true,
    picture: 'https://example.com/alice.png',
    roles: ['ops'],
    groups: ['sre'],
  });
});
openid.after(stopAll);

openid('the code flow ends with our own token for a new local user of that provider', async (ctx) => {
  const r = await signIn(ctx, 'openid', 'sub-alice');
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(Object.keys(r.body), ['token']);
  const c = r.claims;
  assert.equal(
    [c.provider, c.preferred_username, c.name, c.email, c.email_verified, c.picture],
    ['openid', 'alice', 'Alice Liddell', 'alice@example.com', true, 'https://example.com/alice.png'],
  );
  assert.equal(c.roles, ['ops', 'user'], 'the roles claim, then the user roles');
  assert.equal(c.groups, ['sre']);
  assert.is(c.scope, 'read write', 'USER_ROLES give USER_DEFAULT_SCOPES');
  assert.match(String(c.sub), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

  const me = await ctx.api.get('/user/me', bearer(r.body.token));
  assert.is(me.status, 200);
  const user = UserSchema.parse(((await me.json()) as { user: unknown }).user);
  assert.equal(
    [user.id, user.login, user.email, user.email_verified, user.roles, user.text, user.provider],
    [c.sub, 'alice', 'alice@example.com', true, ['user'], 'OpenID user', 'openid'],
  );
  assert.ok(user.lastLogin);
  const rows = await queryDb(ctx.db.url, `SELECT password FROM users WHERE login = 'alice'`);
  assert.equal(rows, [{ password: '' }], 'no local password: Basic and /auth/login cannot use it');
  assert.is((await ctx.api.get('/alerts', bearer(r.body.token))).status, 200, 'the token works');
});

openid('the CLI redirect works too; the same subject is the same user, kept in step', async (ctx) => {
  const first = await signIn(ctx, 'openid', 'sub-alice', CLI);
  assert.is(first.status, 200, JSON.stringify(first.body));
  ctx.idp.accounts.set('sub-alice', {
    ...ctx.idp.accounts.get('sub-alice'),
    preferred_username: 'alice.l',
    name: 'Alice L.',
  });
  const again = await signIn(ctx, 'openid', 'sub-alice');
  assert.is(again.claims.sub, first.claims.sub);
  assert.is(again.claims.preferred_username, 'alice.l');
  const rows = await queryDb(ctx.db.url, `SELECT login, name FROM users WHERE id = $1`, [first.claims.sub]);
  assert.equal(rows, [{ login: 'alice.l', name: 'Alice L.' }]);
});

openid('first sign-ins of one person at once make one user', async (ctx) => {
  ctx.idp.accounts.set('sub-twice', {
    preferred_username: 'twice',
    email: 'twice@example.org',
    email_verified: true,
  });
  const codes: string[] = [];
  for (let i = 0; i < 4; i++) codes.push(await ctx.idp.authorize('sub-twice', UI));
  const answers = await Promise.all(
    codes.map((code) => ctx.api.post('/auth/openid', { code, clientId: 'alerta-ui', redirectUri: UI })),
  );
  assert.equal(
    answers.map((a) => a.status),
    [200, 200, 200, 200],
  );
  const subs = await Promise.all(
    answers.map(async (a) => decodeJwt(((await a.json()) as { token: string }).token).sub),
  );
  assert.is(new Set(subs).size, 1);
  assert.equal(await queryDb(ctx.db.url, `SELECT count(*)::int AS n FROM users WHERE login = 'twice'`), [
    { n: 1 },
  ]);
});

openid('a code works once; bad input is a 400 JSON error', async (ctx) => {
  const r = await signIn(ctx, 'openid', 'sub-alice');
  const replay = await ctx.api.post('/auth/openid', { code: r.code, clientId: 'alerta-ui', redirectUri: UI });
  assertError(
    { status: replay.status, body: await replay.json() },
    401,
    'code exchange failed: invalid_grant',
  );
  const bad = async (body: unknown) => {
    const res = await ctx.api.post('/auth/openid', body);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  assertError(await bad({ clientId: 'alerta-ui', redirectUri: UI }), 400);
  assertError(await bad({ code: 7, redirectUri: UI }), 400);
  assertError(await bad(['code']), 400, 'expected a JSON object');
  assertError(
    await bad({ code: 'x', clientId: 'someone-else', redirectUri: UI }),
    400,
    "clientId 'someone-else' is not OAUTH2_CLIENT_ID",
  );
  // Without clientId the configured one is used; the provider refuses the made-up code.
  assertError(await bad({ code: 'x', redirectUri: UI }), 401, 'code exchange failed: invalid_grant');
  assertError(await bad({ code: 'x', redirectUri: UI, clientId: null }), 401);
  const other = await ctx.api.post('/auth/github', { code: 'x', redirectUri: UI });
  assertError(
    { status: other.status, body: await other.json() },
    400,
    "login with github is not enabled (AUTH_PROVIDER is 'openid')",
  );
  const azure = await ctx.api.post('/auth/azure', { code: 'x', redirectUri: UI });
  assertError(
    { status: azure.status, body: await azure.json() },
    400,
    "login with azure is not enabled (AUTH_PROVIDER is 'openid')",
  );
  assert.is((await ctx.api.post('/auth/cas', { code: 'x', redirectUri: UI })).status, 501);
});

openid('with PKCE the code is exchanged only with its verifier (RFC 7636)', async (ctx) => {
  const verifier = randomPKCECodeVerifier();
  const challenge = await calculatePKCECodeChallenge(verifier);
  const exchange = async (codeVerifier?: string) => {
    const code = await ctx.idp.authorize('sub-alice', UI, undefined, challenge);
    const res = await ctx.api.post('/auth/openid', {
      code,
      clientId: 'alerta-ui',
      redirectUri: UI,
      codeVerifier,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  assertError(await exchange(), 401, 'code exchange failed: invalid_grant');
  assertError(await exchange(randomPKCECodeVerifier()), 401, 'code exchange failed: invalid_grant');
  const r = await exchange(verifier);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(decodeJwt(r.body.token as string).provider, 'openid');
});

openid('ALLOWED_EMAIL_DOMAINS refuses other domains, and no user is created for them', async (ctx) => {
  ctx.idp.accounts.set('sub-mallory', {
    preferred_username: 'mallory',
    email: 'mallory@evil.test',
    email_verified: true,
  });
  const r = await signIn(ctx, 'openid', 'sub-mallory');
  assertError(r, 403, 'User mallory is not authorized');
  assert.equal(await queryDb(ctx.db.url, `SELECT id FROM users WHERE login = 'mallory'`), []);
  ctx.idp.accounts.set('sub-nomail', { preferred_username: 'nomail' });
  assertError(await signIn(ctx, 'openid', 'sub-nomail'), 403, 'User nomail is not authorized');
});

openid('a verified email links to the existing user; ADMIN_USERS stay admins', async (ctx) => {
  ctx.idp.accounts.set('sub-admin', {
    preferred_username: 'the-admin',
    email: 'admin@example.com',
    email_verified: true,
  });
  const r = await signIn(ctx, 'openid', 'sub-admin');
  assert.is(r.status, 200, JSON.stringify(r.body));
  const [admin] = await queryDb<{ id: string }>(
    ctx.db.url,
    `SELECT id::text AS id FROM users WHERE email = 'admin@example.com'`,
  );
  assert.is(r.claims.sub, admin!.id, 'signed in as the bootstrapped admin');
  assert.is(r.claims.scope, 'admin read write');
  assert.is(r.claims.preferred_username, 'admin@example.com', "a linked user's login is left alone");

  // Unverified, the same address does not link and cannot be given to a second user.
  ctx.idp.accounts.set('sub-claimer', {
    preferred_username: 'claimer',
    email: 'admin@example.com',
    email_verified: false,
  });
  assertError(
    await signIn(ctx, 'openid', 'sub-claimer'),
    409,
    "email 'admin@example.com' belongs to another user",
  );
});

openid('local accounts still log in with a password; /config and logout show the provider', async (ctx) => {
  const login = await ctx.api.post('/auth/login', { username: 'admin@example.com', password: 'admin-pass' });
  assert.is(login.status, 200);
  const config = (await (await ctx.api.get('/config')).json()) as Record<string, unknown>;
  assert.is(config.provider, 'openid');
  assert.is(config.oidc_auth_url, `${ctx.idp.issuer}/auth`, 'the discovered authorization endpoint');
  const out = (await (await ctx.api.get('/auth/logout')).json()) as Record<string, unknown>;
  assert.equal(out, { status: 'ok', logoutUrl: `${ctx.idp.issuer}/session/end` });
});

openid.run();

// --- the identity-management provider (Keycloak-like: a realm, a roles claim) ------------------

const keycloak = suite<Ctx>('AUTH_PROVIDER = keycloak: roles allow-list and mapping', {} as Ctx);
keycloak.before(async (ctx) => {
  await startProvider(ctx, '/auth/realms/alerta');
  await startApp(
    ctx,
    common(ctx.idp, {
      AUTH_PROVIDER: 'keycloak',
      KEYCLOAK_URL: ctx.idp.origin,
      KEYCLOAK_REALM: 'alerta',
      ALLOWED_KEYCLOAK_ROLES: 'ops,admin',
      CUSTOMER_VIEWS: 'True',
      USER_DEFAULT_SCOPES: 'read:alerts',
    }),
  );
  const perm = await ctx.api.post('/perm', { match: 'ops', scopes: ['write:heartbeats'] }, asAdmin);
  assert.is(perm.status, 201, await perm.text());
  for (const [match, customer] of [
    ['oncall', 'Acme'],
    ['example.net', 'Globex'],
  ]) {
    const res = await ctx.api.post('/customer', { match, customer }, asAdmin);
    assert.is(res.status, 201, await res.text());
  }
});
keycloak.after(stopAll);

keycloak('realm roles are allowed, become scopes through permissions, groups find customers', async (ctx) => {
  ctx.idp.accounts.set('kc-olga', {
    preferred_username: 'olga',
    email: 'olga@example.net',
    email_verified: true,
    roles: ['ops'],
    groups: ['oncall'],
  });
  const r = await signIn(ctx, 'keycloak', 'kc-olga');
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.claims.provider, 'keycloak');
  assert.is(r.claims.scope, 'read:alerts write:heartbeats', 'USER_ROLES scopes + the ops permission');
  assert.equal(r.claims.customers, ['Acme', 'Globex'], 'from the group and from the email domain');
  const alerts = await ctx.api.get('/alerts', bearer(r.body.token));
  assert.is(alerts.status, 200);
  const keys = await ctx.api.get('/keys', bearer(r.body.token));
  assert.is(keys.status, 403, 'no read:keys');
});

keycloak('other roles, or none, are refused; an admin role gives admin scopes', async (ctx) => {
  ctx.idp.accounts.set('kc-dev', { preferred_username: 'dev', roles: ['developer'], groups: ['oncall'] });
  assertError(await signIn(ctx, 'keycloak', 'kc-dev'), 403, 'User dev is not authorized');
  ctx.idp.accounts.set('kc-none', { preferred_username: 'none', groups: ['oncall'] });
  assertError(await signIn(ctx, 'keycloak', 'kc-none'), 403, 'User none is not authorized');
  ctx.idp.accounts.set('kc-boss', { preferred_username: 'boss', roles: 'admin', groups: ['oncall'] });
  const boss = await signIn(ctx, 'keycloak', 'kc-boss');
  assert.is(boss.status, 200, JSON.stringify(boss.body));
  assert.is(boss.claims.scope, 'admin read write', 'a bare string claim counts as one role');
});

keycloak('an allowed user with no customer lookup is refused (CUSTOMER_VIEWS)', async (ctx) => {
  ctx.idp.accounts.set('kc-lost', { preferred_username: 'lost', roles: ['ops'] });
  assertError(
    await signIn(ctx, 'keycloak', 'kc-lost'),
    403,
    "No customer lookup configured for user 'lost' or 'ops'",
  );
});

keycloak.run();

// --- the self-hosted code-hosting provider with groups (GitLab-like, OpenID Connect) ----------

const gitlab = suite<Ctx>('AUTH_PROVIDER = gitlab: GITLAB_URL, groups allow-list', {} as Ctx);
gitlab.before(async (ctx) => {
  await startProvider(ctx, '', 'client_secret_post');
  await startApp(
    ctx,
    common(ctx.idp, {
      AUTH_PROVIDER: 'gitlab',
      GITLAB_URL: ctx.idp.issuer,
      ALLOWED_GITLAB_GROUPS: 'infra/alerting',
      OIDC_TOKEN_AUTH_METHODS: 'client_secret_post',
    }),
  );
});
gitlab.after(stopAll);

gitlab('a member of an allowed group signs in by nickname; others are refused', async (ctx) => {
  ctx.idp.accounts.set('101', {
    nickname: 'gil',
    email: 'gil@example.com',
    groups: ['infra', 'infra/alerting'],
  });
  const r = await signIn(ctx, 'gitlab', '101');
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(
    [r.claims.provider, r.claims.preferred_username, r.claims.groups, r.claims.email_verified],
    ['gitlab', 'gil', ['infra', 'infra/alerting'], false],
  );
  ctx.idp.accounts.set('102', { nickname: 'gus', groups: ['infra'] });
  assertError(await signIn(ctx, 'gitlab', '102'), 403, 'User gus is not authorized');
});

gitlab.run();

// --- start-up -----------------------------------------------------------------------------------

const startup = suite('OAuth settings and discovery at start-up');

const configOf = (env: Record<string, string>) =>
  loadConfig({ DATABASE_URL: 'postgres://127.0.0.1:1/none', ...env }, { systemFile: null });

function problemsOf(env: Record<string, string>): string[] {
  try {
    configOf(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

startup('missing or wrong provider settings stop start-up with the setting named', () => {
  assert.ok(problemsOf({ AUTH_PROVIDER: 'openid' }).some((p) => p.startsWith('OIDC_ISSUER_URL:')));
  assert.ok(problemsOf({ AUTH_PROVIDER: 'openid' }).some((p) => p.startsWith('OAUTH2_CLIENT_ID:')));
  assert.ok(
    problemsOf({ AUTH_PROVIDER: 'keycloak', OAUTH2_CLIENT_ID: 'x' }).some((p) => p.startsWith('KEYCLOAK')),
  );
  const azure = problemsOf({ AUTH_PROVIDER: 'azure' });
  assert.equal(azure, ["OAUTH2_CLIENT_ID: needed with AUTH_PROVIDER = 'azure'"]);
  assert.ok(
    problemsOf({ AUTH_PROVIDER: 'fancy' }).some((p) => p.startsWith('AUTH_PROVIDER: expected one of')),
  );
  assert.ok(
    problemsOf({ AUTH_PROVIDER: 'github', OAUTH2_CLIENT_ID: 'a,b', OAUTH2_CLIENT_SECRET: 'x' }).some((p) =>
      p.startsWith('OAUTH2_CLIENT_SECRET:'),
    ),
  );
  assert.ok(
    problemsOf({ OIDC_TOKEN_AUTH_METHODS: 'magic' }).some((p) => p.startsWith('OIDC_TOKEN_AUTH_METHODS')),
  );
  assert.equal(
    problemsOf({ AUTH_PROVIDER: 'openid', OAUTH2_CLIENT_ID: 'x', OIDC_ISSUER_URL: 'https://idp' }),
    [],
  );
});

startup('an unreachable provider or a wrong issuer stops start-up', async () => {
  const log = createLog('silent');
  const env = { AUTH_PROVIDER: 'openid', OAUTH2_CLIENT_ID: 'x', PORT: '0' };
  try {
    await boot(configOf({ ...env, OIDC_ISSUER_URL: 'http://127.0.0.1:1/realm' }), log);
    assert.unreachable('boot should fail');
  } catch (err) {
    assert.match((err as Error).message, 'OpenID Connect discovery at http://127.0.0.1:1/realm/.well-known');
  }
  const idp = await startOidcProvider({ clientId: 'x', clientSecret: 'y', redirectUris: [UI] });
  try {
    await boot(configOf({ ...env, OIDC_ISSUER_URL: idp.origin.replace('127.0.0.1', 'localhost') }), log);
    assert.unreachable('boot should fail');
  } catch (err) {
    assert.match((err as Error).message, `names issuer '${idp.issuer}', expected 'http://localhost:`);
  } finally {
    await idp.close();
  }
});

startup.run();
