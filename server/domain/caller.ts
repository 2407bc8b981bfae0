import { badRequest } from '../errors.ts';
import type { PluginRequest } from './plugin-hooks.ts';

/** Who a use case acts for: what plugins may know of the request, and the customers it may touch. */
export interface Caller extends PluginRequest {
  /** The caller's customers; null = unrestricted. */
  customers: readonly string[] | null;
}

/** The customer a write stores (alert-lifecycle.md §3); `customers` null = unrestricted caller. */
export function assignCustomer(
  wanted: string | null | undefined,
  customers: readonly string[] | null,
): string | null {
  if (customers === null) return wanted ?? null;
  if (wanted != null) {
    if (customers.includes(wanted)) return wanted;
    throw badRequest(`not allowed to set customer to '${wanted}'`);
  }
  if (customers.length === 1) return customers[0]!;
  if (customers.length > 1) throw badRequest('must define customer as more than one possibility');
  return null;
}
