import * as assert from 'uvu/assert';
import { createToken } from '../../server/auth/tokens.ts';
import { type AppContext, appSuite } from '../helpers/app.ts';
import { insertKeys } from '../helpers/db.ts';
import { tokenUser } from '../helpers/users.ts';

/**
 * The scope each endpoint requires (its `requireScope`; docs/auth.md, "Scopes"), checked for every caller kind
 * with AUTH_REQUIRED on and off. "ok" means authentication and the scope check let the request
 * through (whatever the endpoint then answers); otherwise 401 or 403.
 */
type Need = 'public' | 'user' | string;
const NONE = '__none__';
const ENDPOINTS: [string, string, Need][] = [
  ['GET', '/', 'public'],
  ['GET', '/_', 'public'],
  ['GET', '/config', 'public'],
  ['GET', '/management', 'public'],
  ['GET', '/management/gtg', 'public'],
  ['GET', '/management/healthcheck', 'public'],
  ['GET', '/auth/logout', 'public'],
  ['GET', '/user/me', 'user'],
  ['GET', '/user/me/attributes', 'user'],
  ['GET', `/alert/${NONE}`, 'read:alerts'],
  ['GET', `/alert/${NONE}/notes`, 'read:alerts'],
  ['GET', '/alerts', 'read:alerts'],
  ['GET', '/alerts/history', 'read:alerts'],
  ['GET', '/alerts/count', 'read:alerts'],
  ['GET', '/alerts/top10/count', 'read:alerts'],
  ['GET', '/alerts/topn/flapping', 'read:alerts'],
  ['GET', '/environments', 'read:alerts'],
  ['GET', '/services', 'read:alerts'],
  ['GET', '/alerts/groups', 'read:alerts'],
  ['GET', '/alerts/tags', 'read:alerts'],
  ['GET', '/tags', 'read:alerts'],
  ['GET', `/_bulk/task/${NONE}`, 'read:alerts'],
  ['POST', '/alert', 'write:alerts'],
  ['PUT', `/alert/${NONE}/status`, 'write:alerts'],
  ['PUT', `/alert/${NONE}/action`, 'write:alerts'],
  ['PUT', `/alert/${NONE}/tag`, 'write:alerts'],
  ['PUT', `/alert/${NONE}/untag`, 'write:alerts'],
  ['PUT', `/alert/${NONE}/attributes`, 'write:alerts'],
  ['PUT', `/alert/${NONE}/note`, 'write:alerts'],
  ['PUT', `/alert/${NONE}/note/${NONE}`, 'write:alerts'],
  ['DELETE', `/alert/${NONE}/note/${NONE}`, 'write:alerts'],
  ['PUT', `/_bulk/alerts/status?resource=${NONE}`, 'write:alerts'],
  ['PUT', `/_bulk/alerts/action?resource=${NONE}`, 'write:alerts'],
  ['PUT', `/_bulk/alerts/tag?resource=${NONE}`, 'write:alerts'],
  ['PUT', `/_bulk/alerts/untag?resource=${NONE}`, 'write:alerts'],
  ['PUT', `/_bulk/alerts/attributes?resource=${NONE}`, 'write:alerts'],
  ['DELETE', `/_bulk/alerts?resource=${NONE}`, 'write:alerts'],
  ['DELETE', `/alert/${NONE}`, 'delete:alerts'],
  ['GET', '/blackouts', 'read:blackouts'],
  ['GET', `/blackout/${NONE}`, 'read:blackouts'],
  ['POST', '/blackout', 'write:blackouts'],
  ['PUT', `/blackout/${NONE}`, 'write:blackouts'],
  ['DELETE', `/blackout/${NONE}`, 'write:blackouts'],
  ['GET', '/heartbeats', 'read:heartbeats'],
  ['GET', `/heartbeat/${NONE}`, 'read:heartbeats'],
  ['POST', '/heartbeat', 'write:heartbeats'],
  ['DELETE', `/heartbeat/${NONE}`, 'write:heartbeats'],
  ['GET', '/keys', 'read:keys'],
  ['GET', `/key/${NONE}`, 'read:keys'],
  ['POST', '/key', 'write:keys'],
  ['PUT', `/key/${NONE}`, 'write:keys'],
  ['DELETE', `/key/${NONE}`, 'admin:keys'],
  ['POST', '/user', 'admin:users'],
  ['GET', `/user/${NONE}`, 'admin:users'],
  ['GET', `/user/${NONE}/groups`, 'admin:users'],
  ['GET', '/users', 'admin:users'],
  ['PUT', `/user/${NONE}`, 'admin:users'],
  ['PUT', `/user/${NONE}/attributes`, 'admin:users'],
  ['DELETE', `/user/${NONE}`, 'admin:users'],
  ['GET', '/groups', 'read:groups'],
  ['GET', `/group/${NONE}`, 'read:groups'],
  ['GET', `/group/${NONE}/users`, 'read:groups'],
  ['POST', '/group', 'admin:groups'],
  ['PUT', `/group/${NONE}`, 'admin:groups'],
  ['DELETE', `/group/${NONE}`, 'admin:groups'],
  ['PUT', `/group/${NONE}/user/${NONE}`, 'admin:groups'],
  ['DELETE', `/group/${NONE}/user/${NONE}`, 'admin:groups'],
  ['GET', '/perms', 'read:perms'],
  ['GET', `/perm/${NONE}`, 'read:perms'],
  ['GET', '/scopes', 'read:perms'],
  ['POST', '/perm', 'admin:perms'],
  ['PUT', `/perm/${NONE}`, 'admin:perms'],
  ['DELETE', `/perm/${NONE}`, 'admin:perms'],
  ['GET', '/customers', 'read:customers'],
  ['GET', `/customer/${NONE}`, 'read:customers'],
  ['POST', '/customer', 'admin:customers'],
  ['PUT', `/customer/${NONE}`, 'admin:customers'],
  ['DELETE', `/customer/${NONE}`, 'admin:customers'],
  ['GET', '/notifications/receivers', 'read:notifications'],
  ['GET', `/notifications/receivers/${NONE}`, 'read:notifications'],
  ['POST', '/notifications/receivers', 'admin:notifications'],
  ['PUT', `/notifications/receivers/${NONE}`, 'admin:notifications'],
  ['DELETE', `/notifications/receivers/${NONE}`, 'admin:notifications'],
  ['POST', `/notifications/receivers/${NONE}/test`, 'admin:notifications'],
  ['GET', '/notifications/rules', 'read:notifications'],
  ['GET', `/notifications/rules/${NONE}`, 'read:notifications'],
  ['POST', '/notifications/rules', 'admin:notifications'],
  ['PUT', `/notifications/rules/${NONE}`, 'admin:notifications'],
  ['DELETE', `/notifications/rules/${NONE}`, 'admin:notifications'],
  ['GET', `/alert/${NONE}/notifications`, 'read:alerts'],
  ['GET', '/management/manifest', 'read:management'],
  ['GET', '/management/status', 'read:management'],
  ['GET', '/management/metrics', 'read:management'],
  ['GET', '/management/properties', 'admin:management'],
  ['GET', '/management/switchboard', 'admin:management'],
  ['GET', '/management/housekeeping', 'admin:management'],
  ['POST', '/webhooks/prometheus', 'write:webhooks'],
  ['GET', `/webhooks/${NONE}/sub/path`, 'write:webhooks'],
];

