/**
 * The code's shape (docs/architecture.md, "Layers"): no import circles in server/, cli/ and shared/,
 * type-only imports included (lint's import-x/no-cycle sees value imports only), and no source file
 * there longer than MAX_LINES, no hidden per-instance state in server/ and one callerOf. The layers
 * themselves are lint rules (eslint.config.js).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = resolve(import.meta.dirname, '../..');
const FOLDERS = ['server', 'cli', 'shared'];
/** Split a longer file along its seams; docs/architecture.md says where each kind of code goes. */
const MAX_LINES = 500;

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.parentPath.includes('node_modules'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

const files = FOLDERS.flatMap(sourceFiles).sort();
const sources = new Map(files.map((f) => [f, readFileSync(join(root, f), 'utf8')]));

/** The project files a module imports: static, `import type`, `export … from` and `import()`. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(sources.get(file)!, true, true);
  return importedFiles
    .map((i) => i.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => relative(root, resolve(root, dirname(file), spec)))
    .filter((target) => sources.has(target));
}

/** Every strongly connected group of two or more modules (Tarjan), each one import circle or more. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)?.includes(v)) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('finds the modules and their imports', () => {
  assert.ok(files.length > 100, `${files.length} source files`);
  assert.ok(importsOf('server/app.ts').includes('server/deps.ts'));
  assert.ok(importsOf('server/deps.ts').includes('server/db/pool.ts'), 'type-only imports count');
});

test('detects a circle, type-only imports included', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
  ]);
  assert.equal(circles(graph), [['a.ts', 'b.ts', 'c.ts']]);
  assert.equal(circles(new Map([['a.ts', ['b.ts']]])), []);
});

test('no import circles in server/, cli/ or shared/', () => {
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  assert.equal(circles(graph), []);
});

/** Koa stays at the edge (docs/architecture.md): below it, code gets plain request facts (server/request.ts). */
const KOA_ALLOWED = (file: string) => file.startsWith('server/http/') || file === 'server/app.ts';
const isKoa = (spec: string) => spec === 'koa' || spec.startsWith('koa-') || spec.startsWith('@koa/');

test('koa and @koa/* are imported only in server/http/ and server/app.ts', () => {
  const outside = files
    .filter((f) => !KOA_ALLOWED(f))
    .filter((f) =>
      ts.preProcessFile(sources.get(f)!, true, true).importedFiles.some((i) => isKoa(i.fileName)),
    );
  assert.equal(outside, []);
  assert.ok(isKoa('@koa/router') && isKoa('koa') && !isKoa('koala'), 'the rule sees what it should');
});

// State lives in objects built in boot.ts and passed down (docs/architecture.md, "Deps: the plain dependencies and the services"): a
// registry keyed by the dependencies or a null cast standing in for a service hides it.
test('no registries keyed by Deps or Base and no `null as unknown` casts in server/', () => {
  const hidden = /WeakMap<\s*(Deps|Base)\b|\bnull as unknown\b/;
  const found = files.filter((f) => f.startsWith('server/') && hidden.test(sources.get(f)!));
  assert.equal(found, []);
  assert.ok(
    hidden.test('new WeakMap<Deps, X>()') && hidden.test('x: null as unknown as Y'),
    'the rule sees them',
  );
});

test('callerOf is defined once, in server/domain/caller.ts (HTTP and the hub share it)', () => {
  const defines = /\bfunction\s+callerOf\b|\bcallerOf\s*=/;
  assert.equal(
    files.filter((f) => defines.test(sources.get(f)!)),
    ['server/domain/caller.ts'],
  );
});

test(`no source file in ${FOLDERS.join('/, ')}/ over ${MAX_LINES} lines`, () => {
  const long = files
    .map((f) => ({ f, lines: sources.get(f)!.split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ f, lines }) => `${f}: ${lines} lines`);
  assert.equal(long, []);
});

test.run();
