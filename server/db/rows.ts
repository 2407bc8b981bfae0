import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { TextFilter } from '../domain/query/list-filters.ts';

/** A time (epoch ms) as a timestamptz parameter. */
export const ts = (ms: number) => sql.timestamp(new Date(ms));

/** A list of texts as a text[] parameter; a null element stays a SQL NULL. */
export const texts = (values: readonly (string | null)[]) => sql.array(values as string[], 'text');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `id` is a UUID, the form of the ids of users, groups, keys, permissions, customer
 * lookups, blackouts and heartbeats: anything else names none of them and must not reach a
 * `::uuid` cast (a database error).
 */
export const isUuid = (id: string) => UUID.test(id);

/** The tables whose rows are deleted by their uuid `id` alone. */
type UuidTable = 'customers' | 'groups' | 'heartbeats' | 'keys' | 'perms' | 'users';

/** Deletes the row of `table` with this id (a UUID); false when there was none. */
export async function deleteByUuid(db: CommonQueryMethods, table: UuidTable, id: string): Promise<boolean> {
  const gone = await db.any(sql.type(z.object({ id: z.string() }))`
    DELETE FROM ${sql.identifier([table])} WHERE id = ${id}::uuid RETURNING id::text AS id`);
  return gone.length > 0;
}

/** The text filters on `column` (a column expression) as SQL, one condition each. */
export function textFilterSql(column: FragmentSqlToken, filters: readonly TextFilter[]): FragmentSqlToken[] {
  return filters.map((f) => {
    const cond = f.contains
      ? sql.fragment`(${sql.join(
          f.values.map((v) => sql.fragment`strpos(lower(${column}), ${v.toLowerCase()}) > 0`),
          sql.fragment` OR `,
        )})`
      : sql.fragment`${column} = ANY(${texts(f.values)})`;
    return f.negated ? sql.fragment`(${cond}) IS NOT TRUE` : cond;
  });
}
