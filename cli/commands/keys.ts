import type { ApiKey } from '../../shared/keys.ts';
import { alertOption, strings, UsageError } from '../args.ts';
import { answered, listFrom, type Command } from '../context.ts';
import { alertEach, created, DELETE, enc, normalSeverity, origin, when } from './admin-common.ts';
import { alertBody } from './alerts.ts';

/** alerta key, keys, revoke: API keys. */

export const key: Command = {
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
    alertOption('customer'),
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

export const revoke: Command = {
  name: 'revoke',
  summary: 'Revoke an API key',
  options: [{ name: 'api_key', flags: ['-K', '--api-key'], metavar: 'KEY', help: 'The key to revoke' }],
  async run(ctx, o) {
    if (typeof o.api_key !== 'string') throw new UsageError('Missing option "-K" / "--api-key"', 'revoke');
    answered(ctx, await ctx.http.delete(`/key/${enc(o.api_key)}`));
  },
};

const DAY = 86_400_000;

export const keys: Command = {
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
    alertOption('timeout', 'Seconds before key alerts expire', { default: 86400 }),
    alertOption('severity', 'Severity of key alerts (warning)', { default: 'warning' }),
  ],
  async run(ctx, o) {
    const t = when(ctx);
    const all = await listFrom<ApiKey>(ctx, '/keys', 'keys', [
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
    const failed = await alertEach(
      ctx,
      'keys',
      all,
      (k) => k.id,
      (k) => {
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
        return alertBody({
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
        });
      },
    );
    return failed ? 1 : 0;
  },
};
