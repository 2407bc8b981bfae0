import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const NoteRowSchema = z.object({
  id: z.string(),
  text: z.string(),
  user: z.string().nullable(),
  attributes: z.record(z.string(), z.unknown()),
  type: z.string(),
  createTime: z.number(),
  updateTime: z.number().nullable(),
  alert: z.string().nullable(),
  customer: z.string().nullable(),
});
export type NoteRecord = z.infer<typeof NoteRowSchema>;

const columns = sql.fragment`
  id::text AS id, text, "user", attributes, type, create_time AS "createTime", update_time AS "updateTime",
  alert, customer`;

export interface NewNote {
  id: string;
  text: string;
  user: string | null;
  attributes: Record<string, unknown>;
  createTime: number;
  alert: string;
  customer: string | null;
}

export function insertNote(db: CommonQueryMethods, n: NewNote): Promise<NoteRecord> {
  return db.one(sql.type(NoteRowSchema)`
    INSERT INTO notes (id, text, "user", attributes, type, create_time, alert, customer)
    VALUES (${n.id}, ${n.text}, ${n.user}, ${sql.jsonb(n.attributes as never)}, 'alert',
      ${sql.timestamp(new Date(n.createTime))}, ${n.alert}, ${n.customer})
    RETURNING ${columns}`);
}

export function findNote(db: CommonQueryMethods, id: string): Promise<NoteRecord | null> {
  if (!z.uuid().safeParse(id).success) return Promise.resolve(null);
  return db.maybeOne(sql.type(NoteRowSchema)`SELECT ${columns} FROM notes WHERE id = ${id}`);
}

/** The alert's notes, oldest first (at most 100, as the established server lists). */
export function notesOf(db: CommonQueryMethods, alertId: string): Promise<readonly NoteRecord[]> {
  return db.any(sql.type(NoteRowSchema)`
    SELECT ${columns} FROM notes WHERE alert = ${alertId} ORDER BY create_time, id LIMIT 100`);
}

export function updateNote(
  db: CommonQueryMethods,
  alertId: string,
  id: string,
  text: string,
  now: number,
): Promise<NoteRecord | null> {
  if (!z.uuid().safeParse(id).success) return Promise.resolve(null);
  return db.maybeOne(sql.type(NoteRowSchema)`
    UPDATE notes SET text = ${text}, update_time = ${sql.timestamp(new Date(now))}
    WHERE id = ${id} AND alert = ${alertId}
    RETURNING ${columns}`);
}

export async function deleteNote(db: CommonQueryMethods, alertId: string, id: string): Promise<boolean> {
  if (!z.uuid().safeParse(id).success) return false;
  const r = await db.query(sql.unsafe`DELETE FROM notes WHERE id = ${id} AND alert = ${alertId}`);
  return r.rowCount > 0;
}
