import { suite, type Test } from 'uvu';
import { boot, type Running } from '../../server/boot.ts';
import { loadConfig } from '../../server/config.ts';
import { createLog } from '../../server/log.ts';
import { createApi, type Api } from './api.ts';
import { createTestDatabase, dropTestDatabase } from './db.ts';
import type { LiveClient } from './live.ts';

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
  ctx.running = await bootOn(ctx.db.url, { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...settings });
  ctx.origin = `http://127.0.0.1:${ctx.running.port}`;
  ctx.api = createApi(`${ctx.origin}${ctx.running.deps.config.API_PREFIX}`);
}

/**
 * Boots one instance of the product on an existing database (tests of several instances behind
 * one database, or of a restart): port 0 and plugin `remote_ip` unless `settings` say otherwise.
 */
export function bootInstance(databaseUrl: string, settings: Record<string, string> = {}): Promise<Running> {
  return bootOn(databaseUrl, { PLUGINS: 'remote_ip', ...settings });
}

function bootOn(databaseUrl: string, settings: Record<string, string>): Promise<Running> {
  const config = loadConfig(
    { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...settings, DATABASE_URL: databaseUrl },
    { systemFile: null },
  );
  return boot(config, createLog(config.LOG_LEVEL));
}

/** The API client of an instance started with bootInstance. */
export const apiFor = (r: Running): Api => createApi(`http://127.0.0.1:${r.port}${r.deps.config.API_PREFIX}`);

export async function stopApp(ctx: AppContext): Promise<void> {
  await ctx.running?.close();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
}

/**
 * A uvu suite whose tests share one app: started with `settings` (as for startApp) before its first
 * test, stopped after its last. Further `before` hooks run after the app is up.
 */
export function appSuite<C extends AppContext = AppContext>(
  name: string,
  settings: Record<string, string> = {},
): Test<C> {
  const test = suite<C>(name, {} as C);
  test.before((ctx) => startApp(ctx, settings));
  test.after(stopApp);
  return test;
}

/** The context of a suite of two instances on one database: the app, and `other` beside it. */
export interface TwoInstances extends AppContext {
  other: Running;
}

/**
 * An appSuite with a second instance on the app's database, `ctx.other` (bootInstance with
 * `otherSettings`), closed before the app.
 */
export function twoInstanceSuite<C extends TwoInstances = TwoInstances>(
  name: string,
  settings: Record<string, string>,
  otherSettings: Record<string, string> = {},
): Test<C> {
  const test = suite<C>(name, {} as C);
  test.before(async (ctx) => {
    await startApp(ctx, settings);
    ctx.other = await bootInstance(ctx.db.url, otherSettings);
  });
  test.after(async (ctx) => {
    await ctx.other?.close();
    await stopApp(ctx);
  });
  return test;
}

/** The context of an app suite whose tests open live sockets: each socket goes into `clients`. */
export interface LiveAppContext extends AppContext {
  clients: LiveClient[];
}

/** An appSuite whose tests' sockets (`ctx.clients`) are closed after each test, whatever happens. */
export function liveAppSuite(name: string, settings: Record<string, string> = {}): Test<LiveAppContext> {
  const test = suite<LiveAppContext>(name, {} as LiveAppContext);
  test.before((ctx) => {
    ctx.clients = [];
    return startApp(ctx, settings);
  });
  test.after.each((ctx) => {
    for (const c of ctx.clients.splice(0)) c.close();
  });
  test.after(async (ctx) => {
    for (const c of ctx.clients ?? []) c.close();
    await stopApp(ctx);
  });
  return test;
}

/** Two instances on one database, as behind a load balancer. */
export interface InstancePair {
  db: { name: string; url: string };
  a: Running;
  b: Running;
  apiA: Api;
  apiB: Api;
}

/** Starts a pair on a fresh database of its own; `start` boots each (bootInstance unless given). */
export async function startPair(
  ctx: InstancePair,
  label: string,
  start: (databaseUrl: string) => Promise<Running> = bootInstance,
): Promise<void> {
  ctx.db = await createTestDatabase(label);
  ctx.a = await start(ctx.db.url);
  ctx.b = await start(ctx.db.url);
  ctx.apiA = apiFor(ctx.a);
  ctx.apiB = apiFor(ctx.b);
}

export async function stopPair(ctx: InstancePair): Promise<void> {
  await ctx.a?.close();
  await ctx.b?.close();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
}
