/**
 * The CLI against a server that requires credentials: the config file and its profiles, the
 * environment variables, the three ways to authenticate (Basic, API key, stored token) and their
 * order, login/logout/whoami/token/signup, the admin commands (blackouts, heartbeats, keys,
 * users, groups, permissions, customers, scopes), the server commands, secrets never printed,
 * and one-line errors with their exit codes.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import type { Blackout } from '../../shared/blackouts.ts';
import type { Heartbeat } from '../../shared/heartbeats.ts';
import type { ApiKey } from '../../shared/keys.ts';
import type { Customer, Permission } from '../../shared/perms.ts';
import type { Group, GroupMember, User } from '../../shared/users.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { alerta, alertaJson, alertaOk, BIN, tempHome, type RunOptions } from './helpers.ts';

const ADMIN = 'admin@example.com';
const PASSWORD = 'admin-pass-123';
const ADMIN_KEY = 'cli-admin-key-0123456789';

interface Ctx extends AppContext {
  /** Admin by API key from the environment. */
  admin: RunOptions;
  /** No credentials at all. */
  anon: RunOptions;
  homes: (() => void)[];
}

const test = suite<Ctx>('alerta: config, auth and admin commands', {} as Ctx);
const tag = () => randomBytes(4).toString('hex');

test.before(async (ctx) => {
  await startApp(ctx, {
    TEST_LABEL: 'cli_admin',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'cli-test-secret-key-0123456789',
    ADMIN_USERS: ADMIN,
    ADMIN_PASSWORD: PASSWORD,
    ADMIN_KEY,
  });
  ctx.homes = [];
  ctx.admin = { home: home(ctx), env: { ALERTA_ENDPOINT: ctx.api.base, ALERTA_API_KEY: ADMIN_KEY } };
  ctx.anon = { home: home(ctx), env: { ALERTA_ENDPOINT: ctx.api.base } };
});
test.after(async (ctx) => {
  for (const cleanup of ctx.homes ?? []) cleanup();
  await stopApp(ctx);
});

function home(ctx: Ctx): string {
  const h = tempHome('admin');
  ctx.homes.push(h.cleanup);
  return h.home;
}

// ---- errors -------------------------------------------------------------------------------

test('no credentials: one ERROR line and exit 4; an unreachable server exit 3; an API error exit 1', async (ctx) => {
  const denied = await alerta(['query'], ctx.anon);
  assert.is(denied.code, 4);
  assert.is(denied.stdout, '');
  assert.match(denied.stderr, /^ERROR: authentication failed: .+\n$/);

  const down = await alerta(['query'], { ...ctx.anon, env: { ALERTA_ENDPOINT: 'http://127.0.0.1:9/api' } });
  assert.is(down.code, 3);
  assert.match(
    down.stderr,
    /^ERROR: Failed to get config from http:\/\/127\.0\.0\.1:9\/api\/config: .*connection refused\n$/,
  );

  const missing = await alerta(['notes', '-i', 'ffffffff'], ctx.admin);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^ERROR: .*\(HTTP 404\)\n$/);

  const usage = await alerta(['query', '--nope'], ctx.admin);
  assert.is(usage.code, 2);
  assert.match(usage.stderr, /No such option: --nope/);

  const badConf = home(ctx);
  writeFileSync(join(badConf, '.alerta.conf'), 'endpoint = nowhere\n');
  const conf = await alerta(['query'], { home: badConf });
  assert.is(conf.code, 2);
  assert.match(conf.stderr, /^ERROR: bad configuration: .*line 1/);
});

// ---- the three auth forms and their order ---------------------------------------------------

test('API key from ALERTA_API_KEY or the config file', async (ctx) => {
  const list = await alertaJson<Alert[]>(['query'], ctx.admin);
  assert.ok(Array.isArray(list));
  const h = home(ctx);
  writeFileSync(join(h, '.alerta.conf'), `[DEFAULT]\nendpoint = ${ctx.api.base}\nkey = ${ADMIN_KEY}\n`);
  assert.ok(Array.isArray(await alertaJson<Alert[]>(['query'], { home: h })));
});

