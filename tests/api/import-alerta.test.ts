/**
 * `npm run import-alerta` (docs/switching.md): an Alerta-shaped database built here, with odd rows,
 * imported into a running server of ours, and every point checked through our API: ids, history
 * and its order, logins with the old passwords, the old API keys, blackouts, heartbeats,
 * permissions, groups, counts; a second run changes nothing; refused rows are reported.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import bcrypt from 'bcryptjs';
import { appSuite, type AppContext } from '../helpers/app.ts';
import { dropTestDatabase, queryDb } from '../helpers/db.ts';
import {
  createAlertaDatabase,
  historyArray,
  insertRow,
  onAlerta,
  runImport,
  runImportPlain,
  type AlertaEntry,
} from '../helpers/alerta-db.ts';
import { fingerprint } from '../helpers/robustness.ts';
import { callAs, keyAuth } from '../helpers/secured.ts';

interface Ctx extends AppContext {
  source: { name: string; url: string };
}

const ADMIN_KEY = 'import-admin-key-0123456789abcdef';
const test = appSuite<Ctx>('import-alerta', {
  TEST_LABEL: 'import_alerta',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'import-test-secret-0123456789',
  ADMIN_USERS: 'alice@example.com',
  ADMIN_KEY,
});

const ids = {
  alice: '6f1c2a44-1111-4a4a-8a8a-000000000001',
  bob: '6f1c2a44-1111-4a4a-8a8a-000000000002',
  carol: '6f1c2a44-1111-4a4a-8a8a-000000000003',
  keyBob: '7a000000-2222-4b4b-9b9b-000000000001',
  keyExpired: '7a000000-2222-4b4b-9b9b-000000000002',
  keyNoExpiry: '7a000000-2222-4b4b-9b9b-000000000003',
  group: '8b000000-3333-4c4c-acac-000000000001',
  perm: '9c000000-4444-4d4d-bdbd-000000000001',
  customer: 'ad000000-5555-4e4e-cece-000000000001',
  customerNull: 'ad000000-5555-4e4e-cece-000000000002',
  blackoutActive: 'be000000-6666-4f4f-dfdf-000000000001',
  blackoutPending: 'be000000-6666-4f4f-dfdf-000000000002',
  hb: 'cf000000-7777-4a4a-8080-000000000001',
  hbNoTimeout: 'cf000000-7777-4a4a-8080-000000000002',
  a1: 'd0000000-8888-4b4b-9191-000000000001',
  a2: 'd0000000-8888-4b4b-9191-000000000002',
  a3: 'd0000000-8888-4b4b-9191-000000000003',
  bad: 'd0000000-8888-4b4b-9191-000000000004',
  note: 'e1000000-9999-4c4c-a2a2-000000000001',
};
const BOB_KEY = 'bobs-alerta-key-4f3c9a1e7d2b6a5c8e0f1a2b';
const EXPIRED_KEY = 'expired-alerta-key-00000000000000000000';

/** Alerta's naive UTC timestamp text for `msAgo` milliseconds ago. */
const utcAgo = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().replace('Z', '');
const MIN = 60_000;

/** a1's history, newest first as Alerta keeps it. */
const A1_HISTORY: AlertaEntry[] = [
  {
    id: 'r3',
    event: 'DiskFull',
    severity: 'critical',
    status: 'ack',
    value: '99%',
    text: 'acked',
    type: 'ack',
    update_time: utcAgo(1 * MIN),
    user: 'bob@example.com',
    timeout: 3600,
  },
  {
    id: 'r2',
    event: 'DiskFull',
    severity: 'critical',
    status: 'open',
    value: '99%',
    text: 'worse',
    type: 'severity',
    update_time: utcAgo(5 * MIN),
  },
  {
    id: 'r1',
    event: 'DiskFull',
    severity: 'major',
    status: 'open',
    value: '91%',
    text: 'new',
    type: 'new',
    update_time: utcAgo(10 * MIN),
  },
];

