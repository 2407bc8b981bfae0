import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

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

/** Names of the groups a user belongs to. */
export async function groupNamesOf(db: CommonQueryMethods, userId: string): Promise<string[]> {
  const rows = await db.any(sql.type(z.object({ name: z.string() }))`
    SELECT g.name FROM groups g JOIN group_users gu ON gu.group_id = g.id
    WHERE gu.user_id = ${userId}::uuid ORDER BY g.name`);
  return rows.map((r) => r.name);
}