test('Basic: username and password in the config file, tried before the key', async (ctx) => {
  const h = home(ctx);
  const conf = join(h, '.alerta.conf');
  writeFileSync(conf, `[DEFAULT]\nendpoint = ${ctx.api.base}\nusername = ${ADMIN}\npassword = ${PASSWORD}\n`);
  assert.ok(Array.isArray(await alertaJson(['query'], { home: h })));
  // A wrong password fails even with a good key: Basic comes first, as in the established client.
  writeFileSync(
    conf,
    `[DEFAULT]\nendpoint = ${ctx.api.base}\nusername = ${ADMIN}\npassword = wrong\nkey = ${ADMIN_KEY}\n`,
  );
  const r = await alerta(['query'], { home: h });
  assert.is(r.code, 4);
});

test('login stores a token (0600) that later commands use; whoami, token, logout', async (ctx) => {
  const h = home(ctx);
  const run = { home: h, env: { ALERTA_ENDPOINT: ctx.api.base } };
  const bad = await alerta(['login', ADMIN], { ...run, input: 'wrong\n' });
  assert.is(bad.code, 4);

  const out = await alertaOk(['login', ADMIN], { ...run, input: `${PASSWORD}\n` });
  assert.is(out.trim(), `Logged in as ${ADMIN}`);
  const netrc = join(h, '.netrc');
  assert.is(statSync(netrc).mode & 0o777, 0o600);
  const port = new URL(ctx.api.base).port;
  assert.match(
    readFileSync(netrc, 'utf8'),
    new RegExp(`^machine 127\\.0\\.0\\.1:${port}\\n\\tlogin ${ADMIN}\\n\\tpassword ey`),
  );

  assert.is((await alertaOk(['whoami'], run)).trim(), ADMIN);
  const info = await alertaJson<Record<string, unknown>>(['whoami'], run);
  assert.is(info.preferred_username, ADMIN);
  const long = await alertaOk(['whoami', '-u'], run);
  assert.match(long, /^preferred_username +: admin@example\.com$/m);
  assert.ok(Array.isArray(await alertaJson(['query'], run)), 'the stored token authenticates');

  const token = (await alertaOk(['token'], run)).trim();
  assert.match(token, /^ey[\w-]+\.[\w-]+\.[\w-]+$/);
  const claims = await alertaJson<Record<string, unknown>>(['token', '-D'], run);
  assert.is(claims.preferred_username, ADMIN);

  // The key wins over the stored token: a bad key fails although the token is good.
  const keyed = await alerta(['query'], { ...run, env: { ...run.env, ALERTA_API_KEY: 'not-a-key' } });
  assert.is(keyed.code, 4);

  // A group-readable .netrc still works, with a warning.
  chmodSync(netrc, 0o644);
  const loose = await alerta(['whoami'], run);
  assert.is(loose.code, 0);
  assert.match(loose.stderr, /readable by others/);

  assert.is((await alertaOk(['logout'], run)).trim(), 'Logged out.');
  assert.is((await alerta(['query'], run)).code, 4);
  assert.is((await alerta(['token'], run)).code, 1);
  assert.is((await alerta(['logout'], run)).code, 1);
});

// ---- config file, profiles and environment --------------------------------------------------

test('profiles: --profile, ALERTA_DEFAULT_PROFILE and profile= in [DEFAULT]; ALERTA_CONF_FILE; unknown profile warns', async (ctx) => {
  const h = home(ctx);
  const file = join(h, 'alerta.ini');
  const ini = (defaultProfile: string) =>
    [
      '# comments and ; comments are ignored',
      '[DEFAULT]',
      'endpoint = http://127.0.0.1:9/api',
      `key = ${ADMIN_KEY}`,
      'output = json',
      defaultProfile,
      '',
      '[profile good]',
      `endpoint = ${ctx.api.base}`,
      'timezone = America/New_York',
      '',
      '[profile other]',
      'endpoint: http://127.0.0.1:9/other',
    ].join('\n');
  writeFileSync(file, ini(''));
  const env = { ALERTA_CONF_FILE: file };

  const viaFlag = await alerta(['--profile', 'good', 'scopes'], { home: h, env });
  assert.is(viaFlag.code, 0, viaFlag.stderr);
  assert.ok(Array.isArray(JSON.parse(viaFlag.stdout)), 'output = json inherited from [DEFAULT]');
  assert.is((await alerta(['scopes'], { home: h, env })).code, 3, 'the [DEFAULT] endpoint is down');
  assert.is((await alerta(['scopes'], { home: h, env: { ...env, ALERTA_DEFAULT_PROFILE: 'good' } })).code, 0);
  assert.is((await alerta(['scopes'], { home: h, env: { ...env, ALERTA_PROFILE: 'good' } })).code, 0);
  assert.is((await alerta(['--config-file', file, '--profile', 'good', 'scopes'], { home: h })).code, 0);

  writeFileSync(file, ini('profile = good'));
  const cfg = await alertaJson<Record<string, unknown>>(['config'], { home: h, env });
  assert.equal([cfg.profile, cfg.endpoint, cfg.timezone], ['good', ctx.api.base, 'America/New_York']);
  // The server's /config sits under the local settings.
  assert.is(cfg.provider, 'basic');
  assert.equal(Object.keys(cfg.alarm_model as object).includes('severity'), true);
  // The flag beats the file's profile; ALERTA_ENDPOINT_URL beats ALERTA_ENDPOINT beats the file.
  assert.is((await alerta(['--profile', 'other', 'scopes'], { home: h, env })).code, 3);
  const viaEnv = await alerta(['scopes'], {
    home: h,
    env: { ...env, ALERTA_ENDPOINT: 'http://127.0.0.1:9/x', ALERTA_ENDPOINT_URL: ctx.api.base },
  });
  assert.is(viaEnv.code, 0);
  assert.is(
    (await alerta(['scopes'], { home: h, env: { ...env, ALERTA_ENDPOINT: 'http://127.0.0.1:9/x' } })).code,
    3,
  );

  const unknown = await alerta(['--profile', 'nope', '--endpoint-url', ctx.api.base, 'scopes'], {
    home: h,
    env,
  });
  assert.is(unknown.code, 0);
  assert.match(unknown.stderr, /profile "nope" is not in/);
});

