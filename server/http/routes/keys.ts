import { Router } from '../router.ts';
import type { Context } from 'koa';
import { z } from 'zod';
import { KeyInputSchema, KeyParamSchema, KeyUpdateSchema } from '../../../shared/keys.ts';
import type { Auth } from '../../auth/types.ts';
import type { Deps } from '../../deps.ts';
import * as keys from '../../domain/keys.ts';
import { apiBase } from '../../base-url.ts';
import { requireScope } from '../middleware/require-scope.ts';
import { answerCreated, bodyObject } from '../body.ts';

const KeyParamsSchema = z.object({ key: KeyParamSchema });

/** The authenticated caller (requireScope has run). */
export const authOf = (ctx: Context): Auth => ctx.state.auth!;

/** API keys (api.md §8, auth.md §9). */
export function keyRoutes(deps: Deps): Router {
  const router = new Router();
  const base = (ctx: Context) => apiBase(ctx, deps.config);

  /** POST /key */
  router.post('/key', requireScope(deps, 'write:keys'), async (ctx) => {
    const input = KeyInputSchema.parse(bodyObject(ctx));
    const data = await keys.createKey(deps, authOf(ctx), base(ctx), input);
    answerCreated(ctx, data.href, { status: 'ok', key: data.key, data });
  });

  /** GET /keys */
  router.get('/keys', requireScope(deps, 'read:keys'), async (ctx) => {
    ctx.body = await keys.listKeys(deps, authOf(ctx), base(ctx), new URLSearchParams(ctx.querystring));
  });

  /** GET /key/:key (value or id) */
  router.get('/key/:key', requireScope(deps, 'read:keys'), async (ctx) => {
    const { key } = KeyParamsSchema.parse(ctx.params);
    ctx.body = { status: 'ok', total: 1, key: await keys.getKey(deps, authOf(ctx), base(ctx), key) };
  });

  /** PUT /key/:key */
  router.put('/key/:key', requireScope(deps, 'write:keys'), async (ctx) => {
    const { key } = KeyParamsSchema.parse(ctx.params);
    const change = KeyUpdateSchema.parse(bodyObject(ctx));
    ctx.body = { status: 'ok', key: await keys.updateKey(deps, authOf(ctx), base(ctx), key, change) };
  });

  /** DELETE /key/:key */
  router.delete('/key/:key', requireScope(deps, 'admin:keys'), async (ctx) => {
    const { key } = KeyParamsSchema.parse(ctx.params);
    await keys.deleteKey(deps, authOf(ctx), key);
    ctx.body = { status: 'ok' };
  });

  return router;
}
