import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Ldapts from 'ldapts';
import { isForwardingOn, serverName } from './destinations.ts';
import type { Config, Values } from './settings.ts';

/**
 * Settings that do not fit together. What cannot work, or what the established server refuses too,
 * stops start-up (`problems`); what it starts with, however unwise, starts here too and is
 * reported (`warnings`: the log, /management/status and the UI, for administrators).
 */
export function crossChecks(c: Values): { problems: string[]; warnings: string[] } {
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
  warnings.push(...openProviderWarnings(c));
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
      // ldapts is loaded only when an LDAP filter is set (about 1.7 MB of heap otherwise never spent).
      (createRequire(import.meta.url)('ldapts') as typeof Ldapts).FilterParser.parseString(
        text.replace(/\{\w+\}/g, 'x'),
      );
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

/** A setting's value as a start-up problem quotes it, cut to 60 characters. */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** The established server's OpenID Connect providers whose issuer comes from their own settings. */
const OIDC_ALIASES = ['azure', 'google', 'cognito'];
const OAUTH_PROVIDERS = ['openid', 'gitlab', 'keycloak', 'github', ...OIDC_ALIASES];
const PROVIDERS = ['basic', 'ldap', 'saml2', ...OAUTH_PROVIDERS];
const TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'none'];
/** An Azure tenant as it goes into the issuer URL: a tenant id, a domain, or common and the like. */
const AZURE_TENANT = /^[A-Za-z0-9][A-Za-z0-9.-]*$/;
/** Azure tenants that let people of many directories sign in. */
export const AZURE_MULTI_TENANTS = ['common', 'organizations', 'consumers'];
const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
/** A Cognito user pool id: its region, an underscore, its own id. */
const USER_POOL_ID = /^([a-z]{2}(?:-[a-z]+)+-\d+)_[0-9A-Za-z]+$/;

const isHttp = (url: string | null) => url !== null && /^https?:\/\/[^/]/.test(url);

/** OAuth, OpenID Connect and SAML settings that would only fail at the first login (docs/auth-sso.md). */
function ssoChecks(c: Values): string[] {
  const problems: string[] = [];
  const provider = c.AUTH_PROVIDER;
  if (!PROVIDERS.includes(provider)) {
    problems.push(`AUTH_PROVIDER: expected one of ${PROVIDERS.join(', ')}, got '${provider}'`);
  }
  if (OAUTH_PROVIDERS.includes(provider) && !c.OAUTH2_CLIENT_ID) {
    problems.push(`OAUTH2_CLIENT_ID: needed with AUTH_PROVIDER = '${provider}'`);
  }
  if (provider === 'openid' && !isHttp(c.OIDC_ISSUER_URL)) {
    problems.push(`OIDC_ISSUER_URL: expected the issuer's http(s) URL, got ${describe(c.OIDC_ISSUER_URL)}`);
  }
  if (OIDC_ALIASES.includes(provider)) problems.push(...aliasChecks(c));
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

/**
 * azure, google and cognito: the settings their issuer is made of (docs/auth-sso.md, "Providers"),
 * unless OIDC_ISSUER_URL names the issuer itself.
 */
function aliasChecks(c: Values): string[] {
  const provider = c.AUTH_PROVIDER;
  if (c.OIDC_ISSUER_URL) {
    return isHttp(c.OIDC_ISSUER_URL)
      ? []
      : [`OIDC_ISSUER_URL: expected the issuer's http(s) URL, got ${describe(c.OIDC_ISSUER_URL)}`];
  }
  const problems: string[] = [];
  if (provider === 'azure' && !AZURE_TENANT.test(c.AZURE_TENANT)) {
    problems.push(
      `AZURE_TENANT: expected a tenant id, a domain or ${AZURE_MULTI_TENANTS.join(', ')}, got ${describe(c.AZURE_TENANT)}`,
    );
  }
  if (provider !== 'cognito') return problems;
  if (!AWS_REGION.test(c.AWS_REGION)) {
    problems.push(`AWS_REGION: expected a region such as us-east-1, got ${describe(c.AWS_REGION)}`);
  }
  const pool = c.COGNITO_USER_POOL_ID;
  const region = pool ? USER_POOL_ID.exec(pool)?.[1] : undefined;
  if (!pool) {
    problems.push("COGNITO_USER_POOL_ID: needed with AUTH_PROVIDER = 'cognito' (or set OIDC_ISSUER_URL)");
  } else if (!region) {
    problems.push(
      `COGNITO_USER_POOL_ID: expected a user pool id such as us-east-1_AbC123, got ${describe(pool)}`,
    );
  } else if (region !== c.AWS_REGION && AWS_REGION.test(c.AWS_REGION)) {
    problems.push(
      `COGNITO_USER_POOL_ID: '${pool}' is a user pool of ${region}, but AWS_REGION is '${c.AWS_REGION}'`,
    );
  }
  return problems;
}

/**
 * Providers where anyone with an account may sign in, with no allow-list to narrow it: Google, and
 * Azure's multi-tenant endpoints. The established server starts so; we start and say so.
 */
function openProviderWarnings(c: Values): string[] {
  const open = c.ALLOWED_EMAIL_DOMAINS.includes('*') && c.ALLOWED_OIDC_ROLES.includes('*');
  if (!c.AUTH_REQUIRED || !open || c.OIDC_ISSUER_URL) return [];
  if (c.AUTH_PROVIDER === 'google') {
    return [
      "ALLOWED_EMAIL_DOMAINS: is '*' with AUTH_PROVIDER = 'google', so anyone with a Google account can sign " +
        'in (unless the OAuth client is limited to your organisation); list your email domains',
    ];
  }
  if (c.AUTH_PROVIDER === 'azure' && AZURE_MULTI_TENANTS.includes(c.AZURE_TENANT)) {
    return [
      `AZURE_TENANT: is '${c.AZURE_TENANT}' and ALLOWED_EMAIL_DOMAINS '*', so people of any Microsoft tenant ` +
        'can sign in when the app registration accepts them; name your tenant or list your email domains',
    ];
  }
  return [];
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
