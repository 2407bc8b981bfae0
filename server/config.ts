import { existsSync, readFileSync } from 'node:fs';
import { FilterParser } from 'ldapts';
import { z } from 'zod';
import { parsePySettings, PyLiteralError, type PyValue } from './config/py-literal.ts';
import { DestinationsSettingSchema, isForwardingOn, serverName } from './config/destinations.ts';
import { isSecretName } from './secrets.ts';

/**
 * Settings: built-in defaults ← /etc/alertad.conf ← the file named by ALERTA_SVR_CONF_FILE ←
 * environment variables of the same name. Names and defaults follow the established server
 * (../shared/reference/settings.md); the few settings of our own are marked "ours" in README.md.
 */

type Kind = 'bool' | 'int' | 'float' | 'string' | 'list' | 'value';
interface Setting<S extends z.ZodType = z.ZodType> {
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
  DATABASE_POOL_SIZE: int(10, 1, 200),
  MAX_BODY_SIZE: byteSize,
  MAX_URL_LENGTH: int(8192, 256, 1024 * 1024),
  SHUTDOWN_TIMEOUT: int(10, 0, 3600),
  // general
  DEBUG: bool(false),
  BASE_URL: str(''),
  USE_PROXYFIX: bool(false),
  SECRET_KEY: str('changeme'),
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
} satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;
type Values = { readonly [K in SettingName]: z.output<(typeof SETTINGS)[K]['schema']> };

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

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

const TRUE = new Set(['yes', 'on', 'true', 't', '1', 'y']);
const FALSE = new Set(['no', 'off', 'false', 'f', '0', 'n', '']);

/** Turns an environment variable's text into the value its setting expects, or throws a message. */
function fromEnv(kind: Kind, raw: string): unknown {
  const text = raw.trim();
  switch (kind) {
    case 'bool':
      if (TRUE.has(text.toLowerCase())) return true;
      if (FALSE.has(text.toLowerCase())) return false;
      if (text === 'None') return null;
      throw new Error(`expected True or False, got '${raw}'`);
    case 'int':
    case 'float':
      if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
        throw new Error(`expected ${kind === 'int' ? 'an integer' : 'a number'}, got '${raw}'`);
      }
      return Number(text);
    case 'string':
      return text === 'None' ? null : raw;
    case 'list':
      if (text.startsWith('[') || text.startsWith('(')) return parseValue(text);
      return text === '' ? [] : text.split(',').map((s) => s.trim());
    case 'value':
      if (/^[[{('"0-9TFN-]/.test(text)) return parseValue(text);
      return raw;
  }
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const [first] = parsePySettings(`V = ${text}`);
    return first?.value;
  }
}

/** What a start-up error says instead of a secret's value (it would end up in the log). */
const NOT_SHOWN = 'got a value that is not shown (the setting holds a secret)';

export interface LoadOptions {
  /** Defaults to /etc/alertad.conf when it exists. */
  systemFile?: string | null;
}

/** Reads defaults ← settings files ← environment into one frozen, validated object. */
export function loadConfig(env: Record<string, string | undefined>, options: LoadOptions = {}): Config {
  const problems: string[] = [];
  const raw = new Map<string, { value: unknown; source: string }>();
  const extra: Record<string, PyValue> = {};

  const systemFile =
    options.systemFile === undefined
      ? existsSync('/etc/alertad.conf')
        ? '/etc/alertad.conf'
        : null
      : options.systemFile;
  for (const file of [systemFile, env.ALERTA_SVR_CONF_FILE || null]) {
    if (!file) continue;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      problems.push(
        `ALERTA_SVR_CONF_FILE: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`,
      );
      continue;
    }
    try {
      for (const { name, value, line } of parsePySettings(text)) {
        if (name in SETTINGS) raw.set(name, { value, source: `${file}:${line}` });
        else extra[name] = value;
      }
    } catch (err) {
      if (!(err instanceof PyLiteralError)) throw err;
      problems.push(`${file}:${err.line}:${err.column}: ${err.message}`);
    }
  }

  applyLegacyEnv(env, raw, problems);
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, Setting][]) {
    const text = env[name];
    if (text === undefined) continue;
    try {
      raw.set(name, { value: fromEnv(def.kind, text), source: 'env' });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      problems.push(`${name} (environment): ${isSecretName(name) ? NOT_SHOWN : message}`);
    }
  }

  const values: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, Setting][]) {
    const given = raw.get(name);
    const parsed = def.schema.safeParse(given ? given.value : def.default);
    sources[name] = given?.source ?? 'default';
    if (parsed.success) values[name] = parsed.data;
    else {
      const where = given?.source === 'env' ? 'environment' : (given?.source ?? 'default');
      // Settings checked in depth (FWD_DESTINATIONS) explain each problem themselves.
      const custom = parsed.error.issues.filter((i) => i.code === 'custom').map((i) => i.message);
      if (custom.length) problems.push(...custom.map((m) => `${name} (${where}): ${m}`));
      else {
        const got = isSecretName(name) ? NOT_SHOWN : `got ${describe(given?.value)}`;
        problems.push(`${name} (${where}): expected ${def.expected}, ${got}`);
      }
    }
  }
  const warnings: string[] = [];
  if (problems.length === 0) {
    const checked = crossChecks(values as Values);
    problems.push(...checked.problems);
    warnings.push(...checked.warnings);
  }
  if (problems.length) throw new ConfigError(problems);

  return deepFreeze({ ...values, sources, extra, warnings }) as unknown as Config;
}

