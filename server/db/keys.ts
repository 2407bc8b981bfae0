import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const KeyRowSchema = z.object({
  id: z.string(),
  key: z.string(),
  user: z.string(),
  scopes: z.array(z.string()),
  text: z.string(),
  expireTime: z.number(),
  count: z.number(),
  lastUsedTime: z.number().nullable(),
  customer: z.string().nullable(),
});
export type KeyRow = z.infer<typeof KeyRowSchema>;

export const keyColumns = sql.fragment`
  k.id::text AS id, k.key, k."user", k.scopes, k.text, k.expire_time AS "expireTime", k.count,
  k.last_used_time AS "lastUsedTime", k.customer`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The key a request presents, by its value or (as Alerta allows) its id; expired keys included. */
export function findKeyForAuth(db: CommonQueryMethods, value: string): Promise<KeyRow | null> {
  return UUID.test(value)
    ? db.maybeOne(sql.type(KeyRowSchema)`
        SELECT ${keyColumns} FROM keys k WHERE k.key = ${value} OR k.id = ${value}::uuid LIMIT 1`)
    : db.maybeOne(sql.type(KeyRowSchema)`SELECT ${keyColumns} FROM keys k WHERE k.key = ${value}`);
}

/** Adds batched uses to keys' `count` and moves `lastUsedTime` forward, in one statement. */
export async function recordKeyUses(
  db: CommonQueryMethods,
  uses: readonly { id: string; count: number; last: number }[],
): Promise<void> {
  if (uses.length === 0) return;
  const rows = sql.join(
    uses.map((u) => sql.fragment`(${u.id}::uuid, ${u.count}::bigint, ${sql.timestamp(new Date(u.last))})`),
    sql.fragment`, `,
  );
  await db.query(sql.unsafe`
    UPDATE keys k SET count = k.count + v.n,
      last_used_time = GREATEST(COALESCE(k.last_used_time, v.last), v.last)
    FROM (VALUES ${rows}) AS v(id, n, last) WHERE k.id = v.id`);
}
