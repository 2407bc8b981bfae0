/**
 * Users and groups (api.md §9, clients.md traps 14–16, docs/users.md): CRUD and shapes, /users
 * fields, /user/me rules, attribute deep merge, roles and scopes, group CRUD and membership, and
 * that no response ever carries a password or its hash.
 */
import * as assert from 'uvu/assert';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { GroupListSchema, GroupSchema, UserListSchema, UserSchema } from '../../shared/users.ts';
import { mergeAttributes } from '../../server/domain/users.ts';
import { appSuite, type AppContext } from '../helpers/app.ts';

interface Ctx extends AppContext {
  admin: Record<string, string>;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
  headers: Headers;
}

const SECRETS = ['admin-pass', 'alice-secret-1', 'bob-secret-2', 'carol-secret-3', 'new-alice-pw'];

/** Every body checked here must be free of the passwords used and of any bcrypt hash. */
function assertNoSecrets(text: string) {
  assert.not.match(text, /\$2[aby]?\$/, 'a bcrypt hash leaked');
  for (const s of SECRETS) assert.not.ok(text.includes(s), `password '${s}' leaked`);
  assert.not.match(text, /"password"/, 'a password field leaked');
}

async function call(
  ctx: Ctx,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = ctx.admin,
): Promise<Answer> {
  const res = await ctx.api.request(method, path, body, { headers });
  const text = await res.text();
  assertNoSecrets(text);
  return {
    status: res.status,
    body: JSON.parse(text) as Record<string, unknown>,
    text,
    headers: res.headers,
  };
}

