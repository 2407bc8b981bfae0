import type { Deps } from '../deps.ts';

/** Creates the ADMIN_USERS (password ADMIN_PASSWORD) that do not exist yet (auth.md §13). */
export async function bootstrapAdminUsers(_deps: Deps): Promise<void> {}