/** Alerta's older names for the same settings, read only when the new name is not set. */
function applyLegacyEnv(
  env: Record<string, string | undefined>,
  raw: Map<string, { value: unknown; source: string }>,
  problems: string[],
) {
  if (!env.DATABASE_URL) {
    const legacy = env.POSTGRES_URI;
    if (legacy) raw.set('DATABASE_URL', { value: legacy, source: 'env' });
  }
  const hours: [string, SettingName][] = [
    ['HK_EXPIRED_DELETE_HRS', 'DELETE_EXPIRED_AFTER'],
    ['DEFAULT_EXPIRED_DELETE_HRS', 'DELETE_EXPIRED_AFTER'],
    ['HK_INFO_DELETE_HRS', 'DELETE_INFO_AFTER'],
    ['DEFAULT_INFO_DELETE_HRS', 'DELETE_INFO_AFTER'],
  ];
  for (const [name, target] of hours) {
    const text = env[name];
    if (text === undefined || raw.get(target)?.source === 'env') continue;
    if (!/^\d+$/.test(text.trim())) problems.push(`${name} (environment): expected a whole number of hours`);
    else raw.set(target, { value: Number(text) * 3600, source: 'env' });
  }
}

/**
 * Settings that do not fit together. What cannot work, or what the established server refuses too,
 * stops start-up (`problems`); what it starts with, however unwise, starts here too and is
 * reported (`warnings`: the log, /management/status and the UI, for administrators).
 */
