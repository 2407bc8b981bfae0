import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { deleteByUuid, textFilterSql, texts } from './rows.ts';
import type { TextFilter } from '../domain/query/list-filters.ts';

/** Every permission's match and scopes (roles and groups → scopes, auth.md §4). */
export function permMatches(db: CommonQueryMethods) {
  return db.any(sql.type(z.object({ match: z.string(), scopes: z.array(z.string()) }))`
    SELECT match, scopes FROM perms`);
}

export const PermRowSchema = z.object({ id: z.string(), match: z.string(), scopes: z.array(z.string()) });
export type PermRow = z.infer<typeof PermRowSchema>;

const columns = sql.fragment`p.id::text AS id, p.match, p.scopes`;

export function insertPerm(db: CommonQueryMethods, p: PermRow): Promise<PermRow> {
  return db.one(sql.type(PermRowSchema)`
    INSERT INTO perms AS p (id, match, scopes) VALUES (${p.id}::uuid, ${p.match}, ${texts(p.scopes)})
    RETURNING ${columns}`);
}

/** One permission by id (the caller checked it is a UUID). */
export function findPerm(db: CommonQueryMethods, id: string): Promise<PermRow | null> {
  return db.maybeOne(sql.type(PermRowSchema)`SELECT ${columns} FROM perms p WHERE p.id = ${id}::uuid`);
}

/** Every stored permission that passes the filters (lists are "any of"), by match. */
export function listPerms(
  db: CommonQueryMethods,
  filters: { match?: readonly TextFilter[]; scopes?: readonly string[] },
): Promise<readonly PermRow[]> {
  const parts = [sql.fragment`TRUE`, ...textFilterSql(sql.fragment`p.match`, filters.match ?? [])];
  if (filters.scopes) parts.push(sql.fragment`p.scopes && ${texts(filters.scopes)}`);
  return db.any(sql.type(PermRowSchema)`
    SELECT ${columns} FROM perms p WHERE ${sql.join(parts, sql.fragment` AND `)} ORDER BY p.match, p.id`);
}

export function updatePerm(db: CommonQueryMethods, p: PermRow): Promise<PermRow> {
  return db.one(sql.type(PermRowSchema)`
    UPDATE perms AS p SET match = ${p.match}, scopes = ${texts(p.scopes)} WHERE p.id = ${p.id}::uuid
    RETURNING ${columns}`);
}

/** Deletes one permission; false when there was none. */
export const deletePerm = (db: CommonQueryMethods, id: string) => deleteByUuid(db, 'perms', id);
