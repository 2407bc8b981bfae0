import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { deleteByUuid, isUuid, textFilterSql } from './rows.ts';
import type { TextFilter } from '../domain/query/list-filters.ts';

export const UserRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  login: z.string(),
  email: z.string().nullable(),
  password: z.string(),
  status: z.string(),
  roles: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  createTime: z.number(),
  lastLogin: z.number().nullable(),
  text: z.string(),
  updateTime: z.number().nullable(),
  emailVerified: z.boolean(),
});
export type UserRow = z.infer<typeof UserRowSchema>;

export const userColumns = sql.fragment`
  u.id::text AS id, u.name, u.login, u.email, u.password, u.status, u.roles, u.attributes,
  u.create_time AS "createTime", u.last_login AS "lastLogin", u.text, u.update_time AS "updateTime",
  u.email_verified AS "emailVerified"`;

/** A user by login or email (Basic credentials and login accept either), case-insensitive on email. */
export function findUserByLoginOrEmail(db: CommonQueryMethods, name: string): Promise<UserRow | null> {
  return db.maybeOne(sql.type(UserRowSchema)`
    SELECT ${userColumns} FROM users u WHERE u.login = ${name} OR lower(u.email) = lower(${name})
    ORDER BY (u.login = ${name}) DESC LIMIT 1`);
}

const TokenUserSchema = z.object({ login: z.string(), status: z.string() });
export type TokenUser = z.infer<typeof TokenUserSchema>;

/** The user an id (a uuid or null) and a login name: by id first, else by login, else by email. */
const namedUser = (id: FragmentSqlToken, login: FragmentSqlToken) => sql.fragment`
  SELECT u.login, u.status FROM users u
  WHERE u.id = ${id} OR u.login = ${login} OR lower(u.email) = lower(${login})
  ORDER BY (u.id IS NOT DISTINCT FROM ${id}) DESC, (u.login IS NOT DISTINCT FROM ${login}) DESC
  LIMIT 1`;

const uuidOrNull = (userId: string | null) => (userId && isUuid(userId) ? userId : null);

/**
 * The login and status of a bearer token's user, read on every request with a token (one index
 * probe): by the token's user id, else (a token another server signed with the same SECRET_KEY) by
 * its login as a login or email; null when neither names a user.
 */
export function findTokenUser(
  db: CommonQueryMethods,
  userId: string | null,
  login: string | null,
): Promise<TokenUser | null> {
  const id = uuidOrNull(userId);
  return db.maybeOne(
    sql.type(TokenUserSchema)`${namedUser(sql.fragment`${id}::uuid`, sql.fragment`${login}`)}`,
  );
}

/**
 * `findTokenUser` for many (user id, login) pairs in one statement, in their order (null where
 * none is found): the live hub re-reads the users of its connected sockets with it
 * (server/realtime/sessions.ts).
 */
export async function findTokenUsers(
  db: CommonQueryMethods,
  refs: readonly { userId: string | null; login: string | null }[],
): Promise<(TokenUser | null)[]> {
  if (refs.length === 0) return [];
  const ids = sql.array(
    refs.map((r) => uuidOrNull(r.userId)),
    'uuid',
  );
  const logins = sql.array(
    refs.map((r) => r.login),
    'text',
  );
  const rows = await db.any(sql.type(TokenUserSchema.extend({ n: z.number() }))`
    SELECT t.n::int AS n, u.login, u.status
    FROM unnest(${ids}, ${logins}) WITH ORDINALITY AS t(id, login, n)
    JOIN LATERAL (${namedUser(sql.fragment`t.id`, sql.fragment`t.login`)}) u ON true`);
  const found: (TokenUser | null)[] = refs.map(() => null);
  for (const { n, ...user } of rows) found[n - 1] = user;
  return found;
}

/** Names of the groups a user belongs to. */
export async function groupNamesOf(db: CommonQueryMethods, userId: string): Promise<string[]> {
  const rows = await db.any(sql.type(z.object({ name: z.string() }))`
    SELECT g.name FROM groups g JOIN group_users gu ON gu.group_id = g.id
    WHERE gu.user_id = ${userId}::uuid ORDER BY g.name`);
  return rows.map((r) => r.name);
}

const ts = (ms: number | null) => (ms === null ? null : sql.timestamp(new Date(ms)));

/** Everything stored for a new user. */
export interface UserWrite {
  id: string;
  name: string;
  login: string;
  email: string | null;
  password: string;
  status: string;
  roles: readonly string[];
  attributes: Record<string, unknown>;
  createTime: number;
  text: string;
  emailVerified: boolean;
}

/** Inserts a user; null when the login or email is already taken (concurrent bootstrap, races). */
export function insertUser(db: CommonQueryMethods, u: UserWrite): Promise<UserRow | null> {
  return db.maybeOne(sql.type(UserRowSchema)`
    WITH u AS (
      INSERT INTO users (id, name, login, email, password, status, roles, attributes, create_time, text,
        email_verified)
      VALUES (${u.id}::uuid, ${u.name}, ${u.login}, ${u.email}, ${u.password}, ${u.status},
        ${sql.array(u.roles, 'text')}, ${sql.jsonb(u.attributes as never)}, ${ts(u.createTime)}, ${u.text},
        ${u.emailVerified})
      ON CONFLICT DO NOTHING
      RETURNING *)
    SELECT ${userColumns} FROM u`);
}