function crossChecks(c: Values): { problems: string[]; warnings: string[] } {
  const problems: string[] = [];
  const warnings: string[] = [];
  // Customer views without logins cannot separate customers: every anonymous caller sees them all.
  // The established server refuses this too (settings.md, startup checks).
  if (c.CUSTOMER_VIEWS && !c.AUTH_REQUIRED) problems.push('CUSTOMER_VIEWS: requires AUTH_REQUIRED = True');
  if (!c.SECRET_KEY) {
    // jose will not sign with an empty key: logins cannot work.
    if (c.AUTH_REQUIRED)
      problems.push('SECRET_KEY: must not be empty when AUTH_REQUIRED = True (it signs tokens)');
    else warnings.push('SECRET_KEY: is empty, so logins cannot issue tokens; set a secret of your own');
  } else if (c.AUTH_REQUIRED && c.SECRET_KEY === 'changeme') {
    warnings.push(
      "SECRET_KEY: is the published default 'changeme' while AUTH_REQUIRED = True: anyone can sign " +
        'tokens with it; set a random secret of your own (the same on every instance)',
    );
  }
  if (c.CUSTOMER_VIEWS && c.ADMIN_USERS.length === 0) {
    warnings.push(
      "CUSTOMER_VIEWS: ADMIN_USERS is empty, so no login sees every customer unless a customer lookup maps it to '*'",
    );
  }
  for (const cred of c.HMAC_AUTH_CREDENTIALS) {
    if (!['sha1', 'sha256'].includes(cred.algorithm)) {
      problems.push(
        `HMAC_AUTH_CREDENTIALS: key '${cred.key}' has algorithm '${cred.algorithm}'; use sha256 or sha1`,
      );
    }
  }
  for (const scope of c.CUSTOM_SCOPES) {
    if (!/^(admin|write|read|delete):\w+(\.\w+)?$/.test(scope)) {
      problems.push(
        `CUSTOM_SCOPES: '${scope}' is not a scope (action:resource, action one of read, write, admin, delete)`,
      );
    }
  }
  if (
    !c.ALLOWED_ENVIRONMENTS.some((p) => p === c.DEFAULT_ENVIRONMENT || fullyMatches(p, c.DEFAULT_ENVIRONMENT))
  ) {
    problems.push(
      `DEFAULT_ENVIRONMENT: '${c.DEFAULT_ENVIRONMENT}' is not one of ALLOWED_ENVIRONMENTS (${c.ALLOWED_ENVIRONMENTS.join(', ')})`,
    );
  }
  if (c.BASE_URL && !/^https?:\/\/[^/]/.test(c.BASE_URL)) {
    problems.push(`BASE_URL: expected an http(s) URL, got '${c.BASE_URL}'`);
  }
  if (c.DATABASE_URL && !/^postgres(ql)?:\/\//.test(c.DATABASE_URL)) {
    problems.push('DATABASE_URL: expected a postgres:// or postgresql:// URL');
  }
  if (c.REDIS_URL && !/^rediss?:\/\//.test(c.REDIS_URL)) {
    problems.push('REDIS_URL: expected a redis:// or rediss:// URL');
  }
  if (c.AUTH_PROVIDER === 'ldap') problems.push(...ldapChecks(c));
  problems.push(...forwardingChecks(c));
  problems.push(...ssoChecks(c));
  return { problems, warnings };
}

/** python-ldap options LDAP_CONFIG may carry; docs/auth-providers.md says what each does here. */
export const LDAP_CONFIG_OPTIONS = [
  'OPT_NETWORK_TIMEOUT',
  'OPT_TIMEOUT',
  'OPT_X_TLS_CACERTFILE',
  'OPT_X_TLS_REQUIRE_CERT',
  'OPT_REFERRALS',
  'OPT_PROTOCOL_VERSION',
];

