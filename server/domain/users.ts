import { createHash, randomUUID } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { formatTime } from '../../shared/alerts.ts';
import type { MeUpdate, SignupInput, User, UserInput, UserList, UserUpdate } from '../../shared/users.ts';
import { customersFor } from '../auth/authenticate.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { loginLimiterOf, tooManyLogins } from '../auth/rate-limit.ts';
import { isGranted, scopesForRoles } from '../auth/scopes.ts';
import { createToken, type TokenSubject } from '../auth/tokens.ts';
import type { Auth } from '../auth/types.ts';
import { permMatches } from '../db/perms.ts';
import * as usersDb from '../db/users.ts';
import type { UserPatch, UserRow } from '../db/users.ts';
import type { Deps } from '../deps.ts';
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from '../errors.ts';
import { assertPageInRange, booleanParam, pagingOf, paramsOf } from './query/params.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** User and group ids are UUIDs; anything else names nothing (404, never a database error). */
export const isId = (id: string) => UUID.test(id);

const iso = (ms: number | null) => (ms === null ? null : formatTime(ms));

/** `domain`: after the `@` of the email, or before the `\` of a `DOMAIN\user` login (api.md §9). */
export function domainOf(row: Pick<UserRow, 'email' | 'login'>): string | null {
  if (row.email?.includes('@')) return row.email.split('@').pop()!;
  if (row.login.includes('\\')) return row.login.split('\\')[0]!;
  if (row.login.includes('@')) return row.login.split('@').pop()!;
  return null;
}

/** The API's user (api.md §9): never the password hash. */
export function presentUser(row: UserRow, baseUrl: string, provider: string): User {
  return {
    id: row.id,
    href: `${baseUrl}/user/${row.id}`,
    name: row.name,
    login: row.login,
    email: row.email,
    domain: domainOf(row),
    provider,
    role: row.roles[0] ?? null,
    status: row.status,
    roles: row.roles,
    attributes: row.attributes,
    createTime: iso(row.createTime)!,
    lastLogin: iso(row.lastLogin),
    text: row.text,
    updateTime: iso(row.updateTime),
    email_verified: row.emailVerified,
  };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets an own property, even one named `__proto__` (JSON may carry it; it must stay plain data). */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function deepMerge(base: Record<string, unknown>, change: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) setOwn(out, k, v);
  for (const [k, v] of Object.entries(change)) {
    const old = Object.hasOwn(out, k) ? out[k] : undefined;
    setOwn(out, k, isPlainObject(v) && isPlainObject(old) ? deepMerge(old, v) : v);
  }
  return out;
}

/**
 * Attribute changes (clients.md trap 14): objects merge key by key, arrays and scalars replace;
 * afterwards a top-level key whose value is null is removed (nested nulls are stored).
 */
export function mergeAttributes(
  current: Record<string, unknown>,
  change: Record<string, unknown>,
): Record<string, unknown> {
  const merged = deepMerge(current, change);
  for (const [k, v] of Object.entries(merged)) if (v === null) delete merged[k];
  return merged;
}

/** 403 unless the caller holds every scope these roles would grant (api.md §9). */
async function assertRolesGrantable(deps: Deps, auth: Auth, roles: readonly string[]): Promise<void> {
  const wanted = scopesForRoles(deps.config, null, roles, await permMatches(deps.db));
  for (const s of wanted) {
    if (!isGranted(auth.scopes, s, deps.config.DELETE_SCOPES)) {
      throw forbidden(`Requested scope '${s}' not in existing scopes: ${auth.scopes.join(',')}`);
    }
  }
}

const defaultRoles = (deps: Deps, email: string | null, login: string) =>
  deps.config.ADMIN_USERS.includes(email ?? '') || deps.config.ADMIN_USERS.includes(login)
    ? [...deps.config.ADMIN_ROLES]
    : [...deps.config.USER_ROLES];

const EMAIL_TAKEN = 'user with that email already exists';
const LOGIN_TAKEN = 'user with that login already exists';