test('per-option variables: ALERTA_OUTPUT, ALERTA_QUERY_FILTERS, ALERTA_COLOR', async (ctx) => {
  const r = `env-${tag()}`;
  await alertaOk(['send', '-r', r, '-e', 'E', '-E', 'Production', '-S', 'Web', '-s', 'critical'], ctx.admin);
  const env = {
    ...ctx.admin.env,
    ALERTA_OUTPUT: 'json',
    ALERTA_QUERY_FILTERS: `resource=${r} environment=Production`,
  };
  const list = JSON.parse(await alertaOk(['query'], { ...ctx.admin, env })) as Alert[];
  assert.equal(
    list.map((a) => a.resource),
    [r],
  );
  const colored = await alertaOk(['query', '--medium', '-f', `resource=${r}`], {
    ...ctx.admin,
    env: { ...ctx.admin.env, ALERTA_COLOR: 'yes' },
  });
  assert.ok(colored.includes('\x1b[31m'));
});

test('config and --debug never show secrets', async (ctx) => {
  const h = home(ctx);
  writeFileSync(
    join(h, '.alerta.conf'),
    `[DEFAULT]\nendpoint = ${ctx.api.base}\nkey = ${ADMIN_KEY}\nusername = someone\npassword = hunter2-secret-pw\nsecret = shhh-hawk-secret\n`,
  );
  const table = await alerta(['config'], { home: h });
  const json = await alerta(['--json', 'config'], { home: h });
  for (const r of [table, json]) {
    assert.is(r.code, 0);
    assert.not.ok(r.stdout.includes(ADMIN_KEY), 'the key');
    assert.not.ok(r.stdout.includes('hunter2-secret-pw'), 'the password');
    assert.not.ok(r.stdout.includes('shhh-hawk-secret'), 'the secret');
  }
  const cfg = JSON.parse(json.stdout) as Record<string, string>;
  assert.is(cfg.key, `********${ADMIN_KEY.slice(-4)}`);
  assert.is(cfg.username, 'someone');

  const debug = await alerta(['--debug', 'scopes'], ctx.admin);
  assert.is(debug.code, 0);
  assert.match(debug.stderr, /> Authorization: Key \*{8}6789/);
  assert.not.ok(debug.stderr.includes(ADMIN_KEY));
});

// ---- admin commands -------------------------------------------------------------------------

