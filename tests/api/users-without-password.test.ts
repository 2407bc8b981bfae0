/**
 * POST /user without a password (docs/users.md): an admin creates, ahead of their first sign-in, a
 * user who signs in through an external provider (here the auth proxy). As in the established
 * server the answer is 201 and the stored hash is '' — no password, not even an empty one, signs
 * in as them — while `name` and a `login` or `email` stay mandatory.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UserSchema } from '../../shared/users.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { assertError, basicAuth, keyAuth, securedSettings } from '../helpers/secured.ts';

const ADMIN_KEY = 'nopw-test-admin-key-0123456789abcdef';
const asAdmin = keyAuth(ADMIN_KEY);
const SETTINGS = securedSettings('users_nopw', 'test-secret-key-123', {
  ADMIN_KEY,
  AUTH_PROXY: 'True',
  // Only users created beforehand may come through the proxy.
  AUTH_PROXY_AUTO_SIGNUP: 'False',
});

const nopw = suite<AppContext>('POST /user without a password', {} as AppContext);
nopw.before((ctx) => startApp(ctx, SETTINGS));
nopw.after(stopApp);

nopw('201 with an empty stored hash; no password signs in; the provider does', async (ctx) => {
  const { api } = ctx;
  const made = await api.call(
    'POST',
    '/user',
    { name: 'Sso User', email: 'sso@example.com', roles: ['user'] },
    { headers: asAdmin },
  );
  assert.is(made.status, 201, JSON.stringify(made.body));
  const user = UserSchema.parse(made.body.user);
  assert.equal([user.login, user.email, user.roles], ['sso@example.com', 'sso@example.com', ['user']]);
  const [row] = await queryDb<{ password: string }>(ctx.db.url, 'SELECT password FROM users WHERE id = $1', [
    user.id,
  ]);
  assert.is(row!.password, '');

  for (const password of ['', 'x', 'secret']) {
    const login = await api.call('POST', '/auth/login', { username: 'sso@example.com', password });
    assert.is(login.status, 401, `login with ${JSON.stringify(password)}: ${JSON.stringify(login.body)}`);
    const basic = await api.call('GET', '/alerts', undefined, {
      headers: basicAuth('sso@example.com', password),
    });
    assert.is(basic.status, 401, `Basic with ${JSON.stringify(password)}`);
  }

  const me = await api.call('GET', '/user/me', undefined, { headers: { 'X-Proxy-User': 'sso@example.com' } });
  assert.is(me.status, 200, JSON.stringify(me.body));
  assert.is(UserSchema.parse(me.body.user).id, user.id);
  const stranger = await api.call('GET', '/alerts', undefined, {
    headers: { 'X-Proxy-User': 'nobody@example.com' },
  });
  assert.is(stranger.status, 403, 'users not created beforehand are refused');
});

nopw('an empty password is no password; name and a login or email stay mandatory', async (ctx) => {
  const { api } = ctx;
  const made = await api.call(
    'POST',
    '/user',
    { name: 'Ldap User', login: 'ldapuser', password: '' },
    { headers: asAdmin },
  );
  assert.is(made.status, 201, JSON.stringify(made.body));
  const [row] = await queryDb<{ password: string }>(
    ctx.db.url,
    `SELECT password FROM users WHERE login = 'ldapuser'`,
  );
  assert.is(row!.password, '');
  assertError(await api.call('POST', '/user', { email: 'n@example.com' }, { headers: asAdmin }), 400);
  assertError(await api.call('POST', '/user', { name: 'No Login' }, { headers: asAdmin }), 400);
  assertError(
    await api.call('POST', '/user', { name: 'N', email: 'm@example.com', password: 5 }, { headers: asAdmin }),
    400,
  );
});

nopw.run();
