/**
 * The error catalogue (server/errors.ts) is the one list of errors the server answers with: no
 * `new AppError(` elsewhere in server/, no code declared twice, every code in docs/errors.md with
 * the catalogue's status, and none there that the catalogue lacks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERROR_GROUPS, ERRORS, appError } from '../../server/errors.ts';

const root = resolve(import.meta.dirname, '../..');
const CATALOGUE = 'server/errors.ts';

function serverFiles(): string[] {
  return readdirSync(join(root, 'server'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

/** The rows of docs/errors.md's tables: `| \`code\` | status | meaning |`. */
function documented(): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of readFileSync(join(root, 'docs/errors.md'), 'utf8').split('\n')) {
    const m = /^\|\s*`([a-z0-9_]+)`\s*\|\s*(\d{3})\s*\|/.exec(line);
    if (!m) continue;
    assert.not.ok(rows.has(m[1]!), `docs/errors.md lists ${m[1]} twice`);
    rows.set(m[1]!, Number(m[2]));
  }
  return rows;
}

test('no `new AppError(` outside the catalogue', () => {
  const found = serverFiles()
    .filter((f) => f !== CATALOGUE)
    .filter((f) => readFileSync(join(root, f), 'utf8').includes('new AppError('));
  assert.equal(found, [], 'use appError(code, …) with an entry of server/errors.ts');
});

test('every code is declared once, in snake_case, with an HTTP error status', () => {
  const seen = new Map<string, number>();
  for (const group of ERROR_GROUPS)
    for (const code of Object.keys(group)) seen.set(code, (seen.get(code) ?? 0) + 1);
  assert.equal(
    [...seen].filter(([, n]) => n > 1).map(([code]) => code),
    [],
    'a code in two groups: the spread into ERRORS would keep only one',
  );
  assert.is(seen.size, Object.keys(ERRORS).length);
  for (const [code, { status }] of Object.entries(ERRORS)) {
    assert.match(code, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, code);
    assert.ok(status >= 400 && status <= 599, `${code}: ${status}`);
  }
});

test('docs/errors.md lists every code with its status, and no other', () => {
  const rows = documented();
  const codes = Object.keys(ERRORS);
  assert.equal(
    codes.filter((c) => !rows.has(c)),
    [],
    'codes missing from docs/errors.md',
  );
  assert.equal(
    [...rows.keys()].filter((c) => !(c in ERRORS)),
    [],
    'docs/errors.md lists codes the catalogue does not have',
  );
  for (const code of codes) assert.is(rows.get(code), ERRORS[code as keyof typeof ERRORS].status, code);
});

test('an error carries its code and status, and its message from the catalogue', () => {
  const e = appError('invalid_filter', 'colour');
  assert.equal(
    [e.errorCode, e.status, e.message],
    ['invalid_filter', 400, 'Invalid filter parameter: colour'],
  );
  const listed = e.with({ errors: ['filters: resource'] });
  assert.equal(
    [listed.errorCode, listed.status, listed.message, listed.errors],
    ['invalid_filter', 400, 'Invalid filter parameter: colour', ['filters: resource']],
  );
  assert.is(appError('not_found').message, 'not found');
});

test.run();
