#!/usr/bin/env node
// The `alerta` command. The client is TypeScript that Node runs directly (type stripping), which
// needs Node 24 or newer and a checkout outside node_modules (npm install -g ./cli links it).
// Started by an older Node (a machine whose own node is older, with `npm install -g ./cli`), it runs
// itself again under the Node 24 that `npm install` put in the checkout (the `node` devDependency).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const bundled = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url));
  if (!existsSync(bundled) || process.env.ALERTWALL_REEXEC) {
    console.error(`ERROR: alerta needs Node.js 24 or newer; this is ${process.version}`);
    process.exit(1);
  }
  const child = spawn(bundled, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, ALERTWALL_REEXEC: '1' },
  });
  // Ctrl-C reaches the child from the terminal itself; other signals are passed on.
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    console.error(`ERROR: could not start ${bundled}: ${err.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
} else {
  try {
    await import('./main.ts');
  } catch (err) {
    if (err?.code === 'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING') {
      console.error(
        'ERROR: alerta runs from a checkout: install it with "npm install -g ./cli" in the repository',
      );
      process.exit(1);
    }
    throw err;
  }
}
