import Router from '@koa/router';
import type { Deps } from '../../deps.ts';

/** Users and groups (api.md §9); filled in by issue #6. */
export function usersRoutes(_deps: Deps): Router {
  return new Router();
}
