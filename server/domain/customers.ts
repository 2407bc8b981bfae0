import { randomUUID } from 'node:crypto';
import type { Customer, CustomerInput, CustomerList, CustomerUpdate } from '../../shared/perms.ts';
import { isAdminOf } from '../auth/scopes.ts';
import type { Auth } from '../auth/types.ts';
import * as customersDb from '../db/customers.ts';
import type { CustomerRow } from '../db/customers.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { isId } from './perms.ts';
import { filtersOf, textFilters } from './query/list-filters.ts';
import { pageFieldsOf, pagingOf } from './query/params.ts';

const presentCustomer = (row: CustomerRow, baseUrl: string): Customer => ({
  id: row.id,
  href: `${baseUrl}/customer/${row.id}`,
  match: row.match,
  customer: row.customer,
});

/**
 * The customers whose lookups the caller may see (auth.md §5): administrators of customers and
 * unrestricted callers all (null), everyone else only their own.
 */
function visibleTo(deps: Deps, auth: Auth): readonly string[] | null {
  if (auth.unrestricted || isAdminOf(auth.scopes, 'customers')) return null;
  return deps.config.CUSTOMER_VIEWS && auth.customers.length ? auth.customers : null;
}

/** POST /customer */
export async function createCustomer(deps: Deps, baseUrl: string, input: CustomerInput): Promise<Customer> {
  const row = await customersDb.insertCustomer(deps.db, { id: randomUUID(), ...input });
  return presentCustomer(row, baseUrl);
}

/** GET /customer/:id (404 for another customer's lookup, to non-admins). */
export async function getCustomer(deps: Deps, auth: Auth, baseUrl: string, id: string): Promise<Customer> {
  const row = isId(id) ? await customersDb.findCustomer(deps.db, id, visibleTo(deps, auth)) : null;
  if (!row) throw appError('not_found');
  return presentCustomer(row, baseUrl);
}

/** PUT /customer/:id: omitted (or null) fields unchanged. */
export async function updateCustomer(
  deps: Deps,
  auth: Auth,
  baseUrl: string,
  id: string,
  change: CustomerUpdate,
): Promise<Customer> {
  const row = await deps.db.transaction(async (tx) => {
    const current = isId(id) ? await customersDb.findCustomer(tx, id, visibleTo(deps, auth)) : null;
    if (!current) throw appError('not_found');
    return customersDb.updateCustomer(tx, {
      id: current.id,
      match: change.match ?? current.match,
      customer: change.customer ?? current.customer,
    });
  });
  return presentCustomer(row, baseUrl);
}

/** DELETE /customer/:id */
export async function deleteCustomer(deps: Deps, id: string): Promise<void> {
  if (!isId(id) || !(await customersDb.deleteCustomer(deps.db, id))) throw appError('not_found');
}

/** GET /customers: text filters `match` and `customer`; non-admins see only their own customers. */
export async function listCustomers(
  deps: Deps,
  auth: Auth,
  baseUrl: string,
  search: URLSearchParams,
): Promise<CustomerList> {
  const { params, filters } = filtersOf(search, ['match', 'customer'], ['match', 'customer']);
  const { page, pageSize } = pagingOf(params, deps.config.DEFAULT_PAGE_SIZE);
  const selection = {
    match: textFilters(filters, 'match'),
    customer: textFilters(filters, 'customer'),
    customers: visibleTo(deps, auth),
  };
  const [rows, total] = await Promise.all([
    customersDb.listCustomers(deps.db, selection, { limit: pageSize, offset: (page - 1) * pageSize }),
    customersDb.countCustomers(deps.db, selection),
  ]);
  const paging = pageFieldsOf(page, pageSize, total);
  const customers = rows.map((r) => presentCustomer(r, baseUrl));
  return {
    status: 'ok',
    ...(customers.length === 0 ? { message: 'not found' } : {}),
    customers,
    ...paging,
    time: new Date(deps.clock.now()).toISOString(),
  };
}
