/**
 * Reading an Alerta 9.x database: each table in id order, a batch at a time (keyset on the primary
 * key, so memory stays flat whatever the size and a batch costs the same at any depth), each row as
 * `to_jsonb(row)` so that a column an older schema lacks is simply absent. The connection is
 * read-only: the import never writes to the old server's database.
 */
import { sql, type DatabasePool, type FragmentSqlToken, type ListSqlToken } from 'slonik';
import { z } from 'zod';
import { createDb } from '../../db/pool.ts';
import type { Source } from './rows.ts';

/** The tables read, in the order they are written (customers and users before what names them). */
export const TABLES = [
  'customers',
  'perms',
  'users',
  'groups',
  'keys',
  'blackouts',
  'heartbeats',
  'alerts',
  'notes',
] as const;
export type Table = (typeof TABLES)[number];

export interface Filters {
  /** Alerts last received at or after this time (epoch ms); notes created since. */
  readonly since: number | null;
  /** Alerts with one of these statuses. */
  readonly statuses: readonly string[] | null;
}

export async function openSource(url: string): Promise<DatabasePool> {
  const u = new URL(url);
  const options = u.searchParams.get('options') ?? '';
  u.searchParams.set('options', `${options} -c default_transaction_read_only=on`.trim());
  return createDb(u.toString(), { size: 2, applicationName: 'alertwall-import' });
}

/** The tables of the list that the source has (an old or trimmed database may lack some). */
export async function presentTables(db: DatabasePool): Promise<Set<Table>> {
  const rows = await db.any(sql.type(z.object({ name: z.string() }))`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_name = ANY(${sql.array([...TABLES], 'text')})`);
  return new Set(rows.map((r) => r.name as Table));
}

/** An Alerta timestamp (UTC without a zone) compared with an epoch-ms time. */
const utc = (ms: number) => sql.fragment`(${new Date(ms).toISOString()}::timestamptz AT TIME ZONE 'UTC')`;

function alertFilter(f: Filters): ListSqlToken {
  const parts: FragmentSqlToken[] = [sql.fragment`TRUE`];
  if (f.since !== null) parts.push(sql.fragment`last_receive_time >= ${utc(f.since)}`);
  if (f.statuses) parts.push(sql.fragment`status = ANY(${sql.array([...f.statuses], 'text')})`);
  return sql.join(parts, sql.fragment` AND `);
}

function filterOf(table: Table, f: Filters): FragmentSqlToken | ListSqlToken {
  if (table === 'alerts') return alertFilter(f);
  if (table !== 'notes' || (f.since === null && !f.statuses)) return sql.fragment`TRUE`;
  const parts: FragmentSqlToken[] = [
    sql.fragment`(alert IS NULL OR alert IN (SELECT id FROM alerts WHERE ${alertFilter(f)}))`,
  ];
  if (f.since !== null) parts.push(sql.fragment`create_time >= ${utc(f.since)}`);
  return sql.join(parts, sql.fragment` AND `);
}

export async function countRows(db: DatabasePool, table: Table, f: Filters): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::bigint AS n FROM ${sql.identifier([table])} WHERE ${filterOf(table, f)}`);
}

const RowSchema = z.object({ id: z.string(), r: z.record(z.string(), z.unknown()) });

/** The table's rows in id order, `size` at a time. */
export async function* batchesOf(
  db: DatabasePool,
  table: Table,
  f: Filters,
  size: number,
): AsyncGenerator<Source[]> {
  let after: string | null = null;
  for (;;) {
    const from: FragmentSqlToken = after === null ? sql.fragment`TRUE` : sql.fragment`t.id > ${after}`;
    const rows: readonly z.infer<typeof RowSchema>[] = await db.any(sql.type(RowSchema)`
      SELECT t.id, to_jsonb(t) AS r FROM ${sql.identifier([table])} t
      WHERE ${from} AND ${filterOf(table, f)}
      ORDER BY t.id LIMIT ${size}`);
    if (!rows.length) return;
    after = rows[rows.length - 1]!.id;
    yield rows.map((row) => row.r);
    if (rows.length < size) return;
  }
}
