import Router from '@koa/router';
import type { Deps } from '../../deps.ts';

/** API keys (api.md §8); filled in by issue #6. */
export function keyRoutes(_deps: Deps): Router {
  return new Router();
}
