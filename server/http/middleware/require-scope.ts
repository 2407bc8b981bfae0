import type { Middleware } from 'koa';
import { authenticate } from '../caller.ts';
import { isGranted } from '../../auth/scopes.ts';
import type { Deps } from '../../deps.ts';
import { appError } from '../../errors.ts';

/**
 * Declared on each protected route (auth.md §3): authenticates the caller and, unless the caller is
 * the anonymous one AUTH_REQUIRED=False lets through, requires `scope` (null = any authenticated
 * caller). 401 for missing or bad credentials, 403 for a missing scope.
 */
export const requireScope =
  (deps: Deps, scope: string | null): Middleware =>
  async (ctx, next) => {
    const auth = await authenticate(ctx, deps);
    if (!auth.unrestricted && scope !== null && !isGranted(auth.scopes, scope, deps.config.DELETE_SCOPES)) {
      throw appError('missing_scope', scope);
    }
    return next(); // nothing to do after the rest: no need to wait for it here
  };