interface Caller {
  name: string;
  headers: Record<string, string>;
  /** What the caller may do: a list of scopes, or null for "no credentials". */
  scopes: string[] | null;
}

const KEYS = {
  ro: { key: 'matrix-read-only-key-0000000000000000000', scopes: ['read'] },
  rw: { key: 'matrix-read-write-key-000000000000000000', scopes: ['read', 'write'] },
  admin: { key: 'matrix-admin-key-00000000000000000000000', scopes: ['admin', 'read', 'write'] },
};

async function seedKeys(ctx: AppContext) {
  await insertKeys(
    ctx.db.url,
    Object.entries(KEYS).map(([name, k]) => ({
      ...k,
      user: `${name}@example.com`,
      customer: name === 'admin' ? null : 'acme',
    })),
  );
}

/** Would a caller holding `held` be let through to an endpoint that needs `need`? */
function allowed(need: Need, held: string[] | null, authRequired: boolean): boolean {
  if (need === 'public') return true;
  if (held === null) return !authRequired;
  if (need === 'user') return true;
  const grants = (w: string): boolean => {
    const action = w.split(':')[0]!;
    if (held.includes(w) || held.includes(action)) return true;
    if (action === 'read') return grants(`write${w.slice(4)}`);
    if (action === 'write') return grants(`admin${w.slice(5)}`);
    if (action === 'delete') return grants(`write${w.slice(6)}`);
    return false;
  };
  return grants(need);
}

async function runMatrix(ctx: AppContext, callers: Caller[], authRequired: boolean) {
  const wrong: string[] = [];
  for (const caller of callers) {
    for (const [method, path, need] of ENDPOINTS) {
      const withBody = method === 'POST' || method === 'PUT';
      const res = await ctx.api.request(method, path, withBody ? {} : undefined, { headers: caller.headers });
      const body = await res.text();
      const expectOk = allowed(need, caller.scopes, authRequired);
      const denied = res.status === 401 || res.status === 403;
      const expected = expectOk ? 'not 401/403' : caller.scopes === null ? '401' : '403';
      const fine = expectOk ? !denied : res.status === (caller.scopes === null ? 401 : 403);
      if (!fine)
        wrong.push(
          `${caller.name} ${method} ${path}: ${res.status} (expected ${expected}) ${body.slice(0, 120)}`,
        );
      if (denied) {
        const err = JSON.parse(body) as { status: string; code: number; message: string };
        assert.equal([err.status, err.code], ['error', res.status], `${method} ${path}`);
        if (res.status === 403 && need !== 'public' && need !== 'user') {
          assert.is(err.message, `Missing required scope: ${need}`, `${caller.name} ${method} ${path}`);
        }
      }
    }
  }
  assert.equal(wrong, []);
}

