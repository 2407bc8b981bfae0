/**
 * `node scripts/cluster.ts [--instances 2] [--port 8080] [--database URL] [--redis URL]`: the
 * product scaled out on this machine, as docker-compose.yml runs it in containers. PostgreSQL and
 * Redis are the ones given or already running (else an embedded PostgreSQL and a redis-server of
 * our own), N server processes share them on ports of their own, and nginx (deploy/nginx/*.conf)
 * sits in front. Ctrl-C stops everything. docs/operations.md; tests/cluster/ drives it through
 * `startCluster`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Whether a listener can take host:port right now (it is released again at once). */
function bindable(host: string, port: number): Promise<boolean> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? ok(false) : fail(err),
    );
    server.listen(port, host, () => server.close(() => ok(true)));
  });
}

/** The first port of the range the kernel takes local ports of outgoing connections from (Linux). */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const n = Number(low);
    return Number.isInteger(n) && n > 0 ? n : 32768;
  } catch {
    return 32768;
  }
}

/**
 * A port nobody listens on right now, for a process started next to listen on (we release it at
 * once). Chosen at random below the kernel's ephemeral range: a port the kernel picked for a
 * listener (`listen(0)`) comes from that range, where any outgoing connection — the tests' own
 * requests, database connections — can take it as its local port before the process binds it
 * (`EADDRINUSE`, seen in CI). Falls back to the kernel's choice when the range leaves no room.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const top = ephemeralStart();
  const bottom = 10_000;
  if (top - bottom >= 1000) {
    for (let i = 0; i < 50; i++) {
      const port = bottom + Math.floor(Math.random() * (top - bottom));
      if (await bindable(host, port)) return port;
    }
  }
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });
}

/** Whether something accepts TCP connections at host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((ok) => {
    const socket = connect({ host, port });
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), ok(true)));
    socket.once('error', () => ok(false));
    socket.once('timeout', () => (socket.destroy(), ok(false)));
  });
}

export interface Proc {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  exited: Promise<number | null>;
  /** Signals its whole process group (children included) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ProcOptions {
  command: string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
}

/** Starts a command in a process group of its own, so that stopping it stops what it started too. */
export function startProc({ command, cwd = root, env, uid, gid }: ProcOptions): Proc {
  const [cmd, ...args] = command;
  const child = spawn(cmd!, args, {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(uid === undefined ? {} : { uid }),
    ...(gid === undefined ? {} : { gid }),
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((ok) => {
    child.once('close', (code, signal) => ok(code ?? (signal ? -1 : null)));
    child.once('error', (err) => {
      output += `${err.message}\n`;
      ok(-1);
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    output: () => output,
    exited,
    stop(signal = 'SIGTERM') {
      if (!done && child.pid) {
        try {
          process.kill(-child.pid, signal);
        } catch {
          // Already gone between the check and the signal.
        }
      }
      return exited;
    },
  };
}

export interface Instance extends Proc {
  port: number;
  /** http://127.0.0.1:<port>, the instance itself (the proxy is Cluster.url). */
  origin: string;
}

/**
 * Runs one server (by default `node server/main.ts` in this checkout) on `port` and waits for its
 * start-up line; a server that exits first, or says nothing for `timeoutMs`, is an error with its
 * output.
 */
export async function startInstance(
  options: Omit<ProcOptions, 'command'> & { command?: string[]; port: number; timeoutMs?: number },
): Promise<Instance> {
  const {
    port,
    timeoutMs = 60_000,
    command = [
      process.execPath,
      '--max-semi-space-size=8',
      '--heap-growing-percent=60',
      '--import',
      './server/preload.mjs',
      'server/main.ts',
    ],
  } = options;
  const proc = startProc({ ...options, command, env: { ...options.env, PORT: String(port) } });
  const deadline = Date.now() + timeoutMs;
  while (!/ ready at /.test(proc.output())) {
    const exited = await Promise.race([proc.exited, sleep(50).then(() => 'waiting' as const)]);
    if (exited !== 'waiting')
      throw new Error(`the server exited (${exited}) before it was ready:\n${proc.output()}`);
    if (Date.now() > deadline) {
      await proc.stop('SIGKILL');
      throw new Error(`the server was not ready within ${timeoutMs} ms:\n${proc.output()}`);
    }
  }
  return { ...proc, port, origin: `http://127.0.0.1:${port}` };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Nginx extends Proc {
  port: number;
  dir: string;
}

/**
 * nginx on `port` in front of the instances' ports, with the same maps.conf and locations.conf as
 * docker-compose.yml and the same upstream choices as deploy/nginx/compose.conf. Everything it
 * writes (pid, logs, temp files) stays in `dir`. Answers carry X-Upstream-Addr, the instance that
 * served them, so tests (and curious operators) can see the balancing.
 */
export async function startNginx(options: {
  dir: string;
  port: number;
  instances: number[];
}): Promise<Nginx> {
  const { dir, port } = options;
  const nginx = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
  if (!nginx) throw new Error('nginx is not installed (Debian: apt-get install -y nginx)');
  const servers = options.instances
    .map((p) => `        server 127.0.0.1:${p} max_fails=1 fail_timeout=10s;`)
    .join('\n');
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `# Written by scripts/cluster.ts.
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
    access_log ${dir}/access.log;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    include ${root}deploy/nginx/maps.conf;
    upstream alertwall_api {
        least_conn;
${servers}
        keepalive 32;
    }
    upstream alertwall_live {
        hash $remote_addr consistent;
${servers}
        keepalive 32;
    }
    server {
        listen 127.0.0.1:${port};
        add_header X-Upstream-Addr $upstream_addr always;
        include ${root}deploy/nginx/locations.conf;
    }
}
`,
  );
  // nginx workers run as an unprivileged user when we are root: they need to reach the temp dirs.
  chmodSync(dir, 0o755);
  const proc = startProc({
    command: [nginx, '-p', dir, '-c', conf, '-e', join(dir, 'error.log'), '-g', 'daemon off;'],
    env: process.env,
  });
  for (const deadline = Date.now() + 10_000; !(await accepts('127.0.0.1', port));) {
    const exited = await Promise.race([proc.exited, sleep(50).then(() => 'waiting' as const)]);
    const log = () =>
      existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
    if (exited !== 'waiting') throw new Error(`nginx exited (${exited}):\n${proc.output()}${log()}`);
    if (Date.now() > deadline) {
      await proc.stop('SIGKILL');
      throw new Error(`nginx did not listen on ${port} within 10 s:\n${proc.output()}${log()}`);
    }
  }
  return { ...proc, port, dir };
}

async function canQuery(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The database to share: the URL given, else `alertwall_cluster` on the local server, else embedded. */
async function provideDatabase(dir: string, given: string | undefined) {
  if (given) return { url: given, stop: async () => {} };
  const local = new URL('postgres://postgres@127.0.0.1:5432/postgres');
  if (await canQuery(local.href)) {
    const client = new pg.Client({ connectionString: local.href });
    await client.connect();
    try {
      const found = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'alertwall_cluster'`);
      if (found.rowCount === 0) await client.query('CREATE DATABASE alertwall_cluster');
    } finally {
      await client.end();
    }
    local.pathname = '/alertwall_cluster';
    return { url: local.href, stop: async () => {} };
  }
  const { startEmbeddedPostgres } = await import('../server/db/embedded.ts');
  const { createLog } = await import('../server/log.ts');
  const embedded = await startEmbeddedPostgres(join(dir, 'postgres'), createLog('warn'));
  return { url: embedded.url, stop: () => embedded.stop() };
}

/** The Redis to share: the URL given, else the local one, else a redis-server of our own. */
async function provideRedis(given: string | undefined) {
  if (given) return { url: given, stop: async () => {} };
  if (await accepts('127.0.0.1', 6379)) return { url: 'redis://127.0.0.1:6379', stop: async () => {} };
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    throw new Error(
      'several instances share live events through Redis: give --redis URL or install redis-server',
    );
  }
  const port = await freePort();
  const proc = await startRedisServer(port);
  return { url: `redis://127.0.0.1:${port}`, stop: () => proc.stop().then(() => {}) };
}

/**
 * A redis-server on 127.0.0.1:`port` that saves nothing by itself (SHUTDOWN SAVE writes to `dir`),
 * once it accepts connections.
 */
export async function startRedisServer(port: number, dir?: string): Promise<Proc> {
  const command = [
    'redis-server',
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ];
  const proc = startProc({ command: dir ? [...command, '--dir', dir] : command, env: process.env });
  for (const deadline = Date.now() + 10_000; !(await accepts('127.0.0.1', port)); await sleep(20)) {
    if (Date.now() > deadline) {
      await proc.stop('SIGKILL');
      throw new Error(`redis-server did not start:\n${proc.output()}`);
    }
  }
  return proc;
}

export interface ClusterOptions {
  instances?: number;
  /** nginx's port; 0 (the default) picks a free one. */
  port?: number;
  databaseUrl?: string;
  redisUrl?: string;
  /** Settings for every instance, as environment variables. */
  env?: Record<string, string>;
}

export interface Cluster {
  /** nginx: http://127.0.0.1:<port> */
  url: string;
  instances: Instance[];
  nginx: Nginx;
  databaseUrl: string;
  redisUrl: string;
  /** Starts instance `i` again on its port (after it was stopped or killed). */
  restart(i: number): Promise<Instance>;
  stop(): Promise<void>;
}

/** PostgreSQL, Redis, `instances` servers on one database and bus channel, nginx in front. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'alertwall-cluster-'));
  const cleanups: (() => Promise<unknown>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  };
  try {
    const database = await provideDatabase(dir, options.databaseUrl);
    cleanups.push(database.stop);
    const redis = await provideRedis(options.redisUrl);
    cleanups.push(redis.stop);
    // One channel per database: clusters (and tests) sharing a Redis never hear each other.
    const dbName = new URL(database.url).pathname.slice(1) || 'postgres';
    const inherited = { ...process.env };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST', 'BUS_CHANNEL', 'ALERTA_SVR_CONF_FILE']) {
      delete inherited[name];
    }
    const env = {
      ...inherited,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warning',
      USE_PROXYFIX: 'True',
      BUS_CHANNEL: `alertwall.${dbName}`,
      ...options.env,
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
    };
    const ports: number[] = [];
    for (let i = 0; i < (options.instances ?? 2); i++) ports.push(await freePort());
    const instances = await Promise.all(ports.map((port) => startInstance({ env, port })));
    cleanups.push(() => Promise.all(instances.map((s) => s.stop())));
    const nginx = await startNginx({ dir, port: options.port || (await freePort()), instances: ports });
    cleanups.push(() => nginx.stop('SIGQUIT'));
    return {
      url: `http://127.0.0.1:${nginx.port}`,
      instances,
      nginx,
      databaseUrl: database.url,
      redisUrl: redis.url,
      async restart(i) {
        await instances[i]!.stop();
        instances[i] = await startInstance({ env, port: ports[i]! });
        return instances[i]!;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      instances: { type: 'string', default: '2' },
      port: { type: 'string', default: '8080' },
      database: { type: 'string' },
      redis: { type: 'string' },
    },
  });
  const instances = Number(values.instances);
  if (!Number.isInteger(instances) || instances < 1) throw new Error('--instances: a whole number from 1');
  // The instances serve the web UI: build it first when it is missing or older than its sources.
  const build = spawnSync(process.execPath, ['scripts/build-web.ts'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const cluster = await startCluster({
    instances,
    port: Number(values.port),
    databaseUrl: values.database ?? process.env.DATABASE_URL,
    redisUrl: values.redis ?? process.env.REDIS_URL,
    env: process.env.SECRET_KEY ? {} : { SECRET_KEY: randomBytes(24).toString('base64url') },
  });
  console.log(`alertwall cluster ready at ${cluster.url}/ (nginx: ${cluster.nginx.dir}/nginx.conf)`);
  for (const s of cluster.instances) console.log(`  instance ${s.origin} (pid ${s.child.pid})`);
  console.log(`  database ${cluster.databaseUrl.replace(/:[^:@/]*@/, ':***@')} · redis ${cluster.redisUrl}`);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    console.log('stopping…');
    void cluster.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(`cluster: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
