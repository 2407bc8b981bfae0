import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';

// server/preload.mjs: the server's TypeScript stripped by a child process, not by Node's own
// WebAssembly stripper (about 35 MB of RSS; docs/benchmarks.md, "Settings chosen").

const root = new URL('../../', import.meta.url).pathname;
const PRELOAD = ['--import', './server/preload.mjs'];

/** Runs a module's code in a fresh `node` (with the preload or without) and returns its output. */
function run(flags: string[], code: string): string {
  const child = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', code], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.is(child.status, 0, child.stderr);
  return child.stdout.trim();
}

const stripperLoaded = `process.moduleLoadList.some((m) => m.includes('amaro'))`;

const preload = suite('preload: the server without Node’s type stripper');

preload('the whole server loads without Node’s stripper; without the preload Node loads it', () => {
  // What server/main.ts imports (main.ts itself would start a server).
  const load = ['boot', 'config', 'log', 'startup-errors', 'version']
    .map((m) => `await import('./server/${m}.ts');`)
    .join(' ');
  assert.is(run(PRELOAD, `${load} console.log(${stripperLoaded})`), 'false');
  assert.is(run([], `${load} console.log(${stripperLoaded})`), 'true');
});

preload('a module loads as Node strips it: the same text, so lines and columns stay', () => {
  const file = 'server/realtime/members.ts';
  const code = `
    import { registerHooks } from 'node:module';
    let seen;
    registerHooks({ load(url, context, next) {
      const r = next(url, context);
      if (url.endsWith('/${file}')) seen = String(r.source);
      return r;
    } });
    await import('./${file}');
    console.log(JSON.stringify(seen));`;
  // Hooks registered later run first: this one sees what the preload's hook answered.
  const stripped = JSON.parse(run(PRELOAD, code)) as string;
  assert.is(stripped, stripTypeScriptTypes(readFileSync(`${root}${file}`, 'utf8')));
});

interface Ctx {
  db: { name: string; url: string };
  server: ServerProcess;
}
const started = suite<Ctx>('preload: a server started with it', {} as Ctx);
started.before(async (ctx) => {
  ctx.db = await createTestDatabase('preload');
  ctx.server = await startServerProcess({ DATABASE_URL: ctx.db.url }, 60_000, PRELOAD);
});
started.after(async (ctx) => {
  await ctx.server?.stop();
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});
started('answers as ever', async (ctx) => {
  const res = await fetch(new URL('/api/_', ctx.server.url));
  assert.is(await res.text(), 'OK');
});

preload.run();
started.run();
