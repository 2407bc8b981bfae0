/**
 * Robustness (docs/robustness.md): a seeded set of bad or odd requests over every
 * endpoint, replayed against a started server with AUTH_REQUIRED off and on. Every answer must be
 * below 500; every error a JSON body `{status: "error", message, code}` with code = HTTP status and
 * nothing internal in it (stack, SQL, database text, host:port, file path); and a refused request
 * must leave every table as it was (tests/helpers/robustness.ts judges; `npm run fuzz` runs the same
 * for a release, longer).
 *
 *   ROBUSTNESS_SEED=7 ROBUSTNESS_COUNT=10000 npm test -- tests/api/robustness.test.ts
 */
import * as assert from 'uvu/assert';
import { leakIn } from '../helpers/bad-requests.ts';
import { type AppContext, appSuite } from '../helpers/app.ts';
import { LiveClient } from '../helpers/live.ts';
import {
  ADMIN_KEY,
  failureReport,
  MODE_AUTH,
  MODES,
  replayBadRequests,
  statusSummary,
} from '../helpers/robustness.ts';

const SEED = Number(process.env.ROBUSTNESS_SEED ?? 20261125);
const COUNT = Number(process.env.ROBUSTNESS_COUNT ?? 1500);

async function replay(ctx: AppContext, auth: Record<string, string>, seed: number): Promise<void> {
  const r = await replayBadRequests(ctx, { seed, count: COUNT, auth });
  assert.ok(
    r.failures.length === 0,
    `${r.failures.length} of ${r.requests} requests (seed ${seed}; statuses ${statusSummary(r.statuses)}):\n` +
      failureReport(r.failures),
  );
}

/** A live subscription with a bad query answers a clean error, never code 500 or database text. */
async function badSubscriptions(ctx: AppContext, credentials: { key: string } | Record<string, never>) {
  const client = await LiveClient.connect(ctx.origin, credentials);
  try {
    for (const q of [
      'AND',
      '||',
      '/(/',
      'resource:/[z-a]/',
      '(((',
      'createTime:>0000-01-01',
      'nosuchfield:1',
    ]) {
      const answer = (await client.subscribe(`q=${encodeURIComponent(q)}`)) as unknown as Record<
        string,
        unknown
      >;
      assert.is(answer.status, 'error', `subscribe q=${q}: ${JSON.stringify(answer)}`);
      assert.is(answer.code, 400, `subscribe q=${q}: ${JSON.stringify(answer)}`);
      assert.is(leakIn(JSON.stringify(answer)), null, `subscribe q=${q}: ${JSON.stringify(answer)}`);
    }
    for (const f of ['from-date=0000-01-01T00:00:00.000Z', 'sort-by=nosuchfield', 'page=abc']) {
      const answer = (await client.subscribe(f)) as unknown as Record<string, unknown>;
      assert.ok(answer.status === 'ok' || answer.code === 400, `subscribe ${f}: ${JSON.stringify(answer)}`);
      assert.is(leakIn(JSON.stringify(answer)), null, `subscribe ${f}: ${JSON.stringify(answer)}`);
    }
  } finally {
    client.socket.disconnect();
  }
}

const open = appSuite('robustness, AUTH_REQUIRED off', MODES.open);
open(`${COUNT} seeded bad requests: no 5xx, JSON errors, no leaks, nothing written when refused`, (ctx) =>
  replay(ctx, MODE_AUTH.open, SEED),
);
open('live subscriptions with bad queries answer 400', (ctx) => badSubscriptions(ctx, {}));
open.run();

const closed = appSuite('robustness, AUTH_REQUIRED on', MODES.auth);
closed(`${COUNT} seeded bad requests: no 5xx, JSON errors, no leaks, nothing written when refused`, (ctx) =>
  replay(ctx, MODE_AUTH.auth, SEED + 1),
);
closed('live subscriptions with bad queries answer 400', (ctx) => badSubscriptions(ctx, { key: ADMIN_KEY }));
closed.run();
