import { Router } from '../router.ts';
import { z } from 'zod';
import { AlertIdSchema } from '../../../shared/alerts.ts';
import {
  DeliveriesQuerySchema,
  ReceiverInputSchema,
  ReceiverUpdateSchema,
  RuleInputSchema,
  RuleUpdateSchema,
} from '../../../shared/notifications.ts';
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../domain/caller.ts';
import { appError } from '../../errors.ts';
import { listDeliveries } from '../../notifications/deliveries.ts';
import * as notifications from '../../notifications/manage.ts';
import { bodyObject } from '../body.ts';
import { requireScope } from '../middleware/require-scope.ts';
import { httpCaller } from '../caller.ts';

/** A receiver or rule by id or name. */
const KeyParamsSchema = z.object({
  id: z
    .string()
    .max(100)
    .regex(/^[\w.@:-]+$/, 'not a receiver or rule id or name'),
});
const AlertParamsSchema = z.object({ id: AlertIdSchema });

const READ = 'read:notifications';
const ADMIN = 'admin:notifications';

/**
 * Notification receivers and routing rules (docs/notifications.md); a caller restricted to customers
 * sees and manages only its customers' (tests/api/notifications-tenancy.test.ts).
 */
export function notificationRoutes(deps: Deps): Router {
  const router = new Router();
  /** /notifications/receivers and /notifications/receivers/:id (id or name) */
  collectionRoutes(router, deps, {
    one: 'receiver',
    many: 'receivers',
    InputSchema: ReceiverInputSchema,
    UpdateSchema: ReceiverUpdateSchema,
    list: notifications.listReceivers,
    create: notifications.createReceiver,
    get: notifications.getReceiver,
    update: notifications.updateReceiver,
    remove: notifications.deleteReceiver,
  });

  /** POST /notifications/receivers/:id/test — sends a test message now and says what happened. */
  router.post('/notifications/receivers/:id/test', requireScope(deps, ADMIN), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    ctx.body = await notifications.testReceiver(deps, httpCaller(ctx, deps), id);
  });

  /** /notifications/rules (listed in routing order) and /notifications/rules/:id (id or name) */
  collectionRoutes(router, deps, {
    one: 'rule',
    many: 'rules',
    InputSchema: RuleInputSchema,
    UpdateSchema: RuleUpdateSchema,
    list: notifications.listRules,
    create: notifications.createRule,
    get: notifications.getRule,
    update: notifications.updateRule,
    remove: notifications.deleteRule,
  });

  /** GET /notifications/health — each receiver's state and the paging receivers failing (the wall's badge) */
  router.get('/notifications/health', requireScope(deps, READ), async (ctx) => {
    ctx.body = await notifications.notificationHealth(deps, httpCaller(ctx, deps));
  });

  /** GET /notifications/deliveries — the delivery history, filtered and paged, newest first */
  router.get('/notifications/deliveries', requireScope(deps, READ), async (ctx) => {
    const query = DeliveriesQuerySchema.parse(singleParams(ctx.querystring));
    ctx.body = await listDeliveries(deps, httpCaller(ctx, deps), query);
  });

  /** GET /alert/:id/notifications — queued and delivered notifications of one alert */
  router.get('/alert/:id/notifications', requireScope(deps, 'read:alerts'), async (ctx) => {
    const { id } = AlertParamsSchema.parse(ctx.params);
    const found = await notifications.alertNotifications(deps, id, httpCaller(ctx, deps));
    ctx.body = { status: 'ok', ...found };
  });

  return router;
}

/** A query string as one value per name; a name given twice is a 400. */
function singleParams(querystring: string): Record<string, string> {
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(querystring)) {
    if (params.has(name)) throw appError('invalid_request', `${name} may be given only once`);
    params.set(name, value);
  }
  return Object.fromEntries(params);
}

/** What the handlers of receivers and of rules differ in: their names, schemas and manage.ts functions. */
interface Collection<T extends { id: string }, Input, Update> {
  one: 'receiver' | 'rule';
  many: 'receivers' | 'rules';
  InputSchema: z.ZodType<Input>;
  UpdateSchema: z.ZodType<Update>;
  list(deps: Deps, caller: Caller): Promise<T[]>;
  create(deps: Deps, caller: Caller, input: Input): Promise<T>;
  get(deps: Deps, caller: Caller, key: string): Promise<T>;
  update(deps: Deps, caller: Caller, key: string, change: Update): Promise<T>;
  remove(deps: Deps, caller: Caller, key: string): Promise<void>;
}

/**
 * GET and POST /notifications/{many}, GET, PUT and DELETE /notifications/{many}/:id (id or name):
 * the same five handlers for receivers and rules (tests/api/notifications.test.ts).
 */
function collectionRoutes<T extends { id: string }, Input, Update>(
  router: Router,
  deps: Deps,
  c: Collection<T, Input, Update>,
): void {
  const path = `/notifications/${c.many}`;
  router.get(path, requireScope(deps, READ), async (ctx) => {
    const items = await c.list(deps, httpCaller(ctx, deps));
    ctx.body = { status: 'ok', [c.many]: items, total: items.length };
  });
  router.post(path, requireScope(deps, ADMIN), async (ctx) => {
    const item = await c.create(deps, httpCaller(ctx, deps), c.InputSchema.parse(bodyObject(ctx)));
    ctx.status = 201;
    ctx.body = { status: 'ok', id: item.id, [c.one]: item };
  });
  router.get(`${path}/:id`, requireScope(deps, READ), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    ctx.body = { status: 'ok', [c.one]: await c.get(deps, httpCaller(ctx, deps), id) };
  });
  router.put(`${path}/:id`, requireScope(deps, ADMIN), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    const body = bodyObject(ctx);
    if (Object.keys(body).length === 0) throw appError('nothing_to_change');
    const change = c.UpdateSchema.parse(body);
    ctx.body = { status: 'ok', [c.one]: await c.update(deps, httpCaller(ctx, deps), id, change) };
  });
  router.delete(`${path}/:id`, requireScope(deps, ADMIN), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    await c.remove(deps, httpCaller(ctx, deps), id);
    ctx.body = { status: 'ok' };
  });
}
