/**
 * API keys (api.md §8, auth.md §1, §9, §13, docs/keys-perms-customers.md): the three ways to send a
 * key and their precedence, key ids as credentials, expiry, batched use counts, POST/GET/PUT/DELETE
 * rules for admins and owners, customer scoping with CUSTOMER_VIEWS, and the start-up admin keys;
 * values stored only as hashes and never listed (issue #37 item 5).
 */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiKeyListSchema, ApiKeySchema, type ApiKey } from '../../shared/keys.ts';
import { boot } from '../../server/boot.ts';
import { loadConfig } from '../../server/config.ts';
import { postAlert } from '../helpers/alerts.ts';
import { queryDb } from '../helpers/db.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { assertError, callAs, securedSettings } from '../helpers/secured.ts';

const SETTINGS = securedSettings('keys', 'test-secret-key-123');
const DAY_MS = 86_400_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Stores a key straight in the database; returns its id. */
async function insertKey(
  ctx: AppContext,
  key: string,
  user: string,
  scopes: string[],
  extra: { expired?: boolean; customer?: string } = {},
): Promise<string> {
  const rows = await queryDb<{ id: string }>(
    ctx.db.url,
    `INSERT INTO keys (id, key, "user", scopes, expire_time, customer) VALUES (gen_random_uuid(), $1, $2, $3,
       now() + ${extra.expired ? "interval '-1 second'" : "interval '1 day'"}, $4) RETURNING id::text`,
    [key, user, scopes, extra.customer ?? null],
  );
  return rows[0]!.id;
}

/** A key's id, found by its value's hash as the server stores it. */
async function idOf(ctx: AppContext, value: string): Promise<string> {
  const rows = await queryDb<{ id: string }>(
    ctx.db.url,
    `SELECT id::text FROM keys WHERE key_hash = sha256(convert_to($1, 'UTF8'))`,
    [value],
  );
  return rows[0]!.id;
}

/** Every stored byte of the keys table as text: a key value must appear nowhere in it. */
async function keysTableText(ctx: AppContext): Promise<string> {
  const rows = await queryDb<{ t: string }>(ctx.db.url, 'SELECT k::text AS t FROM keys k');
  return rows.map((r) => r.t).join('\n');
}

const ADMIN = 'admin-key-0123456789';
const ALICE = 'alice-key-0123456789';
const BOB = 'bob-readonly-key-0001';
const EXPIRED = 'expired-key-000000001';

// ---- credentials -------------------------------------------------------------------------------

const creds = suite<AppContext>('API keys as credentials', {} as AppContext);
creds.before(async (ctx) => {
  await startApp(ctx, SETTINGS);
  await insertKey(ctx, ADMIN, 'admin@example.com', ['admin', 'read', 'write']);
  await insertKey(ctx, ALICE, 'alice@example.com', ['read', 'write']);
  await insertKey(ctx, BOB, 'bob@example.com', ['read']);
  await insertKey(ctx, EXPIRED, 'alice@example.com', ['read', 'write'], { expired: true });
});
creds.after(stopApp);

creds('each form of sending a key authenticates', async ({ api }) => {
  assert.is((await callAs(api, 'GET', '/keys')).status, 401);
  assert.is((await callAs(api, 'GET', '/keys', { headers: { Authorization: `Key ${ALICE}` } })).status, 200);
  assert.is((await callAs(api, 'GET', '/keys', { headers: { 'X-API-Key': ALICE } })).status, 200);
  assert.is((await callAs(api, 'GET', `/keys?api-key=${ALICE}`)).status, 200);
});

