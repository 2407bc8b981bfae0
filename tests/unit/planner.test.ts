/**
 * Planner settings are made in server/db/planner.ts only, each named with its reason and its test:
 * a setting written into a statement elsewhere would have neither.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = resolve(import.meta.dirname, '../..');
const PLANNER = 'server/db/planner.ts';
/** The settings that steer plans (PostgreSQL's "Query Planning" group, and JIT). */
const SETTING =
  /\b(enable_[a-z]+|[a-z_]*_cost|plan_cache_mode|jit|geqo\w*|[a-z]+_collapse_limit|effective_cache_size|work_mem|max_parallel_workers_per_gather)\b/;
const comment = /^\s*(\/\/|\/\*|\*)/;

test('no server file but planner.ts sets a planner setting', () => {
  const files = readdirSync(join(root, 'server'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((f) => f !== PLANNER);
  const found = files.flatMap((f) =>
    readFileSync(join(root, f), 'utf8')
      .split('\n')
      .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
      .filter(({ line }) => !comment.test(line) && SETTING.test(line))
      .map(({ line, at }) => `${at}: ${line.trim()}`),
  );
  assert.equal(found, [], `name it in ${PLANNER} and use planWith:\n${found.join('\n')}`);
});

test.run();
