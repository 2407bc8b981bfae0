import { Router } from '../router.ts';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  CustomerInputSchema,
  CustomerUpdateSchema,
  PermInputSchema,
  PermUpdateSchema,
} from '../../../shared/perms.ts';
import type { Deps } from '../../deps.ts';
import * as customers from '../../domain/customers.ts';
import * as perms from '../../domain/perms.ts';
import { apiBase } from '../../base-url.ts';
import { requireScope } from '../middleware/require-scope.ts';
import { answerCreated, bodyObject } from '../body.ts';
import { authOf } from './keys.ts';

const IdParamsSchema = z.object({ id: z.string().max(128, 'id must be at most 128 characters') });

/** Permissions, scopes and customers (api.md §9). */
export function permissionRoutes(deps: Deps): Router {
  const router = new Router();
  const base = (ctx: Context) => apiBase(ctx, deps.config);
  const search = (ctx: Context) => new URLSearchParams(ctx.querystring);

  /** POST /perm */
  router.post('/perm', requireScope(deps, 'admin:perms'), async (ctx) => {
    const input = PermInputSchema.parse(bodyObject(ctx));
    const permission = await perms.createPerm(deps, authOf(ctx), base(ctx), input);
    answerCreated(ctx, permission.href, { status: 'ok', id: permission.id, permission });
  });

  /** GET /perms */
  router.get('/perms', requireScope(deps, 'read:perms'), async (ctx) => {
    ctx.body = await perms.listPerms(deps, base(ctx), search(ctx));
  });

  /** GET /perm/:id */
  router.get('/perm/:id', requireScope(deps, 'read:perms'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    ctx.body = { status: 'ok', total: 1, permission: await perms.getPerm(deps, base(ctx), id) };
  });

  /** PUT /perm/:id */
  router.put('/perm/:id', requireScope(deps, 'admin:perms'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const change = PermUpdateSchema.parse(bodyObject(ctx));
    ctx.body = { status: 'ok', permission: await perms.updatePerm(deps, authOf(ctx), base(ctx), id, change) };
  });

  /** DELETE /perm/:id */
  router.delete('/perm/:id', requireScope(deps, 'admin:perms'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    await perms.deletePerm(deps, id);
    ctx.body = { status: 'ok' };
  });

  /** GET /scopes */
  router.get('/scopes', requireScope(deps, 'read:perms'), (ctx) => {
    ctx.body = perms.listScopes(deps);
  });

  /** POST /customer */
  router.post('/customer', requireScope(deps, 'admin:customers'), async (ctx) => {
    const input = CustomerInputSchema.parse(bodyObject(ctx));
    const customer = await customers.createCustomer(deps, base(ctx), input);
    answerCreated(ctx, customer.href, { status: 'ok', id: customer.id, customer });
  });

  /** GET /customers */
  router.get('/customers', requireScope(deps, 'read:customers'), async (ctx) => {
    ctx.body = await customers.listCustomers(deps, authOf(ctx), base(ctx), search(ctx));
  });

  /** GET /customer/:id */
  router.get('/customer/:id', requireScope(deps, 'read:customers'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    ctx.body = {
      status: 'ok',
      total: 1,
      customer: await customers.getCustomer(deps, authOf(ctx), base(ctx), id),
    };
  });

  /** PUT /customer/:id */
  router.put('/customer/:id', requireScope(deps, 'admin:customers'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const change = CustomerUpdateSchema.parse(bodyObject(ctx));
    const customer = await customers.updateCustomer(deps, authOf(ctx), base(ctx), id, change);
    ctx.body = { status: 'ok', customer };
  });

  /** DELETE /customer/:id */
  router.delete('/customer/:id', requireScope(deps, 'admin:customers'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    await customers.deleteCustomer(deps, id);
    ctx.body = { status: 'ok' };
  });

  return router;
}
