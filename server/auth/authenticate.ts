import { findKeyForAuth } from '../db/keys.ts';
import { permMatches } from '../db/perms.ts';
import { findTokenUser, findUserByLoginOrEmail, groupNamesOf } from '../db/users.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import type { RequestFacts } from '../request.ts';
import { verifyHawkRequest } from './hawk.ts';
import { ldapBasicAuth } from './ldap.ts';
import { verifyPassword } from './passwords.ts';
import { proxyAuth } from './proxy.ts';
import { customersFor } from './access.ts';
import { scopesForRoles } from './scopes.ts';
import { withLoginLimit } from './sign-in.ts';
import { verifyToken } from './tokens.ts';
import { ANONYMOUS_OPEN, type Auth } from './types.ts';

const HAWK_SCOPES = ['admin', 'read', 'write'];

/**
 * An HTTP request's caller (auth.md §1, first match wins): API key (`Authorization: Key`,
 * `X-API-Key`, `?api-key`), Hawk, Bearer token, auth proxy header, Basic (against LDAP with
 * AUTH_PROVIDER = 'ldap'); without any, the anonymous caller AUTH_REQUIRED and ALLOW_READONLY
 * allow, else 401. A credential that is present is always checked, even with AUTH_REQUIRED off.
 * `baseUrl` is the API base a token's audience is checked against. The HTTP layer runs it once
 * per request (http/caller.ts).
 */
export async function authenticate(deps: Deps, request: RequestFacts, baseUrl: string): Promise<Auth> {
  const header = request.header('Authorization').trim();
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const credential = space < 0 ? '' : header.slice(space + 1).trim();

  const key = scheme === 'key' ? credential : request.header('X-API-Key').trim() || request.query('api-key');
  if (key || scheme === 'key') return keyAuth(deps, key);
  if (scheme === 'hawk') {
    const id = await verifyHawkRequest(deps, request);
    return { ...blank('hawk'), login: id, scopes: HAWK_SCOPES };
  }
  if (scheme === 'bearer') return bearerAuth(deps, credential, baseUrl);
  const proxied = await proxyAuth(request.header, deps);
  if (proxied) return proxied;
  if (scheme === 'basic') return basicAuth(deps, credential, request.ip);
  return anonymous(deps);
}

/** No credential at all: what AUTH_REQUIRED and ALLOW_READONLY allow. */
function anonymous(deps: Deps): Auth {
  const { config } = deps;
  if (!config.AUTH_REQUIRED) return ANONYMOUS_OPEN;
  if (config.ALLOW_READONLY) return { ...blank('anonymous'), scopes: [...config.READONLY_SCOPES] };
  throw appError('auth_required');
}

async function bearerAuth(deps: Deps, token: string, baseUrl: string): Promise<Auth> {
  if (!token) throw appError('token_invalid');
  const claims = await verifyToken(deps.config, token, baseUrl);
  const scope = typeof claims.scope === 'string' ? claims.scope : '';
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const userId =
    typeof claims.oid === 'string' ? claims.oid : typeof claims.sub === 'string' ? claims.sub : null;
  const login = typeof claims.preferred_username === 'string' ? claims.preferred_username : null;
  await assertTokenUserActive(deps, userId, login);
  return {
    ...blank('bearer'),
    userId,
    login,
    scopes: scope.split(' ').filter(Boolean),
    roles: list(claims.roles),
    // `customers`, or a single `customer` as some issuers write it (auth.md §1 row 5).
    customers: deps.config.CUSTOMER_VIEWS
      ? Array.isArray(claims.customers)
        ? list(claims.customers)
        : list([claims.customer])
      : [],
    claims,
  };
}

/**
 * A token is good only while its user exists and is active. The user is read on every request
 * with a token (one index probe, no cache), so an admin who disables or deletes a user stops every
 * token of it at its next request, on every instance sharing the database, and a live socket at its
 * next (re)connect or, connected, at the hub's next tick (realtime/sessions.ts;
 * tests/api/users-disabled.test.ts). 401, so that the web UI ends the session.
 */
