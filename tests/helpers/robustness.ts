/**
 * Replays the seeded bad requests of bad-requests.ts against a started server and judges every
 * answer: below 500; every error a JSON body `{status: "error", message, code}` with code = HTTP
 * status, at most 64 KiB and nothing internal in it (leakIn); and a refused request leaves every
 * table as it was. Used by tests/api/robustness.test.ts (in `npm test`) and scripts/fuzz.ts (the
 * longer release run, `npm run fuzz`).
 */
import { request } from 'node:http';
import pg from 'pg';
import type { AppContext } from './app.ts';
import { badRequests, leakIn, WIDE_ENVIRONMENT, type BadRequest, type Fixtures } from './bad-requests.ts';

/** The admin key both modes start with (ADMIN_KEY with ADMIN_USERS): fixtures are made with it. */
export const ADMIN_KEY = 'robustness-admin-key-000000000000000000';

/**
 * The settings of the two modes. No housekeeping runs of its own: an unshelve by the clock would
 * look like a refused request's write. The widest environment is allowed, for alerts at every
 * limit at once.
 */
const ALLOWED_ENVIRONMENTS = JSON.stringify(['Production', 'Development', WIDE_ENVIRONMENT]);
export const MODES = {
  open: {
    TEST_LABEL: 'robust_open',
    ALLOWED_ENVIRONMENTS,
    AUTH_REQUIRED: 'False',
    HOUSEKEEPING_INTERVAL: '0',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_KEY,
  },
  auth: {
    TEST_LABEL: 'robust_auth',
    ALLOWED_ENVIRONMENTS,
    HOUSEKEEPING_INTERVAL: '0',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'robustness-secret-key-1234567890',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_KEY,
    SIGNUP_ENABLED: 'True',
  },
} as const;
/** The Authorization header every generated request carries, per mode. */
export const MODE_AUTH: Record<keyof typeof MODES, Record<string, string>> = {
  open: {},
  auth: { Authorization: `Key ${ADMIN_KEY}` },
};

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

/** Every table's rows as one hash (FINGERPRINT): equal before and after means nothing was written. */
export async function fingerprint(db: pg.Client): Promise<string> {
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

/** Records the run needs to exist, made through the API by the admin key. */
export async function makeFixtures(ctx: AppContext): Promise<Fixtures> {
  const auth = { Authorization: `Key ${ADMIN_KEY}` };
  const post = async (method: string, path: string, body: unknown) => {
    const r = await ctx.api.call(method, path, body, { headers: auth });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
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

/** What is wrong with one answer: the counted kinds of fuzz.ts, and the rest. */
export type ProblemKind = 'serverError' | 'leak' | 'nonJson' | 'write' | 'shape' | 'noAnswer';

export interface Failure {
  request: string;
  status: number;
  kind: ProblemKind;
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
): Promise<{ status: number; problem: { kind: ProblemKind; text: string } | null; task?: string }> {
  let res: Awaited<ReturnType<typeof send>>;
  try {
    res = await send(base, r);
  } catch (err) {
    return { status: 0, problem: { kind: 'noAnswer', text: `no answer: ${(err as Error).message}` } };
  }
  const text = res.text;
  const problem = (kind: ProblemKind, what: string) => ({
    status: res.status,
    problem: { kind, text: what },
  });
  if (res.status >= 500) return problem('serverError', `server error: ${text.slice(0, 300)}`);
  if (res.status < 400) {
    const task = /\/_bulk\/task\/([\w-]+)$/.exec(res.location)?.[1];
    return { status: res.status, problem: null, ...(task ? { task } : {}) };
  }
  if (!res.contentType.includes('application/json')) {
    return problem('nonJson', `error not JSON (${res.contentType}): ${text.slice(0, 200)}`);
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return problem('nonJson', `error body does not parse: ${text.slice(0, 200)}`);
  }
  if (body.status !== 'error' || typeof body.message !== 'string' || body.code !== res.status) {
    return problem('shape', `error shape: ${text.slice(0, 300)}`);
  }
  const leak = leakIn(text);
  if (leak) return problem('leak', `leak "${leak}": ${text.slice(0, 300)}`);
  if (text.length > 64 * 1024) return problem('shape', `error body of ${text.length} bytes`);
  return { status: res.status, problem: null };
}

export interface ReplayResult {
  seed: number;
  requests: number;
  /** Answers per HTTP status (0: no answer). */
  statuses: Map<number, number>;
  /** Answers per class of request (its kind up to a colon or comma) and HTTP status. */
  byClass: Map<string, Map<number, number>>;
  /** Failures per kind. */
  counts: Record<ProblemKind, number>;
  failures: Failure[];
}

/**
 * Makes the fixtures, then sends `count` bad requests of `seed` with `auth` one after another,
 * comparing every table right before and after each request that may write. `progress` is called
 * every 1,000 requests.
 */
export async function replayBadRequests(
  ctx: AppContext,
  options: { seed: number; count: number; auth: Record<string, string>; progress?: (done: number) => void },
): Promise<ReplayResult> {
  const fixtures = await makeFixtures(ctx);
  const requests = badRequests(options.seed, options.count, fixtures, options.auth);
  const failures: Failure[] = [];
  const statuses = new Map<number, number>();
  const byClass = new Map<string, Map<number, number>>();
  const counts: Record<ProblemKind, number> = {
    serverError: 0,
    leak: 0,
    nonJson: 0,
    write: 0,
    shape: 0,
    noAnswer: 0,
  };
  const fail = (f: Failure) => {
    failures.push(f);
    counts[f.kind]++;
  };
  const db = new pg.Client({ connectionString: ctx.db.url });
  await db.connect();
  try {
    for (const [i, r] of requests.entries()) {
      const before = mayWrite(r) ? await fingerprint(db) : '';
      const { status, problem, task } = await check(ctx.api.base, r);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const cls = r.kind.split(/[:,]/)[0]!;
      const ofClass = byClass.get(cls) ?? new Map<number, number>();
      byClass.set(cls, ofClass.set(status, (ofClass.get(status) ?? 0) + 1));
      if (problem) fail({ request: describe(r), status, kind: problem.kind, problem: problem.text });
      // An accepted bulk task runs after the answer: let it finish before the next comparison.
      if (task) await settle(ctx, r.headers, task);
      const after = status >= 400 && mayWrite(r) ? await fingerprint(db) : before;
      if (after !== before) {
        const [was, now] = [before.split('|'), after.split('|')];
        const changed = TABLES.filter((_, t) => was[t] !== now[t]).join(', ');
        fail({ request: describe(r), status, kind: 'write', problem: `refused, but ${changed} changed` });
      }
      if ((i + 1) % 1000 === 0) options.progress?.(i + 1);
    }
  } finally {
    await db.end();
  }
  return { seed: options.seed, requests: requests.length, statuses, byClass, counts, failures };
}

/** Answers per status, e.g. `200×31 400×1402 404×67`. */
export const statusSummary = (statuses: Map<number, number>) =>
  [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');

/** The first `max` failures, one request and its problem each. */
export const failureReport = (failures: Failure[], max = 40) =>
  failures
    .slice(0, max)
    .map((f) => `  ${f.status} ${f.request}\n      → ${f.problem}`)
    .join('\n');