test('blackout, blackouts, blackout -D', async (ctx) => {
  const b = await alertaJson<Blackout>(
    ['blackout', '-E', 'Production', '-S', 'Web', '-r', 'db1', '--duration', '120', '--text', 'patching'],
    ctx.admin,
  );
  assert.equal(
    [b.environment, b.service, b.resource, b.duration, b.text, b.status],
    ['Production', ['Web'], 'db1', 120, 'patching', 'active'],
  );
  const id = (
    await alertaOk(['blackout', '-E', 'Production', '--start', '2099-01-01T00:00:00.000Z'], ctx.admin)
  ).trim();
  assert.match(id, /^[0-9a-f-]{36}$/);
  const list = await alertaJson<Blackout[]>(['blackouts'], ctx.admin);
  assert.equal(list.map((x) => x.id).sort(), [b.id, id].sort());
  assert.is(list.find((x) => x.id === id)!.status, 'pending');
  // Durations with their unit, as the established client formats them.
  const table = await alertaOk(['blackouts'], ctx.admin);
  assert.match(table, /ENVIRONMENT/);
  assert.match(table, new RegExp(`^${b.id} .* 120s .* active +\\d+s$`, 'm'));
  assert.match(table, new RegExp(`^${id} .* 3600s .* pending +3600s$`, 'm'));
  await alertaOk(['blackout', '-D', id], ctx.admin);
  assert.equal(
    (await alertaJson<Blackout[]>(['blackouts', '--purge'], ctx.admin)).map((x) => x.id),
    [b.id],
  );
  assert.is((await alerta(['blackout'], ctx.admin)).code, 2, '-E is required');
});

test('heartbeat, heartbeats (--alert, --purge), heartbeat -D', async (ctx) => {
  const origin = `cli/${tag()}`;
  const hb = await alertaJson<Heartbeat>(
    ['heartbeat', '-O', origin, '-E', 'Production', '-s', 'major', '-S', 'Web', '-T', 'x', '--timeout', '1'],
    ctx.admin,
  );
  assert.equal([hb.origin, hb.tags, hb.timeout], [origin, ['x'], 1]);
  assert.equal(hb.attributes, { environment: 'Production', severity: 'major', service: ['Web'] });
  const bad = await alerta(['heartbeat', '-s', 'ok'], ctx.admin);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /non-normal severity/);
  assert.is((await alerta(['heartbeat', '-s', 'nonsense'], ctx.admin)).code, 2);

  await new Promise((r) => setTimeout(r, 1200)); // let it go stale
  const list = await alertaJson<Heartbeat[]>(['heartbeats', '--alert'], ctx.admin);
  assert.is(list.find((h) => h.id === hb.id)!.status, 'expired');
  const alerts = await alertaJson<Alert[]>(['query', '-f', `resource=${origin}`], ctx.admin);
  assert.equal(
    alerts.map((a) => [a.event, a.severity, a.environment, a.service, a.type]),
    [['HeartbeatFail', 'major', 'Production', ['Web'], 'heartbeatAlert']],
  );
  // Its age as Python prints a timedelta, as the established client sends it.
  assert.match(String(alerts[0]!.value), /^0:00:\d\d$/);

  // As text (stdout is a pipe here): the age as a timedelta, the rest with units, and the line the
  // established client's progress bar prints when it is not on a terminal.
  const text = await alertaOk(['heartbeats', '--alert'], ctx.admin);
  const row = text.split('\n').find((l) => l.startsWith(hb.id))!;
  assert.match(row, / 0:00:\d\d +1s +\d+ms +2000ms +expired$/);
  assert.match(text, /^Alerting \d+ heartbeats$/m);
  const purged = await alertaOk(['heartbeats', '--purge'], ctx.admin);
  assert.match(purged, /^Purging [1-9]\d* heartbeats$/m);
  assert.not.ok((await alertaJson<Heartbeat[]>(['heartbeats'], ctx.admin)).some((h) => h.id === hb.id));

  const other = (await alertaOk(['heartbeat', '-O', `${origin}-2`], ctx.admin)).trim();
  await alertaOk(['heartbeat', '-D', other], ctx.admin);
  assert.not.ok((await alertaJson<Heartbeat[]>(['heartbeats'], ctx.admin)).some((h) => h.id === other));
});

