/**
 * How `alerta` starts from a checkout on a machine whose own Node is older than the project's:
 * `npx alerta` (npm, on the machine's Node, links the checkout into its npx cache on first use and
 * checks the package's engines against its own Node) and bin/alerta.js run by that older Node.
 * Both use the machine's node and npx from PATH, outside node_modules; on a machine whose node is
 * already 24 they run there all the same.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, tempHome, type Result } from './helpers.ts';

const root = new URL('../../', import.meta.url).pathname;
const test = suite('alerta: starting from a checkout');

/** PATH without node_modules/.bin directories: what a shell outside `npm run` has. */
const machinePath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir && !dir.includes('node_modules'))
  .join(delimiter);

const onMachinePath = (name: string) =>
  machinePath
    .split(delimiter)
    .map((dir) => join(dir, name))
    .find((file) => existsSync(file)) ?? null;

function runIn(cwd: string, file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Result> {
  const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} ${args.join(' ')} did not finish in time:\n${stdout}\n${stderr}`));
    }, 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

test('npx alerta from the checkout prints no npm engine warning, first call or not', async () => {
  const npx = onMachinePath('npx');
  if (!npx) return void console.log('  (no npx on PATH: nothing to check)');
  // A fresh HOME is a fresh npm cache, so npm links the checkout into its npx cache on this call.
  const { home, cleanup } = tempHome('npx');
  try {
    const env = { PATH: machinePath, HOME: home, npm_config_update_notifier: 'false' };
    for (const call of ['first', 'second']) {
      const r = await runIn(root, npx, ['alerta', '--help'], env);
      assert.is(r.code, 0, `${call} call: ${r.stderr}`);
      assert.match(r.stdout, /^Usage: alerta \[OPTIONS\] COMMAND/);
      assert.not.match(r.stdout + r.stderr, /EBADENGINE|Unsupported engine/, `${call} call`);
    }
  } finally {
    cleanup();
  }
});

test('bin/alerta.js started by an older Node runs itself under the checkout’s Node 24', async () => {
  const node = onMachinePath('node');
  if (!node) return void console.log('  (no node on PATH: nothing to check)');
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const { home, cleanup } = tempHome('bin');
  try {
    const r = await runIn(home, node, [BIN, 'version'], {
      PATH: machinePath,
      HOME: home,
      ALERTA_ENDPOINT: 'http://127.0.0.1:9/api',
    });
    // Nothing listens there: the client ran (under Node 24) and could not reach the server.
    assert.is(r.code, 3, `${version}: ${r.stderr}`);
    assert.match(r.stderr, /^ERROR: Failed to get config from http:\/\/127\.0\.0\.1:9\/api\/config/);
    const help = await runIn(home, node, [BIN, '--help'], { PATH: machinePath, HOME: home });
    assert.is(help.code, 0, `${version}: ${help.stderr}`);
    assert.match(help.stdout, /^Usage: alerta/);
  } finally {
    cleanup();
  }
});

test.run();
