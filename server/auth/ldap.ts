import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { createRequire } from 'node:module';
import type { Client, Entry } from 'ldapts';
import type * as Ldapts from 'ldapts';
import type { Config } from '../config.ts';
import { accessOf } from './access.ts';
import { userOfLogin } from './external-users.ts';
import { assertActive, signInUser, withLoginLimit, type PasswordLogIn } from './sign-in.ts';
import type { UserRow } from '../db/users.ts';
import type { Deps } from '../deps.ts';
import { AppError, appError } from '../errors.ts';
import type { Auth } from './types.ts';

/**
 * ldapts, loaded on first use: a server that never signs anyone in through LDAP does not hold it
 * (about 1.7 MB of heap; docs/benchmarks.md, "Memory"). The same CommonJS copy as config/checks.ts.
 */
const load = createRequire(import.meta.url);
const ldapts = () => load('ldapts') as typeof Ldapts;

/** What the directory says about the person who just bound (auth.md §10). */
export interface DirectoryUser {
  /** `user@domain`, lower-case: the local user's login. */
  login: string;
  dn: string;
  name: string;
  email: string;
  /** True when the address came from the directory rather than being made up from the login. */
  emailVerified: boolean;
  groups: string[];
}

/** Without LDAP_TIMEOUT a dead server would hold the login request for the OS's TCP timeout. */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** `DOMAIN\user`, `user@domain`, or a bare user in LDAP_DEFAULT_DOMAIN; lower-case, as LDAP compares. */
function splitLogin(config: Config, name: string): { username: string; domain: string } {
  let username = name;
  let domain = config.LDAP_DEFAULT_DOMAIN;
  const backslash = name.indexOf('\\');
  const at = name.lastIndexOf('@');
  if (backslash >= 0) [domain, username] = [name.slice(0, backslash), name.slice(backslash + 1)];
  else if (at >= 0) [username, domain] = [name.slice(0, at), name.slice(at + 1)];
  if (!username || !domain) throw appError('ldap_username_without_domain');
  return { username: username.toLowerCase(), domain: domain.toLowerCase() };
}

/** One attribute value of an entry, as text (LDAP attributes may be multi-valued). */
function first(entry: Entry | undefined, attr: string): string | null {
  if (!entry) return null;
  if (attr.toLowerCase() === 'dn') return entry.dn;
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attr.toLowerCase());
  const value = key === undefined ? undefined : entry[key];
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v === '' ? null : v.toString();
}

