/**
 * Auth proxy (auth.md §1 #6, docs/auth-providers.md): a trusted front proxy names the user in
 * AUTH_PROXY_USER_HEADER and the roles in AUTH_PROXY_ROLES_HEADER. Unknown users are created (or
 * refused without AUTH_PROXY_AUTO_SIGNUP), roles give scopes, groups give customers, keys and
 * tokens still come first, inactive users are refused, and with AUTH_PROXY off the header is
 * nobody.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiFor, bootInstance, startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { assertError, keyAuth, securedSettings } from '../helpers/secured.ts';
import type { Answer, Api } from '../helpers/api.ts';
import { queryDb } from '../helpers/db.ts';
import { LiveClient, refused } from '../helpers/live.ts';

const ADMIN_KEY = 'proxy-test-admin-key-0123456789abcdef';
const asAdmin = keyAuth(ADMIN_KEY);
const SETTINGS = securedSettings('auth_proxy', 'test-secret-key-123', {
  AUTH_PROXY: 'True',
  AUTH_PROXY_ROLES_SEPARATOR: ';',
  ADMIN_USERS: 'boss@example.com',
  ADMIN_KEY,
});

const call = (api: Api, method: string, path: string, body?: unknown, headers = {}): Promise<Answer> =>
  api.call(method, path, body, { headers });

const as = (user: string, roles?: string) => ({
  'X-Proxy-User': user,
  ...(roles === undefined ? {} : { 'X-Proxy-Roles': roles }),
});

const ALERT = { resource: 'proxy01', event: 'E', environment: 'Production', service: ['s'] };

async function userRow(ctx: AppContext, login: string) {
  const rows = await queryDb<{
    id: string;
    roles: string[];
    text: string;
    password: string;
    email: string | null;
  }>(ctx.db.url, 'SELECT id::text, roles, text, password, email FROM users WHERE login = $1', [login]);
  return rows[0];
}

const proxy = suite<AppContext>('auth proxy', {} as AppContext);
proxy.before((ctx) => startApp(ctx, SETTINGS));
proxy.after(stopApp);

proxy('without the header the request is anonymous (401)', async ({ api }) => {
  assertError(await call(api, 'GET', '/alerts'), 401, 'Missing authorization API Key or Bearer Token');
  assertError(
    await call(api, 'GET', '/alerts', undefined, { 'X-Proxy-User': '  ' }),
    401,
    'Missing authorization API Key or Bearer Token',
  );
});

proxy('a new user is created with the roles the proxy sent, and is who /user/me says', async (ctx) => {
  const { api } = ctx;
  const list = await call(api, 'GET', '/alerts', undefined, as('john@example.com', 'foo;user;bar'));
  assert.is(list.status, 200, JSON.stringify(list.body));
  const row = await userRow(ctx, 'john@example.com');
  assert.ok(row, 'user created');
  assert.equal(row!.roles, ['foo', 'user', 'bar']);
  assert.is(row!.text, 'Created by the auth proxy');
  assert.is(row!.password, '');
  const me = await call(api, 'GET', '/user/me', undefined, as('john@example.com', 'user'));
  assert.is(me.status, 200);
  assert.is((me.body.user as { id: string }).id, row!.id);
  const again = await queryDb(ctx.db.url, `SELECT 1 FROM users WHERE login = 'john@example.com'`);
  assert.is(again.length, 1, 'found, not created twice');
});

proxy('scopes come from the roles header; without it from the stored roles', async ({ api }) => {
  const guest = await call(api, 'POST', '/alert', ALERT, as('john@example.com', 'guest'));
  assertError(guest, 403, 'Missing required scope: write:alerts');
  assert.is((await call(api, 'GET', '/alerts', undefined, as('john@example.com', 'guest'))).status, 200);
  const stored = await call(api, 'POST', '/alert', ALERT, as('john@example.com'));
  assert.is(stored.status, 201, JSON.stringify(stored.body));
  assertError(
    await call(api, 'GET', '/users', undefined, as('john@example.com', 'user')),
    403,
    'Missing required scope: admin:users',
  );
  assert.is((await call(api, 'GET', '/users', undefined, as('john@example.com', 'admin'))).status, 200);
});

proxy('permissions map proxy roles to scopes; ADMIN_USERS are admins whatever the roles', async ({ api }) => {
  const perm = await call(api, 'POST', '/perm', { match: 'keyholders', scopes: ['admin:keys'] }, asAdmin);
  assert.is(perm.status, 201, JSON.stringify(perm.body));
  assert.is((await call(api, 'GET', '/keys', undefined, as('kim@example.com', 'keyholders'))).status, 200);
  assertError(
    await call(api, 'GET', '/keys', undefined, as('kim@example.com', 'other')),
    403,
    'Missing required scope: read:keys',
  );
  assert.is((await call(api, 'GET', '/users', undefined, as('boss@example.com', ''))).status, 200);
});

proxy('an API key or a Bearer token is checked before the proxy header', async ({ api }) => {
  const bad = await call(api, 'GET', '/alerts', undefined, {
    ...as('john@example.com', 'admin'),
    'X-API-Key': 'nope',
  });
  assertError(bad, 401, "API key parameter 'nope' is invalid");
  const bearer = await call(api, 'GET', '/alerts', undefined, {
    ...as('john@example.com', 'admin'),
    Authorization: 'Bearer not-a-token',
  });
  assertError(bearer, 401, 'Token is invalid');
});

proxy('an inactive user is refused even though the proxy vouches', async (ctx) => {
  const row = await userRow(ctx, 'john@example.com');
  const put = await call(ctx.api, 'PUT', `/user/${row!.id}`, { status: 'inactive' }, asAdmin);
  assert.is(put.status, 200, JSON.stringify(put.body));
  assertError(
    await call(ctx.api, 'GET', '/alerts', undefined, as('john@example.com', 'user')),
    403,
    'User john@example.com not active',
  );
});

proxy('without AUTH_PROXY_AUTO_SIGNUP unknown users are refused, known ones still pass', async (ctx) => {
  const r = await bootInstance(ctx.db.url, { ...SETTINGS, AUTH_PROXY_AUTO_SIGNUP: 'False' });
  try {
    const api = apiFor(r);
    assertError(
      await call(api, 'GET', '/alerts', undefined, as('new@example.com', 'user')),
      403,
      'user auto-signup is disabled',
    );
    assert.is(await userRow(ctx, 'new@example.com'), undefined);
    assert.is((await call(api, 'GET', '/alerts', undefined, as('kim@example.com', 'user'))).status, 200);
  } finally {
    await r.close();
  }
});

proxy('other header names and separators are honoured', async (ctx) => {
  const r = await bootInstance(ctx.db.url, {
    ...SETTINGS,
    AUTH_PROXY_USER_HEADER: 'X-Remote-User',
    AUTH_PROXY_ROLES_HEADER: 'X-Remote-Groups',
    AUTH_PROXY_ROLES_SEPARATOR: '|',
  });
  try {
    const api = apiFor(r);
    const headers = { 'X-Remote-User': 'kim@example.com', 'X-Remote-Groups': 'x|keyholders' };
    assert.is((await call(api, 'GET', '/keys', undefined, headers)).status, 200);
    assert.is(
      (await call(api, 'GET', '/keys', undefined, as('kim@example.com', 'keyholders'))).status,
      401,
      'the default header names mean nothing now',
    );
  } finally {
    await r.close();
  }
});

proxy('with CUSTOMER_VIEWS the user’s groups give the customers', async (ctx) => {
  const { api } = ctx;
  const kim = await userRow(ctx, 'kim@example.com');
  const group = await call(api, 'POST', '/group', { name: 'blue-team', text: 'Blue' }, asAdmin);
  assert.is(group.status, 201, JSON.stringify(group.body));
  const groupId = (group.body.group as { id: string }).id;
  assert.is((await call(api, 'PUT', `/group/${groupId}/user/${kim!.id}`, undefined, asAdmin)).status, 200);
  assert.is(
    (await call(api, 'POST', '/customer', { match: 'blue-team', customer: 'Blue' }, asAdmin)).status,
    201,
  );
  for (const customer of ['Blue', 'Red']) {
    const a = await call(api, 'POST', '/alert', { ...ALERT, resource: `c-${customer}`, customer }, asAdmin);
    assert.is(a.status, 201, JSON.stringify(a.body));
  }
  const r = await bootInstance(ctx.db.url, { ...SETTINGS, CUSTOMER_VIEWS: 'True' });
  try {
    const list = await call(apiFor(r), 'GET', '/alerts', undefined, as('kim@example.com', 'user'));
    assert.is(list.status, 200, JSON.stringify(list.body));
    const customers = (list.body.alerts as { customer: string | null }[]).map((a) => a.customer);
    assert.equal([...new Set(customers)], ['Blue']);
    const lonely = await call(apiFor(r), 'GET', '/alerts', undefined, as('solo@example.com', 'user'));
    assertError(lonely, 403, "No customer lookup configured for user 'solo@example.com' or ''");
  } finally {
    await r.close();
  }
});

proxy(
  'with the basic provider the e-mail flows are not refused as for LDAP (not implemented: 404)',
  async ({ api }) => {
    assert.is((await call(api, 'POST', '/auth/forgot', { email: 'john@example.com' })).status, 404);
    const signup = await call(api, 'POST', '/auth/signup', {
      name: 'Sue',
      email: 'sue@example.com',
      password: 'pw',
    });
    assert.is(signup.status, 200, JSON.stringify(signup.body));
  },
);

proxy('the live socket takes the user the proxy names in the handshake headers', async (ctx) => {
  const posted = await call(ctx.api, 'POST', '/alert', { ...ALERT, resource: 'proxy-live' }, asAdmin);
  assert.is(posted.status, 201, JSON.stringify(posted.body));
  // Without the header (and without a key or token) the socket is refused, as over HTTP.
  const anonymous = await refused(ctx.origin, {});
  assert.match(anonymous.message, /Missing authorization/);
  const client = await LiveClient.connect(ctx.origin, {}, 5000, {
    extraHeaders: as('live.viewer@example.com', 'user'),
  });
  try {
    const view = await client.view('resource=proxy-live');
    assert.is(view.answer.total, 1);
    assert.equal(
      [...view.alerts.values()].map((a) => a.resource),
      ['proxy-live'],
    );
  } finally {
    client.close();
  }
});

proxy('with AUTH_PROXY off the header is ignored', async (ctx) => {
  const r = await bootInstance(ctx.db.url, { ...SETTINGS, AUTH_PROXY: 'False' });
  try {
    const a = await call(apiFor(r), 'GET', '/alerts', undefined, as('kim@example.com', 'admin'));
    assertError(a, 401, 'Missing authorization API Key or Bearer Token');
  } finally {
    await r.close();
  }
});

proxy.run();
