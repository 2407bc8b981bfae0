import { appError } from '../errors.ts';
import type { PluginRequest } from './plugin-hooks.ts';

/** Who a use case acts for: what plugins may know of the request, and the customers it may touch. */
export interface Caller extends PluginRequest {
  /** The caller's customers; null = unrestricted. */
  customers: readonly string[] | null;
}

/**
 * Who is calling, the one rule for an HTTP request (http/caller.ts) and a live socket
 * (realtime/sessions.ts): the authenticated login, and the customers the caller is restricted to
 * (null = all) — only with CUSTOMER_VIEWS, as the established server does.
 */
export function callerOf(
  config: { CUSTOMER_VIEWS: boolean },
  auth: { login: string | null; customers: readonly string[] } | undefined,
  request: Omit<PluginRequest, 'user'>,
): Caller {
  const customers = config.CUSTOMER_VIEWS && auth && auth.customers.length ? auth.customers : null;
  return {
    ip: request.ip,
    header: request.header,
    user: auth?.login ?? null,
    baseUrl: request.baseUrl,
    customers,
  };
}

/** The customer a write stores (alert-lifecycle.md §3); `customers` null = unrestricted caller. */
export function assignCustomer(
  wanted: string | null | undefined,
  customers: readonly string[] | null,
): string | null {
  if (customers === null) return wanted ?? null;
  if (wanted != null) {
    if (customers.includes(wanted)) return wanted;
    throw appError('customer_not_allowed', wanted);
  }
  if (customers.length === 1) return customers[0]!;
  if (customers.length > 1) throw appError('customer_ambiguous');
  return null;
}
