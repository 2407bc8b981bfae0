#!/usr/bin/env node
// The `alerta` command. The client is TypeScript that Node runs directly (type stripping), which
// needs Node 24 or newer and a checkout outside node_modules (npm install -g . links it).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`ERROR: alerta needs Node.js 24 or newer; this is ${process.version}`);
  process.exit(1);
}
try {
  await import('../server/cli/main.ts');
} catch (err) {
  if (err?.code === 'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING') {
    console.error('ERROR: alerta runs from a checkout: install it with "npm install -g ." in the repository');
    process.exit(1);
  }
  throw err;
}
