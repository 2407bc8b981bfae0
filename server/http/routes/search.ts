import { Router } from '../router.ts';
import type { Context } from 'koa';
import type { Deps } from '../../deps.ts';
import * as search from '../../domain/search.ts';
import { appError } from '../../errors.ts';
import { timed } from '../timed.ts';
import { httpCaller } from '../caller.ts';
import { requireScope } from '../middleware/require-scope.ts';

const TOP_VARIANTS = new Set(['count', 'flapping', 'standing']);
const paramsOf = (ctx: Context) => new URLSearchParams(ctx.querystring);

/** A list answer: `{status, <name>: items, total}`, with `message: "not found"` when empty (api.md §1). */
function listBody(name: string, items: unknown[], extra: Record<string, unknown> = {}) {
  return items.length
    ? { status: 'ok', [name]: items, total: items.length, ...extra }
    : { status: 'ok', message: 'not found', [name]: [], total: 0, ...extra };
}

/** Searching, counting and reporting on alerts (api.md §4–§5, docs/queries.md). */
export function searchRoutes(deps: Deps): Router {
  const router = new Router();

  /** GET /alerts */
  router.get('/alerts', requireScope(deps, 'read:alerts'), timed(deps, 'queries'), async (ctx) => {
    ctx.body = await search.listAlerts(deps, paramsOf(ctx), httpCaller(ctx, deps));
  });

  /** GET /alerts/count */
  router.get('/alerts/count', requireScope(deps, 'read:alerts'), timed(deps, 'counts'), async (ctx) => {
    ctx.body = await search.countAlerts(deps, paramsOf(ctx), httpCaller(ctx, deps));
  });

  /** GET /alerts/history */
  router.get('/alerts/history', requireScope(deps, 'read:alerts'), timed(deps, 'queries'), async (ctx) => {
    ctx.body = listBody('history', await search.alertHistory(deps, paramsOf(ctx), httpCaller(ctx, deps)));
  });

  /** GET /alerts/top10/:variant and /alerts/topn/:variant */
  for (const [path, usesTopn] of [
    ['/alerts/top10/:variant', false],
    ['/alerts/topn/:variant', true],
  ] as const) {
    router.get(path, requireScope(deps, 'read:alerts'), timed(deps, 'counts'), async (ctx) => {
      const variant = ctx.params.variant ?? '';
      if (!TOP_VARIANTS.has(variant)) throw appError('not_found');
      const top = await search.topAlerts(
        deps,
        variant as 'count' | 'flapping' | 'standing',
        paramsOf(ctx),
        httpCaller(ctx, deps),
        usesTopn,
      );
      ctx.body = listBody('top10', top);
    });
  }

  /** GET /environments (also /alerts/environments) */
  router.get(
    ['/environments', '/alerts/environments'],
    requireScope(deps, 'read:alerts'),
    timed(deps, 'queries'),
    async (ctx) => {
      const { items, total, ...paging } = await search.environments(
        deps,
        paramsOf(ctx),
        httpCaller(ctx, deps),
      );
      ctx.body = { ...listBody('environments', items, paging), total };
    },
  );

  /** GET /services (also /alerts/services) */
  router.get(
    ['/services', '/alerts/services'],
    requireScope(deps, 'read:alerts'),
    timed(deps, 'queries'),
    async (ctx) => {
      const { items, total, ...paging } = await search.services(deps, paramsOf(ctx), httpCaller(ctx, deps));
      ctx.body = { ...listBody('services', items, paging), total };
    },
  );

  /** GET /alerts/groups */
  router.get('/alerts/groups', requireScope(deps, 'read:alerts'), timed(deps, 'queries'), async (ctx) => {
    ctx.body = listBody('groups', await search.groups(deps, paramsOf(ctx), httpCaller(ctx, deps)));
  });

  /** GET /tags (also /alerts/tags, which the web UI and the CLI call) */
  router.get(
    ['/tags', '/alerts/tags'],
    requireScope(deps, 'read:alerts'),
    timed(deps, 'queries'),
    async (ctx) => {
      ctx.body = listBody('tags', await search.tags(deps, paramsOf(ctx), httpCaller(ctx, deps)));
    },
  );

  return router;
}
