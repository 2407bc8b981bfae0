import { createHash, randomUUID } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { permMatches } from '../db/perms.ts';
import * as usersDb from '../db/users.ts';
import type { UserPatch, UserRow } from '../db/users.ts';
import type { Deps } from '../deps.ts';
import { appError, type AppError } from '../errors.ts';
import { customersFor, defaultRoles, domainOf, principalOf } from './access.ts';
import { scopesForRoles } from './scopes.ts';
import { completeSignIn } from './sign-in.ts';

// Users an external provider vouches for (LDAP, an auth proxy, OpenID Connect, GitHub, SAML): their
// local rows, created on first sight and kept in step with the provider.

/** What an external provider (LDAP, an auth proxy, OpenID Connect, GitHub, SAML) vouches for. */
export interface ExternalUser {
  /** The provider it came through: AUTH_PROVIDER, or `proxy`. */
  provider: string;
  login: string;
  name: string;
  email: string | null;
  emailVerified: boolean;
  /** `text` of a user created at the first sign-in, e.g. "LDAP user". */
  text: string;
}

/**
 * Creates the local row of someone a provider vouched for: no password (so it never passes a local
 * password check), active, no attributes. An insert that hits an existing row may have met a
 * concurrent first sign-in of the same person: `reread` finds that row, else `clash()` is thrown.
 */
async function createExternalUser(
  db: CommonQueryMethods,
  deps: Deps,
  who: ExternalUser,
  row: { id: string; email: string | null; emailVerified: boolean; roles: string[] },
  reread: () => Promise<UserRow | null>,
  clash: () => AppError,
): Promise<UserRow> {
  const created = await usersDb.insertUser(db, {
    id: row.id,
    name: who.name,
    login: who.login,
    email: row.email,
    password: '',
    status: 'active',
    roles: row.roles,
    attributes: {},
    createTime: deps.clock.now(),
    text: who.text,
    emailVerified: row.emailVerified,
  });
  if (created) {
    deps.log.info({ userId: created.id, login: created.login, provider: who.provider }, 'user.created');
    return created;
  }
  const again = await reread();
  if (again) return again;
  throw clash();
}

/** A user LDAP or an auth proxy vouches for, known by login. */
export interface LoginUser extends ExternalUser {
  /** A new user's roles; default USER_ROLES (ADMIN_ROLES for ADMIN_USERS). */
  roles?: readonly string[];
}

/**
 * The local row of a user LDAP or an auth proxy authenticated (auth.md §10, §1): keyed by login (or
 * an email equal to it), created on first sight, and given the address the provider knows when
 * that address is free; a taken address is left out, never a 409, since the login identifies them.
 */
export async function userOfLogin(deps: Deps, who: LoginUser): Promise<UserRow> {
  const found = await usersDb.findUserByLoginOrEmail(deps.db, who.login);
  const emailFree = async (exceptId: string | null) =>
    who.email !== null && !(await usersDb.isEmailTaken(deps.db, who.email, exceptId));
  if (found) {
    const same = who.email?.toLowerCase() === found.email?.toLowerCase();
    const upgrade = same && who.emailVerified && !found.emailVerified;
    if (!upgrade && (same || !(await emailFree(found.id)))) return found;
    const patch = { email: who.email, emailVerified: who.emailVerified };
    return usersDb.updateUser(deps.db, found.id, patch, deps.clock.now());
  }
  const email = (await emailFree(null)) ? who.email : null;
  const row = {
    id: randomUUID(),
    email,
    emailVerified: email !== null && who.emailVerified,
    roles: who.roles ? [...who.roles] : defaultRoles(deps, email, who.login),
  };
  return createExternalUser(
    deps.db,
    deps,
    who,
    row,
    () => usersDb.findUserByLoginOrEmail(deps.db, who.login),
    () => appError('login_taken'),
  );
}

/** Who an identity provider (OpenID Connect, GitHub, SAML) says the caller is. */
export interface ExternalIdentity extends ExternalUser {
  /** The provider's stable id for the person; the local user's id is derived from it. */
  subject: string;
  picture?: string | null;
  /** Names from the provider; with the user's own roles they give scopes and customers. */
  roles: readonly string[];
  groups: readonly string[];
  orgs?: readonly string[];
  /** Sign in as an existing user with the same verified email instead of creating one. */
  linkByEmail: boolean;
}