/** POST /user: an admin creates a local (basic) user. */
export async function createUser(deps: Deps, auth: Auth, input: UserInput, baseUrl: string): Promise<User> {
  const { config } = deps;
  if (config.AUTH_PROVIDER !== 'basic') {
    throw badRequest(`must use ${config.AUTH_PROVIDER} login flow to create new user`);
  }
  const email = input.email ?? null;
  const login = input.login ?? email;
  if (!login) throw badRequest('Missing mandatory value for login or email');
  const requested = input.roles?.length ? input.roles : input.role ? [input.role] : null;
  if (requested) await assertRolesGrantable(deps, auth, requested);
  if (email && (await usersDb.isEmailTaken(deps.db, email, null))) throw conflict(EMAIL_TAKEN);
  if (await usersDb.isLoginTaken(deps.db, login, null)) throw conflict(LOGIN_TAKEN);
  const row = await usersDb.insertUser(deps.db, {
    id: randomUUID(),
    name: input.name,
    login,
    email,
    password: await hashPassword(input.password),
    status: input.status ?? 'active',
    roles: requested ?? defaultRoles(deps, email, login),
    attributes: mergeAttributes({}, input.attributes ?? {}),
    createTime: deps.clock.now(),
    text: input.text ?? '',
    emailVerified: input.email_verified ?? false,
  });
  if (!row) throw conflict(email ? EMAIL_TAKEN : LOGIN_TAKEN);
  deps.log.info({ userId: row.id, login: row.login }, 'user.created');
  return presentUser(row, baseUrl, config.AUTH_PROVIDER);
}

async function mustFindUser(deps: Deps, id: string): Promise<UserRow> {
  const row = isId(id) ? await usersDb.findUserById(deps.db, id) : null;
  if (!row) throw notFound();
  return row;
}

export async function getUser(deps: Deps, id: string, baseUrl: string): Promise<User> {
  return presentUser(await mustFindUser(deps, id), baseUrl, deps.config.AUTH_PROVIDER);
}

/** The caller's own user record; 404 for callers that are not users (keys, Hawk, anonymous). */
export async function getMe(deps: Deps, auth: Auth, baseUrl: string): Promise<User> {
  if (!auth.userId) throw notFound();
  return getUser(deps, auth.userId, baseUrl);
}

/** The user exists (404 otherwise); returns the row. */
export const findUser = mustFindUser;

const USER_PARAMS = new Set(['callback', '_', 'api-key', 'page', 'page-size', 'limit', 'sort-by', 'reverse']);

/** GET /users: paged, with the seed's extra `domains`, `groups`, `orgs`, `time` (api.md §9). */
export async function listUsers(deps: Deps, search: URLSearchParams, baseUrl: string): Promise<UserList> {
  const params = paramsOf(search);
  const filter = {
    ids: [] as string[],
    names: [] as string[],
    logins: [] as string[],
    emails: [] as string[],
    statuses: [] as string[],
    roles: [] as string[],
    emailVerified: null as boolean | null,
  };
  for (const [name, values] of params) {
    if (USER_PARAMS.has(name)) continue;
    if (name === 'id') filter.ids.push(...values);
    else if (name === 'name') filter.names.push(...values);
    else if (name === 'login') filter.logins.push(...values);
    else if (name === 'email') filter.emails.push(...values);
    else if (name === 'status') filter.statuses.push(...values);
    else if (name === 'roles' || name === 'role') filter.roles.push(...values);
    else if (name === 'email_verified') filter.emailVerified = booleanParam(params, name, false);
    else {
      throw badRequest(`Invalid filter parameter: ${name}`, [
        'filters: id, name, login, email, status, roles, email_verified',
      ]);
    }
  }
  const { page, pageSize } = pagingOf(params, deps.config.DEFAULT_PAGE_SIZE);
  const [rows, total] = await Promise.all([
    usersDb.listUsers(deps.db, filter, pageSize, (page - 1) * pageSize),
    usersDb.countUsers(deps.db, filter),
  ]);
  const pages = Math.ceil(total / pageSize);
  assertPageInRange(page, pages, total);
  const users = rows.map((r) => presentUser(r, baseUrl, deps.config.AUTH_PROVIDER));
  return {
    status: 'ok',
    ...(users.length === 0 ? { message: 'not found' } : {}),
    users,
    domains: [...deps.config.ALLOWED_EMAIL_DOMAINS],
    groups: [],
    orgs: [],
    time: new Date(deps.clock.now()).toISOString(),
    total,
    page,
    pageSize,
    pages,
    more: page < pages,
  };
}

type Change = Omit<UserUpdate, 'clearRoles' | 'role'> & { roles?: string[] | null };

