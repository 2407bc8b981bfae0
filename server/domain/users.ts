import { randomUUID } from 'node:crypto';
import { formatTime } from '../../shared/alerts.ts';
import {
  userAttributesOverLimit,
  type MeUpdate,
  type SignupInput,
  type User,
  type UserInput,
  type UserList,
  type UserUpdate,
} from '../../shared/users.ts';
import { defaultRoles, domainOf, isDomainAllowed } from '../auth/access.ts';
import { hashPassword } from '../auth/passwords.ts';
import { isGranted, scopesForRoles } from '../auth/scopes.ts';
import { assertMayLogIn, signInUser } from '../auth/sign-in.ts';
import type { Auth } from '../auth/types.ts';
import { permMatches } from '../db/perms.ts';
import * as usersDb from '../db/users.ts';
import type { UserPatch, UserRow } from '../db/users.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { isId } from './perms.ts';
import { filtersOf, textFilters, type TextFilter } from './query/list-filters.ts';
import { booleanParam, pageFieldsOf, pagingOf } from './query/params.ts';

const iso = (ms: number | null) => (ms === null ? null : formatTime(ms));

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
  // Each request is within the limits; merged ones could outgrow them (400, nothing stored).
  const over = userAttributesOverLimit(merged);
  if (over) throw appError('user_attributes_over_limit', over);
  return merged;
}

/** 403 unless the caller holds every scope these roles would grant (api.md §9). */
async function assertRolesGrantable(deps: Deps, auth: Auth, roles: readonly string[]): Promise<void> {
  const wanted = scopesForRoles(deps.config, null, roles, await permMatches(deps.db));
  for (const s of wanted) {
    if (!isGranted(auth.scopes, s, deps.config.DELETE_SCOPES)) {
      throw appError('scope_not_held', s, auth.scopes);
    }
  }
}

/** POST /user: an admin creates a local (basic) user. */
export async function createUser(deps: Deps, auth: Auth, input: UserInput, baseUrl: string): Promise<User> {
  const { config } = deps;
  if (config.AUTH_PROVIDER !== 'basic') {
    throw appError('external_login_flow', config.AUTH_PROVIDER);
  }
  const email = input.email ?? null;
  const login = input.login ?? email;
  if (!login) throw appError('login_missing');
  const requested = input.roles?.length ? input.roles : input.role ? [input.role] : null;
  if (requested) await assertRolesGrantable(deps, auth, requested);
  if (email && (await usersDb.isEmailTaken(deps.db, email, null))) throw appError('email_taken');
  if (await usersDb.isLoginTaken(deps.db, login, null)) throw appError('login_taken');
  const row = await usersDb.insertUser(deps.db, {
    id: randomUUID(),
    name: input.name,
    login,
    email,
    // No password (or an empty one) stores '', which no password matches (auth/passwords.ts).
    password: input.password ? await hashPassword(input.password) : '',
    status: input.status ?? 'active',
    roles: requested ?? defaultRoles(deps, email, login),
    attributes: mergeAttributes({}, input.attributes ?? {}),
    createTime: deps.clock.now(),
    text: input.text ?? '',
    emailVerified: input.email_verified ?? false,
  });
  if (!row) throw appError(email ? 'email_taken' : 'login_taken');
  deps.log.info({ userId: row.id, login: row.login }, 'user.created');
  return presentUser(row, baseUrl, config.AUTH_PROVIDER);
}

async function mustFindUser(deps: Deps, id: string): Promise<UserRow> {
  const row = isId(id) ? await usersDb.findUserById(deps.db, id) : null;
  if (!row) throw appError('not_found');
  return row;
}

export async function getUser(deps: Deps, id: string, baseUrl: string): Promise<User> {
  return presentUser(await mustFindUser(deps, id), baseUrl, deps.config.AUTH_PROVIDER);
}

/** The caller's own user record; 404 for callers that are not users (keys, Hawk, anonymous). */
export async function getMe(deps: Deps, auth: Auth, baseUrl: string): Promise<User> {
  if (!auth.userId) throw appError('not_found');
  return getUser(deps, auth.userId, baseUrl);
}

/** The user exists (404 otherwise); returns the row. */
export const findUser = mustFindUser;

