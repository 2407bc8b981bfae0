import { isGranted } from '../../../shared/scopes.ts';
import { apiKey, tokenClaims } from './api.ts';
import type { ClientConfig } from './config.ts';

/**
 * The scopes this browser acts with, as far as the UI can tell (docs/ui-pages.md): the token's
 * `scope` claim; the read-only scopes for anonymous users when login is required; `null` when
 * nothing is checked (authentication off) or not known here (an API key). Only for hiding links and
 * buttons: the API checks every request.
 */
export function heldScopes(config: ClientConfig): string[] | null {
  const claims = tokenClaims();
  if (claims) return typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
  if (apiKey() || !config.auth_required) return null;
  return config.allow_readonly ? (config.readonly_scopes ?? ['read']) : [];
}

/** Whether `held` (from heldScopes) grants `wanted`, by the server's rule (auth.md §2). */
export const allows = (held: string[] | null, wanted: string): boolean =>
  held === null || isGranted(held, wanted, []);
