/**
 * Robustness (../shared/reference/robustness.md): a seeded set of bad or odd requests over every
 * endpoint, replayed against a started server with AUTH_REQUIRED off and on. Every answer must be
 * below 500; every error a JSON body `{status: "error", message, code}` with code = HTTP status and
 * nothing internal in it (stack, SQL, database text, host:port, file path); and a refused request
 * must leave every table as it was.
 *
 *   ROBUSTNESS_SEED=7 ROBUSTNESS_COUNT=10000 npm test -- tests/api/robustness.test.ts
 */
import { request } from 'node:http';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { badRequests, leakIn, type BadRequest, type Fixtures } from '../helpers/bad-requests.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { LiveClient } from '../helpers/live.ts';

const SEED = Number(process.env.ROBUSTNESS_SEED ?? 20261125);
const COUNT = Number(process.env.ROBUSTNESS_COUNT ?? 1500);
const ADMIN_KEY = 'robustness-admin-key-000000000000000000';

/** The tables FINGERPRINT hashes, in its order. */
const TABLES = [
  'alerts',
  'alert_history',
  'notes',
  'blackouts',
  'heartbeats',
  'keys',
  'users',
  'groups',
  'group_users',
  'perms',
  'customers',
];

/**
 * Every table's rows as one hash, leaving out what authenticating itself changes (a key's use
 * count and last use, a user's last login).
 */
const FINGERPRINT = `
  SELECT concat_ws('|',
    (SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM alerts t),
    (SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t.seq), '')) FROM alert_history t),
    (SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM notes t),
    (SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM blackouts t),
    (SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM heartbeats t),
    (SELECT md5(coalesce(string_agg(concat_ws(';', id, key, "user", scopes, text, expire_time, customer),
       ',' ORDER BY id), '')) FROM keys),
    (SELECT md5(coalesce(string_agg(concat_ws(';', id, name, login, email, password, status, roles,
       attributes, text, email_verified), ',' ORDER BY id), '')) FROM users),
    (SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM groups t),
    (SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM group_users t),
    (SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM perms t),
    (SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM customers t)
  ) AS print`;

async function fingerprint(db: pg.Client): Promise<string> {
  return (await db.query<{ print: string }>(FINGERPRINT)).rows[0]!.print;
}

/** May this request change stored state if it is accepted? (GETs do not, but for housekeeping.) */
const mayWrite = (r: BadRequest) => r.method !== 'GET' || r.path.startsWith('/management/housekeeping');

