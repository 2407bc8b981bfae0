import type { Deps } from '../deps.ts';

/** Creates the admin API keys of auth.md §13 (ADMIN_KEY for the first admin, ADMIN_KEY_MAXAGE). */
export async function bootstrapAdminKeys(_deps: Deps): Promise<void> {}