const USER_ID_NAMESPACE = Buffer.from('6c0b3c1e8f2d4a579e41d2a7b5c93f06', 'hex');

/** A name-based (version 5) UUID: one provider and subject always give the same local user id. */
export function userIdFor(provider: string, subject: string): string {
  const h = createHash('sha1').update(USER_ID_NAMESPACE).update(`${provider}:${subject}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The local user of an identity: keyed by provider and subject, else linked by verified email, else
 * created; kept in step with the provider's name, login and address, which must stay unique (409).
 */
async function userOfIdentity(deps: Deps, who: ExternalIdentity): Promise<UserRow> {
  const id = userIdFor(who.provider, who.subject);
  const email = who.email || null;
  const loginTaken = () => appError('login_of_other_user', who.login);
  const emailTaken = () => appError('email_of_other_user', email);
  return deps.db.transaction(async (tx) => {
    const row = await usersDb.findUserById(tx, id, true);
    if (!row && who.linkByEmail && email && who.emailVerified) {
      const same = await usersDb.findUserByLoginOrEmail(tx, email);
      if (same && same.email?.toLowerCase() === email.toLowerCase()) return same;
    }
    if (!row) {
      const clash = (await usersDb.isLoginTaken(tx, who.login, null))
        ? loginTaken
        : email && (await usersDb.isEmailTaken(tx, email, null))
          ? emailTaken
          : null;
      const fields = {
        id,
        email,
        emailVerified: who.emailVerified,
        roles: defaultRoles(deps, email, who.login),
      };
      // With a known clash nothing is inserted, but the row may still be this person's own, made
      // by a concurrent first sign-in.
      if (!clash)
        return createExternalUser(tx, deps, who, fields, () => usersDb.findUserById(tx, id), loginTaken);
      const concurrent = await usersDb.findUserById(tx, id);
      if (concurrent) return concurrent;
      throw clash();
    }
    const patch: UserPatch = {};
    if (who.name && who.name !== row.name) patch.name = who.name;
    if (who.login !== row.login) {
      if (await usersDb.isLoginTaken(tx, who.login, id)) throw loginTaken();
      patch.login = who.login;
    }
    if (email && email.toLowerCase() !== row.email?.toLowerCase()) {
      if (await usersDb.isEmailTaken(tx, email, id)) throw emailTaken();
      patch.email = email;
    }
    if (email && who.emailVerified !== row.emailVerified) patch.emailVerified = who.emailVerified;
    return Object.keys(patch).length ? usersDb.updateUser(tx, id, patch, deps.clock.now()) : row;
  });
}

/**
 * Signs in someone an identity provider vouched for (the caller has checked its allow-lists):
 * their local user, then a token whose scopes come from the provider's role, group and
 * organisation names plus the user's own roles, and customers from the lookup (auth.md §4, §5, §12).
 */
export async function signInExternal(deps: Deps, who: ExternalIdentity, baseUrl: string): Promise<string> {
  const { config } = deps;
  const user = await userOfIdentity(deps, who);
  if (user.status !== 'active') throw appError('external_user_not_active', user.login);
  const principal = principalOf(deps, user);
  const roles = [...new Set([...who.roles, ...user.roles])];
  const names = [...roles, ...who.groups, ...(who.orgs ?? [])];
  const scopes = scopesForRoles(config, principal, names, await permMatches(deps.db));
  const domain = domainOf(user);
  const lookup = [...(domain ? [domain] : []), ...who.groups, ...who.roles, ...(who.orgs ?? [])];
  const customers = config.CUSTOMER_VIEWS ? await customersFor(deps, principal, lookup) : null;
  return completeSignIn(deps, user, baseUrl, {
    provider: who.provider,
    scopes,
    roles,
    groups: who.groups,
    orgs: who.orgs ?? [],
    picture: who.picture ?? null,
    customers,
  });
}