function assertError(r: Answer, status: number, message?: string | RegExp) {
  assert.is(r.status, status, r.text);
  const body = ErrorBodySchema.parse(r.body);
  assert.is(body.code, status);
  if (typeof message === 'string') assert.is(body.message, message);
  else if (message) assert.match(body.message, message);
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const basic = (user: string, pw: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`,
});

async function login(ctx: Ctx, username: string, password: string): Promise<string> {
  const r = await call(ctx, 'POST', '/auth/login', { username, password }, {});
  assert.is(r.status, 200, r.text);
  return r.body.token as string;
}

const test = appSuite<Ctx>('users and groups', {
  TEST_LABEL: 'users',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'test-secret-key-123',
  ADMIN_USERS: 'admin@example.com',
  ADMIN_PASSWORD: 'admin-pass',
});
test.before(async (ctx) => {
  ctx.admin = bearer(await login(ctx, 'admin@example.com', 'admin-pass'));
});

async function createUser(ctx: Ctx, fields: Record<string, unknown>) {
  const r = await call(ctx, 'POST', '/user', fields);
  assert.is(r.status, 201, r.text);
  assert.equal(Object.keys(r.body).sort(), ['id', 'status', 'user']);
  const user = UserSchema.parse(r.body.user);
  assert.is(r.body.id, user.id);
  return user;
}

test('POST /user creates a user with the documented shape; GET /user/:id reads it', async (ctx) => {
  const user = await createUser(ctx, {
    name: 'Alice',
    email: 'alice@corp.example',
    password: 'alice-secret-1',
    text: 'ops',
  });
  assert.equal(Object.keys(user).sort(), [
    'attributes',
    'createTime',
    'domain',
    'email',
    'email_verified',
    'href',
    'id',
    'lastLogin',
    'login',
    'name',
    'provider',
    'role',
    'roles',
    'status',
    'text',
    'updateTime',
  ]);
  assert.is(user.login, 'alice@corp.example');
  assert.is(user.domain, 'corp.example');
  assert.is(user.provider, 'basic');
  assert.equal(user.roles, ['user']);
  assert.is(user.role, 'user');
  assert.is(user.status, 'active');
  assert.is(user.email_verified, false);
  assert.is(user.lastLogin, null);
  assert.match(user.createTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(user.href.endsWith(`/user/${user.id}`));

  const got = await call(ctx, 'GET', `/user/${user.id}`);
  assert.is(got.status, 200);
  assert.equal(got.body, { status: 'ok', total: 1, user });

  assertError(
    await call(ctx, 'POST', '/user', { name: 'Dup', email: 'ALICE@corp.example', password: 'x' }),
    409,
    'user with that email already exists',
  );
  assertError(await call(ctx, 'POST', '/user', { email: 'n@x.example', password: 'x' }), 400, /name/);
  assertError(await call(ctx, 'POST', '/user', { name: 5, email: 'n@x.example', password: 'x' }), 400);
  assertError(await call(ctx, 'POST', '/user', [1, 2]), 400);
  assertError(await call(ctx, 'GET', '/user/not-a-uuid'), 404, 'not found');
  assertError(await call(ctx, 'GET', `/user/${crypto.randomUUID()}`), 404, 'not found');
});

test('GET /users lists users with domains, groups, orgs, time and paging', async (ctx) => {
  const r = await call(ctx, 'GET', '/users');
  assert.is(r.status, 200, r.text);
  const list = UserListSchema.parse(r.body);
  assert.equal(list.domains, ['*']);
  assert.equal([list.groups, list.orgs], [[], []]);
  assert.match(list.time, /Z$/);
  assert.ok(list.total >= 2);
  assert.equal([list.page, list.pages, list.more], [1, 1, false]);
  const admin = list.users.find((u) => u.login === 'admin@example.com')!;
  assert.equal(admin.roles, ['admin']);
  assert.is(admin.email_verified, true);
  assert.is(admin.text, 'Created by alertad script');
  assert.ok(admin.lastLogin, 'login records lastLogin');

  const byRole = UserListSchema.parse((await call(ctx, 'GET', '/users?roles=admin')).body);
  assert.equal(
    byRole.users.map((u) => u.login),
    ['admin@example.com'],
  );
  const none = await call(ctx, 'GET', '/users?login=nobody');
  assert.equal([none.status, none.body.total, none.body.message], [200, 0, 'not found']);
  assertError(await call(ctx, 'GET', '/users?bogus=1'), 400, 'Invalid filter parameter: bogus');
  assertError(await call(ctx, 'GET', '/users?page=9'), 416);
});

test('a non-admin gets 403 Missing required scope: admin:users; no credentials 401', async (ctx) => {
  await createUser(ctx, { name: 'Bob', email: 'bob@corp.example', password: 'bob-secret-2' });
  const token = await login(ctx, 'bob@corp.example', 'bob-secret-2');
  assertError(
    await call(ctx, 'GET', '/users', undefined, bearer(token)),
    403,
    'Missing required scope: admin:users',
  );
  assertError(
    await call(ctx, 'GET', '/users', undefined, basic('bob@corp.example', 'bob-secret-2')),
    403,
    'Missing required scope: admin:users',
  );
  assertError(
    await call(ctx, 'POST', '/group', { name: 'x' }, bearer(token)),
    403,
    'Missing required scope: admin:groups',
  );
  const anon = await call(ctx, 'GET', '/users', undefined, {});
  assertError(anon, 401, 'Missing authorization API Key or Bearer Token');
  assertError(await call(ctx, 'GET', '/user/me', undefined, {}), 401);
  // Basic as the admin works too.
  const viaBasic = await call(ctx, 'GET', '/users', undefined, basic('admin@example.com', 'admin-pass'));
  assert.is(viaBasic.status, 200);
});

test('GET/PUT /user/me and its restrictions', async (ctx) => {
  await createUser(ctx, { name: 'Carol', email: 'carol@corp.example', password: 'carol-secret-3' });
  const me = bearer(await login(ctx, 'carol@corp.example', 'carol-secret-3'));
  const got = await call(ctx, 'GET', '/user/me', undefined, me);
  assert.is(got.status, 200, got.text);
  assert.is(UserSchema.parse(got.body.user).login, 'carol@corp.example');
  assert.is(got.body.total, 1);

  // What the CLI's `alerta me` sends: every key, nulls for unset.
  const put = await call(
    ctx,
    'PUT',
    '/user/me',
    { name: 'Carol C', email: null, password: null, status: null, attributes: {}, text: 'hi' },
    me,
  );
  assert.is(put.status, 200, put.text);
  const user = UserSchema.parse(put.body.user);
  assert.equal([user.name, user.text, user.status], ['Carol C', 'hi', 'active']);

  // Fields a user may not change are refused with 400, as the established server (api.md §9).
  assertError(
    await call(ctx, 'PUT', '/user/me', { roles: ['admin'] }, me),
    400,
    'not allowed to update: roles',
  );
  assertError(
    await call(ctx, 'PUT', '/user/me', { email_verified: true }, me),
    400,
    'not allowed to update: email_verified',
  );
  assertError(
    await call(ctx, 'PUT', '/user/me', { email: 'alice@corp.example' }, me),
    409,
    'user with that email already exists',
  );
  assertError(await call(ctx, 'PUT', '/user/me', {}, me), 400, 'nothing to change');
  const roles = UserSchema.parse((await call(ctx, 'GET', '/user/me', undefined, me)).body.user).roles;
  assert.equal(roles, ['user'], 'roles unchanged');

  // A new email resets email_verified; the new password works.
  const moved = await call(
    ctx,
    'PUT',
    '/user/me',
    { email: 'carol2@corp.example', password: 'new-alice-pw' },
    me,
  );
  assert.is(moved.status, 200, moved.text);
  assert.is(UserSchema.parse(moved.body.user).email, 'carol2@corp.example');
  assert.is(UserSchema.parse(moved.body.user).email_verified, false);
  await login(ctx, 'carol2@corp.example', 'new-alice-pw');
});

test('PUT /user/me refuses login and any other field it does not allow, naming them; nothing changes', async (ctx) => {
  await createUser(ctx, { name: 'Erin', email: 'erin@corp.example', password: 'alice-secret-1' });
  const me = bearer(await login(ctx, 'erin@corp.example', 'alice-secret-1'));
  assertError(await call(ctx, 'PUT', '/user/me', { login: 'root' }, me), 400, 'not allowed to update: login');
  assertError(
    await call(
      ctx,
      'PUT',
      '/user/me',
      { name: 'Erin E', roles: ['admin'], login: 'root', email_verified: true, role: 'admin' },
      me,
    ),
    400,
    'not allowed to update: roles, login, email_verified, role',
  );
  assertError(
    await call(ctx, 'PUT', '/user/me', { name: 'Erin E', id: 'x', lastLogin: null }, me),
    400,
    'not allowed to update: id',
  );
  const user = UserSchema.parse((await call(ctx, 'GET', '/user/me', undefined, me)).body.user);
  assert.equal(
    [user.name, user.login, user.roles, user.email_verified],
    ['Erin', 'erin@corp.example', ['user'], false],
    'a refused change changes nothing',
  );
  // A null is "not given" (clients.md trap 1), for these keys too.
  const ok = await call(ctx, 'PUT', '/user/me', { name: 'Erin E', roles: null, login: null }, me);
  assert.is(ok.status, 200, ok.text);
  assert.is(UserSchema.parse(ok.body.user).name, 'Erin E');
});

test('PUT /user/me refuses status and every other protected field one by one; nothing changes', async (ctx) => {
  await createUser(ctx, { name: 'Fay', email: 'fay@corp.example', password: 'alice-secret-1' });
  const me = bearer(await login(ctx, 'fay@corp.example', 'alice-secret-1'));
  const protectedFields: Record<string, unknown> = {
    status: 'active',
    roles: ['admin'],
    role: 'admin',
    login: 'fay',
    email_verified: true,
    clearRoles: true,
    id: 'x',
    createTime: '2020-01-01T00:00:00.000Z',
  };
  for (const [field, value] of [...Object.entries(protectedFields), ['status', 'inactive']] as const) {
    assertError(
      await call(ctx, 'PUT', '/user/me', { name: 'Fay F', [field]: value }, me),
      400,
      `not allowed to update: ${field}`,
    );
  }
  const user = UserSchema.parse((await call(ctx, 'GET', '/user/me', undefined, me)).body.user);
  assert.equal(
    [user.name, user.login, user.status, user.roles, user.email_verified],
    ['Fay', 'fay@corp.example', 'active', ['user'], false],
    'a refused change changes nothing',
  );
  // What a user may change still changes.
  const ok = await call(
    ctx,
    'PUT',
    '/user/me',
    { name: 'Fay F', text: 'on call', attributes: { prefs: { isDark: true } }, status: null },
    me,
  );
  assert.is(ok.status, 200, ok.text);
  const changed = UserSchema.parse(ok.body.user);
  assert.equal(
    [changed.name, changed.text, changed.attributes, changed.status],
    ['Fay F', 'on call', { prefs: { isDark: true } }, 'active'],
  );
});

test('attributes deep-merge: nested objects merge, arrays replace, top-level null deletes', async (ctx) => {
  const u = await createUser(ctx, { name: 'Dan', email: 'dan@corp.example', password: 'alice-secret-1' });
  const me = bearer(await login(ctx, 'dan@corp.example', 'alice-secret-1'));
  const put = (attributes: unknown) => call(ctx, 'PUT', '/user/me/attributes', { attributes }, me);
  const get = async () => (await call(ctx, 'GET', '/user/me/attributes', undefined, me)).body;

  assert.equal((await put({ prefs: { isDark: true, cols: ['a'] } })).body, { status: 'ok' });
  await put({ prefs: { rows: 20, cols: ['b', 'c'] }, queries: [{ text: 'x', q: 'y' }] });
  assert.equal(await get(), {
    status: 'ok',
    total: 1,
    attributes: { prefs: { isDark: true, rows: 20, cols: ['b', 'c'] }, queries: [{ text: 'x', q: 'y' }] },
  });
  await put({ queries: null });
  assert.equal((await get()).attributes, { prefs: { isDark: true, rows: 20, cols: ['b', 'c'] } });
  await put({ prefs: { isDark: null } });
  assert.equal((await get()).attributes, { prefs: { isDark: null, rows: 20, cols: ['b', 'c'] } });

  // The admin route merges the same way.
  const admin = await call(ctx, 'PUT', `/user/${u.id}/attributes`, {
    attributes: { prefs: null, team: 'a' },
  });
  assert.equal(admin.body, { status: 'ok' });
  assert.equal((await get()).attributes, { team: 'a' });

  assertError(await put({}), 400);
  assertError(await call(ctx, 'PUT', '/user/me/attributes', {}, me), 400);
  assertError(await put('nope'), 400);
  assertError(
    await call(ctx, 'PUT', `/user/${crypto.randomUUID()}/attributes`, { attributes: { a: 1 } }),
    404,
  );

  assert.equal(mergeAttributes({ a: { b: 1 } }, JSON.parse('{"__proto__":{"x":1}}')), {
    a: { b: 1 },
    ['__proto__']: { x: 1 },
  });
  assert.is(({} as Record<string, unknown>).x, undefined, 'no prototype pollution');
});

test('PUT /user/:id: fields, roles rules (trap 16), 409 on email, 403 beyond own scopes', async (ctx) => {
  const u = await createUser(ctx, { name: 'Eve', email: 'eve@corp.example', password: 'alice-secret-1' });
  const path = `/user/${u.id}`;
  // The CLI renaming a user: roles [] and attributes {} mean unchanged.
  const renamed = await call(ctx, 'PUT', path, {
    name: 'Eve E',
    email: null,
    password: null,
    status: null,
    roles: [],
    attributes: {},
    text: null,
    email_verified: null,
  });
  assert.is(renamed.status, 200, renamed.text);
  assert.equal(Object.keys(renamed.body).sort(), ['status', 'user']);
  let user = UserSchema.parse(renamed.body.user);
  assert.equal([user.name, user.roles], ['Eve E', ['user']]);
  assert.ok(user.updateTime);

  user = UserSchema.parse((await call(ctx, 'PUT', path, { roles: ['guest', 'ops'] })).body.user);
  assert.equal(user.roles, ['guest', 'ops']);
  user = UserSchema.parse((await call(ctx, 'PUT', path, { role: 'user' })).body.user);
  assert.equal(user.roles, ['user']);
  user = UserSchema.parse((await call(ctx, 'PUT', path, { roles: [], clearRoles: true })).body.user);
  assert.equal(user.roles, []);
  user = UserSchema.parse(
    (await call(ctx, 'PUT', path, { email_verified: true, status: 'inactive' })).body.user,
  );
  assert.equal([user.email_verified, user.status], [true, 'inactive']);

  assertError(
    await call(ctx, 'PUT', path, { email: 'alice@corp.example' }),
    409,
    'user with that email already exists',
  );
  assertError(await call(ctx, 'PUT', path, { status: 'asleep' }), 400);
  assertError(await call(ctx, 'PUT', path, { roles: 'admin' }), 400);
  assertError(await call(ctx, 'PUT', `/user/${crypto.randomUUID()}`, { name: 'x' }), 404);

  // A user given the admin role by an admin may change roles in turn.
  const writer = await createUser(ctx, {
    name: 'Writer',
    email: 'writer@corp.example',
    password: 'alice-secret-1',
  });
  await call(ctx, 'PUT', `/user/${writer.id}`, { roles: ['admin'] });
  const admin2 = bearer(await login(ctx, 'writer@corp.example', 'alice-secret-1'));
  assert.is((await call(ctx, 'PUT', path, { roles: ['user'] }, admin2)).status, 200);
  // A plain user (read, write) never reaches the roles check: the route needs admin:users.
  const plain = bearer(await login(ctx, 'bob@corp.example', 'bob-secret-2'));
  assertError(
    await call(ctx, 'PUT', path, { roles: ['admin'] }, plain),
    403,
    'Missing required scope: admin:users',
  );
});

test('roles beyond the caller scopes → 403 Requested scope', async (ctx) => {
  // A key-less way to get a caller holding admin:users but not admin: a perm for role "useradmin".
  const perm = await call(ctx, 'POST', '/perm', { match: 'useradmin', scopes: ['admin:users', 'read'] });
  assert.is(perm.status, 201);
  const u = await createUser(ctx, {
    name: 'UA',
    email: 'ua@corp.example',
    password: 'alice-secret-1',
    roles: ['useradmin'],
  });
  assert.equal(u.roles, ['useradmin']);
  const ua = bearer(await login(ctx, 'ua@corp.example', 'alice-secret-1'));
  const r = await call(
    ctx,
    'POST',
    '/user',
    { name: 'x', email: 'x@corp.example', password: 'p', roles: ['admin'] },
    ua,
  );
  assertError(r, 403, /^Requested scope 'admin' not in existing scopes: /);
});

test('groups: CRUD, membership, count, /user/:id/groups, DELETE', async (ctx) => {
  const r = await call(ctx, 'POST', '/group', { name: 'ops', text: 'Operations' });
  assert.is(r.status, 201, r.text);
  assert.equal(Object.keys(r.body).sort(), ['group', 'id', 'status']);
  const group = GroupSchema.parse(r.body.group);
  assert.equal([group.name, group.text, group.count], ['ops', 'Operations', 0]);
  assert.ok(group.href.endsWith(`/group/${group.id}`));
  assertError(
    await call(ctx, 'POST', '/group', { text: 'no name' }),
    400,
    'Missing mandatory value for name',
  );
  assertError(await call(ctx, 'POST', '/group', { name: 'ops' }), 409);

  const users = UserListSchema.parse((await call(ctx, 'GET', '/users')).body).users;
  const alice = users.find((u) => u.login === 'alice@corp.example')!;
  const bob = users.find((u) => u.login === 'bob@corp.example')!;
  // The CLI sends the body `null`, the UI `{}`; no body at all works too.
  const add1 = await ctx.api.request('PUT', `/group/${group.id}/user/${alice.id}`, undefined, {
    headers: { ...ctx.admin, 'Content-Type': 'application/json' },
    raw: 'null',
  });
  assert.is(add1.status, 200, await add1.text());
  assert.equal((await call(ctx, 'PUT', `/group/${group.id}/user/${bob.id}`, {})).body, { status: 'ok' });
  assert.is(
    (await call(ctx, 'PUT', `/group/${group.id}/user/${bob.id}`)).status,
    200,
    'adding twice is fine',
  );
  assertError(await call(ctx, 'PUT', `/group/${group.id}/user/${crypto.randomUUID()}`), 400, 'invalid user');
  assertError(await call(ctx, 'PUT', `/group/${crypto.randomUUID()}/user/${bob.id}`), 404);

  const got = await call(ctx, 'GET', `/group/${group.id}`);
  assert.equal(got.body, { status: 'ok', total: 1, group: { ...group, count: 2 } });
  const members = await call(ctx, 'GET', `/group/${group.id}/users`);
  assert.is(members.body.total, 2);
  assert.equal(
    (members.body.users as Record<string, unknown>[]).map((m) => Object.keys(m).sort()),
    [
      ['href', 'id', 'login', 'name', 'status'],
      ['href', 'id', 'login', 'name', 'status'],
    ],
  );
  const ofAlice = await call(ctx, 'GET', `/user/${alice.id}/groups`);
  assert.equal(ofAlice.body, { status: 'ok', groups: [{ ...group, count: 2 }], total: 1 });

  // Group names count as roles at login: a perm for "ops" would apply; the token lists the group.
  const token = await login(ctx, 'alice@corp.example', 'alice-secret-1');
  const info = await call(ctx, 'GET', '/userinfo', undefined, bearer(token));
  assert.equal(info.body.groups, ['ops']);

  const list = GroupListSchema.parse((await call(ctx, 'GET', '/groups')).body);
  assert.equal(
    list.groups.map((g) => [g.name, g.count]),
    [['ops', 2]],
  );
  // Non-admin users with read (user role) may read groups but not change them.
  const bobToken = bearer(await login(ctx, 'bob@corp.example', 'bob-secret-2'));
  assert.is((await call(ctx, 'GET', '/groups', undefined, bobToken)).status, 200);

  const renamed = await call(ctx, 'PUT', `/group/${group.id}`, { name: 'operations', text: null });
  assert.equal(renamed.body, { status: 'ok', group: { ...group, name: 'operations', count: 2 } });
  assertError(await call(ctx, 'PUT', `/group/${group.id}`, {}), 400, 'nothing to change');

  assert.equal((await call(ctx, 'DELETE', `/group/${group.id}/user/${alice.id}`)).body, { status: 'ok' });
  assert.is(GroupSchema.parse((await call(ctx, 'GET', `/group/${group.id}`)).body.group).count, 1);

  assert.equal((await call(ctx, 'DELETE', `/group/${group.id}`)).body, { status: 'ok' });
  assertError(await call(ctx, 'GET', `/group/${group.id}`), 404);
  assertError(await call(ctx, 'DELETE', `/group/${group.id}`), 404);
  assertError(await call(ctx, 'GET', '/group/xyz'), 404);
});

test('DELETE /user/:id removes the user (and their memberships)', async (ctx) => {
  const u = await createUser(ctx, { name: 'Gone', email: 'gone@corp.example', password: 'alice-secret-1' });
  const g = GroupSchema.parse((await call(ctx, 'POST', '/group', { name: 'tmp' })).body.group);
  await call(ctx, 'PUT', `/group/${g.id}/user/${u.id}`);
  assert.equal((await call(ctx, 'DELETE', `/user/${u.id}`)).body, { status: 'ok' });
  assertError(await call(ctx, 'GET', `/user/${u.id}`), 404);
  assertError(await call(ctx, 'DELETE', `/user/${u.id}`), 404);
  assert.is(GroupSchema.parse((await call(ctx, 'GET', `/group/${g.id}`)).body.group).count, 0);
  const r = await call(
    ctx,
    'POST',
    '/auth/login',
    { username: 'gone@corp.example', password: 'alice-secret-1' },
    {},
  );
  assertError(r, 401, 'Invalid username or password');
});

test.run();
