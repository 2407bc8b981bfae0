import Router from '@koa/router';
import type { Deps } from '../../deps.ts';

/** Permissions, scopes and customers (api.md §9); filled in by issue #6. */
export function permissionRoutes(_deps: Deps): Router {
  return new Router();
}
