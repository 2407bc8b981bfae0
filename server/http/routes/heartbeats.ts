import { Router } from '../router.ts';
import { z } from 'zod';
import { HeartbeatInputSchema } from '../../../shared/heartbeats.ts';
import type { Deps } from '../../deps.ts';
import * as heartbeats from '../../domain/heartbeats.ts';
import { httpCaller } from '../caller.ts';
import { requireScope } from '../middleware/require-scope.ts';
import { bodyObject } from '../body.ts';

const IdParamsSchema = z.object({ id: z.string().max(128, 'id must be at most 128 characters') });

/** Heartbeats (api.md §7, heartbeats-blackouts.md §1). */
export function heartbeatRoutes(deps: Deps): Router {
  const router = new Router();

  /** POST /heartbeat */
  router.post('/heartbeat', requireScope(deps, 'write:heartbeats'), async (ctx) => {
    const input = HeartbeatInputSchema.parse(bodyObject(ctx));
    const heartbeat = await heartbeats.submitHeartbeat(deps, input, httpCaller(ctx, deps));
    ctx.status = 201;
    ctx.body = { status: 'ok', id: heartbeat.id, heartbeat };
  });

  /** GET /heartbeat/:id */
  router.get('/heartbeat/:id', requireScope(deps, 'read:heartbeats'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const heartbeat = await heartbeats.getHeartbeat(deps, id, httpCaller(ctx, deps));
    ctx.body = { status: 'ok', total: 1, heartbeat };
  });

  /** GET /heartbeats */
  router.get('/heartbeats', requireScope(deps, 'read:heartbeats'), async (ctx) => {
    const page = await heartbeats.listHeartbeats(
      deps,
      new URLSearchParams(ctx.querystring),
      httpCaller(ctx, deps),
    );
    // An empty page answers as Alerta does: total 0, no pages (api.md §1).
    ctx.body = page.heartbeats.length
      ? { status: 'ok', ...page }
      : { status: 'ok', message: 'not found', ...page, total: 0, pages: 0, more: false };
  });

  /** DELETE /heartbeat/:id */
  router.delete('/heartbeat/:id', requireScope(deps, 'write:heartbeats'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    await heartbeats.deleteHeartbeat(deps, id, httpCaller(ctx, deps));
    ctx.body = { status: 'ok' };
  });

  return router;
}