/** LDAP settings that would only fail at the first login fail at start-up instead. */
function ldapChecks(c: Values): string[] {
  const problems: string[] = [];
  if (!/^ldaps?:\/\/[^/]/.test(c.LDAP_URL)) {
    problems.push(
      `LDAP_URL: expected an ldap:// or ldaps:// URL with AUTH_PROVIDER = 'ldap', got '${c.LDAP_URL}'`,
    );
  }
  if (!c.LDAP_USER_FILTER && Object.keys(c.LDAP_DOMAINS).length === 0) {
    problems.push('LDAP_DOMAINS: needs at least one domain (or set LDAP_USER_FILTER to search for users)');
  }
  for (const [domain, template] of Object.entries(c.LDAP_DOMAINS)) {
    if (!template.includes('%s') && !template.includes('{}')) {
      problems.push(`LDAP_DOMAINS: the DN template of '${domain}' needs %s or {} where the user name goes`);
    }
  }
  const filter = (name: string, text: string, allowed: string[], base: string) => {
    const unknown = [...text.matchAll(/\{(\w*)\}/g)].map((m) => m[1]).filter((p) => !allowed.includes(p!));
    if (unknown.length) {
      problems.push(
        `${name}: unknown placeholder {${unknown[0]}} (use ${allowed.map((a) => `{${a}}`).join(', ')})`,
      );
      return;
    }
    try {
      FilterParser.parseString(text.replace(/\{\w+\}/g, 'x'));
    } catch {
      problems.push(`${name}: '${text}' is not an LDAP filter`);
    }
    if (!base) problems.push(`${name}: needs a base DN to search under (LDAP_BASEDN)`);
  };
  const groupFields = ['username', 'email', 'userdn'];
  const usersBase = c.LDAP_USER_BASEDN || c.LDAP_BASEDN || Object.values(c.LDAP_DOMAINS_BASEDN)[0] || '';
  if (c.LDAP_USER_FILTER) filter('LDAP_USER_FILTER', c.LDAP_USER_FILTER, ['username'], usersBase);
  if (c.LDAP_GROUP_FILTER) {
    filter('LDAP_GROUP_FILTER', c.LDAP_GROUP_FILTER, groupFields, c.LDAP_GROUP_BASEDN || c.LDAP_BASEDN);
  }
  for (const [domain, text] of Object.entries(c.LDAP_DOMAINS_GROUP)) {
    const own = Object.entries(c.LDAP_DOMAINS_BASEDN).find(([d]) => d.toLowerCase() === domain.toLowerCase());
    const base = own?.[1] || c.LDAP_GROUP_BASEDN || c.LDAP_BASEDN;
    filter(`LDAP_DOMAINS_GROUP['${domain}']`, text, groupFields, base);
  }
  const caFiles = {
    LDAP_CACERT: c.LDAP_CACERT,
    'LDAP_CONFIG.OPT_X_TLS_CACERTFILE': c.LDAP_CONFIG.OPT_X_TLS_CACERTFILE,
  };
  for (const [name, file] of Object.entries(caFiles)) {
    if (typeof file === 'string' && file && !existsSync(file))
      problems.push(`${name}: no such file '${file}'`);
  }
  for (const [key, v] of Object.entries(c.LDAP_CONFIG)) {
    if (!LDAP_CONFIG_OPTIONS.includes(key)) {
      problems.push(
        `LDAP_CONFIG: unsupported option '${key}' (supported: ${LDAP_CONFIG_OPTIONS.join(', ')})`,
      );
    } else if (
      key === 'OPT_X_TLS_CACERTFILE' ? typeof v !== 'string' : typeof v !== 'number' && typeof v !== 'boolean'
    ) {
      problems.push(`LDAP_CONFIG: ${key} has the wrong type, got ${describe(v)}`);
    }
  }
  if (c.LDAP_BIND_USERNAME && !c.LDAP_BIND_PASSWORD) {
    problems.push('LDAP_BIND_PASSWORD: needed with LDAP_BIND_USERNAME');
  }
  return problems;
}

/** An ALLOWED_ENVIRONMENTS entry is a regex that must match the whole name (a bad one never matches). */
function fullyMatches(pattern: string, name: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`).test(name);
  } catch {
    return false;
  }
}

/** Forwarding needs this server's name, which peers see in loop headers (spec "Events" 5). */
function forwardingChecks(c: Values): string[] {
  const problems: string[] = [];
  if (c.FWD_RETRY_MAX_DELAY < c.FWD_RETRY_DELAY) {
    problems.push('FWD_RETRY_MAX_DELAY: must not be below FWD_RETRY_DELAY');
  }
  if (!isForwardingOn(c)) return problems;
  if (!c.BASE_URL) {
    problems.push(
      'BASE_URL: needed when the forwarder plugin has FWD_DESTINATIONS (loop protection names this ' +
        'server by it; it must be the URL the peers use for this server)',
    );
    return problems;
  }
  const own = serverName(c.BASE_URL);
  for (const [url] of c.FWD_DESTINATIONS) {
    if (serverName(url) === own) problems.push(`FWD_DESTINATIONS: '${url}' is this server's own BASE_URL`);
  }
  return problems;
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** A password-free rendering of the database URL for logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

const OAUTH_PROVIDERS = ['openid', 'gitlab', 'keycloak', 'github'];
const PROVIDERS = ['basic', 'ldap', 'saml2', ...OAUTH_PROVIDERS];
/** Alerta's OpenID Connect providers we serve through the generic one, with their issuer. */
const OIDC_ALIASES: Record<string, string> = {
  azure: 'https://login.microsoftonline.com/<tenant>/v2.0',
  google: 'https://accounts.google.com',
  cognito: 'https://cognito-idp.<region>.amazonaws.com/<user pool id>',
};
const TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'none'];

