import Router from '@koa/router';
import type { Deps } from '../../deps.ts';

/** Login, signup, logout and userinfo (auth.md §6); filled in by issue #6. */
export function authRoutes(_deps: Deps): Router {
  return new Router();
}