creds('Authorization: Key wins over X-API-Key, which wins over ?api-key', async ({ api }) => {
  const a = await callAs(api, 'GET', `/keys?api-key=${ALICE}`, {
    headers: { Authorization: 'Key nope-1', 'X-API-Key': ALICE },
  });
  assertError(a, 401, "API key parameter 'nope-1' is invalid");
  const b = await callAs(api, 'GET', `/keys?api-key=${ALICE}`, { headers: { 'X-API-Key': 'nope-2' } });
  assertError(b, 401, "API key parameter 'nope-2' is invalid");
  // The one that wins decides who the caller is: Alice's key sees only Alice's keys.
  const c = await callAs(api, 'GET', `/keys?api-key=${ADMIN}`, { headers: { 'X-API-Key': ALICE } });
  const users = new Set(ApiKeyListSchema.parse(c.body).keys.map((k) => k.user));
  assert.equal([...users], ['alice@example.com']);
});

creds('a key id works as the credential', async (ctx) => {
  assert.is((await callAs(ctx.api, 'GET', '/keys', { key: await idOf(ctx, ALICE) })).status, 200);
});

creds('an expired key is invalid', async ({ api }) => {
  assertError(
    await callAs(api, 'GET', '/keys', { key: EXPIRED }),
    401,
    `API key parameter '${EXPIRED}' is invalid`,
  );
});

creds('count and lastUsedTime move in a batch, after the request has answered', async (ctx) => {
  let sawUnflushed = false;
  for (let attempt = 0; attempt < 3 && !sawUnflushed; attempt++) {
    const key = `usage-key-${attempt}-abcdef`;
    await insertKey(ctx, key, 'carol@example.com', ['read']);
    assert.is((await callAs(ctx.api, 'GET', '/alerts', { key })).status, 200);
    const [row] = await queryDb<{ count: string }>(ctx.db.url, 'SELECT count FROM keys WHERE id = $1', [
      await idOf(ctx, key),
    ]);
    // The answer came before the use was written (unless the once-a-second flush happened just then).
    sawUnflushed = row!.count === '0';
  }
  assert.ok(sawUnflushed, 'uses are written after the request, not during it');

  const key = 'usage-key-counted-abcdef';
  await insertKey(ctx, key, 'carol@example.com', ['read']);
  const before = Date.now();
  for (let i = 0; i < 3; i++) assert.is((await callAs(ctx.api, 'GET', '/alerts', { key })).status, 200);
  await sleep(1200);
  const got = ApiKeySchema.parse((await callAs(ctx.api, 'GET', `/key/${key}`, { key: ADMIN })).body.key);
  assert.is(got.count, 3);
  assert.ok(got.lastUsedTime !== null && Date.parse(got.lastUsedTime) >= before - 1000);
});

// ---- POST /key -------------------------------------------------------------------------------------

creds('POST /key: defaults, shape and a URL-safe 40-character value', async ({ api }) => {
  const a = await callAs(api, 'POST', '/key', { key: ALICE, body: { text: 'ci' } });
  assert.is(a.status, 201, JSON.stringify(a.body));
  const data = ApiKeySchema.parse(a.body.data);
  assert.is(a.body.status, 'ok');
  assert.is(a.body.key, data.key);
  assert.match(data.key, /^[A-Za-z0-9_-]{40}$/);
  assert.equal(
    [data.user, data.scopes, data.type, data.status, data.text, data.count, data.lastUsedTime, data.customer],
    ['alice@example.com', ['read', 'write'], 'read-write', 'active', 'ci', 0, null, null],
  );
  assert.ok(data.href.endsWith(`/key/${data.id}`), data.href);
  const expiry = Date.parse(data.expireTime) - Date.now();
  assert.ok(Math.abs(expiry - 365 * DAY_MS) < 60_000, data.expireTime);
  // The new key works at once.
  assert.is((await callAs(api, 'GET', '/keys', { key: data.key })).status, 200);
});

creds('POST /key: a non-admin always owns the key; the customer is not theirs to set', async ({ api }) => {
  const a = await callAs(api, 'POST', '/key', {
    key: ALICE,
    body: { user: 'mallory@example.com', scopes: ['read'], customer: 'acme' },
  });
  assert.is(a.status, 201, JSON.stringify(a.body));
  const data = ApiKeySchema.parse(a.body.data);
  assert.equal(
    [data.user, data.scopes, data.type, data.customer],
    ['alice@example.com', ['read'], 'read-only', null],
  );
});

