import Router from '@koa/router';
import type { Deps } from '../../deps.ts';

/** Heartbeats (api.md §7); filled in by issue #5. */
export function heartbeatRoutes(_deps: Deps): Router {
  return new Router();
}
