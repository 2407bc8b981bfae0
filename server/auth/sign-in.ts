import * as usersDb from '../db/users.ts';
import type { UserRow } from '../db/users.ts';
import type { Deps } from '../deps.ts';
import { AppError, appError, tooManyLogins } from '../errors.ts';
import { accessOf, domainOf, isDomainAllowed, principalOf } from './access.ts';
import { verifyPassword } from './passwords.ts';
import { createToken, type TokenSubject } from './tokens.ts';

// Signing in: the checks every login passes, the login rate limit, and the token at the end.

/** What a token grants besides the user row's own fields (auth.md §8). */
type Grant = Omit<TokenSubject, 'userId' | 'login' | 'name' | 'email' | 'emailVerified'>;

/** The token of a sign-in that passed every check; the login is recorded (lastLogin) and logged. */
export async function completeSignIn(
  deps: Deps,
  user: UserRow,
  baseUrl: string,
  grant: Grant,
): Promise<string> {
  const subject: TokenSubject = {
    userId: user.id,
    login: user.login,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    ...grant,
  };
  const token = await createToken(deps.config, subject, baseUrl);
  await usersDb.recordLogin(deps.db, user.id, deps.clock.now());
  deps.log.info({ userId: user.id, provider: grant.provider }, 'auth.login');
  return token;
}

/** Signs a user in with accessOf's scopes and customers: local users, LDAP (with its groups). */
export async function signInUser(
  deps: Deps,
  user: UserRow,
  baseUrl: string,
  provider = 'basic',
  providerGroups: readonly string[] = [],
): Promise<string> {
  const { groups, scopes, customers } = await accessOf(deps, user, providerGroups);
  return completeSignIn(deps, user, baseUrl, { provider, scopes, roles: user.roles, groups, customers });
}

/**
 * Runs a password check (local or LDAP) under the login rate limit (rate-limit.ts): over the limit
 * the answer is 429 with Retry-After before anything is checked; a 401 counts as a failure, and a
 * check that passes clears the count.
 */
export async function withLoginLimit<T>(
  deps: Deps,
  key: string,
  ip: string,
  check: () => Promise<T>,
): Promise<T> {
  const limiter = deps.loginLimiter;
  const wait = limiter.retryAfter(key, ip);
  if (wait > 0) {
    deps.log.warn({ ip }, 'auth.login_rate_limited');
    throw tooManyLogins(wait);
  }
  let passed: T;
  try {
    passed = await check();
  } catch (err) {
    if (err instanceof AppError && err.status === 401) {
      limiter.fail(key, ip);
      deps.log.info({ ip }, 'auth.login_failed');
    }
    throw err;
  }
  limiter.succeed(key, ip);
  return passed;
}

/** 403 for a user whose status is not `active` (auth.md §6). */
export function assertActive(user: UserRow): void {
  if (user.status !== 'active') throw appError('user_not_active', user.login);
}

/** The checks every login and signup passes after the password (auth.md §6). */
export function assertMayLogIn(deps: Deps, user: UserRow): void {
  if (deps.config.EMAIL_VERIFICATION && !user.emailVerified) throw appError('email_not_verified');
  if (!isDomainAllowed(deps, domainOf(user), principalOf(deps, user))) throw appError('unauthorized_domain');
  assertActive(user);
}

/** A POST /auth/login: a name and password sent from `ip`, answered with a token for `baseUrl`. */
export type PasswordLogIn = (
  deps: Deps,
  name: string,
  password: string,
  ip: string,
  baseUrl: string,
) => Promise<string>;

/** POST /auth/login with the local user table; failures are counted per login and address. */
export const logIn: PasswordLogIn = async (deps, name, password, ip, baseUrl) => {
  const user = await withLoginLimit(deps, name, ip, async () => {
    const found = name ? await usersDb.findUserByLoginOrEmail(deps.db, name) : null;
    // Hashing even for an unknown name keeps the answer's timing from telling which names exist.
    const ok = await verifyPassword(password, found?.password);
    if (!found || !ok) throw appError('invalid_login');
    assertMayLogIn(deps, found);
    return found;
  });
  return signInUser(deps, user, baseUrl);
};