creds('POST /key: an admin names the user and customer', async ({ api }) => {
  const a = await callAs(api, 'POST', '/key', {
    key: ADMIN,
    body: {
      user: 'svc@example.com',
      scopes: ['write:alerts'],
      customer: 'acme',
      expireTime: '2099-01-02T03:04:05.000Z',
    },
  });
  assert.is(a.status, 201, JSON.stringify(a.body));
  const data = ApiKeySchema.parse(a.body.data);
  assert.equal(
    [data.user, data.customer, data.scopes, data.expireTime],
    ['svc@example.com', 'acme', ['write:alerts'], '2099-01-02T03:04:05.000Z'],
  );
});

creds('POST /key: scopes beyond the caller are 403, unknown scopes 400', async ({ api }) => {
  assertError(
    await callAs(api, 'POST', '/key', { key: ALICE, body: { scopes: ['read', 'admin:keys'] } }),
    403,
    "Requested scope 'admin:keys' not in existing scopes: read,write",
  );
  assertError(
    await callAs(api, 'POST', '/key', { key: ALICE, body: { scopes: ['read', 'fly:away'] } }),
    400,
    "'fly:away' is not a valid Scope",
  );
  assertError(await callAs(api, 'POST', '/key', { key: ALICE, body: { scopes: 'read' } }), 400);
  assertError(await callAs(api, 'POST', '/key', { key: ALICE, body: { expireTime: 'tomorrow' } }), 400);
  assertError(await callAs(api, 'POST', '/key', { key: ALICE, body: [] }), 400);
  // A read-only key cannot make keys at all.
  assertError(
    await callAs(api, 'POST', '/key', { key: BOB, body: {} }),
    403,
    'Missing required scope: write:keys',
  );
});

creds('POST /key: legacy type and explicit key values (unique)', async ({ api }) => {
  const ro = await callAs(api, 'POST', '/key', { key: ALICE, body: { type: 'read-only' } });
  assert.equal(ApiKeySchema.parse(ro.body.data).scopes, ['read']);
  const adminRw = await callAs(api, 'POST', '/key', { key: ADMIN, body: { type: 'read-write' } });
  assert.equal(ApiKeySchema.parse(adminRw.body.data).scopes, ['admin', 'read', 'write']);
  const mine = await callAs(api, 'POST', '/key', { key: ALICE, body: { key: 'my-own-chosen-key-42' } });
  assert.is(mine.status, 201);
  assert.is(mine.body.key, 'my-own-chosen-key-42');
  assertError(await callAs(api, 'POST', '/key', { key: ALICE, body: { key: 'my-own-chosen-key-42' } }), 409);
  assertError(await callAs(api, 'POST', '/key', { key: ALICE, body: { key: 'has space' } }), 400);
});

// ---- GET, PUT, DELETE -----------------------------------------------------------------------------

creds('a non-admin sees and changes only their own keys', async (ctx) => {
  const { api } = ctx;
  const list = ApiKeyListSchema.parse((await callAs(api, 'GET', '/keys', { key: ALICE })).body);
  assert.ok(list.total > 0);
  assert.is(list.total, list.keys.length);
  assert.ok(list.keys.every((k) => k.user === 'alice@example.com'));
  const all = ApiKeyListSchema.parse((await callAs(api, 'GET', '/keys', { key: ADMIN })).body);
  assert.ok(all.keys.some((k) => k.user === 'admin@example.com') && all.total > list.total);

  assertError(await callAs(api, 'GET', `/key/${ADMIN}`, { key: ALICE }), 404, 'not found');
  assertError(await callAs(api, 'PUT', `/key/${ADMIN}`, { key: ALICE, body: { text: 'x' } }), 404);

  const id = await idOf(ctx, ALICE);
  const byId = await callAs(api, 'GET', `/key/${id}`, { key: ALICE });
  assert.is(byId.status, 200);
  assert.equal([byId.body.total, ApiKeySchema.parse(byId.body.key).id], [1, id]);
});

