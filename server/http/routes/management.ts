import Router from '@koa/router';
import type { Context } from 'koa';
import { sql } from 'slonik';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { runHousekeeping } from '../../domain/housekeeping.ts';
import { build } from '../../version.ts';
import { callerOf } from './alerts.ts';

/** Liveness, readiness and build identity; issue #5 adds the rest of /management. */
export function managementRoutes(deps: Deps): Router {
  const router = new Router();

  /** GET /_ — the application is up; never touches the database. */
  router.get('/_', (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = 'OK';
  });

  /** GET /management/gtg — ready: the database answers. */
  router.get('/management/gtg', async (ctx) => {
    ctx.type = 'text/plain';
    try {
      await deps.db.oneFirst(sql.type(z.object({ ok: z.number() }))`SELECT 1 AS ok`);
      ctx.body = 'OK';
    } catch (err) {
      deps.log.warn({ err: (err as Error).message }, 'gtg.database.down');
      ctx.status = 503;
      ctx.body = 'FAILED';
    }
  });

  /** GET /management/manifest */
  router.get('/management/manifest', (ctx) => {
    const release =
      deps.config.SERVER_VERSION === 'off'
        ? ''
        : deps.config.SERVER_VERSION === 'major'
          ? build.version.split('.')[0]
          : build.version;
    ctx.body = { build: build.name, date: build.date, release, revision: build.revision };
  });

  /** GET|POST /management/housekeeping — one housekeeping run now. */
  router.get('/management/housekeeping', housekeeping);
  router.post('/management/housekeeping', housekeeping);
  async function housekeeping(ctx: Context) {
    const result = await runHousekeeping(deps, new URLSearchParams(ctx.querystring), callerOf(ctx, deps));
    ctx.status = result.status;
    ctx.body = result.body;
  }

  return router;
}