export function findUserById(db: CommonQueryMethods, id: string, forUpdate = false): Promise<UserRow | null> {
  return db.maybeOne(sql.type(UserRowSchema)`
    SELECT ${userColumns} FROM users u WHERE u.id = ${id}::uuid
    ${forUpdate ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
}

/** Is this email (case-insensitive) or login used by a user other than `exceptId`? */
export async function isEmailTaken(db: CommonQueryMethods, email: string, exceptId: string | null) {
  const row = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    SELECT id::text AS id FROM users
    WHERE (lower(email) = lower(${email}) OR login = ${email})
      ${exceptId ? sql.fragment`AND id <> ${exceptId}::uuid` : sql.fragment``}
    LIMIT 1`);
  return row !== null;
}

export async function isLoginTaken(db: CommonQueryMethods, login: string, exceptId: string | null) {
  const row = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    SELECT id::text AS id FROM users WHERE login = ${login}
      ${exceptId ? sql.fragment`AND id <> ${exceptId}::uuid` : sql.fragment``}
    LIMIT 1`);
  return row !== null;
}

/** The stored fields a change may set; absent = unchanged. */
export interface UserPatch {
  name?: string;
  login?: string;
  email?: string | null;
  password?: string;
  status?: string;
  roles?: readonly string[];
  attributes?: Record<string, unknown>;
  text?: string;
  emailVerified?: boolean;
}

/** Applies a change and sets updateTime; the row afterwards. */
export function updateUser(db: CommonQueryMethods, id: string, p: UserPatch, now: number): Promise<UserRow> {
  const sets = [sql.fragment`update_time = ${ts(now)}`];
  if (p.name !== undefined) sets.push(sql.fragment`name = ${p.name}`);
  if (p.login !== undefined) sets.push(sql.fragment`login = ${p.login}`);
  if (p.email !== undefined) sets.push(sql.fragment`email = ${p.email}`);
  if (p.password !== undefined) sets.push(sql.fragment`password = ${p.password}`);
  if (p.status !== undefined) sets.push(sql.fragment`status = ${p.status}`);
  if (p.roles !== undefined) sets.push(sql.fragment`roles = ${sql.array(p.roles, 'text')}`);
  if (p.attributes !== undefined) sets.push(sql.fragment`attributes = ${sql.jsonb(p.attributes as never)}`);
  if (p.text !== undefined) sets.push(sql.fragment`text = ${p.text}`);
  if (p.emailVerified !== undefined) sets.push(sql.fragment`email_verified = ${p.emailVerified}`);
  return db.one(sql.type(UserRowSchema)`
    WITH u AS (UPDATE users SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}::uuid RETURNING *)
    SELECT ${userColumns} FROM u`);
}

/** Records a successful login. */
export async function recordLogin(db: CommonQueryMethods, id: string, now: number): Promise<void> {
  await db.query(sql.unsafe`UPDATE users SET last_login = ${ts(now)} WHERE id = ${id}::uuid`);
}

/** Deletes a user and their group memberships; false when there was none. */
export async function deleteUser(db: CommonQueryMethods, id: string): Promise<boolean> {
  await db.query(sql.unsafe`DELETE FROM group_users WHERE user_id = ${id}::uuid`);
  return deleteByUuid(db, 'users', id);
}

/** GET /users filters: `ids` exact, text filters on the others (rows.ts), `roles` = overlap. */
export interface UserFilter {
  ids: readonly string[];
  names: readonly TextFilter[];
  logins: readonly TextFilter[];
  /** Compared with the lower-cased email: the caller lower-cases exact values. */
  emails: readonly TextFilter[];
  statuses: readonly TextFilter[];
  roles: readonly string[];
  emailVerified: boolean | null;
}

function userWhere(f: UserFilter) {
  const parts = [
    sql.fragment`TRUE`,
    ...textFilterSql(sql.fragment`u.name`, f.names),
    ...textFilterSql(sql.fragment`u.login`, f.logins),
    ...textFilterSql(sql.fragment`lower(u.email)`, f.emails),
    ...textFilterSql(sql.fragment`u.status`, f.statuses),
  ];
  if (f.ids.length) parts.push(sql.fragment`u.id::text = ANY(${sql.array(f.ids, 'text')})`);
  if (f.roles.length) parts.push(sql.fragment`u.roles && ${sql.array(f.roles, 'text')}`);
  if (f.emailVerified !== null) parts.push(sql.fragment`u.email_verified = ${f.emailVerified}`);
  return sql.join(parts, sql.fragment` AND `);
}

export function listUsers(db: CommonQueryMethods, f: UserFilter, limit: number, offset: number) {
  return db.any(sql.type(UserRowSchema)`
    SELECT ${userColumns} FROM users u WHERE ${userWhere(f)}
    ORDER BY u.name, u.login LIMIT ${limit} OFFSET ${offset}`);
}

export async function countUsers(db: CommonQueryMethods, f: UserFilter): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM users u WHERE ${userWhere(f)}`);
}
