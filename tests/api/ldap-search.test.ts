/**
 * LDAP search-then-bind (auth.md §10, docs/auth-providers.md) against a real slapd whose trees only
 * bound users may read: the service account finds the user (LDAP_USER_FILTER, per-domain base DN
 * for the second domain), groups by LDAP_GROUP_FILTER and LDAP_DOMAINS_GROUP, ALLOWED_LDAP_GROUPS,
 * and groups becoming customers with CUSTOMER_VIEWS; a wrong service password, and group names as
 * DNs with the default LDAP_GROUP_NAME_ATTR.
 */
import { decodeJwt } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Running } from '../../server/boot.ts';
import { apiFor, bootInstance, startApp, stopApp, type AppContext } from '../helpers/app.ts';
import type { Answer, Api } from '../helpers/api.ts';
import { assertError, keyAuth, securedSettings } from '../helpers/secured.ts';
import { READER, reportFailure, startSlapd, USERS, type Slapd } from '../helpers/slapd.ts';

const ADMIN_KEY = 'ldap-search-admin-key-0123456789abcd';
const asAdmin = keyAuth(ADMIN_KEY);

interface Ctx extends AppContext {
  slapd: Slapd;
  settings: Record<string, string>;
}

const call = (api: Api, method: string, path: string, body?: unknown, headers = {}): Promise<Answer> =>
  api.call(method, path, body, { headers });

const login = (api: Api, username: string, password: string) =>
  call(api, 'POST', '/auth/login', { username, password });

async function claimsOf(api: Api, username: string, password: string) {
  const a = await login(api, username, password);
  assert.is(a.status, 200, JSON.stringify(a.body));
  return { token: a.body.token as string, claims: decodeJwt(a.body.token as string) };
}

/** Another instance on the same database with some settings changed; closed by the caller. */
async function variant(ctx: Ctx, changes: Record<string, string>): Promise<{ r: Running; api: Api }> {
  const r = await bootInstance(ctx.db.url, { ...ctx.settings, ...changes });
  return { r, api: apiFor(r) };
}

const search = suite<Ctx>('LDAP search-then-bind', {} as Ctx);

search.before((ctx) =>
  reportFailure(async () => {
    ctx.slapd = await startSlapd();
    ctx.settings = securedSettings('ldap_search', 'test-secret-key-123', {
      LOG_LEVEL: 'silent',
      AUTH_PROVIDER: 'ldap',
      LDAP_URL: ctx.slapd.url,
      LDAP_BASEDN: 'dc=example,dc=com',
      LDAP_BIND_USERNAME: READER.dn,
      LDAP_BIND_PASSWORD: READER.password,
      LDAP_USER_BASEDN: 'ou=people,dc=example,dc=com',
      LDAP_USER_FILTER: '(&(objectClass=inetOrgPerson)(uid={username}))',
      LDAP_GROUP_BASEDN: 'ou=groups,dc=example,dc=com',
      LDAP_GROUP_FILTER: '(&(objectClass=groupOfNames)(member={userdn}))',
      LDAP_GROUP_NAME_ATTR: 'cn',
      // The second domain: users searched under its own base DN, groups by its own filter.
      LDAP_DOMAINS_BASEDN: JSON.stringify({ 'example.org': 'dc=example,dc=org' }),
      LDAP_DOMAINS_GROUP: JSON.stringify({ 'example.org': '(member={userdn})' }),
      ALLOWED_EMAIL_DOMAINS: 'example.com,example.org',
      ALLOWED_LDAP_GROUPS: 'ops,devs,support',
      CUSTOMER_VIEWS: 'True',
      ADMIN_KEY,
    });
    await startApp(ctx, ctx.settings);
  }),
);
search.after(async (ctx) => {
  await stopApp(ctx);
  await ctx.slapd?.stop();
});

search('without a customer lookup for any of the groups the login is refused', async ({ api }) => {
  assertError(
    await login(api, 'alice@example.com', USERS.alice.password),
    403,
    "No customer lookup configured for user 'alice@example.com' or 'devs, ops'",
  );
});

search('groups become customers through customer lookups; the token carries them', async ({ api }) => {
  for (const [match, customer] of [
    ['ops', 'Ops Team'],
    ['support', 'Support Org'],
  ]) {
    const c = await call(api, 'POST', '/customer', { match, customer }, asAdmin);
    assert.is(c.status, 201, JSON.stringify(c.body));
  }
  const alice = await claimsOf(api, 'alice@example.com', USERS.alice.password);
  assert.equal(alice.claims.customers, ['Ops Team']);
  assert.equal(alice.claims.groups, ['devs', 'ops']);
  assert.is(alice.claims.name, 'Alice Liddell', 'name from LDAP_USER_NAME_ATTR of the search result');
  assert.is(alice.claims.email, 'alice@example.com');
  const dave = await claimsOf(api, 'dave@example.org', USERS.dave.password);
  assert.equal(dave.claims.customers, ['Support Org']);
  assert.equal(dave.claims.groups, ['support']);
});

search('a customer-restricted directory user sees only their customer’s alerts', async ({ api }) => {
  for (const customer of ['Ops Team', 'Support Org']) {
    const body = {
      resource: `r-${customer}`,
      event: 'E',
      environment: 'Production',
      service: ['s'],
      customer,
    };
    const a = await call(api, 'POST', '/alert', body, asAdmin);
    assert.is(a.status, 201, JSON.stringify(a.body));
  }
  const { token } = await claimsOf(api, 'alice@example.com', USERS.alice.password);
  const list = await call(api, 'GET', '/alerts', undefined, { Authorization: `Bearer ${token}` });
  assert.is(list.status, 200);
  const alerts = list.body.alerts as { customer: string }[];
  assert.equal(
    alerts.map((a) => a.customer),
    ['Ops Team'],
  );
});

search('ALLOWED_LDAP_GROUPS refuses members of none of them', async ({ api }) => {
  assertError(
    await login(api, 'carol@example.com', USERS.carol.password),
    403,
    'User carol@example.com is not authorized',
  );
});

search('the search finds nobody for unknown users and wrong passwords are still refused', async ({ api }) => {
  assertError(await login(api, 'nobody@example.com', 'x'), 401, 'Invalid username or password');
  assertError(await login(api, 'alice@example.com', 'wrong'), 401, 'Invalid username or password');
  assertError(
    await login(api, 'alice*@example.com', USERS.alice.password),
    401,
    'Invalid username or password',
  );
  assertError(await login(api, 'alice@example.net', USERS.alice.password), 403, 'unauthorized domain');
});

search('a wrong service-account password is a server error, not a login failure', async (ctx) => {
  const { r, api } = await variant(ctx, { LDAP_BIND_PASSWORD: 'not-the-password' });
  try {
    assertError(
      await login(api, 'alice@example.com', USERS.alice.password),
      500,
      'invalid ldap bind credentials',
    );
  } finally {
    await r.close();
  }
});

search('the default LDAP_GROUP_NAME_ATTR (dn) names groups by their DN', async (ctx) => {
  const { r, api } = await variant(ctx, {
    LDAP_GROUP_NAME_ATTR: 'dn',
    CUSTOMER_VIEWS: 'False',
    ALLOWED_LDAP_GROUPS: '*',
  });
  try {
    const { claims } = await claimsOf(api, 'bob@example.com', USERS.bob.password);
    assert.equal(claims.groups, ['cn=devs,ou=groups,dc=example,dc=com']);
  } finally {
    await r.close();
  }
});

search.run();
