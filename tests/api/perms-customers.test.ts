/**
 * Permissions, scopes and customers (api.md §9, auth.md §2–§5, docs/keys-perms-customers.md): CRUD,
 * reserved role names, requested scopes checked against the caller's, the built-in roles listed
 * first, GET /scopes with CUSTOM_SCOPES, a permission taking effect for a Basic-authenticated user,
 * and customer lookups seen by non-admins with CUSTOMER_VIEWS.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CustomerListSchema,
  CustomerSchema,
  PermissionListSchema,
  PermissionSchema,
  ScopesSchema,
} from '../../shared/perms.ts';
import { BUILTIN_SCOPES } from '../../server/auth/scopes.ts';
import { hashPassword } from '../../server/auth/passwords.ts';
import { insertKeys, queryDb } from '../helpers/db.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { assertError, basicAuth as basic, callAs, securedSettings } from '../helpers/secured.ts';

const SETTINGS = securedSettings('perms', 'test-secret-key-123');

async function insertKey(ctx: AppContext, key: string, user: string, scopes: string[], customer?: string) {
  await insertKeys(ctx.db.url, [{ key, user, scopes, customer }]);
}

const ADMIN = 'admin-key-0123456789';
const PERM_ADMIN = 'perm-admin-key-012345'; // admin:perms and read only
const READER = 'alerts-reader-key-0123';

// ---- permissions and scopes ------------------------------------------------------------------------

const perms = suite<AppContext>('permissions and scopes', {} as AppContext);
perms.before(async (ctx) => {
  await startApp(ctx, { ...SETTINGS, CUSTOM_SCOPES: 'read:reports,write:reports.daily' });
  await insertKey(ctx, ADMIN, 'admin@example.com', ['admin', 'read', 'write']);
  await insertKey(ctx, PERM_ADMIN, 'pat@example.com', ['admin:perms', 'read']);
  await insertKey(ctx, READER, 'rita@example.com', ['read:alerts']);
});
perms.after(stopApp);

perms('GET /scopes lists the built-in scopes, then CUSTOM_SCOPES', async ({ api }) => {
  const a = await callAs(api, 'GET', '/scopes', { key: ADMIN });
  assert.is(a.status, 200);
  const body = ScopesSchema.parse(a.body);
  assert.equal(body.scopes, [...BUILTIN_SCOPES, 'read:reports', 'write:reports.daily']);
  assert.is(body.total, body.scopes.length);
  assertError(
    await callAs(api, 'GET', '/scopes', { key: READER }),
    403,
    'Missing required scope: read:perms',
  );
});

perms('permission CRUD', async ({ api }) => {
  const made = await callAs(api, 'POST', '/perm', {
    key: ADMIN,
    body: { match: 'ops', scopes: ['read:alerts', 'write:heartbeats'] },
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const perm = PermissionSchema.parse(made.body.permission);
  assert.is(made.body.id, perm.id);
  assert.equal([perm.match, perm.scopes], ['ops', ['read:alerts', 'write:heartbeats']]);
  assert.ok(perm.href.endsWith(`/perm/${perm.id}`));

  const got = await callAs(api, 'GET', `/perm/${perm.id}`, { key: ADMIN });
  assert.equal([got.status, got.body.total, got.body.permission], [200, 1, perm]);

  const put = await callAs(api, 'PUT', `/perm/${perm.id}`, {
    key: ADMIN,
    body: { scopes: ['read:reports'] },
  });
  assert.is(put.status, 200, JSON.stringify(put.body));
  assert.equal(PermissionSchema.parse(put.body.permission), { ...perm, scopes: ['read:reports'] });
  assertError(
    await callAs(api, 'PUT', `/perm/${perm.id}`, { key: ADMIN, body: { scopes: ['read:nothing'] } }),
    400,
    "'read:nothing' is not a valid Scope",
  );
  assertError(await callAs(api, 'PUT', `/perm/${perm.id}`, { key: ADMIN, body: { match: 'guest' } }), 409);

  assert.equal((await callAs(api, 'DELETE', `/perm/${perm.id}`, { key: ADMIN })).body, { status: 'ok' });
  assertError(await callAs(api, 'GET', `/perm/${perm.id}`, { key: ADMIN }), 404, 'not found');
  assertError(await callAs(api, 'DELETE', `/perm/${perm.id}`, { key: ADMIN }), 404);
  assertError(await callAs(api, 'GET', '/perm/not-a-uuid', { key: ADMIN }), 404);
  assertError(await callAs(api, 'PUT', '/perm/not-a-uuid', { key: ADMIN, body: { match: 'x' } }), 404);
});

perms('reserved role names and duplicate matches are 409; bad bodies 400', async ({ api }) => {
  for (const role of ['admin', 'user', 'guest']) {
    assertError(
      await callAs(api, 'POST', '/perm', { key: ADMIN, body: { match: role, scopes: ['read'] } }),
      409,
      `${role} role already exists`,
    );
  }
  assert.is(
    (await callAs(api, 'POST', '/perm', { key: ADMIN, body: { match: 'dup', scopes: [] } })).status,
    201,
  );
  assertError(await callAs(api, 'POST', '/perm', { key: ADMIN, body: { match: 'dup', scopes: [] } }), 409);
  assertError(await callAs(api, 'POST', '/perm', { key: ADMIN, body: { match: 'x', scopes: 'read' } }), 400);
  assertError(await callAs(api, 'POST', '/perm', { key: ADMIN, body: { scopes: ['read'] } }), 400);
  assertError(
    await callAs(api, 'POST', '/perm', { key: ADMIN, body: { match: 'x', scopes: ['root'] } }),
    400,
    "'root' is not a valid Scope",
  );
  assertError(await callAs(api, 'POST', '/perm', { key: ADMIN, body: 'ops' }), 400);
});

perms('requested scopes must be within the caller', async ({ api }) => {
  assertError(
    await callAs(api, 'POST', '/perm', {
      key: PERM_ADMIN,
      body: { match: 'writers', scopes: ['write:alerts'] },
    }),
    403,
    "Requested scope 'write:alerts' not in existing scopes: admin:perms,read",
  );
  const ok = await callAs(api, 'POST', '/perm', {
    key: PERM_ADMIN,
    body: { match: 'readers', scopes: ['read:alerts'] },
  });
  assert.is(ok.status, 201, JSON.stringify(ok.body));
  assertError(await callAs(api, 'POST', '/perm', { key: READER, body: { match: 'r', scopes: [] } }), 403);
  assertError(await callAs(api, 'GET', '/perms', { key: READER }), 403, 'Missing required scope: read:perms');
});

perms('GET /perms lists the built-in roles first, fresh ids each time', async ({ api }) => {
  await callAs(api, 'POST', '/perm', {
    key: ADMIN,
    body: { match: 'auditors', scopes: ['read:alerts', 'read:keys'] },
  });
  const first = PermissionListSchema.parse((await callAs(api, 'GET', '/perms', { key: ADMIN })).body);
  assert.equal(
    first.permissions.slice(0, 3).map((p) => [p.match, p.scopes]),
    [
      ['admin', ['admin', 'read', 'write']],
      ['user', ['read', 'write']],
      ['guest', ['read:alerts']],
    ],
  );
  assert.ok(first.permissions.some((p) => p.match === 'auditors'));
  assert.is(first.total, first.permissions.length);
  assert.ok(Math.abs(Date.parse(first.time) - Date.now()) < 60_000);
  const again = PermissionListSchema.parse((await callAs(api, 'GET', '/perms', { key: ADMIN })).body);
  assert.is.not(again.permissions[0]!.id, first.permissions[0]!.id);

  const filtered = PermissionListSchema.parse(
    (await callAs(api, 'GET', '/perms?scopes=read:keys', { key: ADMIN })).body,
  );
  assert.equal(
    filtered.permissions.map((p) => p.match),
    ['auditors'],
  );
  const paged = PermissionListSchema.parse(
    (await callAs(api, 'GET', '/perms?page-size=2', { key: ADMIN })).body,
  );
  assert.equal([paged.permissions.map((p) => p.match), paged.more], [['admin', 'user'], true]);
  assertError(await callAs(api, 'GET', '/perms?colour=red', { key: ADMIN }), 400);
});

perms(
  'a permission gives its scopes to a Basic user with that role (match is a whole-string regex)',
  async (ctx) => {
    const { api } = ctx;
    await queryDb(
      ctx.db.url,
      `INSERT INTO users (id, name, login, email, password, roles, create_time, email_verified)
     VALUES (gen_random_uuid(), 'Dev Ops', 'devops@example.com', 'devops@example.com', $1, $2, now(), true)`,
      [await hashPassword('s3cret-pass'), ['devops']],
    );
    const creds = { headers: basic('devops@example.com', 's3cret-pass') };
    assertError(
      await callAs(api, 'GET', '/heartbeats', creds),
      403,
      'Missing required scope: read:heartbeats',
    );
    const made = await callAs(api, 'POST', '/perm', {
      key: ADMIN,
      body: { match: 'dev.*', scopes: ['read:heartbeats'] },
    });
    assert.is(made.status, 201);
    assert.is((await callAs(api, 'GET', '/heartbeats', creds)).status, 200);
    // Only what the permission grants.
    assertError(await callAs(api, 'GET', '/blackouts', creds), 403, 'Missing required scope: read:blackouts');
    await callAs(api, 'DELETE', `/perm/${made.body.id as string}`, { key: ADMIN });
    assertError(await callAs(api, 'GET', '/heartbeats', creds), 403);
  },
);

perms('customer CRUD', async ({ api }) => {
  const made = await callAs(api, 'POST', '/customer', {
    key: ADMIN,
    body: { match: 'acme.com', customer: 'Acme' },
  });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const c = CustomerSchema.parse(made.body.customer);
  assert.equal([made.body.id, c.match, c.customer], [c.id, 'acme.com', 'Acme']);
  assert.ok(c.href.endsWith(`/customer/${c.id}`));
  const got = await callAs(api, 'GET', `/customer/${c.id}`, { key: ADMIN });
  assert.equal([got.status, got.body.total, got.body.customer], [200, 1, c]);
  const put = await callAs(api, 'PUT', `/customer/${c.id}`, { key: ADMIN, body: { customer: 'Acme Corp' } });
  assert.equal(CustomerSchema.parse(put.body.customer), { ...c, customer: 'Acme Corp' });
  const list = CustomerListSchema.parse((await callAs(api, 'GET', '/customers', { key: ADMIN })).body);
  assert.equal([list.total, list.customers[0]!.customer, typeof list.time], [1, 'Acme Corp', 'string']);
  assert.is((await callAs(api, 'DELETE', `/customer/${c.id}`, { key: ADMIN })).status, 200);
  assertError(await callAs(api, 'GET', `/customer/${c.id}`, { key: ADMIN }), 404);
  const empty = CustomerListSchema.parse((await callAs(api, 'GET', '/customers', { key: ADMIN })).body);
  assert.equal([empty.status, empty.total, empty.message], ['ok', 0, 'not found']);

  assertError(
    await callAs(api, 'POST', '/customer', { key: ADMIN, body: { match: 'x' } }),
    400,
    'Missing mandatory value for customer',
  );
  assertError(await callAs(api, 'POST', '/customer', { key: ADMIN, body: { match: 7, customer: 'X' } }), 400);
  assertError(
    await callAs(api, 'POST', '/customer', { key: PERM_ADMIN, body: { match: 'x', customer: 'X' } }),
    403,
  );
  assertError(
    await callAs(api, 'GET', '/customers', { key: READER }),
    403,
    'Missing required scope: read:customers',
  );
});

perms.run();

// ---- customers seen by non-admins --------------------------------------------------------------------

const views = suite<AppContext>('customers with CUSTOMER_VIEWS', {} as AppContext);
views.before(async (ctx) => {
  await startApp(ctx, { ...SETTINGS, TEST_LABEL: 'perms_views', CUSTOMER_VIEWS: 'True' });
  await insertKey(ctx, ADMIN, 'admin@example.com', ['admin', 'read', 'write']);
  await insertKey(ctx, 'acme-reader-key-01234', 'ann@acme.com', ['read'], 'acme');
});
views.after(stopApp);

views('non-admins see only the lookups of their own customers', async ({ api }) => {
  const ids: Record<string, string> = {};
  for (const [match, customer] of [
    ['acme.com', 'acme'],
    ['ops-team', 'acme'],
    ['globex.com', 'globex'],
  ] as const) {
    const a = await callAs(api, 'POST', '/customer', { key: ADMIN, body: { match, customer } });
    assert.is(a.status, 201);
    ids[match] = a.body.id as string;
  }
  const mine = CustomerListSchema.parse(
    (await callAs(api, 'GET', '/customers', { key: 'acme-reader-key-01234' })).body,
  );
  assert.equal([mine.total, mine.customers.map((c) => c.match).sort()], [2, ['acme.com', 'ops-team']]);
  const all = CustomerListSchema.parse((await callAs(api, 'GET', '/customers', { key: ADMIN })).body);
  assert.is(all.total, 3);
  assertError(
    await callAs(api, 'GET', `/customer/${ids['globex.com']!}`, { key: 'acme-reader-key-01234' }),
    404,
  );
  assert.is(
    (await callAs(api, 'GET', `/customer/${ids['acme.com']!}`, { key: 'acme-reader-key-01234' })).status,
    200,
  );
});

views.run();
