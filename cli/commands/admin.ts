import { hostname } from 'node:os';
import type { Blackout } from '../../shared/blackouts.ts';
import type { Heartbeat } from '../../shared/heartbeats.ts';
import type { ApiKey } from '../../shared/keys.ts';
import type { Customer, Permission } from '../../shared/perms.ts';
import type { Group, GroupMember, User } from '../../shared/users.ts';
import { strings, UsageError, type OptionSpec } from '../args.ts';
import { answered, eachReported, listing, type Command, type Context } from '../context.ts';
import { localTime, timedelta, type Column } from '../format.ts';
import { alertBody } from './alerts.ts';

/** Blackouts, heartbeats, API keys, users, groups, permissions, customers and scopes. */

const DELETE = (what: string): OptionSpec => ({
  name: 'delete',
  flags: ['-D', '--delete'],
  metavar: 'ID',
  help: `Delete ${what} using its id`,
});
const enc = encodeURIComponent;
/** `alerta/<hostname>`: where heartbeats and generated alerts say they come from. */
const origin = () => `alerta/${hostname()}`;

/** Prints a created object: its id (or `idOf`) as text, the whole answer as JSON. */
function created(
  ctx: Context,
  answer: Record<string, unknown>,
  key: string,
  idOf = (o: Record<string, unknown>) => o.id,
) {
  const obj = (answer[key] ?? answer) as Record<string, unknown>;
  if (ctx.isMachine) ctx.json(obj);
  else ctx.print(String(idOf(obj) ?? answer.id ?? ''));
}

const when = (ctx: Context) => (iso: unknown) => localTime(iso, ctx.settings.timezone);

/** The alarm model's severities, from the server's /config. */
function severities(ctx: Context): Record<string, number> {
  const model = ctx.remote.alarm_model as { severity?: Record<string, number> } | undefined;
  return model?.severity ?? (ctx.remote.severity as Record<string, number> | undefined) ?? {};
}
function normalSeverity(ctx: Context): string {
  const model = ctx.remote.alarm_model as { defaults?: { normal_severity?: string } } | undefined;
  return model?.defaults?.normal_severity ?? 'normal';
}
/** heartbeat(s) -s: a known, non-normal severity (checked before sending, as before). */
function checkSeverity(ctx: Context, severity: string, command: string) {
  const normal = ['normal', 'ok', 'cleared'];
  if (normal.includes(severity)) {
    throw new UsageError(
      `Must be a non-normal severity. "${severity}" is one of ${normal.join(', ')}`,
      command,
    );
  }
  const known = Object.keys(severities(ctx));
  if (known.length && !known.includes(severity)) {
    throw new UsageError(
      `Must be a valid severity. "${severity}" is not one of ${known.join(', ')}`,
      command,
    );
  }
}

// ---- blackouts ----------------------------------------------------------------------------

