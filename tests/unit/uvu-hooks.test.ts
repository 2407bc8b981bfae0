import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;
const runFixture = (preload: boolean) =>
  spawnSync(
    process.execPath,
    [
      ...(preload ? ['--import', './tests/helpers/uvu-hooks.ts'] : []),
      'tests/fixtures/uvu/failing-before.ts',
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
  );

test('without the preload, uvu swallows a set-up error (why the preload exists)', () => {
  const r = runFixture(false);
  assert.not.match(r.stdout + r.stderr, /database unreachable/);
});

test('with the preload, the set-up error is printed and the file fails', () => {
  const r = runFixture(true);
  assert.is(r.status, 1);
  assert.match(r.stdout, /FAIL\s+set-up fails\s+"\(set-up: before hook\)"/);
  assert.match(r.stdout, /database unreachable during set-up/);
  assert.match(r.stdout, /Passed:\s+0/);
});

test.run();
