import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { deleteByUuid, textFilterSql, ts } from './rows.ts';
import type { TextFilter } from '../domain/query/list-filters.ts';

/** A stored group with its member count. */
export const GroupRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  text: z.string(),
  count: z.number().int(),
});
export type GroupRow = z.infer<typeof GroupRowSchema>;

const columns = sql.fragment`
  g.id::text AS id, g.name, g.text,
  (SELECT count(*)::int FROM group_users gu JOIN users u ON u.id = gu.user_id WHERE gu.group_id = g.id) AS count`;

/** Inserts a group; null when the name is taken. */
export function insertGroup(
  db: CommonQueryMethods,
  g: { id: string; name: string; text: string },
  now: number,
): Promise<GroupRow | null> {
  return db.maybeOne(sql.type(GroupRowSchema)`
    WITH g AS (
      INSERT INTO groups (id, name, text, update_time) VALUES (${g.id}::uuid, ${g.name}, ${g.text}, ${ts(now)})
      ON CONFLICT DO NOTHING RETURNING *)
    SELECT g.id::text AS id, g.name, g.text, 0 AS count FROM g`);
}

export function findGroupById(db: CommonQueryMethods, id: string): Promise<GroupRow | null> {
  return db.maybeOne(sql.type(GroupRowSchema)`SELECT ${columns} FROM groups g WHERE g.id = ${id}::uuid`);
}

export async function isGroupNameTaken(db: CommonQueryMethods, name: string, exceptId: string | null) {
  const row = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    SELECT id::text AS id FROM groups WHERE name = ${name}
      ${exceptId ? sql.fragment`AND id <> ${exceptId}::uuid` : sql.fragment``}`);
  return row !== null;
}

/** Applies a change; null when the group does not exist. */
export async function updateGroup(
  db: CommonQueryMethods,
  id: string,
  p: { name?: string; text?: string },
  now: number,
): Promise<GroupRow | null> {
  const sets = [sql.fragment`update_time = ${ts(now)}`];
  if (p.name !== undefined) sets.push(sql.fragment`name = ${p.name}`);
  if (p.text !== undefined) sets.push(sql.fragment`text = ${p.text}`);
  const done = await db.any(sql.type(z.object({ id: z.string() }))`
    UPDATE groups SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}::uuid RETURNING id::text AS id`);
  return done.length ? findGroupById(db, id) : null;
}

/** Deletes a group (memberships go with it); false when there was none. */
export const deleteGroup = (db: CommonQueryMethods, id: string) => deleteByUuid(db, 'groups', id);

/** GET /groups text filters (rows.ts). */
export interface GroupSelection {
  name: readonly TextFilter[];
  text: readonly TextFilter[];
}

const groupWhere = (s: GroupSelection) =>
  sql.join(
    [
      sql.fragment`TRUE`,
      ...textFilterSql(sql.fragment`g.name`, s.name),
      ...textFilterSql(sql.fragment`g.text`, s.text),
    ],
    sql.fragment` AND `,
  );

export function listGroups(
  db: CommonQueryMethods,
  selection: GroupSelection,
  limit: number,
  offset: number,
): Promise<readonly GroupRow[]> {
  return db.any(sql.type(GroupRowSchema)`
    SELECT ${columns} FROM groups g WHERE ${groupWhere(selection)}
    ORDER BY g.name LIMIT ${limit} OFFSET ${offset}`);
}

export function countGroups(db: CommonQueryMethods, selection: GroupSelection): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM groups g WHERE ${groupWhere(selection)}`);
}

/** The groups a user belongs to. */
export function groupsOfUser(db: CommonQueryMethods, userId: string): Promise<readonly GroupRow[]> {
  return db.any(sql.type(GroupRowSchema)`
    SELECT ${columns} FROM groups g JOIN group_users m ON m.group_id = g.id
    WHERE m.user_id = ${userId}::uuid ORDER BY g.name`);
}

export const GroupMemberRowSchema = z.object({
  id: z.string(),
  login: z.string(),
  name: z.string(),
  status: z.string(),
});
export type GroupMemberRow = z.infer<typeof GroupMemberRowSchema>;

/** The users in a group. */
export function membersOf(db: CommonQueryMethods, groupId: string): Promise<readonly GroupMemberRow[]> {
  return db.any(sql.type(GroupMemberRowSchema)`
    SELECT u.id::text AS id, u.login, u.name, u.status FROM users u
    JOIN group_users gu ON gu.user_id = u.id WHERE gu.group_id = ${groupId}::uuid ORDER BY u.login`);
}

export async function addMember(db: CommonQueryMethods, groupId: string, userId: string): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO group_users (group_id, user_id) VALUES (${groupId}::uuid, ${userId}::uuid) ON CONFLICT DO NOTHING`);
}

export async function removeMember(db: CommonQueryMethods, groupId: string, userId: string): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM group_users WHERE group_id = ${groupId}::uuid AND user_id = ${userId}::uuid`);
}
