import { Router } from '../router.ts';
import type { Context, Middleware } from 'koa';
import { SlonikError } from 'slonik';
import { ZodError } from 'zod';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { AppError, appError } from '../../errors.ts';
import type { WebhookRegistry } from '../../webhooks/index.ts';
import { createWebhookReceiver, webhookAlertInputs } from '../../webhooks/receive.ts';
import type { Webhook, WebhookContext, WebhookRequest, WebhookResult } from '../../webhooks/types.ts';
import { checkJsonValue } from '../middleware/body.ts';
import { requireScope } from '../middleware/require-scope.ts';
import { httpCaller } from '../caller.ts';

/**
 * The body as a receiver gets it. The body middleware has already parsed a JSON content type; a
 * form becomes its fields (first value of each); other text that holds a JSON object or list is
 * parsed too, because senders such as Amazon SNS post JSON as text/plain; anything else stays text.
 */
function payloadOf(ctx: Context): unknown {
  if (ctx.request.body !== undefined) return ctx.request.body;
  const raw = ctx.request.rawBody ?? '';
  if (raw === '') return null;
  if (ctx.request.is('urlencoded')) {
    const fields: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(raw)) if (!Object.hasOwn(fields, k)) fields[k] = v;
    return fields;
  }
  const text = raw.trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return raw;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return raw;
  }
  const problem = checkJsonValue(parsed);
  if (problem) throw appError('invalid_json_value', problem);
  return parsed;
}

const isResult = (value: unknown): value is WebhookResult => {
  if (value === null || typeof value !== 'object') return false;
  if ('alerts' in value) return Array.isArray(value.alerts);
  if (!('reply' in value) || value.reply === null || typeof value.reply !== 'object') return false;
  const status = (value.reply as { status?: unknown }).status;
  return typeof status === 'number' && Number.isInteger(status) && status >= 200 && status <= 599;
};

/**
 * Runs a receiver. As in the established server an exception is 400 with its message, except
 * errors that carry their own answer (AppError, ZodError) and database or system failures, which
 * stay 500s (503 for a database outage, also when wrapped) so their text never reaches the client.
 */
async function runReceiver(webhook: Webhook, request: WebhookRequest, ctx: WebhookContext) {
  let result: unknown;
  try {
    result = await webhook.incoming(request, ctx);
  } catch (err) {
    if (!(err instanceof Error) || err instanceof AppError || err instanceof ZodError) throw err;
    if (err instanceof SlonikError || typeof (err as { code?: unknown }).code === 'string') throw err;
    // A receiver that wrapped a database outage in an error of its own: still a 503, not its text.
    if (isDatabaseUnavailable(err)) throw err;
    ctx.log.warn({ err }, 'webhook.failed');
    throw appError('webhook_failed', err.message || `webhook '${webhook.name}' failed`);
  }
  if (!isResult(result)) {
    ctx.log.error({ webhook: webhook.name }, 'webhook.bad_result: neither { alerts } nor { reply }');
    throw appError('webhook_no_result', webhook.name);
  }
  return result;
}

/** Inbound webhooks, GET or POST, with an optional sub-path (reference plugins-webhooks-forwarding.md §4). */
export function webhookRoutes(deps: Deps, webhooks: WebhookRegistry): Router {
  const router = new Router();
  const receiver = createWebhookReceiver(deps);

  /** GET|POST /webhooks/:name[/:path] */
  const receive: Middleware = async (ctx) => {
    const name = String(ctx.params.name);
    const webhook = webhooks.get(name);
    if (!webhook) throw appError('webhook_not_found', name);
    const caller = httpCaller(ctx, deps);
    const query = new URLSearchParams(ctx.querystring);
    query.delete('api-key'); // a credential, not the sender's data: receivers must not see or log it
    const request: WebhookRequest = {
      method: ctx.method,
      path: ctx.params.path ?? '',
      query,
      payload: payloadOf(ctx),
      rawBody: ctx.request.rawBody ?? '',
      header: (h) => ctx.get(h),
    };
    const log = deps.log.child({ webhook: name, requestId: ctx.state.requestId });
    const result = await runReceiver(webhook, request, { config: deps.config, log, deps, caller });
    const reply =
      'alerts' in result
        ? await receiver.receive(webhookAlertInputs(deps, name, result.alerts), caller)
        : result.reply;
    if (reply.headers) ctx.set(reply.headers);
    ctx.status = reply.status;
    ctx.body = reply.body ?? '';
  };

  for (const path of ['/webhooks/:name', '/webhooks/:name/*path']) {
    router.get(path, requireScope(deps, 'write:webhooks'), receive);
    router.post(path, requireScope(deps, 'write:webhooks'), receive);
  }
  return router;
}
