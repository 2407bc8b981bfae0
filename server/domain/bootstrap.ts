import type { Deps } from '../deps.ts';
import { bootstrapAdminKeys } from './keys.ts';
import { bootstrapAdminUsers } from './users.ts';

/** At start: the admin users, then their keys (auth.md §13). */
export async function bootstrapAccess(deps: Deps): Promise<void> {
  await bootstrapAdminUsers(deps);
  await bootstrapAdminKeys(deps);
}