creds('PUT /key/:key changes what is given and leaves the rest', async ({ api }) => {
  const made = ApiKeySchema.parse(
    (await callAs(api, 'POST', '/key', { key: ALICE, body: { text: 'old', scopes: ['read', 'write'] } })).body
      .data,
  );
  const a = await callAs(api, 'PUT', `/key/${made.key}`, {
    key: ALICE,
    body: { text: 'new', scopes: ['read'] },
  });
  assert.is(a.status, 200, JSON.stringify(a.body));
  const changed = ApiKeySchema.parse(a.body.key);
  assert.equal([changed.text, changed.scopes, changed.type], ['new', ['read'], 'read-only']);
  assert.is(changed.expireTime, made.expireTime);
  assertError(await callAs(api, 'PUT', `/key/${made.key}`, { key: ALICE, body: { scopes: ['admin'] } }), 403);
  assertError(await callAs(api, 'PUT', `/key/${made.key}`, { key: ALICE, body: { scopes: ['nope'] } }), 400);
  assertError(await callAs(api, 'PUT', '/key/does-not-exist', { key: ADMIN, body: { text: 'x' } }), 404);
});

creds('GET /keys filters and pages', async ({ api }) => {
  const ro = ApiKeyListSchema.parse((await callAs(api, 'GET', '/keys?type=read-only', { key: ADMIN })).body);
  assert.ok(ro.total > 0 && ro.keys.every((k) => k.type === 'read-only'));
  const expired = ApiKeyListSchema.parse(
    (await callAs(api, 'GET', '/keys?status=expired', { key: ADMIN })).body,
  );
  assert.equal(
    expired.keys.map((k) => k.key),
    ['expir…'],
  );
  const page = ApiKeyListSchema.parse(
    (await callAs(api, 'GET', '/keys?page-size=2&page=2', { key: ADMIN })).body,
  );
  assert.equal([page.keys.length, page.page, page.pageSize, page.more], [2, 2, 2, true]);
  const none = ApiKeyListSchema.parse((await callAs(api, 'GET', '/keys?user=nobody', { key: ADMIN })).body);
  assert.equal([none.total, none.keys, none.message, none.pages], [0, [], 'not found', 0]);
  assertError(
    await callAs(api, 'GET', '/keys?colour=red', { key: ADMIN }),
    400,
    'Invalid filter parameter: colour',
  );
  assertError(await callAs(api, 'GET', '/keys?status=asleep', { key: ADMIN }), 400);
  assertError(await callAs(api, 'GET', '/keys?count=lots', { key: ADMIN }), 400);
  assertError(await callAs(api, 'GET', '/keys?page=99', { key: ADMIN }), 416);
});

creds('DELETE /key/:key needs admin:keys', async ({ api }) => {
  const made = ApiKeySchema.parse((await callAs(api, 'POST', '/key', { key: ALICE, body: {} })).body.data);
  assertError(
    await callAs(api, 'DELETE', `/key/${made.key}`, { key: ALICE }),
    403,
    'Missing required scope: admin:keys',
  );
  assert.is((await callAs(api, 'DELETE', `/key/${made.key}`, { key: ADMIN })).status, 200);
  assertError(await callAs(api, 'GET', `/key/${made.key}`, { key: ADMIN }), 404);
  assertError(await callAs(api, 'DELETE', `/key/${made.key}`, { key: ADMIN }), 404);
  assertError(await callAs(api, 'GET', '/keys', { key: made.key }), 401);

  // By its id as well (the web UI and `alerta key -D ID`); the id then names nothing.
  const other = ApiKeySchema.parse((await callAs(api, 'POST', '/key', { key: ALICE, body: {} })).body.data);
  assert.is((await callAs(api, 'DELETE', `/key/${other.id}`, { key: ADMIN })).status, 200);
  assertError(await callAs(api, 'GET', `/key/${other.id}`, { key: ADMIN }), 404);
  assertError(await callAs(api, 'GET', '/keys', { key: other.key }), 401);
});