/** Applies a change to a user in one transaction; the email and login stay unique (409). */
async function applyChange(deps: Deps, id: string, change: Change, baseUrl: string): Promise<User> {
  const password = change.password != null ? await hashPassword(change.password) : undefined;
  const row = await deps.db.transaction(async (tx) => {
    const current = isId(id) ? await usersDb.findUserById(tx, id, true) : null;
    if (!current) throw notFound();
    const patch: UserPatch = {};
    if (change.name != null) patch.name = change.name;
    if (change.login != null && change.login !== current.login) {
      if (await usersDb.isLoginTaken(tx, change.login, id)) throw conflict(LOGIN_TAKEN);
      patch.login = change.login;
    }
    if (change.email != null && change.email.toLowerCase() !== current.email?.toLowerCase()) {
      if (await usersDb.isEmailTaken(tx, change.email, id)) throw conflict(EMAIL_TAKEN);
      patch.email = change.email;
      patch.emailVerified = false; // a new address is unconfirmed unless the admin says otherwise
    }
    if (change.email_verified != null) patch.emailVerified = change.email_verified;
    if (password !== undefined) patch.password = password;
    if (change.status != null) patch.status = change.status;
    if (change.roles != null) patch.roles = change.roles;
    if (change.attributes != null) patch.attributes = mergeAttributes(current.attributes, change.attributes);
    if (change.text != null) patch.text = change.text;
    return usersDb.updateUser(tx, id, patch, deps.clock.now());
  });
  return presentUser(row, baseUrl, deps.config.AUTH_PROVIDER);
}

/**
 * PUT /user/:id (admin). An empty `roles` list means unchanged unless `clearRoles` is true
 * (clients.md trap 16); a non-empty list replaces the roles and needs the caller to hold their scopes.
 */
export async function updateUser(
  deps: Deps,
  auth: Auth,
  id: string,
  change: UserUpdate,
  baseUrl: string,
): Promise<User> {
  const { clearRoles, role, ...rest } = change;
  let roles = rest.roles?.length ? rest.roles : role ? [role] : null;
  if (!roles && clearRoles) roles = [];
  if (roles?.length) await assertRolesGrantable(deps, auth, roles);
  return applyChange(deps, id, { ...rest, roles }, baseUrl);
}

/** PUT /user/me: the caller's own name, email, password, status, attributes, text. */
export async function updateMe(deps: Deps, auth: Auth, change: MeUpdate, baseUrl: string): Promise<User> {
  if (!auth.userId) throw notFound();
  return applyChange(deps, auth.userId, change, baseUrl);
}

/** PUT /user/:id/attributes and /user/me/attributes: deep merge (clients.md trap 14). */
export async function updateAttributes(
  deps: Deps,
  id: string | null,
  attributes: Record<string, unknown>,
): Promise<void> {
  if (!id) throw notFound();
  await deps.db.transaction(async (tx) => {
    const current = isId(id) ? await usersDb.findUserById(tx, id, true) : null;
    if (!current) throw notFound();
    await usersDb.updateUser(
      tx,
      id,
      { attributes: mergeAttributes(current.attributes, attributes) },
      deps.clock.now(),
    );
  });
}

/** GET /user/me/attributes */
export async function getMyAttributes(deps: Deps, auth: Auth): Promise<Record<string, unknown>> {
  if (!auth.userId) throw notFound();
  return (await mustFindUser(deps, auth.userId)).attributes;
}

export async function deleteUser(deps: Deps, id: string): Promise<void> {
  if (!isId(id) || !(await usersDb.deleteUser(deps.db, id))) throw notFound();
  deps.log.info({ userId: id }, 'user.deleted');
}

// --- login, signup, tokens ---------------------------------------------------------------------