const on = appSuite('scope matrix, AUTH_REQUIRED on', {
  TEST_LABEL: 'matrix_on',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'matrix-secret-key',
  CUSTOMER_VIEWS: 'True',
  ADMIN_USERS: 'admin@example.com',
  PLUGINS: 'remote_ip',
});
on.before(seedKeys);

on('no credentials, read-only, read-write and admin keys, and a token of another customer', async (ctx) => {
  const token = await createToken(
    ctx.running.deps.config,
    {
      userId: await tokenUser(ctx.db.url, 'other@globex.example'),
      login: 'other@globex.example',
      provider: 'basic',
      scopes: ['read', 'write'],
      customers: ['globex'],
    },
    ctx.api.base,
  );
  await runMatrix(
    ctx,
    [
      { name: 'anonymous', headers: {}, scopes: null },
      { name: 'read-only key', headers: { Authorization: `Key ${KEYS.ro.key}` }, scopes: KEYS.ro.scopes },
      { name: 'read-write key', headers: { 'X-API-Key': KEYS.rw.key }, scopes: KEYS.rw.scopes },
      { name: 'admin key', headers: { Authorization: `Key ${KEYS.admin.key}` }, scopes: KEYS.admin.scopes },
      {
        name: 'other customer token',
        headers: { Authorization: `Bearer ${token}` },
        scopes: ['read', 'write'],
      },
    ],
    true,
  );
});

on('GET /userinfo answers token callers only', async (ctx) => {
  const token = await createToken(
    ctx.running.deps.config,
    {
      userId: await tokenUser(ctx.db.url, 'info@acme.example'),
      login: 'info@acme.example',
      provider: 'basic',
      scopes: ['read'],
      customers: ['acme'],
    },
    ctx.api.base,
  );
  const res = await ctx.api.get('/userinfo', { headers: { Authorization: `Bearer ${token}` } });
  assert.is(res.status, 200);
  assert.is(((await res.json()) as { preferred_username: string }).preferred_username, 'info@acme.example');
  assert.is(
    (await ctx.api.get('/userinfo', { headers: { Authorization: `Key ${KEYS.rw.key}` } })).status,
    401,
  );
  assert.is((await ctx.api.get('/userinfo')).status, 401);
});

on.run();

const off = appSuite('scope matrix, AUTH_REQUIRED off', { TEST_LABEL: 'matrix_off', PLUGINS: 'remote_ip' });
off.before(seedKeys);

off(
  'anonymous callers may do everything; a presented key is still checked and limited to its scopes',
  async (ctx) => {
    await runMatrix(
      ctx,
      [
        { name: 'anonymous', headers: {}, scopes: null },
        { name: 'read-only key', headers: { Authorization: `Key ${KEYS.ro.key}` }, scopes: KEYS.ro.scopes },
      ],
      false,
    );
    const bad = await ctx.api.get('/alerts', { headers: { 'X-API-Key': 'no-such-key' } });
    assert.is(bad.status, 401);
    assert.is(
      ((await bad.json()) as { message: string }).message,
      "API key parameter 'no-such-key' is invalid",
    );
  },
);

off.run();

const cors = appSuite('CORS with authentication', {
  TEST_LABEL: 'cors_auth',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'cors-secret',
  PLUGINS: 'remote_ip',
});

cors(
  'with AUTH_REQUIRED an allowed origin may send credentials; other origins get no CORS headers',
  async (ctx) => {
    const preflight = await ctx.api.request('OPTIONS', '/alerts', undefined, {
      headers: {
        Origin: 'http://localhost:8000',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'Authorization',
      },
    });
    assert.is(preflight.headers.get('access-control-allow-origin'), 'http://localhost:8000');
    assert.is(preflight.headers.get('access-control-allow-credentials'), 'true');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    const denied = await ctx.api.get('/alerts', { headers: { Origin: 'http://evil.example' } });
    assert.is(denied.status, 401);
    assert.is(denied.headers.get('access-control-allow-origin'), null);
  },
);

cors.run();

const readonly = appSuite('ALLOW_READONLY', {
  TEST_LABEL: 'readonly',
  AUTH_REQUIRED: 'True',
  ALLOW_READONLY: 'True',
  SECRET_KEY: 'readonly-secret',
  PLUGINS: 'remote_ip',
});

readonly(
  'anonymous callers read with READONLY_SCOPES and are refused writes (Alerta lets them through)',
  async (ctx) => {
    await runMatrix(ctx, [{ name: 'anonymous read-only', headers: {}, scopes: ['read'] }], true);
    const write = await ctx.api.post('/alert', { resource: 'r', event: 'e', environment: 'Production' });
    assert.is(write.status, 403);
    assert.is(((await write.json()) as { message: string }).message, 'Missing required scope: write:alerts');
  },
);

readonly.run();