// ---- values at rest ----------------------------------------------------------------------------------

creds('no key value is stored: only its SHA-256 and first characters', async (ctx) => {
  const made = await callAs(ctx.api, 'POST', '/key', { key: ALICE, body: { text: 'at rest' } });
  const value = made.body.key as string;
  const chosen = await callAs(ctx.api, 'POST', '/key', {
    key: ALICE,
    body: { key: 'chosen-value-at-rest-0001' },
  });
  assert.is(chosen.status, 201, JSON.stringify(chosen.body));
  const stored = await keysTableText(ctx);
  for (const v of [value, 'chosen-value-at-rest-0001', ALICE, ADMIN, BOB, EXPIRED]) {
    assert.not.ok(stored.includes(v), `the keys table holds ${v}`);
  }
  const plain = await queryDb<{ n: number }>(
    ctx.db.url,
    'SELECT count(*)::int AS n FROM keys WHERE key IS NOT NULL',
  );
  assert.is(plain[0]!.n, 0);
  // The server's hash is the database's sha256 of the UTF-8 bytes (migration 0050 back-fills so).
  const [row] = await queryDb<{ hash: Buffer; hint: string }>(
    ctx.db.url,
    'SELECT key_hash AS hash, key_hint AS hint FROM keys WHERE id = $1',
    [(made.body.data as ApiKey).id],
  );
  assert.equal(row!.hash, createHash('sha256').update(value).digest());
  assert.is(row!.hint, value.slice(0, 6));
  // A plain value written straight to the table (an operator's script) is hashed on the way in.
  assert.is((await callAs(ctx.api, 'GET', '/keys', { key: 'inserted-by-hand-0001' })).status, 401);
  await insertKey(ctx, 'inserted-by-hand-0001', 'alice@example.com', ['read']);
  assert.is((await callAs(ctx.api, 'GET', '/keys', { key: 'inserted-by-hand-0001' })).status, 200);
  assert.not.ok((await keysTableText(ctx)).includes('inserted-by-hand-0001'));
});

creds('lists and look-ups show a masked key, never the value; href names the id', async (ctx) => {
  const { api } = ctx;
  const made = ApiKeySchema.parse(
    (await callAs(api, 'POST', '/key', { key: ADMIN, body: { text: 'listed' } })).body.data,
  );
  const value = made.key;
  const list = await callAs(api, 'GET', '/keys?text=listed', { key: ADMIN });
  const listed = ApiKeyListSchema.parse(list.body).keys;
  assert.equal(
    listed.map((k) => [k.id, k.key, k.href]),
    [[made.id, `${value.slice(0, 6)}…`, made.href]],
  );
  assert.ok(made.href.endsWith(`/key/${made.id}`));
  assert.not.ok(JSON.stringify(list.body).includes(value));
  for (const ref of [value, made.id]) {
    const one = await callAs(api, 'GET', `/key/${ref}`, { key: ADMIN });
    assert.is(ApiKeySchema.parse(one.body.key).key, `${value.slice(0, 6)}…`);
    assert.not.ok(JSON.stringify(one.body).includes(value));
  }
  const put = await callAs(api, 'PUT', `/key/${made.id}`, { key: ADMIN, body: { text: 'listed again' } });
  assert.is(ApiKeySchema.parse(put.body.key).key, `${value.slice(0, 6)}…`);
  // The `key` filter takes values and matches their hashes.
  const byValue = ApiKeyListSchema.parse(
    (await callAs(api, 'GET', `/keys?key=${value}`, { key: ADMIN })).body,
  );
  assert.equal(
    byValue.keys.map((k) => k.id),
    [made.id],
  );
  // A masked value from a list names no key: a clear 400, not a 404 that looks like a lost key.
  assertError(
    await callAs(api, 'GET', `/key/${encodeURIComponent(`${value.slice(0, 6)}…`)}`, { key: ADMIN }),
    400,
  );
});

