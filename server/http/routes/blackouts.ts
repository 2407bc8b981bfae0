import Router from '@koa/router';
import type { Deps } from '../../deps.ts';

/** Blackout periods (api.md §6); filled in by issue #5. */
export function blackoutRoutes(_deps: Deps): Router {
  return new Router();
}
