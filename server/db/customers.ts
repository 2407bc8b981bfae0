import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { deleteByUuid, textFilterSql, texts } from './rows.ts';
import type { TextFilter } from '../domain/query/list-filters.ts';

/** Every customer lookup's match and customer (auth.md §5). */
export function customerMatches(db: CommonQueryMethods) {
  return db.any(sql.type(z.object({ match: z.string(), customer: z.string() }))`
    SELECT match, customer FROM customers`);
}

export const CustomerRowSchema = z.object({ id: z.string(), match: z.string(), customer: z.string() });
export type CustomerRow = z.infer<typeof CustomerRowSchema>;

const columns = sql.fragment`c.id::text AS id, c.match, c.customer`;
/** Restricts to these customers; null = every customer. */
const within = (customers: readonly string[] | null) =>
  customers === null ? sql.fragment`` : sql.fragment`AND c.customer = ANY(${texts(customers)})`;

export function insertCustomer(db: CommonQueryMethods, c: CustomerRow): Promise<CustomerRow> {
  return db.one(sql.type(CustomerRowSchema)`
    INSERT INTO customers AS c (id, match, customer) VALUES (${c.id}::uuid, ${c.match}, ${c.customer})
    RETURNING ${columns}`);
}

/** One customer lookup by id (the caller checked it is a UUID), within the caller's customers. */
export function findCustomer(
  db: CommonQueryMethods,
  id: string,
  customers: readonly string[] | null,
): Promise<CustomerRow | null> {
  return db.maybeOne(sql.type(CustomerRowSchema)`
    SELECT ${columns} FROM customers c WHERE c.id = ${id}::uuid ${within(customers)}`);
}

export interface CustomerSelection {
  match: readonly TextFilter[];
  customer: readonly TextFilter[];
  /** The caller's customers; null = unrestricted. */
  customers: readonly string[] | null;
}

function whereOf(s: CustomerSelection) {
  const parts = [
    sql.fragment`TRUE ${within(s.customers)}`,
    ...textFilterSql(sql.fragment`c.match`, s.match),
    ...textFilterSql(sql.fragment`c.customer`, s.customer),
  ];
  return sql.join(parts, sql.fragment` AND `);
}

/** One page of customer lookups by customer, then match. */
export function listCustomers(
  db: CommonQueryMethods,
  selection: CustomerSelection,
  page: { limit: number; offset: number },
): Promise<readonly CustomerRow[]> {
  return db.any(sql.type(CustomerRowSchema)`
    SELECT ${columns} FROM customers c WHERE ${whereOf(selection)}
    ORDER BY c.customer, c.match, c.id LIMIT ${page.limit} OFFSET ${page.offset}`);
}

export function countCustomers(db: CommonQueryMethods, selection: CustomerSelection): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM customers c WHERE ${whereOf(selection)}`);
}

export function updateCustomer(db: CommonQueryMethods, c: CustomerRow): Promise<CustomerRow> {
  return db.one(sql.type(CustomerRowSchema)`
    UPDATE customers AS c SET match = ${c.match}, customer = ${c.customer} WHERE c.id = ${c.id}::uuid
    RETURNING ${columns}`);
}

/** Deletes one customer lookup; false when there was none. */
export const deleteCustomer = (db: CommonQueryMethods, id: string) => deleteByUuid(db, 'customers', id);
