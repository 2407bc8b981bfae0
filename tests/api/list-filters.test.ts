/**
 * Text filters of the lists that are not alerts (GET /perms, /customers, /users, /groups, /keys),
 * with the established server's operators (its query builder's filter_query): `name=v` exact,
 * repeated values any of them, `name=~v` a case-insensitive substring, `name!=v` negation. The
 * built-in roles of GET /perms pass the same filters. docs/keys-perms-customers.md, docs/users.md.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { insertKeys } from '../helpers/db.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { assertError, callAs, securedSettings } from '../helpers/secured.ts';

const ADMIN = 'list-filters-admin-key-0123';
const lists = suite<AppContext>('list text filters', {} as AppContext);
lists.before(async (ctx) => {
  await startApp(ctx, securedSettings('list_filters', 'test-secret-key-123'));
  await insertKeys(ctx.db.url, [
    { key: ADMIN, user: 'admin@example.com', scopes: ['admin', 'read', 'write'] },
    { key: 'list-filters-ops-key-0123456', user: 'Opsbot@example.com', scopes: ['read'] },
  ]);
});
lists.after(stopApp);

async function names(api: AppContext['api'], path: string, list: string, field: string): Promise<string[]> {
  const r = await callAs(api, 'GET', path, { key: ADMIN });
  assert.is(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  return (r.body[list] as Record<string, string>[]).map((x) => x[field]!).sort();
}

const post = async (api: AppContext['api'], path: string, body: unknown) =>
  assert.is((await callAs(api, 'POST', path, { key: ADMIN, body })).status, 201, path);

lists('GET /perms: match exact, ~substring, ! negation; built-in roles too', async ({ api }) => {
  await post(api, '/perm', { match: 'ops', scopes: ['read:alerts'] });
  await post(api, '/perm', { match: 'devops', scopes: ['read:heartbeats'] });
  const perms = (q: string) => names(api, `/perms?${q}`, 'permissions', 'match');
  assert.equal(await perms('match=ops'), ['ops']);
  assert.equal(await perms('match=ops&match=guest'), ['guest', 'ops']);
  assert.equal(await perms('match=~OPS'), ['devops', 'ops']);
  assert.equal(await perms('match=~us'), ['user']);
  assert.equal(await perms('match!=ops&match!=devops'), ['admin', 'guest', 'user']);
  assert.equal(await perms('match!=~op'), ['admin', 'guest', 'user']);
  assert.equal(await perms('match=~op&scopes=read:heartbeats'), ['devops']);
  assertError(await callAs(api, 'GET', '/perms?scopes!=read', { key: ADMIN }), 400);
});

lists('GET /customers: match and customer', async ({ api }) => {
  await post(api, '/customer', { match: 'ops', customer: 'Acme' });
  await post(api, '/customer', { match: 'sales', customer: 'Beta Corp' });
  const customers = (q: string) => names(api, `/customers?${q}`, 'customers', 'customer');
  assert.equal(await customers('match=ops'), ['Acme']);
  assert.equal(await customers('customer=~acm'), ['Acme']);
  assert.equal(await customers('customer=~corp&customer=~acme'), ['Acme', 'Beta Corp']);
  assert.equal(await customers('customer!=Acme'), ['Beta Corp']);
});

lists('GET /users: name, login, email and status', async ({ api }) => {
  await post(api, '/user', { name: 'Bob Builder', email: 'bob@example.com', password: 'bob-secret-1' });
  await post(api, '/user', { name: 'Rita Reader', login: 'rita', status: 'inactive' });
  const users = (q: string) => names(api, `/users?${q}`, 'users', 'name');
  assert.equal(await users('name=~builder'), ['Bob Builder']);
  assert.equal(await users('email=BOB@example.com'), ['Bob Builder']);
  assert.equal(await users('email=~@EXAMPLE'), ['Bob Builder']);
  assert.equal(await users('login=rita'), ['Rita Reader']);
  assert.equal(await users('status!=active'), ['Rita Reader']);
  assert.equal(await users('name!=~r&name=~builder'), []);
  assertError(await callAs(api, 'GET', '/users?roles!=x', { key: ADMIN }), 400);
});

lists('GET /groups: name and text', async ({ api }) => {
  await post(api, '/group', { name: 'night-shift', text: 'Pager rota' });
  await post(api, '/group', { name: 'day-shift' });
  const groups = (q: string) => names(api, `/groups?${q}`, 'groups', 'name');
  assert.equal(await groups('name=night-shift'), ['night-shift']);
  assert.equal(await groups('name=~SHIFT'), ['day-shift', 'night-shift']);
  assert.equal(await groups('text=~pager'), ['night-shift']);
  assert.equal(await groups('name!=night-shift'), ['day-shift']);
});

lists('GET /keys: user, text and customer', async ({ api }) => {
  // admin@example.com may hold two keys (its own and the start-up one): compare the users.
  const keys = async (q: string) => [...new Set(await names(api, `/keys?${q}`, 'keys', 'user'))];
  assert.equal(await keys('user=~opsbot'), ['Opsbot@example.com']);
  assert.equal(await keys('user!=~opsbot'), ['admin@example.com']);
  assert.equal(await keys('user=admin@example.com&user=Opsbot@example.com'), [
    'Opsbot@example.com',
    'admin@example.com',
  ]);
});

lists.run();