test.before(async (ctx) => {
  ctx.source = await createAlertaDatabase('alerta_src');
  const url = ctx.source.url;
  const hash = (p: string) => bcrypt.hashSync(p, 4).replace(/^\$2a\$/, '$2b$');
  const user = (id: string, login: string, password: string, roles: string[]) =>
    insertRow(url, 'users', {
      id,
      name: login.split('@')[0],
      login,
      email: login,
      password,
      status: 'active',
      roles,
      attributes: {},
      create_time: utcAgo(60 * MIN),
      email_verified: true,
    });
  await user(ids.alice, 'alice@example.com', hash('alice-old-password'), ['admin']);
  await user(ids.bob, 'bob@example.com', hash('bob-old-password'), ['ops']);
  // A user of an external provider: no password, NULL roles and attributes.
  await insertRow(url, 'users', {
    id: ids.carol,
    name: null,
    login: 'carol',
    email: null,
    password: '',
    status: null,
    roles: null,
    attributes: null,
    create_time: utcAgo(60 * MIN),
  });
  const key = (id: string, k: string, expire: string | null) =>
    insertRow(url, 'keys', {
      id,
      key: k,
      user: 'bob@example.com',
      scopes: ['read', 'write:alerts'],
      text: 'monitoring script',
      expire_time: expire,
      count: 12,
      last_used_time: utcAgo(MIN),
    });
  await key(ids.keyBob, BOB_KEY, utcAgo(-365 * 24 * 60 * MIN));
  await key(ids.keyExpired, EXPIRED_KEY, utcAgo(24 * 60 * MIN));
  await key(ids.keyNoExpiry, 'no-expiry-alerta-key-000000000000000000', null);
  await insertRow(url, 'groups', {
    id: ids.group,
    name: 'ops',
    users: [ids.bob, 'not-a-uuid'],
    text: 'operators',
  });
  await insertRow(url, 'perms', { id: ids.perm, match: 'ops', scopes: ['read', 'write:alerts'] });
  await insertRow(url, 'customers', { id: ids.customer, match: 'example.com', customer: 'Acme' });
  await insertRow(url, 'customers', { id: ids.customerNull, match: 'nobody.example', customer: null });
  const blackout = (id: string, startAgo: number, endAgo: number, resource: string) =>
    insertRow(url, 'blackouts', {
      id,
      priority: 2,
      environment: 'Production',
      resource,
      start_time: utcAgo(startAgo),
      end_time: utcAgo(endAgo),
      duration: Math.round((startAgo - endAgo) / 1000),
      user: 'alice@example.com',
      create_time: utcAgo(startAgo),
      text: 'maintenance',
    });
  await blackout(ids.blackoutActive, 10 * MIN, -60 * MIN, 'blacked-out-host');
  await blackout(ids.blackoutPending, -60 * MIN, -120 * MIN, 'later-host');
  await insertRow(url, 'heartbeats', {
    id: ids.hb,
    origin: 'cron/host1',
    tags: ['nightly'],
    type: 'Heartbeat',
    create_time: utcAgo(MIN),
    receive_time: utcAgo(MIN),
    timeout: 120,
    attributes: { team: 'ops' },
  });
  await insertRow(url, 'heartbeats', {
    id: ids.hbNoTimeout,
    origin: 'cron/host2',
    tags: null,
    type: null,
    create_time: utcAgo(MIN),
    receive_time: utcAgo(MIN),
    timeout: null,
  });
  const alert = (values: Record<string, unknown>) =>
    insertRow(url, 'alerts', {
      severity: 'major',
      status: 'open',
      service: ['Web'],
      group: 'Misc',
      text: '',
      tags: ['a'],
      attributes: { region: 'eu' },
      origin: 'nagios/host',
      type: 'exceptionAlert',
      create_time: utcAgo(10 * MIN),
      timeout: 86400,
      customer: null,
      duplicate_count: 0,
      repeat: false,
      previous_severity: 'indeterminate',
      trend_indication: 'moreSevere',
      receive_time: utcAgo(10 * MIN),
      last_receive_time: utcAgo(10 * MIN),
      update_time: utcAgo(10 * MIN),
      ...values,
    });
  await alert({
    id: ids.a1,
    resource: 'db01',
    event: 'DiskFull',
    environment: 'Production',
    severity: 'critical',
    status: 'ack',
    value: '99%',
    duplicate_count: 3,
    last_receive_id: 'r3',
    last_receive_time: utcAgo(MIN),
    update_time: utcAgo(MIN),
    history: historyArray(A1_HISTORY),
  });
  // Odd: NULL tags, an empty environment, no timeout, NULL correlate and attributes.
  await alert({
    id: ids.a2,
    resource: 'web02',
    event: 'HttpError',
    environment: '',
    tags: null,
    timeout: null,
    correlate: null,
    attributes: null,
    last_receive_id: ids.a2,
    history: historyArray([
      {
        id: ids.a2,
        event: 'HttpError',
        severity: 'major',
        status: 'open',
        value: null,
        text: null,
        type: 'new',
        update_time: utcAgo(10 * MIN),
      },
    ]),
  });
  // A history entry with a type the server has never written.
  await alert({
    id: ids.a3,
    resource: 'app03',
    event: 'Odd',
    environment: 'Production',
    status: 'closed',
    severity: 'normal',
    last_receive_id: ids.a3,
    history: historyArray([
      {
        id: 'x2',
        event: 'Odd',
        severity: 'normal',
        status: 'closed',
        value: null,
        text: 'custom',
        type: 'frobnicate',
        update_time: utcAgo(2 * MIN),
      },
      {
        id: ids.a3,
        event: 'Odd',
        severity: 'normal',
        status: 'open',
        value: null,
        text: null,
        type: 'new',
        update_time: utcAgo(3 * MIN),
      },
    ]),
  });
  // Refused by our schema: an attribute key with a dot.
  await alert({
    id: ids.bad,
    resource: 'bad04',
    event: 'Bad',
    environment: 'Production',
    attributes: { 'a.b': 1 },
    last_receive_id: ids.bad,
    history: historyArray([]),
  });
  await insertRow(url, 'notes', {
    id: ids.note,
    text: 'looking into it',
    user: 'bob@example.com',
    type: 'alert',
    create_time: utcAgo(2 * MIN),
    alert: ids.a1,
    attributes: { resource: 'db01', event: 'DiskFull' },
  });
});