const blackout: Command = {
  name: 'blackout',
  summary: 'Suppress alerts',
  options: [
    {
      name: 'environment',
      flags: ['-E', '--environment'],
      metavar: 'ENVIRONMENT',
      help: 'Environment, e.g. Production',
    },
    {
      name: 'service',
      flags: ['-S', '--service'],
      multiple: true,
      metavar: 'SERVICE',
      help: 'Affected service',
    },
    { name: 'resource', flags: ['-r', '--resource'], metavar: 'RESOURCE', help: 'Resource' },
    { name: 'event', flags: ['-e', '--event'], metavar: 'EVENT', help: 'Event name' },
    { name: 'group', flags: ['-g', '--group'], metavar: 'GROUP', help: 'Group' },
    { name: 'tags', flags: ['-T', '--tag'], multiple: true, metavar: 'TAG', help: 'Tag' },
    { name: 'origin', flags: ['-O', '--origin'], metavar: 'ORIGIN', help: 'Origin' },
    { name: 'customer', flags: ['--customer'], metavar: 'STRING', help: 'Customer (admin only)' },
    {
      name: 'start',
      flags: ['--start'],
      metavar: 'DATETIME',
      help: 'Start time, ISO 8601, e.g. 2024-02-01T12:00:00.000Z',
    },
    {
      name: 'duration',
      flags: ['--duration'],
      type: 'int',
      metavar: 'SECONDS',
      help: 'Blackout period in seconds',
    },
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'Reason for the blackout' },
    DELETE('a blackout'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string')
      return answered(ctx, await ctx.http.delete(`/blackout/${enc(o.delete)}`));
    if (!o.environment) throw new UsageError('Missing option "-E" / "--environment"', 'blackout');
    let startTime: string | null = null;
    if (typeof o.start === 'string') {
      const t = Date.parse(o.start);
      if (Number.isNaN(t))
        throw new UsageError(`Invalid value for "--start": "${o.start}" is not an ISO 8601 time`, 'blackout');
      startTime = new Date(t).toISOString();
    }
    const r = await ctx.http.post('/blackout', {
      environment: o.environment,
      service: strings(o.service),
      resource: o.resource ?? null,
      event: o.event ?? null,
      group: o.group ?? null,
      tags: strings(o.tags),
      origin: o.origin ?? null,
      customer: o.customer ?? null,
      startTime,
      duration: o.duration ?? null,
      text: o.text ?? null,
    });
    created(ctx, r, 'blackout');
  },
};

const blackouts: Command = {
  name: 'blackouts',
  summary: 'List alert suppressions',
  options: [{ name: 'purge', flags: ['--purge'], type: 'flag', help: 'Delete all expired blackouts' }],
  async run(ctx, o) {
    const r = await ctx.http.get<{ blackouts: Blackout[] }>('/blackouts');
    const t = when(ctx);
    listing(ctx, r.blackouts, [
      { header: 'ID', value: (b) => b.id },
      { header: 'P', value: (b) => b.priority },
      { header: 'ENVIRONMENT', value: (b) => b.environment },
      { header: 'SERVICE', value: (b) => b.service },
      { header: 'RESOURCE', value: (b) => b.resource },
      { header: 'EVENT', value: (b) => b.event },
      { header: 'GROUP', value: (b) => b.group },
      { header: 'TAGS', value: (b) => b.tags },
      { header: 'ORIGIN', value: (b) => b.origin },
      { header: 'CUSTOMER', value: (b) => b.customer },
      { header: 'START', value: (b) => t(b.startTime) },
      { header: 'END', value: (b) => t(b.endTime) },
      { header: 'DURATION', value: (b) => `${b.duration}s` },
      { header: 'USER', value: (b) => b.user },
      { header: 'CREATED', value: (b) => t(b.createTime) },
      { header: 'COMMENT', value: (b) => b.text },
      { header: 'STATUS', value: (b) => b.status },
      { header: 'REMAINING', value: (b) => `${b.remaining}s` },
    ]);
    if (!o.purge) return;
    const expired = r.blackouts.filter((b) => b.status === 'expired');
    const failed = await eachReported(
      ctx,
      `Purging ${expired.length} blackouts`,
      expired,
      (b) => b.id,
      async (b) => {
        await ctx.http.delete(`/blackout/${enc(b.id)}`);
      },
      { announce: true },
    );
    return failed ? 1 : 0;
  },
};

// ---- heartbeats ---------------------------------------------------------------------------

