import { createRequire } from 'node:module';
import type { DefaultContext, DefaultState } from 'koa';
import type * as KoaRouter from '@koa/router';

/*
 * @koa/router's CommonJS build. Its ES build imports `http` as an ES module, and Node then reads
 * every export of `node:http` for the module's bindings, among them the lazy `WebSocket`, which
 * loads Node's bundled undici (about 14 MB of RSS in a server that never uses it); `require`
 * reads nothing it is not asked for (`scripts/bench/memory.ts` measures the idle RSS).
 */
const require = createRequire(import.meta.url);

export const Router = require('@koa/router') as typeof KoaRouter.Router;
export type Router<StateT = DefaultState, ContextT = DefaultContext> = KoaRouter.Router<StateT, ContextT>;

/** How many method-and-path pairs a router remembers the match of (paths with ids are many). */
export const MATCH_CACHE_SIZE = 1000;

/**
 * Makes `router.match` remember its answers. @koa/router tests the regular expression of every
 * route on every request, a few hundred of them for the API: about 15 µs of each alert receipt.
 * A match depends only on the path, the method and the routes, so the answers of the last
 * MATCH_CACHE_SIZE pairs are kept (the oldest goes first) and all are dropped if routes are added.
 * Each caller gets arrays of its own: the router appends a later router's layers to `ctx.matched`.
 */
export function cacheMatches<StateT, ContextT>(router: Router<StateT, ContextT>): Router<StateT, ContextT> {
  const match = router.match.bind(router);
  const answers = new Map<string, KoaRouter.MatchResult<StateT, ContextT>>();
  let routes = router.stack.length;
  router.match = (path, method) => {
    if (router.stack.length !== routes) {
      answers.clear();
      routes = router.stack.length;
    }
    const key = `${method} ${path}`;
    let answer = answers.get(key);
    if (!answer) {
      answer = match(path, method);
      if (answers.size >= MATCH_CACHE_SIZE) answers.delete(answers.keys().next().value!);
      answers.set(key, answer);
    }
    return { path: [...answer.path], pathAndMethod: [...answer.pathAndMethod], route: answer.route };
  };
  return router;
}