test.after(async (ctx) => {
  if (ctx.source) await dropTestDatabase(ctx.source.name);
});

const admin = (ctx: Ctx, method: string, path: string, body?: unknown) =>
  callAs(ctx.api, method, path, { key: ADMIN_KEY, body });

/** The imported tables' content, to show that a run changed nothing (robustness.ts's fingerprint). */
const snapshot = (url: string) => onAlerta(url, fingerprint);

test('a dry run reports what it would do and writes nothing', async (ctx) => {
  const before = await snapshot(ctx.db.url);
  const r = runImport(ctx.source.url, ctx.db.url, ['--dry-run']);
  assert.is(r.status, 0, r.stderr);
  assert.is(r.summary.dryRun, true);
  assert.is(r.summary.tables.alerts!.imported, 3);
  assert.is(r.summary.tables.users!.imported, 3);
  assert.is(await snapshot(ctx.db.url), before);
});

test('an operator sees a progress line per table, a summary with each refusal, and a report file', async (ctx) => {
  const report = join(mkdtempSync(join(tmpdir(), 'import-report-')), 'refused.jsonl');
  const before = await snapshot(ctx.db.url);
  const r = runImportPlain(ctx.source.url, ctx.db.url, ['--dry-run', '--report', report]);
  assert.is(r.status, 0, r.stderr);
  // Not a terminal: each table's line when it is done (and every 5 s while it runs).
  assert.match(r.stderr, /^alerts +\[#{24}\] 4 \/ 4 100% .*done in \d+s$/m);
  assert.match(r.stderr, /^users +\[#{24}\] 3 \/ 3 100% /m);
  assert.match(r.stdout, /^Dry run: nothing was written/);
  assert.match(r.stdout, /^alerts +4 +3 +0 +0 +1$/m);
  assert.match(r.stdout, /^refused rows \(3\):$/m);
  assert.match(
    r.stdout,
    new RegExp(`^  alerts ${ids.bad}: attributes: Attribute keys must not contain`, 'm'),
  );
  const lines = readFileSync(report, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { table: string; id: string });
  assert.equal(lines.map((l) => l.id).sort(), [ids.bad, ids.customerNull, ids.keyNoExpiry].sort());
  assert.is(await snapshot(ctx.db.url), before);
  const usage = runImportPlain(ctx.source.url, ctx.db.url, ['--batch', '0']);
  assert.is(usage.status, 2);
  assert.match(usage.stderr, /--batch must be a whole number/);
});

test('imports every table; refused rows are reported with their reason', async (ctx) => {
  const r = runImport(ctx.source.url, ctx.db.url);
  assert.is(r.status, 0, r.stderr);
  const t = r.summary.tables;
  assert.equal(t.alerts, {
    read: 4,
    imported: 3,
    replaced: 0,
    skipped: 0,
    refused: 1,
    history: 6,
    historyLeftOut: 0,
  });
  assert.equal(t.users, { read: 3, imported: 3, replaced: 0, skipped: 0, refused: 0 });
  assert.is(t.keys!.imported, 2);
  assert.is(t.customers!.imported, 1);
  assert.is(t.groups!.imported, 1);
  assert.is(t.perms!.imported, 1);
  assert.is(t.blackouts!.imported, 2);
  assert.is(t.heartbeats!.imported, 2);
  assert.is(t.notes!.imported, 1);
  const reasons = Object.fromEntries(r.summary.refusals.map((x) => [x.id, x.reason]));
  assert.match(reasons[ids.bad]!, /Attribute keys must not contain/);
  assert.match(reasons[ids.keyNoExpiry]!, /expire_time/);
  assert.match(reasons[ids.customerNull]!, /customer/);
  assert.is(r.summary.refused, 3);
});

test('alerts keep their ids, fields and history in order', async (ctx) => {
  const a = await admin(ctx, 'GET', `/alert/${ids.a1}`);
  assert.is(a.status, 200);
  const alert = a.body.alert as Record<string, unknown>;
  assert.is(alert.id, ids.a1);
  assert.match(String(alert.href), new RegExp(`/alert/${ids.a1}$`));
  assert.is(alert.status, 'ack');
  assert.is(alert.duplicateCount, 3);
  assert.is(alert.lastReceiveId, 'r3');
  const history = alert.history as {
    id: string;
    type: string;
    updateTime: string;
    user?: string | null;
    timeout?: number | null;
  }[];
  // The API shows history oldest first; Alerta stores it newest first.
  const oldestFirst = [...A1_HISTORY].reverse();
  assert.equal(
    history.map((h) => [h.id, h.type]),
    oldestFirst.map((h) => [h.id, h.type]),
  );
  assert.equal(
    history.map((h) => h.updateTime),
    oldestFirst.map((h) => new Date(`${h.update_time!}Z`).toISOString()),
  );
  assert.is(history[2]!.user, 'bob@example.com');
  assert.is(history[2]!.timeout, 3600);
  const odd = (await admin(ctx, 'GET', `/alert/${ids.a2}`)).body.alert as Record<string, unknown>;
  assert.equal(
    [odd.environment, odd.tags, odd.timeout, odd.correlate, odd.attributes],
    ['', [], null, [], {}],
  );
  const unknownType = (await admin(ctx, 'GET', `/alert/${ids.a3}`)).body.alert as {
    history: { type: string }[];
  };
  assert.equal(
    unknownType.history.map((h) => h.type),
    ['new', 'frobnicate'],
  );
  assert.is((await admin(ctx, 'GET', `/alert/${ids.bad}`)).status, 404);
  const notes = await admin(ctx, 'GET', `/alert/${ids.a1}/notes`);
  assert.equal(
    (notes.body.notes as { id: string }[]).map((n) => n.id),
    [ids.note],
  );
});

test('counts and top-N show the imported alerts at once', async (ctx) => {
  const counts = await admin(ctx, 'GET', '/alerts/count');
  assert.is(counts.body.total, 3);
  assert.equal(counts.body.statusCounts, { ack: 1, open: 1, closed: 1 });
  // The report counts are those the stored history gives (a1: one severity entry, one change).
  const stale = await queryDb<{ n: number }>(
    ctx.db.url,
    `SELECT count(*)::int AS n FROM alerts a, alert_history_counts(a.id) c WHERE (a.severity_entries, a.flaps) <> (c.entries, c.flaps)`,
  );
  assert.is(stale[0]!.n, 0);
  const a1 = await queryDb<{ e: number; f: number }>(
    ctx.db.url,
    `SELECT severity_entries AS e, flaps AS f FROM alerts WHERE id = $1`,
    [ids.a1],
  );
  assert.equal(a1[0], { e: 1, f: 1 });
  const top = await admin(ctx, 'GET', '/alerts/top10/count');
  const resources = (top.body.top10 as { resources: { resource: string }[] }[]).flatMap((g) =>
    g.resources.map((r) => r.resource),
  );
  assert.ok(resources.includes('db01'), JSON.stringify(top.body));
});

test('users sign in with their old passwords; a provider user has none', async (ctx) => {
  const ok = await ctx.api.call('POST', '/auth/login', {
    username: 'bob@example.com',
    password: 'bob-old-password',
  });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.type(ok.body.token, 'string');
  const wrong = await ctx.api.call('POST', '/auth/login', { username: 'bob@example.com', password: 'nope' });
  assert.is(wrong.status, 401);
  const carol = await ctx.api.call('POST', '/auth/login', { username: 'carol', password: '' });
  assert.ok(carol.status === 400 || carol.status === 401, String(carol.status));
  const users = await admin(ctx, 'GET', '/users');
  const c = (users.body.users as { id: string; login: string; roles: string[]; status: string }[]).find(
    (u) => u.id === ids.carol,
  );
  assert.equal([c?.login, c?.roles, c?.status], ['carol', [], 'active']);
});

test('API keys keep working with the same key string; expired ones do not; none is stored in plain', async (ctx) => {
  const keys = await admin(ctx, 'GET', '/keys');
  const bob = (keys.body.keys as { id: string; scopes: string[]; count: number; user: string }[]).find(
    (k) => k.id === ids.keyBob,
  );
  assert.equal([bob?.user, bob?.scopes, bob?.count], ['bob@example.com', ['read', 'write:alerts'], 12]);
  const r = await ctx.api.call('GET', '/alerts', undefined, { headers: keyAuth(BOB_KEY) });
  assert.is(r.status, 200);
  const expired = await ctx.api.call('GET', '/alerts', undefined, { headers: keyAuth(EXPIRED_KEY) });
  assert.is(expired.status, 401);
  const plain = await queryDb<{ n: number }>(
    ctx.db.url,
    `SELECT count(*)::int AS n FROM keys WHERE key IS NOT NULL OR key_hint = ''`,
  );
  assert.is(plain[0]!.n, 0);
});

test('groups, permissions and customers are kept', async (ctx) => {
  const members = await admin(ctx, 'GET', `/group/${ids.group}/users`);
  assert.equal(
    (members.body.users as { id: string }[]).map((u) => u.id),
    [ids.bob],
  );
  const perms = await admin(ctx, 'GET', '/perms');
  const p = (perms.body.permissions as { id: string; match: string; scopes: string[] }[]).find(
    (x) => x.id === ids.perm,
  );
  assert.equal([p?.match, p?.scopes], ['ops', ['read', 'write:alerts']]);
  const customers = await admin(ctx, 'GET', '/customers');
  assert.equal(
    (customers.body.customers as { id: string; customer: string }[]).map((c) => [c.id, c.customer]),
    [[ids.customer, 'Acme']],
  );
});

test('an active blackout keeps suppressing; a pending one stays pending', async (ctx) => {
  const r = await admin(ctx, 'POST', '/alert', {
    resource: 'blacked-out-host',
    event: 'Down',
    environment: 'Production',
    service: ['Web'],
  });
  assert.is(r.status, 202, JSON.stringify(r.body));
  const list = await admin(ctx, 'GET', '/blackouts');
  const status = Object.fromEntries(
    (list.body.blackouts as { id: string; status: string }[]).map((b) => [b.id, b.status]),
  );
  assert.equal([status[ids.blackoutActive], status[ids.blackoutPending]], ['active', 'pending']);
});

test('heartbeats keep their timeouts; a missing timeout takes HEARTBEAT_TIMEOUT', async (ctx) => {
  const list = await admin(ctx, 'GET', '/heartbeats');
  const hbs = Object.fromEntries(
    (list.body.heartbeats as { id: string; timeout: number; status: string; type: string }[]).map((h) => [
      h.id,
      h,
    ]),
  );
  assert.equal([hbs[ids.hb]?.timeout, hbs[ids.hb]?.status], [120, 'ok']);
  assert.equal([hbs[ids.hbNoTimeout]?.timeout, hbs[ids.hbNoTimeout]?.type], [86400, 'Heartbeat']);
});

test('the second run changes nothing', async (ctx) => {
  const before = await snapshot(ctx.db.url);
  const r = runImport(ctx.source.url, ctx.db.url);
  assert.is(r.status, 0, r.stderr);
  for (const [table, t] of Object.entries(r.summary.tables)) {
    assert.is(t.imported + t.replaced, 0, `${table}: ${JSON.stringify(t)}`);
  }
  assert.is(r.summary.tables.alerts!.skipped, 3);
  assert.is(await snapshot(ctx.db.url), before);
});

test.run();