const heartbeat: Command = {
  name: 'heartbeat',
  summary: 'Send a heartbeat',
  options: [
    {
      name: 'origin',
      flags: ['-O', '--origin'],
      metavar: 'ORIGIN',
      help: 'Origin of the heartbeat (default alerta/<hostname>)',
    },
    {
      name: 'environment',
      flags: ['-E', '--environment'],
      metavar: 'ENVIRONMENT',
      help: 'Environment of its alerts',
    },
    { name: 'severity', flags: ['-s', '--severity'], metavar: 'SEVERITY', help: 'Severity of its alerts' },
    {
      name: 'service',
      flags: ['-S', '--service'],
      multiple: true,
      metavar: 'SERVICE',
      help: 'Service of its alerts',
    },
    { name: 'group', flags: ['-g', '--group'], metavar: 'GROUP', help: 'Group of its alerts' },
    { name: 'tags', flags: ['-T', '--tag'], multiple: true, metavar: 'TAG', help: 'Tag' },
    {
      name: 'timeout',
      flags: ['--timeout'],
      type: 'int',
      metavar: 'SECONDS',
      help: 'Seconds before the heartbeat is stale',
    },
    { name: 'customer', flags: ['--customer'], metavar: 'STRING', help: 'Customer' },
    DELETE('a heartbeat'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string')
      return answered(ctx, await ctx.http.delete(`/heartbeat/${enc(o.delete)}`));
    if (typeof o.severity === 'string') checkSeverity(ctx, o.severity, 'heartbeat');
    // Stored in attributes: `heartbeats --alert` raises its alerts with them.
    const attributes: Record<string, unknown> = {};
    if (o.environment) attributes.environment = o.environment;
    if (o.severity) attributes.severity = o.severity;
    if (strings(o.service).length) attributes.service = strings(o.service);
    if (o.group) attributes.group = o.group;
    const r = await ctx.http.post('/heartbeat', {
      origin: o.origin ?? origin(),
      tags: strings(o.tags),
      attributes,
      timeout: o.timeout ?? null,
      createTime: new Date().toISOString(),
      customer: o.customer ?? null,
    });
    created(ctx, r, 'heartbeat');
  },
};

/** The alert `heartbeats --alert` raises for one heartbeat (as the established client does). */
function heartbeatAlert(hb: Heartbeat, severity: string, normal: string, timeout: number | null) {
  const attributes = { ...hb.attributes };
  const take = (k: string) => {
    const v = attributes[k];
    delete attributes[k];
    return v;
  };
  const environment = take('environment') ?? 'Production';
  const wanted = (take('severity') as string | undefined) ?? severity;
  const service = take('service') ?? ['Alerta'];
  const group = take('group') ?? 'System';
  const common = {
    resource: hb.origin,
    environment,
    correlate: ['HeartbeatFail', 'HeartbeatSlow', 'HeartbeatOK'],
    service,
    group,
    tags: hb.tags,
    attributes,
    origin: origin(),
    type: 'heartbeatAlert',
    timeout,
    customer: hb.customer,
  };
  if (hb.status === 'expired') {
    return alertBody({
      ...common,
      event: 'HeartbeatFail',
      severity: wanted,
      value: timedelta(hb.since),
      text: `Heartbeat not received in ${hb.timeout} seconds`,
    });
  }
  if (hb.status === 'slow') {
    return alertBody({
      ...common,
      event: 'HeartbeatSlow',
      severity: wanted,
      value: `${hb.latency}ms`,
      text: `Heartbeat took more than ${hb.maxLatency}ms to be processed`,
    });
  }
  return alertBody({ ...common, event: 'HeartbeatOK', severity: normal, value: '', text: 'Heartbeat OK' });
}

const heartbeats: Command = {
  name: 'heartbeats',
  summary: 'List heartbeats',
  options: [
    { name: 'alert', flags: ['--alert'], type: 'flag', help: 'Alert on stale or slow heartbeats' },
    {
      name: 'severity',
      flags: ['-s', '--severity'],
      default: 'major',
      metavar: 'SEVERITY',
      help: 'Severity of heartbeat alerts (major)',
    },
    {
      name: 'timeout',
      flags: ['--timeout'],
      type: 'int',
      metavar: 'SECONDS',
      help: 'Seconds before heartbeat alerts expire',
    },
    { name: 'purge', flags: ['--purge'], type: 'flag', help: 'Delete all stale heartbeats' },
  ],
  async run(ctx, o) {
    const severity = String(o.severity);
    checkSeverity(ctx, severity, 'heartbeats');
    const r = await ctx.http.get<{ heartbeats: Heartbeat[] }>('/heartbeats');
    const t = when(ctx);
    listing(ctx, r.heartbeats, [
      { header: 'ID', value: (h) => h.id },
      { header: 'ORIGIN', value: (h) => h.origin },
      { header: 'CUSTOMER', value: (h) => h.customer },
      { header: 'TAGS', value: (h) => h.tags },
      { header: 'ATTRIBUTES', value: (h) => h.attributes },
      { header: 'CREATED', value: (h) => t(h.createTime) },
      { header: 'RECEIVED', value: (h) => t(h.receiveTime) },
      // As the established client: its age as a Python timedelta, the rest with their units.
      { header: 'SINCE', value: (h) => timedelta(h.since) },
      { header: 'TIMEOUT', value: (h) => `${h.timeout}s` },
      { header: 'LATENCY', value: (h) => `${h.latency}ms` },
      { header: 'MAX LATENCY', value: (h) => `${h.maxLatency}ms` },
      { header: 'STATUS', value: (h) => h.status },
    ]);
    let failed = 0;
    if (o.purge) {
      const stale = r.heartbeats.filter((h) => h.status !== 'ok');
      failed += await eachReported(
        ctx,
        `Purging ${stale.length} heartbeats`,
        stale,
        (h) => h.origin,
        async (h) => {
          await ctx.http.delete(`/heartbeat/${enc(h.id)}`);
        },
        { announce: true },
      );
    }
    if (o.alert) {
      const normal = normalSeverity(ctx);
      const timeout = (o.timeout as number | undefined) ?? null;
      const label = `Alerting ${r.heartbeats.length} heartbeats`;
      failed += await eachReported(
        ctx,
        label,
        r.heartbeats,
        (h) => h.origin,
        async (h) => {
          await ctx.http.post('/alert', heartbeatAlert(h, severity, normal, timeout));
        },
        { announce: true },
      );
    }
    return failed ? 1 : 0;
  },
};

// ---- API keys -----------------------------------------------------------------------------

const key: Command = {
  name: 'key',
  summary: 'Create or delete an API key',
  options: [
    {
      name: 'api_key',
      flags: ['-K', '--api-key'],
      metavar: 'KEY',
      help: 'Use this key value instead of a random one',
    },
    { name: 'username', flags: ['-u', '--username'], metavar: 'USER', help: 'Owner of the key (admin only)' },
    {
      name: 'scopes',
      flags: ['--scope'],
      multiple: true,
      metavar: 'SCOPE',
      help: 'Permission, e.g. admin:keys, write:alerts',
    },
    {
      name: 'duration',
      flags: ['--duration'],
      type: 'int',
      metavar: 'SECONDS',
      help: 'Seconds the key is valid',
    },
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'What the key is for' },
    { name: 'customer', flags: ['--customer'], metavar: 'STRING', help: 'Customer' },
    DELETE('an API key (id or key)'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string') return answered(ctx, await ctx.http.delete(`/key/${enc(o.delete)}`));
    const body: Record<string, unknown> = {
      user: o.username ?? null,
      scopes: strings(o.scopes),
      text: o.text ?? null,
      customer: o.customer ?? null,
      key: o.api_key ?? null,
    };
    if (typeof o.duration === 'number')
      body.expireTime = new Date(Date.now() + o.duration * 1000).toISOString();
    const r = await ctx.http.post('/key', body);
    created(ctx, r, 'data', (k) => k.key);
  },
};

const revoke: Command = {
  name: 'revoke',
  summary: 'Revoke an API key',
  options: [{ name: 'api_key', flags: ['-K', '--api-key'], metavar: 'KEY', help: 'The key to revoke' }],
  async run(ctx, o) {
    if (typeof o.api_key !== 'string') throw new UsageError('Missing option "-K" / "--api-key"', 'revoke');
    answered(ctx, await ctx.http.delete(`/key/${enc(o.api_key)}`));
  },
};

const DAY = 86_400_000;

const keys: Command = {
  name: 'keys',
  summary: 'List API keys',
  options: [
    { name: 'alert', flags: ['--alert'], type: 'flag', help: 'Alert on expired and expiring keys' },
    {
      name: 'maxage',
      flags: ['--maxage'],
      type: 'int',
      default: 7,
      metavar: 'DAYS',
      help: 'Days before expiry to start alerting (7)',
    },
    {
      name: 'timeout',
      flags: ['--timeout'],
      type: 'int',
      default: 86400,
      metavar: 'SECONDS',
      help: 'Seconds before key alerts expire',
    },
    {
      name: 'severity',
      flags: ['-s', '--severity'],
      default: 'warning',
      metavar: 'SEVERITY',
      help: 'Severity of key alerts (warning)',
    },
  ],
  async run(ctx, o) {
    const r = await ctx.http.get<{ keys: ApiKey[] }>('/keys');
    const t = when(ctx);
    listing(ctx, r.keys, [
      { header: 'ID', value: (k) => k.id },
      { header: 'API KEY', value: (k) => k.key },
      { header: 'USER', value: (k) => k.user },
      { header: 'SCOPES', value: (k) => k.scopes },
      { header: 'TEXT', value: (k) => k.text },
      { header: 'EXPIRES', value: (k) => t(k.expireTime) },
      { header: 'STATUS', value: (k) => k.status },
      { header: 'COUNT', value: (k) => k.count },
      { header: 'LAST USED', value: (k) => t(k.lastUsedTime) },
      { header: 'CUSTOMER', value: (k) => k.customer },
    ]);
    if (!o.alert) return;
    const soon = Date.now() + Number(o.maxage) * DAY;
    const failed = await eachReported(
      ctx,
      `Alerting ${r.keys.length} keys`,
      r.keys,
      (k) => k.id,
      async (k) => {
        const expires = Date.parse(k.expireTime);
        const [event, severity, text] =
          k.status === 'expired' || expires <= Date.now()
            ? ['ApiKeyExpired', String(o.severity), `API key expired ${k.expireTime}`]
            : expires <= soon
              ? [
                  'ApiKeyExpiring',
                  String(o.severity),
                  `API key expires in ${Math.ceil((expires - Date.now()) / DAY)} days`,
                ]
              : ['ApiKeyOK', normalSeverity(ctx), 'API key is valid'];
        await ctx.http.post(
          '/alert',
          alertBody({
            resource: k.id,
            event,
            environment: 'Production',
            severity,
            correlate: ['ApiKeyExpired', 'ApiKeyExpiring', 'ApiKeyOK'],
            service: ['Alerta'],
            group: 'System',
            value: k.expireTime,
            text,
            tags: [],
            attributes: { user: k.user, keyText: k.text },
            origin: origin(),
            type: 'apiKeyAlert',
            timeout: o.timeout,
            customer: k.customer,
          }),
        );
      },
    );
    return failed ? 1 : 0;
  },
};

// ---- users --------------------------------------------------------------------------------

const userColumns = (ctx: Context): Column<User>[] => {
  const t = when(ctx);
  return [
    { header: 'ID', value: (u) => u.id },
    { header: 'USER', value: (u) => u.name },
    { header: 'LOGIN', value: (u) => u.login },
    { header: 'EMAIL', value: (u) => u.email },
    { header: 'ROLES', value: (u) => u.roles },
    { header: 'STATUS', value: (u) => u.status },
    { header: 'TEXT', value: (u) => u.text },
    { header: 'CREATED', value: (u) => t(u.createTime) },
    { header: 'LAST UPDATED', value: (u) => t(u.updateTime) },
    { header: 'LAST LOGIN', value: (u) => t(u.lastLogin) },
    { header: 'VERIFIED', value: (u) => u.email_verified },
  ];
};

/** `--password` with no value asks for one (twice, to catch typos), as before. */
async function passwordOf(ctx: Context, given: unknown): Promise<string | null | undefined> {
  if (given === undefined) return undefined;
  if (typeof given === 'string') return given;
  const first = await ctx.prompt('Password: ', true);
  if (ctx.interactive && (await ctx.prompt('Repeat for confirmation: ', true)) !== first) {
    throw new UsageError('the two entered values do not match', 'user');
  }
  return first;
}

const PASSWORD: OptionSpec = {
  name: 'password',
  flags: ['--password'],
  optionalValue: true,
  metavar: 'PASSWORD',
  help: 'Password (asked for when no value is given)',
};

const user: Command = {
  name: 'user',
  summary: 'Create, show, update or delete a user',
  description:
    'Create a user (--email and --password), show one (-i ID), update one (-i ID with changes),\n' +
    "list a user's groups (-i ID --groups) or delete one (-D ID). Roles change only with --role;\n" +
    '--clear-roles removes them all.',
  options: [
    { name: 'id', flags: ['-i', '--id'], metavar: 'ID', help: 'User id' },
    { name: 'name', flags: ['--name'], metavar: 'NAME', help: 'Name of the user' },
    { name: 'email', flags: ['--email'], metavar: 'EMAIL', help: 'Email address (login)' },
    PASSWORD,
    { name: 'status', flags: ['--status'], metavar: 'STATUS', help: 'active or inactive' },
    { name: 'roles', flags: ['--role'], multiple: true, metavar: 'ROLE', help: 'Role; repeat for more' },
    { name: 'clear_roles', flags: ['--clear-roles'], type: 'flag', help: 'Remove every role' },
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'Description of the user' },
    {
      name: 'email_verified',
      flags: ['--email-verified'],
      off: ['--email-not-verified'],
      type: 'bool',
      help: 'Email address verified flag',
    },
    { name: 'groups', flags: ['--groups'], type: 'flag', help: "List the user's groups" },
    DELETE('a user'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string') return answered(ctx, await ctx.http.delete(`/user/${enc(o.delete)}`));
    const roles = strings(o.roles);
    const password = await passwordOf(ctx, o.password);
    if (typeof o.id === 'string') {
      const path = `/user/${enc(o.id)}`;
      if (o.groups) {
        const r = await ctx.http.get<{ groups: Group[] }>(`${path}/groups`);
        return listing(ctx, r.groups, groupColumns);
      }
      const changes: Record<string, unknown> = {};
      for (const k of ['name', 'email', 'status', 'text', 'email_verified'] as const) {
        if (o[k] !== undefined) changes[k] = o[k];
      }
      if (password !== undefined) changes.password = password;
      // Roles only when asked for: an empty list must not strip them (clients.md trap 16).
      if (roles.length) changes.roles = roles;
      if (o.clear_roles) Object.assign(changes, { roles: [], clearRoles: true });
      if (!Object.keys(changes).length) {
        const r = await ctx.http.get<{ user: User }>(path);
        return listing(ctx, [r.user], userColumns(ctx));
      }
      return answered(ctx, await ctx.http.put(path, changes), 'Updated.');
    }
    if (!o.email) throw new UsageError('Need "--email" to create a user.', 'user');
    const r = await ctx.http.post('/user', {
      name: o.name ?? o.email,
      email: o.email,
      password: password ?? (await ctx.prompt('Password: ', true)),
      status: o.status ?? null,
      roles,
      attributes: {},
      text: o.text ?? null,
      email_verified: o.email_verified ?? false,
    });
    created(ctx, r, 'user');
  },
};

const users: Command = {
  name: 'users',
  summary: 'List users',
  options: [
    { name: 'roles', flags: ['--role'], multiple: true, metavar: 'ROLE', help: 'Only users with this role' },
  ],
  async run(ctx, o) {
    const r = await ctx.http.get<{ users: User[] }>(
      '/users',
      strings(o.roles).map((role) => ['roles', role]),
    );
    listing(ctx, r.users, userColumns(ctx));
  },
};

const me: Command = {
  name: 'me',
  summary: 'Update the current user',
  options: [
    { name: 'name', flags: ['--name'], metavar: 'NAME', help: 'Your name' },
    { name: 'email', flags: ['--email'], metavar: 'EMAIL', help: 'Email address' },
    PASSWORD,
    { name: 'status', flags: ['--status'], metavar: 'STATUS', help: 'active or inactive' },
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'Description' },
  ],
  async run(ctx, o) {
    const password = await passwordOf(ctx, o.password);
    const changes: Record<string, unknown> = {};
    for (const k of ['name', 'email', 'status', 'text'] as const) if (o[k] !== undefined) changes[k] = o[k];
    if (password !== undefined) changes.password = password;
    if (!Object.keys(changes).length) throw new UsageError('Nothing to update.', 'me');
    answered(ctx, await ctx.http.put('/user/me', changes), 'Updated.');
  },
};

