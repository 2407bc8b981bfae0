/**
 * `npm run migrate`: applies the database migrations and exits, for upgrades that migrate before
 * the new version starts (docs/operations.md). Reads the same settings as the server
 * (`DATABASE_URL`, `DATABASE_NAME`, `DATABASE_SCHEMA`; the embedded PostgreSQL under `DATA_DIR`
 * without `DATABASE_URL`). The server also migrates at start-up, so this step is optional.
 */
import { ConfigError, loadConfig } from '../server/config.ts';
import { configuredDatabase } from '../server/db/embedded.ts';
import { listMigrations, migrate } from '../server/db/migrate.ts';
import { createLog } from '../server/log.ts';

let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`migrate: ${err.message}`);
  process.exit(2);
}
const log = createLog(config.LOG_LEVEL);
let database: Awaited<ReturnType<typeof configuredDatabase>> | null = null;
try {
  database = await configuredDatabase(config, log);
  const applied = await migrate(database.url, config.DATABASE_SCHEMA);
  const latest = listMigrations().at(-1)?.version ?? 0;
  console.log(
    applied.length
      ? `applied migrations ${applied.join(', ')}; the schema is at version ${latest}`
      : `nothing to apply; the schema is at version ${latest}`,
  );
} catch (err) {
  console.error(`migrate: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await database?.stop();
}
