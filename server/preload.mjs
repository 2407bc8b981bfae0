/**
 * `npm start`'s `--import` (docs/benchmarks.md, "Settings chosen"): the server's TypeScript is
 * stripped of its types by a short-lived child process, and this process loads the results.
 *
 * Why: Node strips types itself with a WebAssembly build of swc that it loads on the first `.ts`
 * file and keeps for good: its 3.8 MB source, the compiled module and its memory, about 35 MB of
 * RSS in a server at rest (`scripts/bench/memory.ts`; 153 MB idle against 119 MB this way). The
 * child uses Node's own `stripTypeScriptTypes` (the same stripper, whitespace in place of types,
 * so line and column numbers stay), and exits.
 *
 * Any `.ts` file the child did not strip (outside server/ and shared/, or one it could not strip)
 * is loaded as Node loads it, and so is everything when the child fails: the answers are the same,
 * only the memory differs. tests/api/preload.test.ts checks that the server's modules load without
 * Node's stripper and that the stripped source is Node's own.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOTS = ['server', 'shared'];
/** Set in the child's environment: the child strips, and never imports this file's hooks again. */
const CHILD = 'ALERTWALL_STRIP_CHILD';

/** Every `.ts` file (not `.d.ts`) under `dir`, node_modules left out. */
function* typeScriptFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') yield* typeScriptFiles(path);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** In the child: prints {fileUrl: stripped source} of every file under the roots that strips. */
function stripAll(root) {
  const out = {};
  for (const dir of ROOTS)
    for (const path of typeScriptFiles(join(root, dir))) {
      try {
        out[pathToFileURL(path).href] = stripTypeScriptTypes(readFileSync(path, 'utf8'));
      } catch {
        // Syntax Node cannot strip: left to Node, which reports it as it always does.
      }
    }
  process.stdout.write(JSON.stringify(out));
}

/** In the server: asks the child for the stripped sources and serves them to the module loader. */
function install(root) {
  const env = { ...process.env, [CHILD]: '1' };
  delete env.NODE_OPTIONS;
  const child = spawnSync(process.execPath, ['--no-warnings', fileURLToPath(import.meta.url), root], {
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  let sources;
  try {
    if (child.status !== 0 || child.error) {
      const lines = child.stderr.trim().split('\n');
      throw child.error ?? new Error(lines.find((l) => /Error\b/.test(l)) ?? lines.at(-1));
    }
    sources = new Map(Object.entries(JSON.parse(child.stdout)));
  } catch (err) {
    process.stderr.write(
      `alertwall: type stripping in a child process failed (${err.message}); Node strips the types itself\n`,
    );
    return;
  }
  registerHooks({
    load(url, context, nextLoad) {
      const source = sources.get(url);
      if (source === undefined) return nextLoad(url, context);
      // A module loads once: its text now belongs to the module.
      sources.delete(url);
      return { format: 'module', source, shortCircuit: true };
    },
  });
}

const root = fileURLToPath(new URL('..', import.meta.url));
// In the child this file is the main module (the child is started without --import).
if (process.env[CHILD]) stripAll(process.argv[2] ?? root);
else install(root);