test('key, keys (--alert), revoke, key -D; a new key authenticates', async (ctx) => {
  const value = (
    await alertaOk(['key', '--scope', 'read', '--text', 'ro key', '--duration', '3600'], ctx.admin)
  ).trim();
  assert.match(value, /^\S{20,}$/);
  const ro = { ...ctx.admin, env: { ...ctx.admin.env, ALERTA_API_KEY: value } };
  assert.ok(Array.isArray(await alertaJson(['query'], ro)));
  // A 403 refuses what was asked, not who asked: exit 1 as the established client (4 is for 401).
  const denied = await alerta(['ack', '-f', 'resource=none'], ro);
  assert.is(denied.code, 1, 'a read-only key may not ack');
  assert.match(denied.stderr, /^ERROR: .*\(HTTP 403\)\n$/);

  const custom = `cli-key-${tag()}`;
  const k = await alertaJson<ApiKey>(
    ['key', '-K', custom, '--scope', 'read:alerts', '--customer', 'Acme'],
    ctx.admin,
  );
  assert.equal([k.key, k.scopes, k.customer, k.status], [custom, ['read:alerts'], 'Acme', 'active']);
  const keys = await alertaJson<ApiKey[]>(['keys', '--alert'], ctx.admin);
  // Lists carry a key's first characters only: the server keeps no value, just its hash.
  assert.ok(keys.some((x) => x.key === `${value.slice(0, 6)}…`) && keys.some((x) => x.id === k.id));
  assert.not.ok(keys.some((x) => x.key === value || x.key === custom));
  const ok = await alertaJson<Alert[]>(['query', '-f', `resource=${k.id}`], ctx.admin);
  assert.equal(
    ok.map((a) => a.event),
    ['ApiKeyOK'],
  );

  await alertaOk(['revoke', '-K', custom], ctx.admin);
  const left = await alertaJson<ApiKey[]>(['keys'], ctx.admin);
  assert.not.ok(left.some((x) => x.id === k.id));
  await alertaOk(['key', '-D', value], ctx.admin);
  assert.is((await alerta(['query'], ro)).code, 4, 'the deleted key no longer works');
});

test('user, users, me, group, groups, signup', async (ctx) => {
  const email = `bob-${tag()}@example.com`;
  const user = await alertaJson<User>(
    ['user', '--email', email, '--password', 'bob-pass-1', '--name', 'Bob', '--role', 'user'],
    ctx.admin,
  );
  assert.equal([user.email, user.name, user.roles], [email, 'Bob', ['user']]);
  const shown = await alertaJson<User[]>(['user', '-i', user.id], ctx.admin);
  assert.is(shown[0]!.id, user.id);

  // Renaming keeps the roles (the established client would send roles: [] and strip them).
  await alertaOk(['user', '-i', user.id, '--name', 'Robert', '--text', 'on call'], ctx.admin);
  let now = (await alertaJson<User[]>(['users', '--role', 'user'], ctx.admin)).find((u) => u.id === user.id)!;
  assert.equal([now.name, now.text, now.roles], ['Robert', 'on call', ['user']]);
  const bob = { home: home(ctx), env: { ALERTA_ENDPOINT: ctx.api.base } };
  await alertaOk(['login', email], { ...bob, input: 'bob-pass-1\n' });
  assert.is((await alertaOk(['me', '--name', 'Bobby'], bob)).trim(), 'Updated.');
  assert.is((await alertaJson<Record<string, unknown>>(['whoami'], bob)).preferred_username, email);
  assert.is((await alertaJson<User[]>(['users'], ctx.admin)).find((u) => u.id === user.id)!.name, 'Bobby');
  assert.is((await alerta(['me'], bob)).code, 2, 'nothing to update');

  await alertaOk(['user', '-i', user.id, '--role', 'user', '--role', 'ops'], ctx.admin);
  await alertaOk(['user', '-i', user.id, '--clear-roles'], ctx.admin);
  now = (await alertaJson<User[]>(['users'], ctx.admin)).find((u) => u.id === user.id)!;
  assert.equal(now.roles, []);

  const g = await alertaJson<Group>(['group', '--name', `ops-${tag()}`, '--text', 'Ops'], ctx.admin);
  await alertaOk(['group', '-i', g.id, '-U', user.id], ctx.admin);
  const members = await alertaJson<GroupMember[]>(['group', '-i', g.id, '--users'], ctx.admin);
  assert.equal(
    members.map((m) => m.id),
    [user.id],
  );
  assert.equal(
    (await alertaJson<Group[]>(['user', '-i', user.id, '--groups'], ctx.admin)).map((x) => x.id),
    [g.id],
  );
  assert.is((await alertaJson<Group[]>(['groups'], ctx.admin)).find((x) => x.id === g.id)!.count, 1);
  await alertaOk(['group', '-i', g.id, '-D', user.id], ctx.admin);
  assert.equal(await alertaJson(['group', '-i', g.id, '--users'], ctx.admin), []);
  await alertaOk(['group', '-D', g.id], ctx.admin);
  assert.not.ok((await alertaJson<Group[]>(['groups'], ctx.admin)).some((x) => x.id === g.id));

  const sue = `sue-${tag()}@example.com`;
  const signed = await alerta(
    ['signup', '--name', 'Sue', '--email', sue, '--password', 'sue-pass-1'],
    ctx.anon,
  );
  assert.equal([signed.code, signed.stdout.trim()], [0, 'Signed Up.']);
  const signedJson = await alertaJson<{ token: string }>(
    ['signup', '--email', `x${sue}`, '--password', 'p-123456'],
    ctx.anon,
  );
  assert.match(signedJson.token, /^\*{8}.{4}$/, 'the token is not printed');

  await alertaOk(['user', '-D', user.id], ctx.admin);
  assert.not.ok((await alertaJson<User[]>(['users'], ctx.admin)).some((u) => u.id === user.id));
});

