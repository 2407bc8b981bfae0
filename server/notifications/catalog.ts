import type { Deps } from '../deps.ts';
import * as store from '../db/notifications.ts';
import type { Caller } from '../domain/caller.ts';
import { fromSettings } from './from-settings.ts';
import type { ReceiverDef } from './receivers.ts';
import type { RuleDef } from './rules.ts';
import { openReceiver } from './sealed-settings.ts';

/**
 * Receivers and rules as the API reads them (the settings' and the stored ones), and which of them a
 * caller sees: an unrestricted caller all, one restricted to customers only its customers' — global
 * ones (no customer, and those the settings make) are not found (tests/api/notifications-tenancy.test.ts).
 */

/** Whether a caller may see what `customer` owns: all for an unrestricted caller, never a global one else. */
export const isVisible = (caller: Pick<Caller, 'customers'>, customer: string | null) =>
  caller.customers === null || (customer !== null && caller.customers.includes(customer));

/** Every receiver (secrets opened): the ones the settings make, then the API's, by name. */
export async function allReceivers(deps: Deps): Promise<ReceiverDef[]> {
  const stored = await store.listReceivers(deps.db);
  return [...fromSettings(deps.config).receivers, ...stored.map((r) => openReceiver(deps.secrets, r))];
}

export async function allRules(deps: Deps): Promise<RuleDef[]> {
  const { rule } = fromSettings(deps.config);
  return [...(rule ? [rule] : []), ...(await store.listRules(deps.db))];
}

export async function visibleReceivers(deps: Deps, caller: Caller): Promise<ReceiverDef[]> {
  return (await allReceivers(deps)).filter((r) => isVisible(caller, r.customer));
}

export async function visibleRules(deps: Deps, caller: Caller): Promise<RuleDef[]> {
  return (await allRules(deps)).filter((r) => isVisible(caller, r.owner));
}
