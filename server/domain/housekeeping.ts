import type { Deps } from '../deps.ts';
import type { Caller } from './alerts.ts';

/** GET|POST /management/housekeeping: one run now; the answer body (alert-lifecycle.md §9). */
export async function runHousekeeping(
  _deps: Deps,
  _params: URLSearchParams,
  _caller: Caller,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return { status: 200, body: { status: 'ok' } };
}

/** Starts the in-server scheduler (one instance at a time across several). */
export function startHousekeeping(_deps: Deps): { stop(): Promise<void> } {
  return { stop: async () => {} };
}