test('customer, customers, perm, perms, scopes', async (ctx) => {
  const c = await alertaJson<Customer>(
    ['customer', '--customer', 'Acme', '--org', `acme-${tag()}.com`],
    ctx.admin,
  );
  assert.is(c.customer, 'Acme');
  assert.ok((await alertaJson<Customer[]>(['customers'], ctx.admin)).some((x) => x.id === c.id));
  // The established client heads the match column GROUP.
  assert.match(await alertaOk(['customers'], ctx.admin), /^ID +GROUP +CUSTOMER$/m);
  await alertaOk(['customer', '-D', c.id], ctx.admin);
  assert.not.ok((await alertaJson<Customer[]>(['customers'], ctx.admin)).some((x) => x.id === c.id));
  assert.is((await alerta(['customer', '--customer', 'X'], ctx.admin)).code, 2);

  const role = `role-${tag()}`;
  const p = await alertaJson<Permission>(
    ['perm', '--role', role, '--scope', 'read', '--scope', 'write:alerts'],
    ctx.admin,
  );
  assert.equal([p.match, p.scopes], [role, ['read', 'write:alerts']]);
  const filtered = await alertaJson<Permission[]>(['perms', '--scope', 'write:alerts'], ctx.admin);
  assert.ok(filtered.some((x) => x.id === p.id));
  assert.match(await alertaOk(['perms'], ctx.admin), new RegExp(role));
  await alertaOk(['perm', '-D', p.id], ctx.admin);
  assert.not.ok((await alertaJson<Permission[]>(['perms'], ctx.admin)).some((x) => x.id === p.id));

  const scopes = await alertaJson<string[]>(['scopes'], ctx.admin);
  assert.ok(scopes.includes('admin') && scopes.includes('read:alerts'));
});

test('status, uptime, version, housekeeping, help; the bin shim runs the same client', async (ctx) => {
  const status = await alertaJson<{ metrics: { group: string; name: string }[]; uptime: number }>(
    ['status'],
    ctx.admin,
  );
  assert.ok(status.metrics.some((m) => m.group === 'alerts' && m.name === 'total'));
  assert.match(await alertaOk(['status'], ctx.admin), /^METRIC +TYPE +NAME +VALUE/);
  assert.match((await alertaOk(['uptime'], ctx.admin)).trim(), /^\d\d:\d\d up \d+ days \d\d:\d\d$/);
  const up = await alertaJson<{ time: number; uptime: number }>(['uptime'], ctx.admin);
  assert.ok(up.uptime >= 0 && up.time > 0);
  const v = await alertaJson<{ server: string; client: string; node: string }>(['version'], ctx.admin);
  assert.is(v.node, process.versions.node);
  assert.match(await alertaOk(['version'], ctx.admin), /^alerta \S+\nalerta client \S+\nnode \S+\n$/);
  const hk = await alertaJson<Record<string, unknown>>(
    ['housekeeping', '--expired', '2', '--info', '12'],
    ctx.admin,
  );
  assert.is(hk.status, 'ok');
  assert.match(await alertaOk(['housekeeping'], ctx.admin), /^housekeeping done/);

  const help = await alertaOk(['help'], ctx.anon);
  for (const c of [
    'send',
    'query',
    'watch',
    'tail',
    'top',
    'ack',
    'blackouts',
    'heartbeats',
    'perms',
    'login',
    'housekeeping',
  ]) {
    assert.match(help, new RegExp(`^  ${c} `, 'm'), c);
  }
  assert.match(await alertaOk(['help', 'send'], ctx.anon), /--raw-data/);
  assert.match(await alertaOk(['ack', '--help'], ctx.anon), /--yes/);
  assert.is((await alerta(['help', 'nope'], ctx.anon)).code, 2);

  const bin = await alerta(['--json', 'version'], { ...ctx.admin, script: BIN });
  assert.is(bin.code, 0, bin.stderr);
  assert.is((JSON.parse(bin.stdout) as { node: string }).node, process.versions.node);
});

test.run();