creds.run();

// ---- auth off ---------------------------------------------------------------------------------------

const open = suite<AppContext>('API keys with AUTH_REQUIRED off', {} as AppContext);
open.before((ctx) => startApp(ctx, { TEST_LABEL: 'keys_open', AUTH_REQUIRED: 'False' }));
open.after(stopApp);

open('an anonymous caller cannot make a key (no user)', async ({ api }) => {
  assertError(
    await callAs(api, 'POST', '/key', { body: { scopes: ['read'] } }),
    400,
    "An API key must be associated with a 'user'. Retry with user credentials.",
  );
});

open('a key that is present is still checked', async (ctx) => {
  assertError(await callAs(ctx.api, 'GET', '/alerts', { key: 'no-such-key-123' }), 401);
  await insertKey(ctx, 'open-read-key-123', 'dave', ['read']);
  assertError(
    await callAs(ctx.api, 'POST', '/key', { key: 'open-read-key-123', body: {} }),
    403,
    'Missing required scope: write:keys',
  );
});

open.run();

// ---- customers ----------------------------------------------------------------------------------------

const views = suite<AppContext>('API keys with CUSTOMER_VIEWS', {} as AppContext);
views.before(async (ctx) => {
  await startApp(ctx, { ...SETTINGS, TEST_LABEL: 'keys_views', CUSTOMER_VIEWS: 'True' });
  await insertKey(ctx, ADMIN, 'admin@example.com', ['admin', 'read', 'write']);
  await insertKey(ctx, 'acme-key-0123456789', 'ann@acme.com', ['read', 'write'], { customer: 'acme' });
  await insertKey(ctx, 'globex-key-012345678', 'gus@globex.com', ['read', 'write'], { customer: 'globex' });
});
views.after(stopApp);

views("a key's customer restricts the alerts it sees", async ({ api }) => {
  const admin = { Authorization: `Key ${ADMIN}` };
  const a = await postAlert(api, { resource: 'web1', event: 'Down', customer: 'acme' }, admin);
  const g = await postAlert(api, { resource: 'web2', event: 'Down', customer: 'globex' }, admin);
  assert.is(a.status, 201, JSON.stringify(a.body));
  assert.is(g.status, 201, JSON.stringify(g.body));

  const seen = await callAs(api, 'GET', '/alerts', { key: 'acme-key-0123456789' });
  assert.is(seen.status, 200);
  const alerts = seen.body.alerts as { id: string; customer: string }[];
  assert.equal(
    alerts.map((x) => x.id),
    [a.body.id],
  );
  assertError(await callAs(api, 'GET', `/alert/${g.body.id}`, { key: 'acme-key-0123456789' }), 404);
  assert.is((await callAs(api, 'GET', `/alert/${a.body.id}`, { key: 'acme-key-0123456789' })).status, 200);
  const adminSees = await callAs(api, 'GET', '/alerts', { key: ADMIN });
  assert.is((adminSees.body.alerts as unknown[]).length, 2);
});

views('keys are listed within the caller customers, and new keys inherit the customer', async ({ api }) => {
  const made = await callAs(api, 'POST', '/key', { key: 'acme-key-0123456789', body: { scopes: ['read'] } });
  assert.is(ApiKeySchema.parse(made.body.data).customer, 'acme');
  assertError(
    await callAs(api, 'POST', '/key', { key: 'acme-key-0123456789', body: { customer: 'globex' } }),
    400,
    "not allowed to set customer to 'globex'",
  );
  const list = ApiKeyListSchema.parse(
    (await callAs(api, 'GET', '/keys', { key: 'acme-key-0123456789' })).body,
  );
  assert.ok(list.total === 2 && list.keys.every((k: ApiKey) => k.customer === 'acme'));
});

