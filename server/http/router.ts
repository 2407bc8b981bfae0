import { createRequire } from 'node:module';
import type { DefaultContext, DefaultState } from 'koa';
import type * as KoaRouter from '@koa/router';

/*
 * @koa/router's CommonJS build. Its ES build imports `http` as an ES module, and Node then reads
 * every export of `node:http` for the module's bindings, among them the lazy `WebSocket`, which
 * loads Node's bundled undici (about 14 MB of RSS in a server that never uses it); `require`
 * reads nothing it is not asked for (docs/benchmarks.md, "Memory").
 */
const require = createRequire(import.meta.url);

export const Router = require('@koa/router') as typeof KoaRouter.Router;
export type Router<StateT = DefaultState, ContextT = DefaultContext> = KoaRouter.Router<StateT, ContextT>;
