import Koa from 'koa';
import { cacheMatches, Router } from './http/router.ts';
import type { Deps } from './deps.ts';
import { appError, methodNotAllowed } from './errors.ts';
import { apiBase } from './base-url.ts';
import { accessLog } from './http/middleware/access-log.ts';
import { body } from './http/middleware/body.ts';
import { corsFrom } from './http/middleware/cors.ts';
import { errors } from './http/middleware/errors.ts';
import { jsonOnce } from './http/middleware/json-once.ts';
import { loopGuard } from './http/middleware/loop-guard.ts';
import { requestId } from './http/middleware/request-id.ts';
import { securityHeaders } from './http/middleware/security-headers.ts';
import { alertRoutes } from './http/routes/alerts.ts';
import { authRoutes } from './http/routes/auth.ts';
import { ssoRoutes } from './http/routes/sso.ts';
import { samlIdpOrigins, type SsoSetup } from './auth/sso/index.ts';
import { blackoutRoutes } from './http/routes/blackouts.ts';
import { bulkRoutes } from './http/routes/bulk.ts';
import { configRoutes } from './http/routes/config.ts';
import { heartbeatRoutes } from './http/routes/heartbeats.ts';
import { keyRoutes } from './http/routes/keys.ts';
import { managementRoutes } from './http/routes/management.ts';
import { notificationRoutes } from './http/routes/notifications.ts';
import { permissionRoutes } from './http/routes/permissions.ts';
import { searchRoutes } from './http/routes/search.ts';
import { usersRoutes } from './http/routes/users.ts';
import { uiRoutes } from './http/routes/ui.ts';
import { webhookRoutes } from './http/routes/webhooks.ts';
import { builtinWebhooks, type WebhookRegistry } from './webhooks/index.ts';

/**
 * The Koa application without a listener (tests mount it on port 0). The API sits under
 * API_PREFIX (default /api) with the web UI at /; with API_PREFIX=/ the API takes the root, as a
 * stand-alone Alerta does, and the UI moves to /ui/. `sso` is AUTH_PROVIDER's setup, loaded by boot.ts
 * before anything else; only HTTP routes use it.
 */
export function createApp(deps: Deps, options: { sso: SsoSetup; webhooks?: WebhookRegistry }): Koa {
  const { sso } = options;
  const { config } = deps;
  const app = new Koa({ proxy: config.USE_PROXYFIX });
  const prefix = config.API_PREFIX;
  const uiBase = prefix ? '/' : '/ui/';
  const isApiPath = (path: string) =>
    prefix ? path === prefix || path.startsWith(`${prefix}/`) : !(path === '/ui' || path.startsWith('/ui/'));

  app.use(requestId());
  app.use(securityHeaders(config));
  app.use(accessLog(deps.log, deps.metrics));
  app.use(jsonOnce());
  app.use(errors(deps.log));
  // Middleware with nothing to do after the rest hand back its promise, without an async function's own.
  app.use((ctx, next) => {
    if (ctx.originalUrl.length > config.MAX_URL_LENGTH) {
      throw appError('url_too_long', config.MAX_URL_LENGTH);
    }
    return next();
  });
  app.use(
    corsFrom(
      config.CORS_ORIGINS,
      config.CORS_ALLOW_HEADERS,
      config.CORS_SUPPORTS_CREDENTIALS || config.AUTH_REQUIRED,
      (path) => path.startsWith(`${prefix}/auth/`),
      (path) => (path.startsWith(`${prefix}/auth/saml`) ? samlIdpOrigins(sso) : []),
    ),
  );
  app.use(
    body({
      limit: config.MAX_BODY_SIZE,
      // Webhooks take any content type; the switchboard and the SAML post-back are HTML forms.
      acceptsAnyType: (path) =>
        path.startsWith(`${prefix}/webhooks/`) ||
        path === `${prefix}/management/switchboard` ||
        path === `${prefix}/auth/saml`,
    }),
  );
  app.use(loopGuard(deps));

  const api = cacheMatches(new Router(prefix ? { prefix } : {}));
  for (const routes of [
    managementRoutes(deps),
    configRoutes(deps, sso),
    searchRoutes(deps),
    alertRoutes(deps),
    bulkRoutes(deps),
    blackoutRoutes(deps),
    heartbeatRoutes(deps),
    authRoutes(deps, sso),
    ssoRoutes(deps, sso),
    usersRoutes(deps),
    keyRoutes(deps),
    permissionRoutes(deps),
    notificationRoutes(deps),
    webhookRoutes(deps, options.webhooks ?? builtinWebhooks()),
  ])
    api.use(routes.routes());

  /** GET / — the API's index of routes. */
  api.get('/', (ctx) => {
    const base = apiBase(ctx, config);
    const seen = new Set<string>();
    const links = api.stack
      .filter((layer) => layer.methods.length > 0 && typeof layer.path === 'string')
      .flatMap((layer) => {
        const path = String(layer.path).slice(prefix.length) || '/';
        return layer.methods
          .filter((m) => m !== 'HEAD')
          .map((method) => ({ rel: path, href: `${base}${path}`, method }));
      })
      .filter((l) => !seen.has(`${l.method} ${l.href}`) && seen.add(`${l.method} ${l.href}`))
      .sort((a, b) => a.href.localeCompare(b.href));
    ctx.body = { status: 'ok', uri: base, data: { description: 'Alerta API' }, links };
  });

  app.use(api.routes());
  app.use(
    api.allowedMethods({
      throw: true,
      methodNotAllowed: () => methodNotAllowed('this method', []),
      notImplemented: () => appError('method_not_implemented'),
    }),
  );
  app.use((ctx, next) => {
    if (isApiPath(ctx.path)) {
      const allowed = api.match(ctx.path, ctx.method).path.flatMap((l) => l.methods);
      if (allowed.length) throw methodNotAllowed(ctx.method, [...new Set(allowed)]);
      throw appError('url_not_found').with({ errors: [`${ctx.method} ${ctx.path}`] });
    }
    return next();
  });
  app.use(uiRoutes(uiBase, prefix, config).routes());
  app.use((ctx) => {
    throw appError('url_not_found').with({ errors: [`${ctx.method} ${ctx.path}`] });
  });
  return app;
}