/** RFC 4514: a value placed into a DN template cannot add or change RDNs. */
function escapeDnValue(v: string): string {
  return v
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/\0/g, '\\00')
    .replace(/^([ #])/, '\\$1')
    .replace(/ $/, '\\ ');
}

/** Fills `{name}` placeholders of a search filter with escaped values (RFC 4515). */
const fillFilter = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? ldapts().Filter.escape(values[name]!) : whole,
  );

/** A per-domain setting's entry; domains compare without case, as logins are lower-cased. */
const forDomain = (map: Readonly<Record<string, string>>, domain: string): string | undefined =>
  Object.entries(map).find(([k]) => k.toLowerCase() === domain)?.[1];

const caFiles = new Map<string, Buffer>();

/** ldaps:// trust: LDAP_CACERT (or LDAP_CONFIG's CA file) as the only CA, else the system's. */
function tlsOptionsOf(config: Config): ConnectionOptions {
  const options = config.LDAP_CONFIG;
  const caFile =
    typeof options.OPT_X_TLS_CACERTFILE === 'string' && options.OPT_X_TLS_CACERTFILE
      ? options.OPT_X_TLS_CACERTFILE
      : config.LDAP_CACERT;
  // python-ldap's OPT_X_TLS_NEVER (0) and OPT_X_TLS_ALLOW (3) accept any certificate.
  const lax = options.OPT_X_TLS_REQUIRE_CERT === 0 || options.OPT_X_TLS_REQUIRE_CERT === 3;
  let ca: Buffer | undefined;
  if (caFile) {
    ca = caFiles.get(caFile) ?? readFileSync(caFile);
    caFiles.set(caFile, ca);
  }
  return { ...(ca ? { ca } : {}), rejectUnauthorized: !config.LDAP_ALLOW_SELF_SIGNED_CERT && !lax };
}

function clientOf(config: Config): Client {
  const seconds = (v: unknown) => (typeof v === 'number' && v > 0 ? v * 1000 : undefined);
  const timeout = seconds(config.LDAP_TIMEOUT) ?? seconds(config.LDAP_CONFIG.OPT_TIMEOUT);
  const connectTimeout =
    seconds(config.LDAP_CONFIG.OPT_NETWORK_TIMEOUT) ?? timeout ?? DEFAULT_CONNECT_TIMEOUT_MS;
  return new (ldapts().Client)({
    url: config.LDAP_URL,
    connectTimeout,
    ...(timeout ? { timeout } : {}),
    ...(config.LDAP_URL.startsWith('ldaps:') ? { tlsOptions: tlsOptionsOf(config) } : {}),
  });
}

/** Binds the service account (LDAP_BIND_USERNAME) when there is one. */
async function bindService(config: Config, client: Client): Promise<void> {
  if (!config.LDAP_BIND_USERNAME) return;
  try {
    await client.bind(config.LDAP_BIND_USERNAME, config.LDAP_BIND_PASSWORD);
  } catch (err) {
    if (err instanceof ldapts().InvalidCredentialsError) throw appError('ldap_bind_failed');
    throw err;
  }
}

/** The user's DN and entry: by LDAP_USER_FILTER search, else from the domain's LDAP_DOMAINS template. */
async function locateUser(
  config: Config,
  client: Client,
  username: string,
  domain: string,
): Promise<{ dn: string; entry?: Entry }> {
  const attributes = [config.LDAP_USER_NAME_ATTR, config.LDAP_USER_EMAIL_ATTR];
  if (config.LDAP_USER_FILTER) {
    await bindService(config, client);
    const base =
      forDomain(config.LDAP_DOMAINS_BASEDN, domain) || config.LDAP_USER_BASEDN || config.LDAP_BASEDN;
    const filter = fillFilter(config.LDAP_USER_FILTER, { username });
    const { searchEntries } = await client.search(base, { scope: 'sub', filter, attributes });
    if (searchEntries.length > 1) throw appError('ldap_ambiguous_search', domain);
    if (searchEntries.length === 0) throw appError('invalid_login');
    return { dn: searchEntries[0]!.dn, entry: searchEntries[0] };
  }
  const template = forDomain(config.LDAP_DOMAINS, domain);
  if (template === undefined) throw appError('unauthorized_domain');
  const value = escapeDnValue(username);
  return { dn: template.replaceAll('%s', value).replaceAll('{}', value) };
}

/** The user's own entry, read as the user; the directory may not allow it, which is no error. */
async function readOwnEntry(config: Config, client: Client, dn: string): Promise<Entry | undefined> {
  const attributes = [config.LDAP_USER_NAME_ATTR, config.LDAP_USER_EMAIL_ATTR];
  try {
    return (await client.search(dn, { scope: 'base', attributes })).searchEntries[0];
  } catch {
    return undefined;
  }
}

/** Group names: the domain's LDAP_DOMAINS_GROUP search (names are `cn`), else LDAP_GROUP_FILTER. */
async function groupsOf(
  config: Config,
  client: Client,
  domain: string,
  values: { username: string; email: string; userdn: string },
): Promise<string[]> {
  const perDomain = forDomain(config.LDAP_DOMAINS_GROUP, domain);
  const template = perDomain ?? config.LDAP_GROUP_FILTER;
  if (!template) return [];
  const base =
    (perDomain !== undefined ? forDomain(config.LDAP_DOMAINS_BASEDN, domain) : '') ||
    config.LDAP_GROUP_BASEDN ||
    config.LDAP_BASEDN;
  const attr = perDomain !== undefined ? 'cn' : config.LDAP_GROUP_NAME_ATTR;
  const filter = fillFilter(template, values);
  const { searchEntries } = await client.search(base, {
    scope: 'sub',
    filter,
    attributes: attr.toLowerCase() === 'dn' ? ['1.1'] : [attr],
  });
  const names = searchEntries.map((e) => first(e, attr) ?? e.dn);
  return [...new Set(names)].sort();
}

/**
 * Checks a login against the directory (auth.md §10): find the user's DN (search or template),
 * bind as the user with the password, then read the name, address and groups. Wrong credentials
 * are 401, a domain we do not serve 403, an unreachable server 503.
 */
export async function checkDirectory(
  deps: Pick<Deps, 'config' | 'log'>,
  name: string,
  password: string,
): Promise<DirectoryUser> {
  const { config } = deps;
  const { username, domain } = splitLogin(config, name);
  // An empty password is an "unauthenticated bind", which LDAP servers accept for any DN.
  if (!password) throw appError('ldap_empty_password');
  const whitelisted =
    config.LDAP_USE_EMAIL_DOMAIN_WHITELIST &&
    config.ALLOWED_EMAIL_DOMAINS.some((d) => d === '*' || d.toLowerCase() === domain);
  if (forDomain(config.LDAP_DOMAINS, domain) === undefined && !whitelisted) {
    throw appError('unauthorized_domain');
  }

  const client = clientOf(config);
  try {
    const { dn, entry: found } = await locateUser(config, client, username, domain);
    try {
      await client.bind(dn, password);
    } catch (err) {
      if (err instanceof ldapts().InvalidCredentialsError) throw appError('invalid_login');
      throw err;
    }
    const entry = found ?? (await readOwnEntry(config, client, dn));
    const mail = first(entry, config.LDAP_USER_EMAIL_ATTR);
    const email = mail ?? `${username}@${domain}`;
    await bindService(config, client);
    const groups = await groupsOf(config, client, domain, { username, email, userdn: dn });
    return {
      login: `${username}@${domain}`,
      dn,
      name: first(entry, config.LDAP_USER_NAME_ATTR) ?? username,
      email,
      emailVerified: mail !== null,
      groups,
    };
  } catch (err) {
    if (err instanceof AppError) {
      if (err.status >= 500) deps.log.error({ domain, message: err.message }, 'auth.ldap_error');
      throw err;
    }
    const e = err as Error & { code?: unknown };
    deps.log.error({ domain, error: e.message, code: e.code }, 'auth.ldap_error');
    throw appError('ldap_unavailable');
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/**
 * The directory check plus everything a login needs afterwards: the login rate limit, the local
 * user row (created on first login, text `LDAP user`), `active` status and ALLOWED_LDAP_GROUPS.
 */
async function signIn(
  deps: Deps,
  name: string,
  password: string,
  ip: string,
): Promise<{ user: UserRow; groups: string[] }> {
  const { config } = deps;
  // Directory names ignore case: so does the count of failures.
  const found = await withLoginLimit(deps, name.toLowerCase(), ip, () =>
    checkDirectory(deps, name, password),
  );
  const user = await userOfLogin(deps, {
    provider: 'ldap',
    login: found.login,
    name: found.name,
    email: found.email,
    emailVerified: found.emailVerified,
    text: 'LDAP user',
  });
  assertActive(user);
  const allowed = config.ALLOWED_LDAP_GROUPS;
  if (config.AUTH_REQUIRED && !allowed.includes('*') && !found.groups.some((g) => allowed.includes(g))) {
    throw appError('user_not_authorized', user.login);
  }
  return { user, groups: found.groups };
}

/** POST /auth/login with AUTH_PROVIDER = 'ldap': a token whose provider is `ldap`, with the directory's groups. */
export const logInWithLdap: PasswordLogIn = async (deps, name, password, ip, baseUrl) => {
  const { user, groups } = await signIn(deps, name, password, ip);
  return signInUser(deps, user, baseUrl, 'ldap', groups);
};

/**
 * `Authorization: Basic` with AUTH_PROVIDER = 'ldap': the same bind on every request (a token or
 * an API key saves the directory the work). Failures carry the Basic challenge, as local Basic does.
 */
export async function ldapBasicAuth(
  deps: Deps,
  name: string,
  password: string,
  ip: string,
  challenge: Record<string, string>,
): Promise<Auth> {
  let signedIn: { user: UserRow; groups: string[] };
  try {
    signedIn = await signIn(deps, name, password, ip);
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500 || err.status === 429) throw err;
    throw (err.status === 401 ? appError('authorization_required') : err).with({ headers: challenge });
  }
  const { user, groups } = signedIn;
  const access = await accessOf(deps, user, groups);
  return {
    method: 'basic',
    userId: user.id,
    login: access.principal,
    scopes: access.scopes,
    customers: access.customers ?? [],
    roles: user.roles,
    unrestricted: false,
  };
}
