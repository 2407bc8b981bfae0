import type { Middleware } from 'koa';
import { apiBase } from '../../base-url.ts';
import type { Deps } from '../../deps.ts';
import { ALERTA_LOOP_HEADER, LOOP_HEADER, isNamed, loopNames } from '../../forwarding/loop.ts';
import { authenticate } from '../caller.ts';

/**
 * Spec "Events" 5 and "Errors": a request whose X-Service-Loop (or X-Alerta-Loop) header names this
 * server is not processed. It is answered 202 with the established server's message once the
 * caller is authenticated (so bad credentials still get their 401), for every route: alerts
 * (pre_receive), actions and deletions (where the established server answers 500) and webhooks alike.
 */
export function loopGuard(deps: Deps): Middleware {
  const { config } = deps;
  const alertPath = `${config.API_PREFIX}/alert`;
  const actionPath = new RegExp(`^${escapeRegExp(alertPath)}/[^/]+/action/?$`);
  const alertIdPath = new RegExp(`^${escapeRegExp(alertPath)}/[^/]+/?$`);

  return async (ctx, next) => {
    const loop = ctx.get(LOOP_HEADER);
    const alertaLoop = ctx.get(ALERTA_LOOP_HEADER);
    if (!loop && !alertaLoop) return next();
    const names = loopNames(loop, alertaLoop);
    const own = apiBase(ctx, config);
    if (!isNamed(names, own)) return next();

    await authenticate(ctx, deps);
    const by = ctx.get('Origin') || names.at(-1) || '(unknown)';
    const body = ctx.request.body as { action?: unknown } | undefined;
    let what = 'Request';
    if (ctx.method === 'POST' && (ctx.path === alertPath || ctx.path === `${alertPath}/`)) what = 'Alert';
    else if (ctx.method === 'PUT' && actionPath.test(ctx.path)) {
      what = typeof body?.action === 'string' ? `Action ${body.action}` : 'Action';
    } else if (ctx.method === 'DELETE' && alertIdPath.test(ctx.path)) what = 'Delete';
    deps.metrics.forwardLoops.inc();
    deps.log.debug({ by, path: ctx.path, requestId: ctx.state.requestId }, 'forward.loop_stopped');
    ctx.status = 202;
    ctx.body = { status: 'ok', message: `${what} forwarded by ${by} already processed by ${own}` };
  };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
