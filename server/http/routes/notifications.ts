import { Router } from '../router.ts';
import { z } from 'zod';
import { AlertIdSchema } from '../../../shared/alerts.ts';
import {
  ReceiverInputSchema,
  ReceiverUpdateSchema,
  RuleInputSchema,
  RuleUpdateSchema,
} from '../../../shared/notifications.ts';
import type { Deps } from '../../deps.ts';
import { appError } from '../../errors.ts';
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
  const nonEmpty = (body: Record<string, unknown>) => {
    if (Object.keys(body).length === 0) throw appError('nothing_to_change');
    return body;
  };

  /** GET /notifications/receivers */
  router.get('/notifications/receivers', requireScope(deps, READ), async (ctx) => {
    const receivers = await notifications.listReceivers(deps, httpCaller(ctx, deps));
    ctx.body = { status: 'ok', receivers, total: receivers.length };
  });

  /** POST /notifications/receivers */
  router.post('/notifications/receivers', requireScope(deps, ADMIN), async (ctx) => {
    const receiver = await notifications.createReceiver(
      deps,
      httpCaller(ctx, deps),
      ReceiverInputSchema.parse(bodyObject(ctx)),
    );
    ctx.status = 201;
    ctx.body = { status: 'ok', id: receiver.id, receiver };
  });

  /** GET /notifications/receivers/:id (id or name) */
  router.get('/notifications/receivers/:id', requireScope(deps, READ), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    ctx.body = { status: 'ok', receiver: await notifications.getReceiver(deps, httpCaller(ctx, deps), id) };
  });

  /** PUT /notifications/receivers/:id */
  router.put('/notifications/receivers/:id', requireScope(deps, ADMIN), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    const change = ReceiverUpdateSchema.parse(nonEmpty(bodyObject(ctx)));
    ctx.body = {
      status: 'ok',
      receiver: await notifications.updateReceiver(deps, httpCaller(ctx, deps), id, change),
    };
  });

  /** DELETE /notifications/receivers/:id */
  router.delete('/notifications/receivers/:id', requireScope(deps, ADMIN), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    await notifications.deleteReceiver(deps, httpCaller(ctx, deps), id);
    ctx.body = { status: 'ok' };
  });

  /** POST /notifications/receivers/:id/test — sends a test message now and says what happened. */
  router.post('/notifications/receivers/:id/test', requireScope(deps, ADMIN), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    ctx.body = await notifications.testReceiver(deps, httpCaller(ctx, deps), id);
  });

  /** GET /notifications/rules, in routing order */
  router.get('/notifications/rules', requireScope(deps, READ), async (ctx) => {
    const rules = await notifications.listRules(deps, httpCaller(ctx, deps));
    ctx.body = { status: 'ok', rules, total: rules.length };
  });

  /** POST /notifications/rules */
  router.post('/notifications/rules', requireScope(deps, ADMIN), async (ctx) => {
    const rule = await notifications.createRule(
      deps,
      httpCaller(ctx, deps),
      RuleInputSchema.parse(bodyObject(ctx)),
    );
    ctx.status = 201;
    ctx.body = { status: 'ok', id: rule.id, rule };
  });

  /** GET /notifications/rules/:id (id or name) */
  router.get('/notifications/rules/:id', requireScope(deps, READ), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    ctx.body = { status: 'ok', rule: await notifications.getRule(deps, httpCaller(ctx, deps), id) };
  });

  /** PUT /notifications/rules/:id */
  router.put('/notifications/rules/:id', requireScope(deps, ADMIN), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    const change = RuleUpdateSchema.parse(nonEmpty(bodyObject(ctx)));
    ctx.body = {
      status: 'ok',
      rule: await notifications.updateRule(deps, httpCaller(ctx, deps), id, change),
    };
  });

  /** DELETE /notifications/rules/:id */
  router.delete('/notifications/rules/:id', requireScope(deps, ADMIN), async (ctx) => {
    const { id } = KeyParamsSchema.parse(ctx.params);
    await notifications.deleteRule(deps, httpCaller(ctx, deps), id);
    ctx.body = { status: 'ok' };
  });

  /** GET /alert/:id/notifications — queued and delivered notifications of one alert */
  router.get('/alert/:id/notifications', requireScope(deps, 'read:alerts'), async (ctx) => {
    const { id } = AlertParamsSchema.parse(ctx.params);
    const found = await notifications.alertNotifications(deps, id, httpCaller(ctx, deps));
    ctx.body = { status: 'ok', ...found };
  });

  return router;
}
