import Router from '@koa/router';

/** The web UI's place. Issue #8 serves the SvelteKit build here; until then a placeholder page. */
export function uiRoutes(uiBase: string, apiPrefix: string): Router {
  const router = new Router();
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Alerts</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Alerts</h1><p>The web console is not built yet. The API is at <a href="${apiPrefix || '/'}">${apiPrefix || '/'}</a>.</p></main></body></html>`;
  const base = uiBase.replace(/\/$/, '');
  router.get(uiBase === '/' ? /^\/.*$/ : new RegExp(`^${base}(/.*)?$`), (ctx) => {
    ctx.type = 'text/html';
    ctx.body = page;
  });
  return router;
}
