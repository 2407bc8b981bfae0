import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The server's layers, top to bottom, as docs/architecture.md lists them: a file may import its own
 * layer and the layers below, never one above. A path is a folder or a file; a file of a lower layer
 * inside a higher layer's folder (realtime/bus.ts and redis-bus.ts, the pure part of domain/) belongs to
 * the lower one.
 */
const LAYERS = [
  { name: 'start-up', paths: ['server/main.ts', 'server/boot.ts', 'server/app.ts', 'server/import'] },
  { name: 'edges', paths: ['server/http', 'server/webhooks', 'server/realtime'] },
  { name: 'plugins', paths: ['server/plugins', 'server/notifications'] },
  { name: 'forwarding', paths: ['server/forwarding'] },
  { name: 'domain', paths: ['server/domain', 'server/present.ts'] },
  { name: 'auth', paths: ['server/auth'] },
  { name: 'deps', paths: ['server/deps.ts'] },
  { name: 'delivery', paths: ['server/delivery'] },
  { name: 'storage', paths: ['server/db', 'server/realtime/bus.ts', 'server/realtime/redis-bus.ts'] },
  {
    name: 'model',
    paths: [
      'server/domain/alert-fields.ts',
      'server/domain/alert-types.ts',
      // Who a use case acts for, and the receiver's interface: both named by deps.ts.
      'server/domain/caller.ts',
      'server/domain/receive/receiver.ts',
      'server/domain/alarm-model.ts',
      'server/domain/alarm-rules.ts',
      'server/domain/plugin-hooks.ts',
      'server/domain/query',
    ],
  },
  {
    name: 'base',
    paths: [
      'server/config.ts',
      'server/config',
      'server/errors.ts',
      'server/log.ts',
      'server/metrics.ts',
      'server/secrets.ts',
      'server/secret-box.ts',
      'server/version.ts',
      'server/base-url.ts',
      'server/request.ts',
      'server/types',
    ],
  },
];

const inside = (path, folder) => path.startsWith(`${folder}/`);

/** One zone per (layer, path above it): the except list must lie inside its single `from`. */
function layerZones() {
  const zones = [];
  LAYERS.forEach((layer, i) => {
    const below = LAYERS.slice(i).flatMap((l) => l.paths);
    for (const upper of LAYERS.slice(0, i)) {
      for (const from of upper.paths) {
        const except = below.filter((p) => inside(p, from)).map((p) => `./${p.slice(from.length + 1)}`);
        zones.push({
          target: layer.paths,
          from,
          except,
          message: `${layer.name} may not import ${upper.name}, a layer above it (docs/architecture.md, "Layers").`,
        });
      }
    }
  });
  return zones;
}

const packageZones = [
  { target: 'server', from: 'cli', message: 'server/ never imports the command-line client.' },
  { target: 'server', from: 'web', message: 'server/ never imports the web UI.' },
  { target: 'shared', from: 'server', message: 'shared/ imports nothing from server/.' },
  { target: 'shared', from: 'cli', message: 'shared/ imports nothing from cli/.' },
  { target: 'shared', from: 'web', message: 'shared/ imports nothing from web/.' },
  {
    target: 'cli',
    from: 'server',
    message: 'cli/ imports only shared/ and its own files (HTTP and the socket).',
  },
  {
    target: 'cli',
    from: 'web',
    message: 'cli/ imports only shared/ and its own files (HTTP and the socket).',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'web/build/', 'web/.svelte-kit/', 'web/.svelte-kit-builds/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  { files: ['scripts/**', 'tests/**'], rules: { 'no-console': 'off' } },
  {
    // Layers and import circles (docs/architecture.md). no-cycle follows value imports only; the
    // structure test (tests/unit/structure.test.ts) also refuses circles made of type imports.
    files: ['server/**/*.ts', 'cli/**/*.ts', 'shared/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver()],
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [...layerZones(), ...packageZones] }],
      'import-x/no-cycle': 'error',
    },
  },
);
