import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createApp } from './app.ts';
import { bootstrapAccess } from './domain/bootstrap.ts';
import { startKeyUsage } from './auth/key-usage.ts';
import { createLoginLimiter } from './auth/rate-limit.ts';
import { loadSso } from './auth/sso/index.ts';
import { createHub, type Hub } from './realtime/hub.ts';
import { createBulkRunner } from './domain/bulk.ts';
import { startHousekeeping } from './domain/housekeeping.ts';
import { startTallyCompaction } from './domain/tally-compaction.ts';
import { createForwarder, type Forwarder } from './forwarding/worker.ts';
import { createNotifier, type Engine } from './notifications/engine.ts';
import { notificationsPlugin } from './notifications/plugin.ts';
import { receiveHeartbeat } from './domain/heartbeats.ts';
import { createBlackoutCache } from './domain/blackouts.ts';
import { forwardQueue } from './plugins/forwarder.ts';
import { secretBoxFrom } from './secret-box.ts';
import { resealReceiverSecrets } from './notifications/sealed-settings.ts';
import { redactUrl, type Config } from './config.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { ensureRows } from './db/ensure-rows.ts';
import { connectionUrl, createDb, type Db } from './db/pool.ts';
import { systemClock, type Base, type Deps } from './deps.ts';
import { appError } from './errors.ts';
import type { Log } from './log.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { createMemoryBus, type Bus } from './realtime/bus.ts';
import { createAlarmModel } from './domain/alarm-model.ts';
import { createPipeline, loadPlugins } from './plugins/pipeline.ts';
import { createReceiver } from './domain/receive/index.ts';
import { loadWebhooks } from './webhooks/index.ts';

// Not `import … from 'node:http'`: an ES import of http reads all its exports, and its lazy
// `WebSocket` loads Node's bundled undici (about 14 MB of RSS; see server/http/router.ts).
const { createServer } = process.getBuiltinModule('node:http');

export interface Running {
  deps: Deps;
  server: Server;
  /** Where to open the product, e.g. http://localhost:8080/ */
  url: string;
  port: number;
  /** What the start-up line says about the database and the bus. */
  database: string;
  busDescription: string;
  /** Stops accepting, lets in-flight requests finish, then closes the bus, the pool and Postgres. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Migrations need the database; give a server that is still starting a few tries (2, 4, 8 s). */
async function migrateWithRetry(url: string, schema: string, log: Log) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrate(url, schema);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const transient = code === 'ECONNREFUSED' || code === '57P03' || code === 'ETIMEDOUT';
      if (!transient || attempt > 3) throw err;
      log.warn({ attempt, code }, 'database not reachable yet; retrying');
      await sleep(2000 * 2 ** (attempt - 1));
    }
  }
}

