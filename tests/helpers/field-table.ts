import * as assert from 'uvu/assert';
import type { SqlType } from '../../server/domain/alert-fields.ts';
import { queryDb } from './db.ts';

/** information_schema's name of each SqlType. */
const CATALOGUE_TYPE: Record<SqlType, string> = {
  text: 'text',
  'text[]': '_text',
  jsonb: 'jsonb',
  integer: 'int4',
  boolean: 'bool',
  timestamptz: 'timestamptz',
};

/**
 * Asserts that a field table matches `table` as the migrations made it: every column is a field of
 * the table with its type, or listed as internal; every field and every internal column exists.
 * Used by tests/api/alert-fields.test.ts and tests/api/history-fields.test.ts.
 */
export async function assertMatchesCatalogue(
  dbUrl: string,
  table: string,
  fields: readonly { readonly column: string; readonly name: string; readonly sqlType: SqlType }[],
  internal: Readonly<Record<string, string>>,
) {
  const columns = await queryDb<{ column_name: string; udt_name: string }>(
    dbUrl,
    `SELECT column_name, udt_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  assert.ok(columns.length > 0, `no table ${table}`);
  const byColumn = new Map(fields.map((f) => [f.column, f]));
  for (const { column_name: name, udt_name: type } of columns) {
    const field = byColumn.get(name);
    if (field) assert.is(type, CATALOGUE_TYPE[field.sqlType], `type of ${table}.${name}`);
    else assert.ok(name in internal, `column ${table}.${name} is neither a field nor internal`);
  }
  const stored = new Set(columns.map((c) => c.column_name));
  for (const f of fields) assert.ok(stored.has(f.column), `field ${f.name}: no column ${table}.${f.column}`);
  for (const name of Object.keys(internal)) assert.ok(stored.has(name), `internal ${table}.${name} is gone`);
}
