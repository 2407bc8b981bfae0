import { z } from 'zod';
import { DestinationsSettingSchema } from './destinations.ts';
import { NOTIFICATION_SETTINGS } from './notification-settings.ts';
import type { PyValue } from './py-literal.ts';

/**
 * Settings: built-in defaults ← /etc/alertad.conf ← the file named by ALERTA_SVR_CONF_FILE ←
 * environment variables of the same name. Names and defaults follow the established server
 * (docs/settings.md lists them, ours marked); README.md explains the ones that shape the server.
 */

export type Kind = 'bool' | 'int' | 'float' | 'string' | 'list' | 'value';
export interface Setting<S extends z.ZodType = z.ZodType> {
  kind: Kind;
  schema: S;
  default: z.infer<S>;
  expected: string;
}

const setting = <S extends z.ZodType>(
  kind: Kind,
  schema: S,
  def: z.infer<S>,
  expected: string,
): Setting<S> => ({
  kind,
  schema,
  default: def,
  expected,
});
const bool = (d: boolean) => setting('bool', z.boolean(), d, 'True or False');
const int = (d: number, min = 0, max = 2 ** 31 - 1) =>
  setting('int', z.number().int().min(min).max(max), d, `an integer from ${min} to ${max}`);
const str = (d: string) => setting('string', z.string(), d, 'a string');
const optStr = () => setting('string', z.string().nullable(), null as string | null, 'a string or None');
const list = (d: string[]) => setting('list', z.array(z.string()), d, 'a list of strings');
const dict = (d: Record<string, unknown> = {}) =>
  setting('value', z.record(z.string(), z.unknown()), d, 'a dict');
const value = <S extends z.ZodType>(schema: S, d: z.infer<S>, expected: string) =>
  setting('value', schema, d, expected);

const SEVERITY_NAMES = z.string().nullable();
const byteSize = setting(
  'string',
  z
    .union([z.number().int().positive(), z.string().regex(/^\d+(\.\d+)?\s*[kKmMgG]?[bB]?$/)])
    .transform(parseByteSize),
  2 * 1024 * 1024,
  'a size such as 2097152, 512k or 2M',
);

function parseByteSize(v: number | string): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+(?:\.\d+)?)\s*([kKmMgG]?)/.exec(v);
  const n = Number(m?.[1] ?? 0);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m?.[2] ?? '').toLowerCase()] ?? 1;
  return Math.round(n * unit);
}

/** A CSP source for frame-ancestors: an origin (the scheme and `*.` optional), `self`, `none` or `*`. */
const FRAME_SOURCE =
  /^('?self'?|'?none'?|\*|[a-z][a-z0-9+.-]*:|([a-z][a-z0-9+.-]*:\/\/)?(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:(\d{1,5}|\*))?\/?)$/i;

