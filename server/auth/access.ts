import { customerMatches } from '../db/customers.ts';
import { permMatches } from '../db/perms.ts';
import * as usersDb from '../db/users.ts';
import type { UserRow } from '../db/users.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { matchesName, scopesForRoles } from './scopes.ts';

// What a user may do once we know who they are: the names ADMIN_USERS and the customer lookup know
// them by, the email domains allowed in, scopes and customers (auth.md §4, §5).

/** `domain`: after the `@` of the email, or before the `\` of a `DOMAIN\user` login (api.md §9). */
export function domainOf(row: Pick<UserRow, 'email' | 'login'>): string | null {
  if (row.email?.includes('@')) return row.email.split('@').pop()!;
  if (row.login.includes('\\')) return row.login.split('\\')[0]!;
  if (row.login.includes('@')) return row.login.split('@').pop()!;
  return null;
}

/** The roles a new user gets: ADMIN_ROLES for ADMIN_USERS, else USER_ROLES. */
export const defaultRoles = (deps: Deps, email: string | null, login: string) =>
  deps.config.ADMIN_USERS.includes(email ?? '') || deps.config.ADMIN_USERS.includes(login)
    ? [...deps.config.ADMIN_ROLES]
    : [...deps.config.USER_ROLES];

/** The name ADMIN_USERS and the customer lookup know this user by: the listed one of login/email. */
export function principalOf(deps: Deps, user: UserRow): string {
  const admins = deps.config.ADMIN_USERS;
  if (admins.includes(user.login) || !user.email) return user.login;
  return admins.includes(user.email) ? user.email : user.login;
}

/** ALLOWED_EMAIL_DOMAINS, enforced only with AUTH_REQUIRED; `*` allows all; ADMIN_USERS always pass. */
export function isDomainAllowed(deps: Deps, domain: string | null, principal: string): boolean {
  const { config } = deps;
  if (!config.AUTH_REQUIRED || config.ALLOWED_EMAIL_DOMAINS.includes('*')) return true;
  if (config.ADMIN_USERS.includes(principal)) return true;
  return domain !== null && config.ALLOWED_EMAIL_DOMAINS.includes(domain);
}

/**
 * What a user may do: scopes from roles + group names (local groups and those the identity provider
 * found, e.g. LDAP's), customers with CUSTOMER_VIEWS, null without (auth.md §4, §5).
 */
export async function accessOf(deps: Deps, user: UserRow, providerGroups: readonly string[] = []) {
  const { config } = deps;
  const groups = [...new Set([...(await usersDb.groupNamesOf(deps.db, user.id)), ...providerGroups])];
  const principal = principalOf(deps, user);
  const scopes = scopesForRoles(config, principal, [...user.roles, ...groups], await permMatches(deps.db));
  const customers = config.CUSTOMER_VIEWS ? await customersFor(deps, principal, groups) : null;
  return { principal, groups, scopes, customers };
}

/**
 * The customers a user sees (auth.md §5): every customer lookup whose match fits the login, one of
 * the groups or the email domain. ADMIN_USERS and `*` are unrestricted (empty list); no match is 403.
 */
export async function customersFor(deps: Deps, login: string, groups: readonly string[]): Promise<string[]> {
  if (deps.config.ADMIN_USERS.includes(login)) return [];
  const domain = login.includes('@') ? login.split('@').pop()! : null;
  const candidates = [login, ...groups, ...(domain ? [domain] : [])];
  const found = new Set<string>();
  for (const c of await customerMatches(deps.db)) {
    if (candidates.some((name) => matchesName(c.match, name))) found.add(c.customer);
  }
  if (found.has('*')) return [];
  if (found.size === 0) {
    throw appError('no_customer_lookup', login, groups);
  }
  return [...found].sort();
}