// ---- customers, permissions, scopes ---------------------------------------------------------

const customer: Command = {
  name: 'customer',
  summary: 'Add or delete a customer lookup',
  options: [
    { name: 'customer', flags: ['--customer'], metavar: 'NAME', help: 'Customer name' },
    {
      name: 'match',
      flags: ['--org', '--group', '--domain', '--role'],
      metavar: 'MATCH',
      help: 'Login, group, domain or role to match',
    },
    DELETE('a customer lookup'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string')
      return answered(ctx, await ctx.http.delete(`/customer/${enc(o.delete)}`));
    if (!o.customer) throw new UsageError('Missing option "--customer".', 'customer');
    if (!o.match)
      throw new UsageError('Missing option "--org" / "--group" / "--domain" / "--role".', 'customer');
    created(ctx, await ctx.http.post('/customer', { customer: o.customer, match: o.match }), 'customer');
  },
};

const customers: Command = {
  name: 'customers',
  summary: 'List customer lookups',
  options: [],
  async run(ctx) {
    const r = await ctx.http.get<{ customers: Customer[] }>('/customers');
    listing(ctx, r.customers, [
      { header: 'ID', value: (c) => c.id },
      // The established client heads the match (a login, group, domain or role) GROUP.
      { header: 'GROUP', value: (c) => c.match },
      { header: 'CUSTOMER', value: (c) => c.customer },
    ]);
  },
};

const perm: Command = {
  name: 'perm',
  summary: 'Add or delete a role-to-permission lookup',
  options: [
    { name: 'role', flags: ['--role'], metavar: 'ROLE', help: 'Role (or group) name' },
    {
      name: 'scopes',
      flags: ['--scope'],
      multiple: true,
      metavar: 'SCOPE',
      help: 'Permission, e.g. write:alerts',
    },
    DELETE('a permission'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string') return answered(ctx, await ctx.http.delete(`/perm/${enc(o.delete)}`));
    if (!o.role) throw new UsageError('Missing option "--role".', 'perm');
    if (!strings(o.scopes).length) throw new UsageError('Missing option "--scope".', 'perm');
    created(ctx, await ctx.http.post('/perm', { match: o.role, scopes: strings(o.scopes) }), 'permission');
  },
};

const perms: Command = {
  name: 'perms',
  summary: 'List role-to-permission lookups',
  options: [
    {
      name: 'scopes',
      flags: ['--scope'],
      multiple: true,
      metavar: 'SCOPE',
      help: 'Only those granting this scope',
    },
  ],
  async run(ctx, o) {
    const r = await ctx.http.get<{ permissions: Permission[] }>(
      '/perms',
      strings(o.scopes).map((s) => ['scopes', s]),
    );
    listing(ctx, r.permissions, [
      { header: 'ID', value: (p) => p.id },
      { header: 'ROLE', value: (p) => p.match },
      { header: 'SCOPES', value: (p) => p.scopes },
    ]);
  },
};

const scopes: Command = {
  name: 'scopes',
  summary: 'List the scopes permissions can grant',
  options: [],
  async run(ctx) {
    const r = await ctx.http.get<{ scopes: string[] }>('/scopes');
    listing(ctx, r.scopes, [{ header: 'SCOPE', value: (s) => s }]);
  },
};

// ---- groups -------------------------------------------------------------------------------

const groupColumns: Column<Group>[] = [
  { header: 'ID', value: (g) => g.id },
  { header: 'NAME', value: (g) => g.name },
  { header: 'USERS', value: (g) => g.count },
  { header: 'DESCRIPTION', value: (g) => g.text },
];

const group: Command = {
  name: 'group',
  summary: 'Create or delete a user group, add and remove its users',
  description:
    '  alerta group --name NAME --text DESCRIPTION    create a group\n' +
    '  alerta group -i GROUP_ID -U USER_ID            add a user\n' +
    '  alerta group -i GROUP_ID --users               list its users\n' +
    '  alerta group -i GROUP_ID -D USER_ID            remove a user\n' +
    '  alerta group -D GROUP_ID                       delete a group',
  options: [
    { name: 'id', flags: ['-i', '--id'], metavar: 'ID', help: 'Group id' },
    { name: 'name', flags: ['--name'], metavar: 'NAME', help: 'Group name' },
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'Description' },
    { name: 'user', flags: ['-U', '--user'], metavar: 'USER_ID', help: 'Add this user to the group' },
    { name: 'users', flags: ['--users'], type: 'flag', help: "List the group's users" },
    {
      name: 'delete',
      flags: ['-D', '--delete'],
      metavar: 'ID',
      help: 'Delete a group, or (with -i) remove a user',
    },
  ],
  async run(ctx, o) {
    const id = typeof o.id === 'string' ? o.id : null;
    if (id && typeof o.user === 'string') {
      // The established client sends the body `null` here (clients.md trap 10).
      const r = await ctx.http.put(`/group/${enc(id)}/user/${enc(o.user)}`, null);
      return answered(ctx, r);
    }
    if (id && typeof o.delete === 'string') {
      return answered(ctx, await ctx.http.delete(`/group/${enc(id)}/user/${enc(o.delete)}`));
    }
    if (o.users) {
      if (!id) throw new UsageError('Missing option "-i" / "--id"', 'group');
      const r = await ctx.http.get<{ users: GroupMember[] }>(`/group/${enc(id)}/users`);
      return listing(ctx, r.users, [
        { header: 'ID', value: (u) => u.id },
        { header: 'USER', value: (u) => u.name },
        { header: 'LOGIN', value: (u) => u.login },
        { header: 'STATUS', value: (u) => u.status },
      ]);
    }
    if (typeof o.delete === 'string') return answered(ctx, await ctx.http.delete(`/group/${enc(o.delete)}`));
    if (!o.name) throw new UsageError('Missing option "--name".', 'group');
    created(ctx, await ctx.http.post('/group', { name: o.name, text: o.text ?? null }), 'group');
  },
};

const groups: Command = {
  name: 'groups',
  summary: 'List user groups',
  options: [],
  async run(ctx) {
    const r = await ctx.http.get<{ groups: Group[] }>('/groups');
    listing(ctx, r.groups, groupColumns);
  },
};

export const adminCommands: Command[] = [
  blackout,
  blackouts,
  heartbeat,
  heartbeats,
  key,
  keys,
  revoke,
  user,
  users,
  me,
  customer,
  customers,
  perm,
  perms,
  scopes,
  group,
  groups,
];