/** One request over node:http, which (unlike fetch) also sends a body with GET. */
function send(
  base: string,
  r: BadRequest,
): Promise<{ status: number; contentType: string; location: string; text: string }> {
  return new Promise((resolve, reject) => {
    // Content-Length always: node:http frames no body of its own on GET or DELETE, and unframed
    // bytes would reach the server as a second, malformed request.
    const headers =
      r.body === undefined
        ? r.headers
        : { ...r.headers, 'Content-Length': String(Buffer.byteLength(r.body)) };
    const req = request(`${base}${r.path}`, { method: r.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          location: String(res.headers.location ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

/** An admin key, stored directly: with auth off nobody may make keys or perms (api.md §8). */
async function addAdminKey(ctx: AppContext): Promise<void> {
  await queryDb(
    ctx.db.url,
    `INSERT INTO keys (id, key, "user", scopes, expire_time, customer)
     VALUES (gen_random_uuid(), $1, 'admin@example.com', '{admin,read,write}', now() + interval '1 day', NULL)`,
    [ADMIN_KEY],
  );
}

/** Records the robustness run needs to exist, made through the API by an admin. */
async function makeFixtures(ctx: AppContext): Promise<Fixtures> {
  const auth = { Authorization: `Key ${ADMIN_KEY}` };
  const post = async (method: string, path: string, body: unknown) => {
    const r = await ctx.api.call(method, path, body, { headers: auth });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const alert = await post('POST', '/alert', {
    resource: 'fixture-host',
    event: 'fixture-event',
    environment: 'Production',
    severity: 'minor',
    service: ['fixture-svc'],
    correlate: ['fixture-event', 'fixture-other'],
  });
  const alertId = alert.id as string;
  const note = await post('PUT', `/alert/${alertId}/note`, { note: 'fixture note' });
  const blackout = await post('POST', '/blackout', {
    environment: 'Development',
    resource: 'fixture-host',
    endTime: '2030-01-01T00:00:00.000Z',
  });
  const heartbeat = await post('POST', '/heartbeat', { origin: 'fixture-origin', timeout: 3600 });
  const key = await post('POST', '/key', { user: 'admin@example.com', scopes: ['read'], text: 'fixture' });
  const user = await post('POST', '/user', {
    name: 'Fixture',
    login: 'fixture@example.com',
    email: 'fixture@example.com',
    password: 'fixture-password-1',
  });
  const group = await post('POST', '/group', { name: 'fixture-group', text: 'x' });
  const perm = await post('POST', '/perm', { match: 'fixture-role', scopes: ['read'] });
  const customer = await post('POST', '/customer', { customer: 'fixture', match: 'fixture\\.example' });
  const id = (b: Record<string, unknown>, field: string) =>
    (b.id as string | undefined) ?? ((b[field] as Record<string, unknown>).id as string);
  return {
    alertId,
    noteId: id(note, 'note'),
    blackoutId: id(blackout, 'blackout'),
    heartbeatId: id(heartbeat, 'heartbeat'),
    keyId: (key.data as Record<string, unknown>).id as string,
    userId: id(user, 'user'),
    groupId: id(group, 'group'),
    permId: id(perm, 'permission'),
    customerId: id(customer, 'customer'),
  };
}

/** Waits until a bulk task has finished. */
async function settle(ctx: AppContext, headers: Record<string, string>, task: string): Promise<void> {
  const auth: Record<string, string> = headers.Authorization ? { Authorization: headers.Authorization } : {};
  for (let i = 0; i < 500; i++) {
    const r = await ctx.api.call('GET', `/_bulk/task/${task}`, undefined, { headers: auth });
    if (r.status !== 200 || r.body.status === 'success' || r.body.status === 'failure') return;
    await new Promise((ok) => setTimeout(ok, 20));
  }
  throw new Error(`bulk task ${task} did not finish`);
}

interface Failure {
  request: string;
  status: number;
  problem: string;
}

const describe = (r: BadRequest) =>
  `[${r.kind}] ${r.method} ${r.path.length > 120 ? `${r.path.slice(0, 120)}…(${r.path.length})` : r.path}` +
  (r.body !== undefined
    ? ` body=${r.body.length > 160 ? `${r.body.slice(0, 160)}…(${r.body.length})` : r.body}`
    : '') +
  (r.headers.Authorization && !r.headers.Authorization.startsWith('Key robustness')
    ? ` auth=${r.headers.Authorization.slice(0, 40)}`
    : '');

/** Sends one request and returns what is wrong with its answer, if anything. */
async function check(
  base: string,
  r: BadRequest,
): Promise<{ status: number; problem: string | null; task?: string }> {
  let res: Awaited<ReturnType<typeof send>>;
  try {
    res = await send(base, r);
  } catch (err) {
    return { status: 0, problem: `no answer: ${(err as Error).message}` };
  }
  const text = res.text;
  if (res.status >= 500) return { status: res.status, problem: `server error: ${text.slice(0, 300)}` };
  if (res.status < 400) {
    const task = /\/_bulk\/task\/([\w-]+)$/.exec(res.location)?.[1];
    return { status: res.status, problem: null, ...(task ? { task } : {}) };
  }
  if (!res.contentType.includes('application/json')) {
    return { status: res.status, problem: `error not JSON (${res.contentType}): ${text.slice(0, 200)}` };
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { status: res.status, problem: `error body does not parse: ${text.slice(0, 200)}` };
  }
  if (body.status !== 'error' || typeof body.message !== 'string' || body.code !== res.status) {
    return { status: res.status, problem: `error shape: ${text.slice(0, 300)}` };
  }
  const leak = leakIn(text);
  if (leak) return { status: res.status, problem: `leak "${leak}": ${text.slice(0, 300)}` };
  if (text.length > 64 * 1024) return { status: res.status, problem: `error body of ${text.length} bytes` };
  return { status: res.status, problem: null };
}

async function replay(ctx: AppContext, auth: Record<string, string>, seed: number): Promise<void> {
  const fixtures = await makeFixtures(ctx);
  const requests = badRequests(seed, COUNT, fixtures, auth);
  const failures: Failure[] = [];
  const statuses = new Map<number, number>();
  const db = new pg.Client({ connectionString: ctx.db.url });
  await db.connect();
  try {
    for (const r of requests) {
      const before = mayWrite(r) ? await fingerprint(db) : '';
      const { status, problem, task } = await check(ctx.api.base, r);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (problem) failures.push({ request: describe(r), status, problem });
      // An accepted bulk task runs after the answer: let it finish before the next comparison.
      if (task) await settle(ctx, r.headers, task);
      const after = status >= 400 && mayWrite(r) ? await fingerprint(db) : before;
      if (after !== before) {
        const [was, now] = [before.split('|'), after.split('|')];
        const changed = TABLES.filter((_, i) => was[i] !== now[i]).join(', ');
        failures.push({ request: describe(r), status, problem: `refused, but ${changed} changed` });
      }
    }
  } finally {
    await db.end();
  }
  const summary = [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  assert.ok(
    failures.length === 0,
    `${failures.length} of ${requests.length} requests (seed ${seed}; statuses ${summary}):\n` +
      failures
        .slice(0, 40)
        .map((f) => `  ${f.status} ${f.request}\n      → ${f.problem}`)
        .join('\n'),
  );
}

/** A live subscription with a bad query answers a clean error, never code 500 or database text. */
async function badSubscriptions(ctx: AppContext, credentials: { key: string } | Record<string, never>) {
  const client = await LiveClient.connect(ctx.origin, credentials);
  try {
    for (const q of [
      'AND',
      '||',
      '/(/',
      'resource:/[z-a]/',
      '(((',
      'createTime:>0000-01-01',
      'nosuchfield:1',
    ]) {
      const answer = (await client.subscribe(`q=${encodeURIComponent(q)}`)) as unknown as Record<
        string,
        unknown
      >;
      assert.is(answer.status, 'error', `subscribe q=${q}: ${JSON.stringify(answer)}`);
      assert.is(answer.code, 400, `subscribe q=${q}: ${JSON.stringify(answer)}`);
      assert.is(leakIn(JSON.stringify(answer)), null, `subscribe q=${q}: ${JSON.stringify(answer)}`);
    }
    for (const f of ['from-date=0000-01-01T00:00:00.000Z', 'sort-by=nosuchfield', 'page=abc']) {
      const answer = (await client.subscribe(f)) as unknown as Record<string, unknown>;
      assert.ok(answer.status === 'ok' || answer.code === 400, `subscribe ${f}: ${JSON.stringify(answer)}`);
      assert.is(leakIn(JSON.stringify(answer)), null, `subscribe ${f}: ${JSON.stringify(answer)}`);
    }
  } finally {
    client.socket.disconnect();
  }
}

const open = suite<AppContext>('robustness, AUTH_REQUIRED off', {} as AppContext);
// No housekeeping runs of its own: an unshelve by the clock would look like a refused request's write.
open.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'robust_open', AUTH_REQUIRED: 'False', HOUSEKEEPING_INTERVAL: '0' });
  await addAdminKey(ctx);
});
open.after(stopApp);
open(`${COUNT} seeded bad requests: no 5xx, JSON errors, no leaks, nothing written when refused`, (ctx) =>
  replay(ctx, {}, SEED),
);
open('live subscriptions with bad queries answer 400', (ctx) => badSubscriptions(ctx, {}));
open.run();

const closed = suite<AppContext>('robustness, AUTH_REQUIRED on', {} as AppContext);
closed.before(async (ctx) => {
  await startApp(ctx, {
    TEST_LABEL: 'robust_auth',
    HOUSEKEEPING_INTERVAL: '0',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'robustness-secret-key-1234567890',
    ADMIN_USERS: 'admin@example.com',
    SIGNUP_ENABLED: 'True',
  });
  await addAdminKey(ctx);
});
closed.after(stopApp);
closed(`${COUNT} seeded bad requests: no 5xx, JSON errors, no leaks, nothing written when refused`, (ctx) =>
  replay(ctx, { Authorization: `Key ${ADMIN_KEY}` }, SEED + 1),
);
closed('live subscriptions with bad queries answer 400', (ctx) => badSubscriptions(ctx, { key: ADMIN_KEY }));
closed.run();
