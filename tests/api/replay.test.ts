import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SCENARIOS } from '../../scripts/replay/scenarios/index.ts';
import { type AppContext, startApp, stopApp } from '../helpers/app.ts';

/**
 * `npm run replay` (scripts/replay.ts) between servers of ours: two alike answer every scenario
 * the same; a setting that changes one answer is named by its path and fails the run, unless the
 * known-differences file lists it.
 */
interface Ctx {
  a: AppContext;
  b: AppContext;
  /** Like `a`, but with DEFAULT_PAGE_SIZE 500: every paged list answers another `pageSize`. */
  c: AppContext;
  dir: string;
}

const KEY = 'replay-test-admin-key-0123456789abcdef';
const settings = {
  AUTH_REQUIRED: 'true',
  ADMIN_USERS: 'admin@example.com',
  ADMIN_KEY: KEY,
  SECRET_KEY: 'replay-test-signing-key',
  REDIS_URL: '',
};
const root = new URL('../../', import.meta.url).pathname;

function replay(...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['scripts/replay.ts', ...args], { cwd: root });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((ok) => child.on('close', (code) => ok({ code, output })));
}

const sides = (x: AppContext, y: AppContext) => [
  '--a',
  x.api.base,
  '--b',
  y.api.base,
  '--key-a',
  KEY,
  '--key-b',
  KEY,
];

const test = suite<Ctx>('replay harness', {} as Ctx);
test.before(async (ctx) => {
  ctx.a = {} as AppContext;
  ctx.b = {} as AppContext;
  ctx.c = {} as AppContext;
  await startApp(ctx.a, { ...settings, TEST_LABEL: 'replay_a' });
  await startApp(ctx.b, { ...settings, TEST_LABEL: 'replay_b' });
  await startApp(ctx.c, { ...settings, TEST_LABEL: 'replay_c', DEFAULT_PAGE_SIZE: '500' });
  ctx.dir = mkdtempSync(join(tmpdir(), 'replay-test-'));
});
test.after(async (ctx) => {
  await stopApp(ctx.a);
  await stopApp(ctx.b);
  await stopApp(ctx.c);
  rmSync(ctx.dir, { recursive: true, force: true });
});

test('two servers of ours on two databases answer every scenario the same', async (ctx) => {
  const report = join(ctx.dir, 'same.json');
  const { code, output } = await replay(...sides(ctx.a, ctx.b), '--report', report);
  assert.is(code, 0, output);
  for (const s of SCENARIOS) assert.match(output, new RegExp(`^${s.name} +OK, \\d+ requests`, 'm'), output);
  assert.match(
    output,
    new RegExp(
      `^summary: ${SCENARIOS.length} scenarios, \\d+ requests, 0 differences in 0 scenarios, 0 known$`,
      'm',
    ),
  );
  assert.not.match(output, /DIFF/);

  // The report holds both normalised answers of every step: ids by first appearance, times, links
  // without the server's base, so the two sides read alike.
  const written = JSON.parse(readFileSync(report, 'utf8')) as {
    results: {
      name: string;
      steps: { step: string; a: { status: number; body: Record<string, unknown> } }[];
    }[];
  };
  assert.equal(
    written.results.map((r) => r.name),
    SCENARIOS.map((s) => s.name),
  );
  const created = written.results[0]!.steps.find((s) => s.step === 'new')!.a;
  assert.is(created.status, 201);
  const alert = created.body.alert as Record<string, unknown>;
  assert.equal([alert.id, alert.href, alert.createTime], ['<alert>', '/alert/<alert>', '<time>']);
});

test('a setting that changes an answer fails the run and names the path', async (ctx) => {
  const { code, output } = await replay(...sides(ctx.a, ctx.c), '--only', 'keys');
  assert.is(code, 1, output);
  assert.match(output, /^keys +1 difference, \d+ requests/m);
  assert.match(output, /^ {2}DIFF {2}list\.body\.pageSize: A 1000 \| B 500$/m);
  assert.match(output, /^summary: 1 scenario, \d+ requests, 1 difference in 1 scenario, 0 known$/m);
});

test('a difference in the known file is printed as known with its reason, and the run passes', async (ctx) => {
  const known = join(ctx.dir, 'known.json');
  writeFileSync(
    known,
    JSON.stringify([
      { scenario: 'k*s', path: '*.body.pageSize', reason: 'DEFAULT_PAGE_SIZE differs on purpose' },
    ]),
  );
  const { code, output } = await replay(...sides(ctx.a, ctx.c), '--only', 'keys', '--known', known);
  assert.is(code, 0, output);
  assert.match(output, /^keys +OK \(1 known\), \d+ requests/m);
  assert.match(
    output,
    /^ {2}known list\.body\.pageSize: A 1000 \| B 500 \(DEFAULT_PAGE_SIZE differs on purpose\)$/m,
  );
  assert.match(output, /^summary: 1 scenario, \d+ requests, 0 differences in 0 scenarios, 1 known$/m);
});

test('usage errors exit 2 naming the problem; --list names every scenario', async (ctx) => {
  const noB = await replay('--a', ctx.a.api.base);
  assert.equal([noB.code, noB.output.split('\n')[0]], [2, '--b is required']);
  const unknown = await replay(...sides(ctx.a, ctx.b), '--only', 'alerts,nope');
  assert.is(unknown.code, 2);
  assert.match(unknown.output, /^no scenario nope; scenarios: alerts, /);
  const badKnown = join(ctx.dir, 'bad-known.json');
  writeFileSync(badKnown, JSON.stringify([{ scenario: 'keys', path: 'x' }]));
  const bad = await replay(...sides(ctx.a, ctx.b), '--known', badKnown);
  assert.is(bad.code, 2);
  assert.match(bad.output, /^--known: .*bad-known\.json: 0\.reason: /);
  const list = await replay('--list');
  assert.is(list.code, 0);
  assert.equal(
    list.output
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[0]),
    SCENARIOS.map((s) => s.name),
  );
});

test.run();