views.run();

// ---- start-up admin keys ----------------------------------------------------------------------------

interface BootCtx extends AppContext {
  lines: string[];
}

const bootstrap = suite<BootCtx>('admin keys at start', { lines: [] } as unknown as BootCtx);
const BOOT = {
  ...SETTINGS,
  TEST_LABEL: 'keys_boot',
  ADMIN_USERS: 'admin@example.com,ops@example.com',
  ADMIN_KEY: 'the-container-admin-key-1',
  ADMIN_KEY_MAXAGE: '3600',
};

/** Boots the product again on the same database, collecting its log lines. */
async function reboot(ctx: BootCtx): Promise<void> {
  await ctx.running.close();
  const config = loadConfig(
    { ...BOOT, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: ctx.db.url },
    { systemFile: null },
  );
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      ctx.lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  ctx.running = await boot(config, pino({ level: 'info' }, sink));
  ctx.api = (await import('../helpers/api.ts')).createApi(
    `http://127.0.0.1:${ctx.running.port}${config.API_PREFIX}`,
  );
}

bootstrap.before(async (ctx) => {
  await startApp(ctx, BOOT);
  ctx.lines = [];
});
bootstrap.after(stopApp);

bootstrap(
  'ADMIN_KEY works right after start, for the first admin, for ADMIN_KEY_MAXAGE seconds',
  async (ctx) => {
    const a = await callAs(ctx.api, 'GET', `/key/${BOOT.ADMIN_KEY}`, { key: BOOT.ADMIN_KEY });
    assert.is(a.status, 200, JSON.stringify(a.body));
    const key = ApiKeySchema.parse(a.body.key);
    assert.equal([key.user, key.scopes], ['admin@example.com', ['admin', 'read', 'write']]);
    assert.ok(Math.abs(Date.parse(key.expireTime) - Date.now() - 3600_000) < 60_000, key.expireTime);
    const rows = await queryDb<{ user: string; n: number }>(
      ctx.db.url,
      'SELECT "user", count(*)::int AS n FROM keys GROUP BY "user" ORDER BY "user"',
    );
    // The second admin gets a random key; the first has ADMIN_KEY and nothing more.
    assert.equal(rows, [
      { user: 'admin@example.com', n: 1 },
      { user: 'ops@example.com', n: 1 },
    ]);
  },
);

bootstrap('a restart keeps the keys and makes no more; nothing is logged again', async (ctx) => {
  const before = await queryDb(ctx.db.url, 'SELECT id, key_hash, expire_time FROM keys ORDER BY id');
  await reboot(ctx);
  const after = await queryDb(ctx.db.url, 'SELECT id, key_hash, expire_time FROM keys ORDER BY id');
  assert.is(after.length, 2);
  assert.equal(after, before);
  // ADMIN_KEY is stored hashed like any key.
  assert.not.ok((await keysTableText(ctx)).includes(BOOT.ADMIN_KEY));
  assert.is((await callAs(ctx.api, 'GET', '/keys', { key: BOOT.ADMIN_KEY })).status, 200);
  assert.not.ok(ctx.lines.some((l) => l.includes('admin API key created')));
});

bootstrap('a random admin key is made, and logged once, when an admin has none', async (ctx) => {
  await queryDb(ctx.db.url, `DELETE FROM keys WHERE "user" = 'ops@example.com'`);
  ctx.lines = [];
  await reboot(ctx);
  const logged = ctx.lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'admin API key created');
  assert.is(logged.length, 1);
  const value = logged[0]!.apiKey as string;
  assert.match(value, /^[A-Za-z0-9_-]{40}$/);
  assert.is(logged[0]!.user, 'ops@example.com');
  const a = await callAs(ctx.api, 'GET', '/keys', { key: value });
  assert.is(a.status, 200);
});

bootstrap.run();
