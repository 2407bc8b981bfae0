import { Router } from '../router.ts';
import type { Context } from 'koa';
import { z } from 'zod';
import type { BulkType } from '../../db/bulk-tasks.ts';
import type { Deps } from '../../deps.ts';
import { bulkBodyOf, getTask, startBulk } from '../../domain/bulk.ts';
import { appError } from '../../errors.ts';
import { timed } from '../timed.ts';
import { httpCaller } from '../caller.ts';
import { requireScope } from '../middleware/require-scope.ts';
import { bodyObject } from '../body.ts';

const TaskParamsSchema = z.object({ id: z.string().max(128) });
/** Headers a task keeps so plugins see the request as it was (never credentials). */
const KEPT_HEADERS = /^(x-forwarded-for|x-real-ip|x-service-loop|x-alerta-loop|user-agent|x-request-id)$/;

/** Bulk operations on every alert a query selects (api.md §10, docs/queries.md). */
export function bulkRoutes(deps: Deps): Router {
  const router = new Router();

  const handle = (type: BulkType) => async (ctx: Context) => {
    const body = bulkBodyOf(deps, type, type === 'delete' ? {} : bodyObject(ctx));
    const caller = httpCaller(ctx, deps);
    const headers = Object.fromEntries(
      Object.entries(ctx.headers)
        .filter(([k, v]) => KEPT_HEADERS.test(k) && typeof v === 'string')
        .map(([k, v]) => [k, v as string]),
    );
    const outcome = await startBulk(deps, body, new URLSearchParams(ctx.querystring), caller, headers);
    if (outcome.kind === 'task') {
      ctx.status = 202;
      ctx.set('Location', `${caller.baseUrl}/_bulk/task/${outcome.id}`);
      ctx.body = { status: 'ok', id: outcome.id, message: `${outcome.total} alerts queued for ${type}` };
      return;
    }
    if (type === 'status' && outcome.changed.length === 0 && outcome.errors.length > 0) {
      throw appError('bulk_failed').with({ errors: outcome.errors });
    }
    ctx.body = {
      status: 'ok',
      [type === 'delete' ? 'deleted' : 'updated']: outcome.changed,
      count: outcome.changed.length,
      ...(outcome.errors.length ? { errors: outcome.errors } : {}),
    };
  };

  /** PUT /_bulk/alerts/status */
  router.put(
    '/_bulk/alerts/status',
    requireScope(deps, 'write:alerts'),
    timed(deps, 'status'),
    handle('status'),
  );
  /** PUT /_bulk/alerts/action */
  router.put(
    '/_bulk/alerts/action',
    requireScope(deps, 'write:alerts'),
    timed(deps, 'status'),
    handle('action'),
  );
  /** PUT /_bulk/alerts/tag */
  router.put('/_bulk/alerts/tag', requireScope(deps, 'write:alerts'), timed(deps, 'tagged'), handle('tag'));
  /** PUT /_bulk/alerts/untag */
  router.put(
    '/_bulk/alerts/untag',
    requireScope(deps, 'write:alerts'),
    timed(deps, 'untagged'),
    handle('untag'),
  );
  /** PUT /_bulk/alerts/attributes */
  router.put(
    '/_bulk/alerts/attributes',
    requireScope(deps, 'write:alerts'),
    timed(deps, 'attributes'),
    handle('attributes'),
  );
  /** DELETE /_bulk/alerts */
  router.delete(
    '/_bulk/alerts',
    requireScope(deps, 'write:alerts'),
    timed(deps, 'deleted'),
    handle('delete'),
  );

  /** GET /_bulk/task/:id */
  router.get('/_bulk/task/:id', requireScope(deps, 'read:alerts'), async (ctx) => {
    ctx.body = await getTask(deps, TaskParamsSchema.parse(ctx.params).id);
  });

  return router;
}