/** config → database (embedded without DATABASE_URL) → migrations → bus → Koa app → listen. */
export async function boot(config: Config, log: Log, options: { metrics?: Metrics } = {}): Promise<Running> {
  const startedAt = Date.now();
  const metrics =
    options.metrics ?? createMetrics({ defaults: true, prefix: config.METRICS_PREFIX, startedAt });
  let embedded: EmbeddedPostgres | null = null;
  let db: Db | null = null;
  let bus: Bus | null = null;
  let bulk: ReturnType<typeof createBulkRunner> | null = null;
  let housekeeping: { stop(): Promise<void> } | null = null;
  let tallyCompaction: { stop(): Promise<void> } | null = null;
  let forwarder: Forwarder | null = null;
  let notifier: Engine | null = null;
  let keyUsage: ReturnType<typeof startKeyUsage> | null = null;
  let hub: Hub | null = null;
  // Settings the established server accepts but that are unsafe: start anyway, and say so loudly.
  for (const warning of config.warnings) {
    log.warn({ setting: warning.slice(0, warning.indexOf(':')), warning }, 'settings.warning');
  }
  try {
    // An identity provider that cannot be reached stops start-up, before the database is touched.
    const sso = await loadSso(config);
    let baseUrl = config.DATABASE_URL;
    let database: string;
    if (!baseUrl) {
      embedded = await startEmbeddedPostgres(config.DATA_DIR, log);
      baseUrl = embedded.url;
      database = `embedded PostgreSQL (data in ${embedded.dataDir}, port ${embedded.port})`;
    } else {
      database = `PostgreSQL at ${redactUrl(connectionUrl(baseUrl, { databaseName: config.DATABASE_NAME }))}`;
    }
    const url = connectionUrl(baseUrl, {
      databaseName: config.DATABASE_NAME,
      schema: config.DATABASE_SCHEMA,
    });
    const applied = await migrateWithRetry(url, config.DATABASE_SCHEMA, log);
    if (applied.length) log.info({ applied }, 'database migrated');
    db = await createDb(url, { size: config.DATABASE_POOL_SIZE });
    await ensureRows(db);

    if (config.REDIS_URL) {
      // Loaded only when used: ioredis holds about 2 MB of heap (docs/benchmarks.md, "Memory").
      const { createRedisBus } = await import('./realtime/redis-bus.ts');
      // Never fails for Redis: without it the server starts and connects when it appears.
      bus = await createRedisBus(
        { log, metrics },
        { url: config.REDIS_URL, channel: config.BUS_CHANNEL, outboxBytes: config.BUS_OUTBOX_SIZE },
      );
    } else bus = createMemoryBus({ log, metrics });
    const busDescription = config.REDIS_URL
      ? `Redis pub/sub at ${redactUrl(config.REDIS_URL)}${bus.state().connected ? '' : ' (not reachable yet: connecting in the background)'}`
      : 'in-process';

    const model = createAlarmModel(config);
    const webhooks = await loadWebhooks(config, log);
    const base: Base = {
      config,
      db,
      bus,
      log,
      metrics,
      clock: systemClock,
      startedAt,
      model,
      secrets: secretBoxFrom(config).box,
    };
    keyUsage = startKeyUsage(base);
    bulk = createBulkRunner();
    const blackoutCache = createBlackoutCache(base);
    forwarder = createForwarder(base);
    const plugins = await loadPlugins({
      config,
      log,
      clock: base.clock,
      heartbeats: { receive: (input, url) => receiveHeartbeat(base, input, url) },
      blackouts: blackoutCache,
      forwards: forwardQueue(base, forwarder),
    });
    // After the PLUGINS (a settings-made receiver's plugin names its missing setting first), and
    // after resealing, so that the engine opens the receivers with the current key.
    await resealReceiverSecrets(base);
    notifier = await createNotifier(base);
    // Notification routing always runs, after the PLUGINS, so it sees what every other hook decided.
    const pipeline = createPipeline([...plugins, notificationsPlugin(notifier)], base);
    // Each part is made from what was made before it (base → services → plugins → receiver) and
    // holds it; none looks anything up by the deps object, so deps is a plain object over them.
    const deps: Deps = {
      ...base,
      plugins: pipeline,
      receiver: createReceiver(base, { plugins: pipeline }),
      keyUsage,
      loginLimiter: createLoginLimiter(base.clock),
      bulk,
      blackoutCache,
      forwarder,
      notifier,
    };
    await bootstrapAccess(deps);
    bulk.start(deps);
    housekeeping = startHousekeeping(deps);
    blackoutCache.start();
    tallyCompaction = startTallyCompaction(deps);
    await forwarder?.start();
    notifier.start();
    const app = createApp(deps, { sso, webhooks });
    // Node's own header limit answers with a bare 431; ours is larger so MAX_URL_LENGTH answers in JSON.
    const server = createServer({ maxHeaderSize: 64 * 1024, requestTimeout: 60_000 }, app.callback());
    server.keepAliveTimeout = 65_000;
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      if (!socket.writable) return socket.destroy();
      const refusal = appError(
        err.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : 'malformed_request',
      );
      const { status, message, errorCode } = refusal;
      const body = JSON.stringify({ status: 'error', message, code: status, errors: null, errorCode });
      socket.end(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    hub = await createHub(deps, server);
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(config.PORT, config.HOST, () => ok());
    });
    const port = (server.address() as AddressInfo).port;
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
    const uiPath = config.API_PREFIX ? '/' : '/ui/';

    let closing: Promise<void> | null = null;
    const close = () =>
      (closing ??= (async () => {
        await hub?.close();
        const stopped = new Promise<void>((ok) => server.close(() => ok()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_TIMEOUT * 1000);
        await stopped;
        clearTimeout(timer);
        await forwarder?.stop();
        await notifier?.stop();
        await housekeeping?.stop();
        await blackoutCache.stop();
        await tallyCompaction?.stop();
        await bulk?.stop();
        await keyUsage?.stop();
        await bus?.close();
        await db?.end();
        await embedded?.stop();
      })());

    return { deps, server, url: `http://${host}:${port}${uiPath}`, port, database, busDescription, close };
  } catch (err) {
    await hub?.close().catch(() => {});
    await forwarder?.stop().catch(() => {});
    await notifier?.stop().catch(() => {});
    await housekeeping?.stop().catch(() => {});
    await tallyCompaction?.stop().catch(() => {});
    await bulk?.stop().catch(() => {});
    await keyUsage?.stop().catch(() => {});
    await bus?.close().catch(() => {});
    await db?.end().catch(() => {});
    await embedded?.stop().catch(() => {});
    throw err;
  }
}
