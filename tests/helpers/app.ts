import { boot, type Running } from '../../server/boot.ts';
import { loadConfig } from '../../server/config.ts';
import { createLog } from '../../server/log.ts';
import { createApi, type Api } from './api.ts';
import { createTestDatabase, dropTestDatabase } from './db.ts';

export interface AppContext {
  running: Running;
  api: Api;
  /** Origin without the API prefix, e.g. http://127.0.0.1:41234 */
  origin: string;
  db: { name: string; url: string };
}

/**
 * Boots the real product (migrations, bus, Koa, a listening socket on port 0) on a fresh
 * database of its own. `settings` are given as environment variables would be.
 */
export async function startApp(ctx: AppContext, settings: Record<string, string> = {}): Promise<void> {
  ctx.db = await createTestDatabase(settings.TEST_LABEL ?? 'api');
  const config = loadConfig(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ...settings,
      DATABASE_URL: ctx.db.url,
    },
    { systemFile: null },
  );
  ctx.running = await boot(config, createLog(config.LOG_LEVEL));
  ctx.origin = `http://127.0.0.1:${ctx.running.port}`;
  ctx.api = createApi(`${ctx.origin}${config.API_PREFIX}`);
}

export async function stopApp(ctx: AppContext): Promise<void> {
  await ctx.running?.close();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
}
