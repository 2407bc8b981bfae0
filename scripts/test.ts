/**
 * `npm test`: typecheck, lint, unit, API, CLI, browser and cluster tests. Each test file runs in its own
 * process; the last line is "N passed, N failed" and the exit code is non-zero on any failure.
 *   npm test -- --only unit,api      run only these stages
 *   npm test -- tests/api/x.test.ts  run only these files
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { testDatabase } from './test-database.ts';

interface Outcome {
  passed: number;
  failed: number;
  output: string;
  seconds: number;
}

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const onlyArg = args.indexOf('--only');
const only = onlyArg >= 0 ? new Set((args[onlyArg + 1] ?? '').split(',')) : null;
const files = args.filter((a, i) => a.endsWith('.ts') && (onlyArg < 0 || i !== onlyArg + 1));
const wants = (stage: string) =>
  files.length ? ['unit', 'api', 'cli', 'browser', 'cluster'].includes(stage) : !only || only.has(stage);
const FILE_TIMEOUT_MS = 10 * 60 * 1000;

function run(
  cmd: string,
  cmdArgs: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; output: string; seconds: number }> {
  const started = Date.now();
  return new Promise((ok) => {
    const child = spawn(cmd, cmdArgs, { cwd: root, env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${FILE_TIMEOUT_MS / 1000}s]\n`;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      ok({ code: code ?? 1, output, seconds: (Date.now() - started) / 1000 });
    });
  });
}

/** uvu prints "Total: N / Passed: N / Skipped: N" once per process. */
function countUvu(code: number, output: string): { passed: number; failed: number } {
  const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
  if (Number.isNaN(total) || Number.isNaN(passed)) return { passed: 0, failed: 1 };
  const failed = total - passed - skipped;
  return { passed, failed: failed === 0 && code !== 0 ? 1 : failed };
}

async function runPool<T, R>(items: T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!);
      }
    }),
  );
  return results;
}

function testFiles(dir: string): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => join(dir, f));
}

async function main() {
  const outcomes: [string, Outcome][] = [];
  const record = (name: string, o: Outcome) => {
    outcomes.push([name, o]);
    const mark = o.failed ? 'FAIL' : 'ok  ';
    console.log(`${mark} ${name} (${o.passed} passed, ${o.failed} failed, ${o.seconds.toFixed(1)}s)`);
    if (o.failed) console.log(o.output.replace(/^/gm, '    | '));
  };

  if (wants('typecheck')) {
    // tsc for the server, shared code, scripts and tests; svelte-check for the web UI.
    const r = await run('npm', ['run', '--silent', 'typecheck']);
    record('typecheck', {
      passed: r.code ? 0 : 1,
      failed: r.code ? 1 : 0,
      output: r.output,
      seconds: r.seconds,
    });
  }
  if (wants('lint')) {
    const r = await run('npx', ['eslint', '.', '--max-warnings', '0']);
    record('lint', { passed: r.code ? 0 : 1, failed: r.code ? 1 : 0, output: r.output, seconds: r.seconds });
  }

  const stages: [string, number][] = [
    ['unit', 2],
    ['api', 2],
    ['cli', 2],
    ['browser', 1],
    // Several server processes, nginx and a replay of the Dockerfile's steps: one file at a time.
    ['cluster', 1],
  ];
  const needsDb =
    stages.some(([s]) => s !== 'unit' && wants(s)) &&
    (files.length === 0 || files.some((f) => !f.includes('/unit/')));
  const database = needsDb ? await testDatabase('test') : null;
  const env = { ...process.env, ...(database ? { TEST_DATABASE_URL: database.url } : {}) };
  try {
    for (const [stage, concurrency] of stages) {
      if (!wants(stage)) continue;
      const list = files.length
        ? files.filter((f) => f.includes(`tests/${stage}/`))
        : testFiles(`tests/${stage}`);
      if (stage === 'browser' && list.length) {
        // The browser tests load the UI the server serves: build it first (when out of date).
        const r = await run(process.execPath, ['scripts/build-web.ts']);
        record('build web UI', {
          passed: r.code ? 0 : 1,
          failed: r.code ? 1 : 0,
          output: r.output,
          seconds: r.seconds,
        });
        if (r.code) continue;
      }
      await runPool(list, concurrency, async (file) => {
        // uvu-hooks: an error in a suite's set-up is printed, not swallowed (see the file).
        const r = await run(process.execPath, ['--import', './tests/helpers/uvu-hooks.ts', file], env);
        record(file, { ...countUvu(r.code, r.output), output: r.output, seconds: r.seconds });
      });
    }
  } finally {
    await database?.stop();
  }

  const passed = outcomes.reduce((n, [, o]) => n + o.passed, 0);
  const failed = outcomes.reduce((n, [, o]) => n + o.failed, 0);
  console.log(`\n${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

await main();
