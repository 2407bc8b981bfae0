/**
 * docs/settings.md is the operator's list of every setting: each key of SETTINGS
 * (server/config/settings.ts) has its row there, and every row names a setting the server knows, so a
 * new setting cannot ship undocumented and a removed one cannot stay documented.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SETTINGS } from '../../server/config/settings.ts';

const doc = readFileSync(new URL('../../docs/settings.md', import.meta.url), 'utf8');
/** The setting named in the first cell of each table row: "| `NAME` _ours_ | default | …". */
const documented = new Set([...doc.matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map((m) => m[1]!));

test('every setting has a row in docs/settings.md', () => {
  const missing = Object.keys(SETTINGS).filter((name) => !documented.has(name));
  assert.equal(missing, [], `settings without a row in docs/settings.md: ${missing.join(', ')}`);
});

test('every row of docs/settings.md names a known setting', () => {
  const unknown = [...documented].filter((name) => !Object.hasOwn(SETTINGS, name));
  assert.equal(unknown, [], `rows for settings the server does not have: ${unknown.join(', ')}`);
});

test.run();
