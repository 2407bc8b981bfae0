/**
 * `npm run fuzz -- --n 10000 --seed S`: the robustness suite's seeded bad requests
 * (tests/helpers/bad-requests.ts), longer, for release checks (docs/robustness.md). Starts the
 * server on a fresh database, once with AUTH_REQUIRED off (seed S) and once on (seed S + 1), sends
 * `n` requests to each and prints the counts of 5xx answers, leaking errors, non-JSON errors and
 * writes by refused requests (and any other failure of the suite's checks). Exits non-zero if any
 * count is above 0.
 *
 *   --n N         requests per mode (default 10000)
 *   --seed S      seed of the first mode (default 20261129)
 *   --mode M      open, auth or both (default both)
 *   --classes     also print the statuses per class of request
 *
 * Databases are made on TEST_DATABASE_URL, DATABASE_URL or the local PostgreSQL, else on an embedded
 * one, as `npm test` does.
 */
import { parseArgs } from 'node:util';
import type { AppContext } from '../tests/helpers/app.ts';
import { testDatabase } from './test-database.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '20261129' },
    mode: { type: 'string', default: 'both' },
    classes: { type: 'boolean', default: false },
  },
});
const count = Number(values.n);
const seed = Number(values.seed);
if (
  !Number.isInteger(count) ||
  count < 1 ||
  !Number.isInteger(seed) ||
  !/^(open|auth|both)$/.test(values.mode)
) {
  console.error('usage: npm run fuzz -- [--n 10000] [--seed S] [--mode open|auth|both]');
  process.exit(2);
}

// The helpers read TEST_DATABASE_URL when they load: settle it first.
const database = await testDatabase('fuzz');
process.env.TEST_DATABASE_URL = database.url;
const { startApp, stopApp } = await import('../tests/helpers/app.ts');
const { MODES, MODE_AUTH, replayBadRequests, statusSummary, failureReport } =
  await import('../tests/helpers/robustness.ts');

const modes = (values.mode === 'both' ? ['open', 'auth'] : [values.mode]) as (keyof typeof MODES)[];
let bad = 0;
try {
  for (const [i, mode] of modes.entries()) {
    const modeSeed = seed + (mode === 'auth' ? 1 : 0);
    const ctx = {} as AppContext;
    await startApp(ctx, MODES[mode]);
    const started = Date.now();
    try {
      console.log(`AUTH_REQUIRED ${mode === 'auth' ? 'on' : 'off'}: seed ${modeSeed}, ${count} requests`);
      const r = await replayBadRequests(ctx, {
        seed: modeSeed,
        count,
        auth: MODE_AUTH[mode],
        progress: (done) => process.stdout.isTTY && process.stdout.write(`  ${done} sent\r`),
      });
      const c = r.counts;
      const others = c.shape + c.noAnswer;
      console.log(
        `  5xx ${c.serverError}, leaks ${c.leak}, non-JSON errors ${c.nonJson}, ` +
          `writes by refused requests ${c.write}, other failures ${others} ` +
          `(${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
      console.log(`  statuses ${statusSummary(r.statuses)}`);
      if (values.classes)
        for (const [cls, statuses] of [...r.byClass].sort())
          console.log(`    ${cls}: ${statusSummary(statuses)}`);
      if (r.failures.length) console.log(failureReport(r.failures));
      bad += r.failures.length;
    } finally {
      await stopApp(ctx);
    }
    if (i < modes.length - 1) console.log('');
  }
} finally {
  await database.stop();
}
console.log(bad ? `\nFAIL: ${bad} failures` : '\nok: no failures');
process.exit(bad ? 1 : 0);
