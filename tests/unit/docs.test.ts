/**
 * The docs stand alone and stay a reference: every link in README.md
 * and docs/ resolves to a file inside the repository, docs/benchmarks.md stays a short table of
 * targets and figures (its history is docs/benchmarks-log.md), and code comments do not tell which
 * session found something.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = resolve(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(join(root, f), 'utf8');

function filesUnder(folder: string, ends: RegExp): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && ends.test(e.name) && !e.parentPath.includes('node_modules'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

const markdown = ['README.md', ...filesUnder('docs', /\.md$/)];

/** The targets of a markdown file's relative links (inline `](…)` and reference `[x]: …`), anchors cut. */
export function relativeLinks(text: string): string[] {
  const targets = [
    ...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
    ...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm),
  ].map((m) => m[1]!);
  return targets
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'))
    .map((t) => decodeURIComponent(t.split('#')[0]!))
    .filter(Boolean);
}

test('the link finder sees inline and reference links and leaves out web addresses', () => {
  assert.equal(
    relativeLinks('[a](docs/x.md#s) [b](https://e.com) [c](#top) [d](../shared/y.md "t")\n[r]: ./z.md\n'),
    ['docs/x.md', '../shared/y.md', './z.md'],
  );
});

test('every link in README.md and docs/ names a file inside the repository', () => {
  const broken: string[] = [];
  for (const file of markdown) {
    for (const target of relativeLinks(read(file))) {
      const at = resolve(root, dirname(file), target);
      const inside = !relative(root, at).startsWith('..');
      if (!inside || !existsSync(at)) broken.push(`${file}: ${target}${inside ? '' : ' (outside)'}`);
    }
  }
  assert.equal(broken, []);
});

test('docs/benchmarks.md is a reference under 300 lines', () => {
  const lines = read('docs/benchmarks.md').split('\n').length;
  assert.ok(lines < 300, `docs/benchmarks.md has ${lines} lines`);
});

test('no code comment tells which session found something', () => {
  const diary = /\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth) session\b/i;
  const found = ['server', 'cli', 'shared', 'web/src', 'scripts']
    .flatMap((d) => filesUnder(d, /\.(ts|svelte)$/))
    .filter((f) => diary.test(read(f)));
  assert.equal(found, []);
});

test.run();
