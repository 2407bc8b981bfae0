import type { Context } from 'koa';
import type { Deps } from '../deps.ts';
import { unauthorized } from '../errors.ts';

/**
 * Verifies a Hawk-signed request (auth.md §11) and returns the key id it was signed with; 401
 * otherwise. Filled in by the Hawk work of issue #6.
 */
export async function verifyHawkRequest(_deps: Deps, _ctx: Context): Promise<string> {
  throw unauthorized('Hawk authentication is not available');
}
