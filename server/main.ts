import { boot } from './boot.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLog } from './log.ts';
import { explainStartupError } from './startup-errors.ts';
import { build } from './version.ts';

/** `npm start`: the whole product. The only place that reads process.env. */
async function main() {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`alertwall: cannot start: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLog(config.LOG_LEVEL, config.DEBUG);
  let running: Awaited<ReturnType<typeof boot>> | null = null;
  let signals = 0;
  const shutdown = (signal: string) => {
    if (++signals > 1 || !running) {
      log.warn(
        { signal },
        running ? 'second signal: exiting without waiting' : 'signal during start-up: exiting',
      );
      process.exit(running ? 1 : 0);
    }
    log.info({ signal }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // Installed before anything starts, so a signal never meets the default handler.
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  try {
    running = await boot(config, log);
  } catch (err) {
    log.error({ err }, 'start-up failed');
    console.error(`alertwall: cannot start: ${explainStartupError(err, config)}`);
    process.exit(1);
  }
  process.stdout.write(
    `${build.name} ${build.version} ready at ${running.url} · database: ${running.database} · bus: ${running.busDescription}\n`,
  );
}

main().catch((err: unknown) => {
  console.error(`alertwall: cannot start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