/** GET /users: paged, with the seed's extra `domains`, `groups`, `orgs`, `time` (api.md §9). */
export async function listUsers(deps: Deps, search: URLSearchParams, baseUrl: string): Promise<UserList> {
  const text = ['name', 'login', 'email', 'status'];
  const { params, filters } = filtersOf(search, ['id', 'roles', 'role', 'email_verified', ...text], text);
  const lower = (fs: TextFilter[]) => fs.map((f) => ({ ...f, values: f.values.map((v) => v.toLowerCase()) }));
  const filter: usersDb.UserFilter = {
    ids: filters.get('id') ?? [],
    names: textFilters(filters, 'name'),
    logins: textFilters(filters, 'login'),
    emails: lower(textFilters(filters, 'email')),
    statuses: textFilters(filters, 'status'),
    roles: [...(filters.get('roles') ?? []), ...(filters.get('role') ?? [])],
    emailVerified: filters.has('email_verified') ? booleanParam(params, 'email_verified', false) : null,
  };
  const { page, pageSize } = pagingOf(params, deps.config.DEFAULT_PAGE_SIZE);
  const [rows, total] = await Promise.all([
    usersDb.listUsers(deps.db, filter, pageSize, (page - 1) * pageSize),
    usersDb.countUsers(deps.db, filter),
  ]);
  const paging = pageFieldsOf(page, pageSize, total);
  const users = rows.map((r) => presentUser(r, baseUrl, deps.config.AUTH_PROVIDER));
  return {
    status: 'ok',
    ...(users.length === 0 ? { message: 'not found' } : {}),
    users,
    domains: [...deps.config.ALLOWED_EMAIL_DOMAINS],
    groups: [],
    orgs: [],
    time: new Date(deps.clock.now()).toISOString(),
    ...paging,
  };
}

type Change = Omit<UserUpdate, 'clearRoles' | 'role'> & { roles?: string[] | null };

/** Applies a change to a user in one transaction; the email and login stay unique (409). */
async function applyChange(deps: Deps, id: string, change: Change, baseUrl: string): Promise<User> {
  const password = change.password != null ? await hashPassword(change.password) : undefined;
  const row = await deps.db.transaction(async (tx) => {
    const current = isId(id) ? await usersDb.findUserById(tx, id, true) : null;
    if (!current) throw appError('not_found');
    const patch: UserPatch = {};
    if (change.name != null) patch.name = change.name;
    if (change.login != null && change.login !== current.login) {
      if (await usersDb.isLoginTaken(tx, change.login, id)) throw appError('login_taken');
      patch.login = change.login;
    }
    if (change.email != null && change.email.toLowerCase() !== current.email?.toLowerCase()) {
      if (await usersDb.isEmailTaken(tx, change.email, id)) throw appError('email_taken');
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

/** PUT /user/me: the caller's own name, email, password, attributes, text (never its status). */
export async function updateMe(deps: Deps, auth: Auth, change: MeUpdate, baseUrl: string): Promise<User> {
  if (!auth.userId) throw appError('not_found');
  return applyChange(deps, auth.userId, change, baseUrl);
}

/** PUT /user/:id/attributes and /user/me/attributes: deep merge (clients.md trap 14). */
export async function updateAttributes(
  deps: Deps,
  id: string | null,
  attributes: Record<string, unknown>,
): Promise<void> {
  if (!id) throw appError('not_found');
  await deps.db.transaction(async (tx) => {
    const current = isId(id) ? await usersDb.findUserById(tx, id, true) : null;
    if (!current) throw appError('not_found');
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
  if (!auth.userId) throw appError('not_found');
  return (await mustFindUser(deps, auth.userId)).attributes;
}

export async function deleteUser(deps: Deps, id: string): Promise<void> {
  if (!isId(id) || !(await usersDb.deleteUser(deps.db, id))) throw appError('not_found');
  deps.log.info({ userId: id }, 'user.deleted');
}

/** POST /auth/signup: a local user whose login is the email (auth.md §6). */
export async function signUp(deps: Deps, input: SignupInput, baseUrl: string): Promise<string> {
  const { config } = deps;
  if (!config.SIGNUP_ENABLED || config.AUTH_PROVIDER !== 'basic') throw appError('signup_disabled');
  const domain = input.email.split('@').pop()!;
  if (!isDomainAllowed(deps, domain, input.email)) throw appError('unauthorized_domain');
  if (await usersDb.isEmailTaken(deps.db, input.email, null)) throw appError('email_taken');
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
  if (!user) throw appError('email_taken');
  deps.log.info({ userId: user.id }, 'user.signed_up');
  assertMayLogIn(deps, user);
  return signInUser(deps, user, baseUrl);
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