/** OAuth, OpenID Connect and SAML settings that would only fail at the first login (docs/auth-sso.md). */
function ssoChecks(c: Values): string[] {
  const problems: string[] = [];
  const isHttp = (url: string | null) => url !== null && /^https?:\/\/[^/]/.test(url);
  const provider = c.AUTH_PROVIDER;
  if (OIDC_ALIASES[provider]) {
    problems.push(
      `AUTH_PROVIDER: '${provider}' is served by the generic provider: set AUTH_PROVIDER = 'openid' and ` +
        `OIDC_ISSUER_URL = '${OIDC_ALIASES[provider]}'`,
    );
  } else if (!PROVIDERS.includes(provider)) {
    problems.push(`AUTH_PROVIDER: expected one of ${PROVIDERS.join(', ')}, got '${provider}'`);
  }
  if (OAUTH_PROVIDERS.includes(provider) && !c.OAUTH2_CLIENT_ID) {
    problems.push(`OAUTH2_CLIENT_ID: needed with AUTH_PROVIDER = '${provider}'`);
  }
  if (provider === 'openid' && !isHttp(c.OIDC_ISSUER_URL)) {
    problems.push(`OIDC_ISSUER_URL: expected the issuer's http(s) URL, got ${describe(c.OIDC_ISSUER_URL)}`);
  }
  if (provider === 'keycloak' && (!isHttp(c.KEYCLOAK_URL) || !c.KEYCLOAK_REALM)) {
    problems.push('KEYCLOAK_URL, KEYCLOAK_REALM: both needed with AUTH_PROVIDER = keycloak');
  }
  if (provider === 'gitlab' && !isHttp(c.GITLAB_URL)) problems.push('GITLAB_URL: expected an http(s) URL');
  if (provider === 'github') {
    if (!isHttp(c.GITHUB_URL)) problems.push('GITHUB_URL: expected an http(s) URL');
    if (c.OAUTH2_CLIENT_ID.split(',').length !== c.OAUTH2_CLIENT_SECRET.split(',').length) {
      problems.push('OAUTH2_CLIENT_SECRET: needs one secret per client id in OAUTH2_CLIENT_ID');
    }
  }
  for (const m of c.OIDC_TOKEN_AUTH_METHODS) {
    if (!TOKEN_AUTH_METHODS.includes(m)) {
      problems.push(`OIDC_TOKEN_AUTH_METHODS: unknown method '${m}' (use ${TOKEN_AUTH_METHODS.join(', ')})`);
    }
  }
  if (provider === 'saml2') problems.push(...samlChecks(c));
  return problems;
}

/** Where SAML2_CONFIG.metadata and SAML2_METADATA_URL say the identity provider's metadata is. */
export function samlMetadataSources(c: Pick<Config, 'SAML2_CONFIG' | 'SAML2_METADATA_URL'>) {
  const m = c.SAML2_CONFIG.metadata;
  const sources = { files: [] as string[], urls: [] as string[], inline: [] as string[] };
  if (typeof m === 'string') (m.trim().startsWith('<') ? sources.inline : sources.files).push(m);
  else if (m) {
    sources.files.push(...(m.local ?? []));
    sources.urls.push(...(m.remote ?? []).map((r) => r.url));
    sources.inline.push(...(m.inline ?? []));
  }
  if (c.SAML2_METADATA_URL) sources.urls.push(c.SAML2_METADATA_URL);
  return sources;
}

function samlChecks(c: Values): string[] {
  const problems: string[] = [];
  const { key_file: keyFile, cert_file: certFile } = c.SAML2_CONFIG;
  if (!c.BASE_URL) {
    problems.push(
      "BASE_URL: needed with AUTH_PROVIDER = 'saml2' (the identity provider posts to <BASE_URL>/auth/saml)",
    );
  }
  const { files, urls, inline } = samlMetadataSources(c);
  if (files.length + urls.length + inline.length === 0) {
    problems.push("SAML2_CONFIG: needs 'metadata' (the identity provider's), or set SAML2_METADATA_URL");
  }
  for (const url of urls) {
    if (!/^https?:\/\/[^/]/.test(url)) problems.push(`SAML2 metadata: expected an http(s) URL, got '${url}'`);
  }
  if (Boolean(keyFile) !== Boolean(certFile)) {
    problems.push(
      'SAML2_CONFIG: key_file and cert_file go together (the key signs, the certificate is published)',
    );
  }
  const named = [...files.map((f) => ['metadata', f]), ['key_file', keyFile], ['cert_file', certFile]];
  for (const [name, file] of named) {
    if (file && !existsSync(file)) problems.push(`SAML2_CONFIG: ${name} file '${file}' does not exist`);
  }
  return problems;
}