export const SETTINGS = {
  // ours: process and layout
  PORT: int(8080, 0, 65535),
  HOST: str('0.0.0.0'),
  API_PREFIX: setting(
    'string',
    z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]*$/)
      .transform((p) => (p === '/' ? '' : p.replace(/\/+$/, ''))),
    '/api',
    'a path such as /api or /',
  ),
  DATA_DIR: str('./data'),
  REDIS_URL: str(''),
  BUS_CHANNEL: value(z.string().min(1).max(200), 'alertwall.events', 'a Redis channel name'),
  /** Changes held while Redis is unreachable, in bytes of JSON; past it the oldest go and every screen reloads. */
  BUS_OUTBOX_SIZE: {
    ...byteSize,
    default: 64 * 1024 * 1024,
    expected: 'a size such as 67108864, 64M or 512k',
  },
  DATABASE_POOL_SIZE: int(10, 1, 200),
  MAX_BODY_SIZE: byteSize,
  MAX_URL_LENGTH: int(8192, 256, 1024 * 1024),
  SHUTDOWN_TIMEOUT: int(10, 0, 3600),
  // general
  DEBUG: bool(false),
  BASE_URL: str(''),
  USE_PROXYFIX: bool(false),
  SECRET_KEY: str('changeme'),
  // ours: receiver secrets at rest (docs/operations.md, "Rotating the secrets key"); the first seals
  SECRETS_KEYS: setting(
    'list',
    z.array(z.string().min(1)),
    [] as string[],
    'a list of non-empty strings (the first encrypts, all decrypt)',
  ),
  SERVER_VERSION: value(z.enum(['full', 'major', 'off']), 'full', "'full', 'major' or 'off'"),
  LOG_LEVEL: value(
    z
      .string()
      .transform((l) => l.toLowerCase())
      .pipe(z.enum(['debug', 'info', 'warning', 'warn', 'error', 'critical', 'fatal', 'silent'])),
    'info',
    'one of DEBUG, INFO, WARNING, ERROR, CRITICAL, SILENT',
  ),
  LOG_HANDLERS: list(['console']),
  LOG_FORMAT: str('json'),
  // database
  DATABASE_URL: str(''),
  DATABASE_NAME: optStr(),
  DATABASE_SCHEMA: value(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), 'public', 'a schema name'),
  DATABASE_RAISE_ON_ERROR: bool(true),
  // API behaviour
  ALARM_MODEL: value(z.enum(['ALERTA', 'ISA_18_2']), 'ALERTA', "'ALERTA' or 'ISA_18_2'"),
  DEFAULT_PAGE_SIZE: int(1000, 1, 1_000_000),
  QUERY_LIMIT: int(1000, 1, 1_000_000),
  HISTORY_LIMIT: int(100, 1, 10_000),
  HISTORY_ON_VALUE_CHANGE: bool(true),
  DEFAULT_FIELD: str('text'),
  BULK_QUERY_LIMIT: int(100_000, 1, 10_000_000),
  BULK_SYNC_LIMIT: int(1000, 0, 100_000),
  ACTIONS: list([]),
  // severity and colours
  SEVERITY_MAP: value(z.record(z.string(), z.number().int()), {}, 'a dict of severity name to integer code'),
  DEFAULT_NORMAL_SEVERITY: setting('string', SEVERITY_NAMES, null, 'a severity name or None'),
  DEFAULT_INFORM_SEVERITY: setting('string', SEVERITY_NAMES, null, 'a severity name or None'),
  DEFAULT_PREVIOUS_SEVERITY: setting('string', SEVERITY_NAMES, null, 'a severity name or None'),
  COLOR_MAP: dict(),
  // timeouts and housekeeping
  DEFAULT_TIMEOUT: int(86400),
  ALERT_TIMEOUT: int(86400),
  HEARTBEAT_TIMEOUT: int(86400),
  HEARTBEAT_MAX_LATENCY: int(2000),
  ACK_TIMEOUT: int(0),
  SHELVE_TIMEOUT: int(7200),
  DELETE_EXPIRED_AFTER: int(7200),
  DELETE_INFO_AFTER: int(43200),
  HOUSEKEEPING_INTERVAL: int(60, 0, 86_400),
  SOCKET_PATH: str(''),
  LIVE_BUFFER_SIZE: int(10_000, 100, 10_000_000),
  LIVE_SLOW_SOCKET_PACKETS: int(256, 1, 1_000_000),
  METRICS_PREFIX: value(z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/), 'service', 'a Prometheus name prefix'),
  // authentication and authorisation
  AUTH_REQUIRED: bool(false),
  AUTH_PROVIDER: str('basic'),
  ADMIN_USERS: list([]),
  ADMIN_PASSWORD: optStr(),
  ADMIN_KEY: optStr(),
  ADMIN_KEY_MAXAGE: int(315_360_000),
  DEFAULT_ADMIN_ROLE: str('admin'),
  ADMIN_ROLES: list(['admin']),
  DEFAULT_USER_ROLE: str('user'),
  USER_ROLES: list(['user']),
  USER_DEFAULT_SCOPES: list(['read', 'write']),
  DEFAULT_GUEST_ROLE: str('guest'),
  GUEST_ROLES: list(['guest']),
  GUEST_DEFAULT_SCOPES: list(['read:alerts']),
  CUSTOM_SCOPES: list([]),
  DELETE_SCOPES: list([]),
  CUSTOMER_VIEWS: bool(false),
  ALLOW_READONLY: bool(false),
  READONLY_SCOPES: list(['read']),
  BASIC_AUTH_REALM: str('Alerta'),
  SIGNUP_ENABLED: bool(true),
  EMAIL_VERIFICATION: bool(false),
  TOKEN_EXPIRE_DAYS: int(14),
  API_KEY_EXPIRE_DAYS: int(365),
  HMAC_AUTH_CREDENTIALS: value(
    z.array(z.object({ key: z.string(), secret: z.string(), algorithm: z.string().default('sha256') })),
    [],
    'a list of dicts with key, secret and algorithm',
  ),
  AUTH_PROXY: bool(false),
  AUTH_PROXY_USER_HEADER: str('X-Proxy-User'),
  AUTH_PROXY_ROLES_HEADER: str('X-Proxy-Roles'),
  AUTH_PROXY_ROLES_SEPARATOR: str(','),
  AUTH_PROXY_AUTO_SIGNUP: bool(true),
  OAUTH2_CLIENT_ID: str(''),
  OAUTH2_CLIENT_SECRET: str(''),
  AZURE_TENANT: str('common'),
  AWS_REGION: str('us-east-1'),
  COGNITO_USER_POOL_ID: optStr(),
  COGNITO_DOMAIN: optStr(),
  GITHUB_URL: str('https://github.com'),
  GITLAB_URL: str('https://gitlab.com'),
  KEYCLOAK_URL: optStr(),
  KEYCLOAK_REALM: optStr(),
  OIDC_AUTH_URL: optStr(),
  ALLOWED_EMAIL_DOMAINS: list(['*']),
  // OAuth 2.0, OpenID Connect and SAML 2.0 (docs/auth-sso.md)
  ALLOWED_GITHUB_ORGS: list(['*']),
  ALLOWED_GITLAB_GROUPS: list(['*']),
  ALLOWED_KEYCLOAK_ROLES: list(['*']),
  OIDC_ISSUER_URL: optStr(),
  OIDC_LOGOUT_URL: optStr(),
  OIDC_TOKEN_AUTH_METHODS: list(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']),
  OIDC_VERIFY_TOKEN: bool(false),
  OIDC_ROLE_CLAIM: str('roles'),
  OIDC_GROUP_CLAIM: str('groups'),
  ALLOWED_OIDC_ROLES: list(['*']),
  OIDC_LINK_USER_EMAIL: bool(true),
  SAML2_ENTITY_ID: optStr(),
  SAML2_METADATA_URL: optStr(),
  SAML2_USER_NAME_FORMAT: str('{givenName} {surname}'),
  SAML2_EMAIL_ATTRIBUTE: str('emailAddress'),
  SAML2_CONFIG: value(
    z
      .object({
        metadata: z
          .union([
            z.string(),
            z.object({
              local: z.array(z.string()).optional(),
              remote: z.array(z.object({ url: z.string() })).optional(),
              inline: z.array(z.string()).optional(),
            }),
          ])
          .optional(),
        key_file: z.string().optional(),
        cert_file: z.string().optional(),
      })
      .catchall(z.unknown()),
    {},
    "a dict with metadata ({'local': [file]} or {'remote': [{'url': url}]}), key_file and cert_file",
  ),
  ALLOWED_SAML2_GROUPS: list(['*']),
  // LDAP (docs/auth-providers.md)
  LDAP_URL: str(''),
  LDAP_TIMEOUT: int(-1, -1, 3600),
  LDAP_BASEDN: str(''),
  LDAP_CACERT: str(''),
  LDAP_ALLOW_SELF_SIGNED_CERT: bool(false),
  LDAP_DOMAINS: value(z.record(z.string(), z.string()), {}, 'a dict of domain to user DN template'),
  LDAP_DOMAINS_BASEDN: value(z.record(z.string(), z.string()), {}, 'a dict of domain to base DN'),
  LDAP_DOMAINS_GROUP: value(z.record(z.string(), z.string()), {}, 'a dict of domain to group filter'),
  LDAP_BIND_USERNAME: str(''),
  LDAP_BIND_PASSWORD: str(''),
  LDAP_USER_BASEDN: str(''),
  LDAP_USER_FILTER: str(''),
  LDAP_USER_NAME_ATTR: str('cn'),
  LDAP_USER_EMAIL_ATTR: str('mail'),
  LDAP_USE_EMAIL_DOMAIN_WHITELIST: bool(true),
  LDAP_GROUP_BASEDN: str(''),
  LDAP_GROUP_FILTER: str(''),
  LDAP_GROUP_NAME_ATTR: str('dn'),
  LDAP_DEFAULT_DOMAIN: str(''),
  LDAP_CONFIG: dict(),
  ALLOWED_LDAP_GROUPS: list(['*']),
  // audit
  AUDIT_TRAIL: list(['admin']),
  AUDIT_LOG: setting('bool', z.boolean().nullable(), null, 'True, False or None'),
  AUDIT_LOG_REDACT: bool(true),
  AUDIT_LOG_JSON: bool(false),
  AUDIT_URL: optStr(),
  // CORS
  // Alerta's third default is `https?://\w*\.?local\.alerta\.io:?\d*/?.*`, whose trailing `.*` also
  // admits `local.alerta.io.evil.example`; an Origin has no path, so ours ends at the port.
  CORS_ORIGINS: list([
    'http://localhost',
    'http://localhost:8000',
    '^https?://(\\w+\\.)?local\\.alerta\\.io(:\\d+)?$',
  ]),
  CORS_ALLOW_HEADERS: list(['Content-Type', 'Authorization', 'Access-Control-Allow-Origin', 'X-Request-ID']),
  CORS_SUPPORTS_CREDENTIALS: bool(false),
  // ours: who may show the UI and the API in a frame (docs/operations.md); empty = nobody
  FRAME_ANCESTORS: setting(
    'list',
    z.array(
      z
        .string()
        .trim()
        .regex(FRAME_SOURCE)
        .transform((s) => (/^'?(self|none)'?$/i.test(s) ? `'${s.replace(/'/g, '').toLowerCase()}'` : s)),
    ),
    [],
    "a list of origins allowed to frame the pages (https://grafana.example.com, https://*.example.com, 'self', *)",
  ),
  // web console (returned by /config)
  SITE_LOGO_URL: str(''),
  COLUMNS: list([
    'severity',
    'status',
    'lastReceiveTime',
    'timeoutLeft',
    'duplicateCount',
    'customer',
    'environment',
    'service',
    'resource',
    'event',
    'value',
    'text',
  ]),
  SORT_LIST_BY: list(['severity', 'lastReceiveTime']),
  DEFAULT_FILTER: dict({ status: ['open', 'ack'] }),
  AUTO_REFRESH_INTERVAL: int(5000),
  DATE_FORMAT_LONG_DATE: str('ddd D MMM, YYYY HH:mm:ss.SSS Z'),
  DATE_FORMAT_MEDIUM_DATE: str('ddd D MMM HH:mm'),
  DATE_FORMAT_SHORT_TIME: str('HH:mm'),
  DEFAULT_AUDIO_FILE: optStr(),
  CLIPBOARD_TEMPLATE: str(''),
  ASI_SEVERITY: list(['critical', 'major', 'minor', 'warning', 'indeterminate', 'informational']),
  ASI_QUERIES: value(
    z.array(z.object({ text: z.string(), query: z.unknown() })),
    [
      { text: 'Production', query: [['environment', 'Production']] },
      { text: 'Development', query: [['environment', 'Development']] },
      { text: 'Heartbeats', query: { q: 'event:Heartbeat' } },
      { text: 'Misc.', query: 'group=Misc' },
    ],
    'a list of dicts with text and query',
  ),
  DEFAULT_FONT: dict({
    'font-family': '"Sintony", Arial, sans-serif',
    'font-size': '13px',
    'font-weight': 500,
  }),
  GOOGLE_TRACKING_ID: optStr(),
  // plugins, blackouts, forwarding, webhooks
  PLUGINS: list(['remote_ip', 'reject', 'heartbeat', 'blackout', 'forwarder']),
  PLUGINS_RAISE_ON_ERROR: bool(true),
  ORIGIN_BLACKLIST: list([]),
  ALLOWED_ENVIRONMENTS: list(['Production', 'Development']),
  HEARTBEAT_EVENTS: list(['Heartbeat']),
  BLACKOUT_DURATION: int(3600),
  NOTIFICATION_BLACKOUT: bool(false),
  BLACKOUT_ACCEPT: list([]),
  FWD_DESTINATIONS: value(DestinationsSettingSchema, [], 'a list of (url, credentials, filter) tuples'),
  // ours: delivery of forwarded events (docs/forwarding.md)
  FWD_MAX_ATTEMPTS: int(10, 1, 1000),
  FWD_RETRY_DELAY: value(z.number().positive().max(3600), 2, 'a number of seconds above 0, at most 3600'),
  FWD_RETRY_MAX_DELAY: value(
    z.number().positive().max(86_400),
    300,
    'a number of seconds above 0, at most 86400',
  ),
  FWD_INLINE_TIMEOUT: value(z.number().min(0).max(60), 2, 'a number of seconds from 0 (off) to 60'),
  DEFAULT_ENVIRONMENT: str('Production'),
  GRAFANA_TAGS_AS_ATTRIBUTES: bool(true),
  GRAFANA_TAGS_AS_TAGS: bool(false),
  TELEGRAM_TOKEN: optStr(),
  TELEGRAM_CHAT_ID: value(
    z
      .union([z.string(), z.number().int()])
      .nullable()
      .transform((v) => (v === null ? null : String(v))),
    null,
    'a chat id (number or string) or None',
  ),
  DASHBOARD_URL: optStr(),
  // ours: webhooks (docs/webhooks.md)
  CUSTOM_WEBHOOKS: list([]),
  TELEGRAM_API_URL: str('https://api.telegram.org'),
  // ours and alerta-contrib's: notifications (docs/notifications.md)
  ...NOTIFICATION_SETTINGS,
} satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;
export type Values = { readonly [K in SettingName]: z.output<(typeof SETTINGS)[K]['schema']> };

export type Config = Values & {
  /** Where each setting's value came from: "default", "env" or "file:line". */
  readonly sources: Readonly<Record<string, string>>;
  /** Settings we do not know (plugins read their own), from the file. */
  readonly extra: Readonly<Record<string, PyValue>>;
  /**
   * Combinations the established server starts with but that are unsafe or only half work: we start
   * too, and say so in the log at start, in /management/status (admins) and in the UI (admins).
   */
  readonly warnings: readonly string[];
};