/** The name ADMIN_USERS and the customer lookup know this user by: the listed one of login/email. */
function principalOf(deps: Deps, user: UserRow): string {
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

/** What a token grants besides the user row's own fields (auth.md §8). */
type Grant = Omit<TokenSubject, 'userId' | 'login' | 'name' | 'email' | 'emailVerified'>;

/** The token of a sign-in that passed every check; the login is recorded (lastLogin) and logged. */
async function completeSignIn(deps: Deps, user: UserRow, baseUrl: string, grant: Grant): Promise<string> {
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
  const limiter = loginLimiterOf(deps, deps.clock);
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
  if (user.status !== 'active') throw forbidden(`User ${user.login} not active`);
}

/** The checks every login and signup passes after the password (auth.md §6). */
function assertMayLogIn(deps: Deps, user: UserRow): void {
  if (deps.config.EMAIL_VERIFICATION && !user.emailVerified) throw forbidden('email not verified');
  if (!isDomainAllowed(deps, domainOf(user), principalOf(deps, user))) throw forbidden('unauthorized domain');
  assertActive(user);
}

const INVALID_LOGIN = 'Invalid username or password';

/** POST /auth/login with the local user table; failures are counted per login and address. */
export async function logIn(
  deps: Deps,
  name: string,
  password: string,
  ip: string,
  baseUrl: string,
): Promise<string> {
  const user = await withLoginLimit(deps, name, ip, async () => {
    const found = name ? await usersDb.findUserByLoginOrEmail(deps.db, name) : null;
    // Hashing even for an unknown name keeps the answer's timing from telling which names exist.
    const ok = await verifyPassword(password, found?.password);
    if (!found || !ok) throw unauthorized(INVALID_LOGIN);
    assertMayLogIn(deps, found);
    return found;
  });
  return signInUser(deps, user, baseUrl);
}

/** POST /auth/signup: a local user whose login is the email (auth.md §6). */
export async function signUp(deps: Deps, input: SignupInput, baseUrl: string): Promise<string> {
  const { config } = deps;
  if (!config.SIGNUP_ENABLED || config.AUTH_PROVIDER !== 'basic') throw forbidden('user signup is disabled');
  const domain = input.email.split('@').pop()!;
  if (!isDomainAllowed(deps, domain, input.email)) throw forbidden('unauthorized domain');
  if (await usersDb.isEmailTaken(deps.db, input.email, null)) throw conflict(EMAIL_TAKEN);
  const user = await usersDb.insertUser(deps.db, {
    id: randomUUID(),
    name: input.name,
    login: input.email,
    email: input.email,
    password: await hashPassword(input.password),
    status: input.status ?? 'active',
    roles: defaultRoles(deps, input.email, input.email),
    attributes: mergeAttributes({}, input.attributes ?? {}),
    createTime: deps.clock.now(),
    text: input.text ?? '',
    emailVerified: false,
  });
  if (!user) throw conflict(EMAIL_TAKEN);
  deps.log.info({ userId: user.id }, 'user.signed_up');
  assertMayLogIn(deps, user);
  return signInUser(deps, user, baseUrl);
}

// --- users an external provider vouches for ----------------------------------------------------

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
    () => conflict(LOGIN_TAKEN),
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
  const loginTaken = () => conflict(`login '${who.login}' belongs to another user`);
  const emailTaken = () => conflict(`email '${email}' belongs to another user`);
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
  if (user.status !== 'active') throw forbidden(`User ${user.login} is not active`);
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

/**
 * Creates the ADMIN_USERS (password ADMIN_PASSWORD) that do not exist yet (auth.md §13): email
 * verified, ADMIN_ROLES, existing users untouched. Without ADMIN_PASSWORD nobody is created.
 */
export async function bootstrapAdminUsers(deps: Deps): Promise<void> {
  const { config } = deps;
  if (config.ADMIN_USERS.length === 0) return;
  if (!config.ADMIN_PASSWORD) {
    deps.log.warn(
      { admins: config.ADMIN_USERS.length },
      'ADMIN_PASSWORD is not set: the ADMIN_USERS were not created (create them with POST /user or signup)',
    );
    return;
  }
  let hash: string | null = null;
  for (const login of config.ADMIN_USERS) {
    if (await usersDb.findUserByLoginOrEmail(deps.db, login)) continue;
    hash ??= await hashPassword(config.ADMIN_PASSWORD);
    const email = login.includes('@') ? login : null;
    const row = await usersDb.insertUser(deps.db, {
      id: randomUUID(),
      name: login,
      login,
      email,
      password: hash,
      status: 'active',
      roles: [...config.ADMIN_ROLES],
      attributes: {},
      createTime: deps.clock.now(),
      text: 'Created by alertad script',
      emailVerified: true,
    });
    if (row) deps.log.info({ userId: row.id, login }, 'user.admin_created');
  }
}
