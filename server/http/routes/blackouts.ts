import { Router } from '../router.ts';
import { z } from 'zod';
import {
  BlackoutIdSchema,
  BlackoutInputSchema,
  BlackoutPreviewInputSchema,
  BlackoutUpdateSchema,
} from '../../../shared/blackouts.ts';
import type { Deps } from '../../deps.ts';
import * as blackouts from '../../domain/blackouts.ts';
import { previewBlackout } from '../../domain/blackout-preview.ts';
import { appError } from '../../errors.ts';
import { httpCaller } from '../caller.ts';
import { requireScope } from '../middleware/require-scope.ts';
import { answerCreated, bodyObject } from '../body.ts';

const IdParamsSchema = z.object({ id: BlackoutIdSchema });

/** Blackout periods (api.md §6, heartbeats-blackouts.md §2). */
export function blackoutRoutes(deps: Deps): Router {
  const router = new Router();

  /** POST /blackout */
  router.post('/blackout', requireScope(deps, 'write:blackouts'), async (ctx) => {
    const input = BlackoutInputSchema.parse(bodyObject(ctx));
    const caller = httpCaller(ctx, deps);
    const blackout = await blackouts.createBlackout(deps, input, caller);
    answerCreated(ctx, blackout.href, { status: 'ok', id: blackout.id, blackout });
  });

  /** GET /blackouts */
  router.get('/blackouts', requireScope(deps, 'read:blackouts'), async (ctx) => {
    ctx.body = await blackouts.listBlackouts(
      deps,
      new URLSearchParams(ctx.querystring),
      httpCaller(ctx, deps),
    );
  });

  /** POST /blackouts/preview (ours): a recurring window's next occurrences, nothing stored. */
  router.post('/blackouts/preview', requireScope(deps, 'read:blackouts'), (ctx) => {
    ctx.body = previewBlackout(deps, BlackoutPreviewInputSchema.parse(bodyObject(ctx)));
  });

  /** GET /blackout/:id */
  router.get('/blackout/:id', requireScope(deps, 'read:blackouts'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const blackout = await blackouts.getBlackout(deps, id, httpCaller(ctx, deps));
    ctx.body = { status: 'ok', total: 1, blackout };
  });

  /** PUT /blackout/:id */
  router.put('/blackout/:id', requireScope(deps, 'write:blackouts'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const body = bodyObject(ctx);
    if (Object.keys(body).length === 0) throw appError('nothing_to_change');
    const change = BlackoutUpdateSchema.parse(body);
    const blackout = await blackouts.updateBlackout(deps, id, change, httpCaller(ctx, deps));
    ctx.body = { status: 'ok', blackout };
  });

  /** DELETE /blackout/:id */
  router.delete('/blackout/:id', requireScope(deps, 'write:blackouts'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    await blackouts.deleteBlackout(deps, id, httpCaller(ctx, deps));
    ctx.body = { status: 'ok' };
  });

  return router;
}
