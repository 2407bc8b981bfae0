import { permMatches } from '../db/perms.ts';
import { findUserByLoginOrEmail, groupNamesOf } from '../db/users.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { customersFor } from './access.ts';
import { userOfLogin } from './external-users.ts';
import { assertActive } from './sign-in.ts';
import { scopesForRoles } from './scopes.ts';
import type { Auth } from './types.ts';

/**
 * The user a trusted front proxy names (auth.md §1 #6), when AUTH_PROXY is on and the request
 * carries AUTH_PROXY_USER_HEADER; null otherwise. Roles come from AUTH_PROXY_ROLES_HEADER (the
 * stored roles when the proxy sends none), customers from the user's groups. Unknown users are
 * created with AUTH_PROXY_AUTO_SIGNUP, refused (403) without. `header` reads a request header by
 * name ('' when absent): HTTP requests and the live socket's handshake both come through the proxy.
 */
export async function proxyAuth(header: (name: string) => string, deps: Deps): Promise<Auth | null> {
  const { config } = deps;
  if (!config.AUTH_PROXY) return null;
  const login = header(config.AUTH_PROXY_USER_HEADER).trim();
  if (!login) return null;
  const rolesHeader = header(config.AUTH_PROXY_ROLES_HEADER);
  const sent = rolesHeader
    .split(config.AUTH_PROXY_ROLES_SEPARATOR)
    .map((r) => r.trim())
    .filter(Boolean);
  const user = await upsertProxyUser(deps, login, sent);
  assertActive(user);
  const roles = rolesHeader ? sent : user.roles;
  const groups = await groupNamesOf(deps.db, user.id);
  return {
    method: 'proxy',
    userId: user.id,
    login: user.login,
    scopes: scopesForRoles(config, user.login, roles, await permMatches(deps.db)),
    customers: config.CUSTOMER_VIEWS ? await customersFor(deps, user.login, groups) : [],
    roles,
    unrestricted: false,
  };
}

/** The named user, created on first sight (with the roles the proxy sent, if any) when allowed. */
async function upsertProxyUser(deps: Deps, login: string, roles: string[]) {
  const known = await findUserByLoginOrEmail(deps.db, login);
  if (known) return known;
  if (!deps.config.AUTH_PROXY_AUTO_SIGNUP) throw appError('auto_signup_disabled');
  return userOfLogin(deps, {
    provider: 'proxy',
    login,
    name: login,
    email: login.includes('@') ? login : null,
    emailVerified: false,
    text: 'Created by the auth proxy',
    ...(roles.length ? { roles } : {}),
  });
}