async function assertTokenUserActive(deps: Deps, userId: string | null, login: string | null): Promise<void> {
  const user = await findTokenUser(deps.db, userId, login);
  if (!user) throw appError('token_user_missing');
  if (user.status !== 'active') throw appError('credential_user_inactive', user.login);
}

/**
 * A live socket's caller, from the handshake's `auth: { token }` or `auth: { key }` — the same
 * checks as the HTTP credentials (docs/live.md) — else, with AUTH_PROXY, the user the proxy names
 * in the handshake request's headers.
 */
export async function authenticateSocket(
  deps: Deps,
  credentials: { token?: unknown; key?: unknown },
  baseUrl: string,
  header: (name: string) => string = () => '',
): Promise<Auth> {
  if (typeof credentials.key === 'string' && credentials.key) return keyAuth(deps, credentials.key);
  if (typeof credentials.token === 'string' && credentials.token) {
    return bearerAuth(deps, credentials.token, baseUrl);
  }
  return (await proxyAuth(header, deps)) ?? anonymous(deps);
}

const blank = (method: Auth['method']): Auth => ({
  method,
  userId: null,
  login: null,
  scopes: [],
  customers: [],
  roles: [],
  unrestricted: false,
});

async function keyAuth(deps: Deps, value: string): Promise<Auth> {
  const row = value ? await findKeyForAuth(deps.db, value) : null;
  if (!row || row.expireTime <= deps.clock.now()) {
    throw appError('api_key_invalid', value);
  }
  // A key of a user who is not active is refused like the user's tokens; a key whose owner is no
  // user here (a service name, an admin without a user record) keeps working.
  if (row.userStatus !== null && row.userStatus !== 'active') {
    throw appError('credential_user_inactive', row.user);
  }
  deps.keyUsage.note(row.id);
  return {
    ...blank('key'),
    login: row.user,
    scopes: row.scopes,
    customers: deps.config.CUSTOMER_VIEWS && row.customer ? [row.customer] : [],
    keyId: row.id,
  };
}

async function basicAuth(deps: Deps, credential: string, ip: string): Promise<Auth> {
  const { config } = deps;
  const challenge = { 'WWW-Authenticate': `Basic realm=${config.BASIC_AUTH_REALM}` };
  let decoded: string;
  try {
    decoded = Buffer.from(credential, 'base64').toString('utf8');
  } catch {
    decoded = '';
  }
  const colon = decoded.indexOf(':');
  if (!credential || colon < 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(credential)) {
    throw appError('invalid_credentials').with({ headers: challenge });
  }
  const name = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (config.AUTH_PROVIDER === 'ldap') return ldapBasicAuth(deps, name, password, ip, challenge);
  // Basic credentials are a login on every request: the same limits as POST /auth/login.
  const user = await withLoginLimit(deps, name, ip, async () => {
    const found = name ? await findUserByLoginOrEmail(deps.db, name) : null;
    // The hash is checked even for an unknown name, so timing does not tell which names exist.
    const ok = await verifyPassword(password, found?.password);
    if (!found || !ok) throw appError('authorization_required').with({ headers: challenge });
    return found;
  });
  if (config.EMAIL_VERIFICATION && !user.emailVerified) {
    throw appError('basic_email_not_verified').with({ headers: challenge });
  }
  if (user.status !== 'active') throw appError('user_not_active', user.login).with({ headers: challenge });
  const login = user.email ?? user.login;
  const scopes = scopesForRoles(config, login, user.roles, await permMatches(deps.db));
  const customers = config.CUSTOMER_VIEWS
    ? await customersFor(deps, login, await groupNamesOf(deps.db, user.id))
    : [];
  return { ...blank('basic'), userId: user.id, login, scopes, roles: user.roles, customers };
}
