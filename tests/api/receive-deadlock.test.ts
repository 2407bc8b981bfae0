/**
 * A receive write that PostgreSQL ends as a deadlock's victim is written again: slonik runs a
 * statement outside a transaction again on a class 40 error (`queryRetryLimit`, 5 by default), as
 * it runs a transaction's handler again (`transactionRetryLimit`). The receive path's batched
 * writes lock several alerts in identity order and bulk chunks lock theirs in id order
 * (server/domain/bulk-change.ts), so a receipt racing a bulk action over the same alerts can meet
 * one. The cycle is made on purpose: a transaction locks one alert, the batched write of two locks
 * the other and waits, then the transaction asks for the other. The write's session detects the
 * cycle first (the transaction's own deadlock_timeout is far later), so the write is the victim.
 */
import pg from 'pg';
import * as assert from 'uvu/assert';
import * as receiveDb from '../../server/db/alert-receive.ts';
import { createPool, type CommonQueryMethods } from 'slonik';
import type { AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { directDuplicate, routerAlertsSuite } from '../helpers/receive-statements.ts';

const test = routerAlertsSuite('receive writes and deadlocks', 4);

/** Waits until another session of the database waits for a lock. */
async function untilSomeoneWaits(client: pg.Client) {
  for (let i = 0; i < 200; i++) {
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
    );
    if ((rows[0] as { n: number }).n > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no session ever waited for a lock');
}

/** duplicate_count of alerts a and b. */
const counts = async (url: string, a: number, b: number) =>
  (
    await queryDb<{ duplicate_count: number }>(
      url,
      `SELECT duplicate_count FROM alerts WHERE id = ANY($1) ORDER BY id`,
      [[`alert-${a}`, `alert-${b}`]],
    )
  ).map((r) => r.duplicate_count);

type Outcome = { rows: Awaited<ReturnType<typeof receiveDb.updateByIdentity>> } | { err: unknown };

/**
 * Runs `write` for alerts a and b inside a lock cycle with another transaction, which ends once it
 * holds both; returns what the write gave or threw, and the counts just before. Which alert the
 * write locks first is the plan's choice: the transaction locks one, and when the write waits for
 * it without having updated the other, the cycle cannot be closed that way round, so the write is
 * let through and the transaction starts over from the other alert.
 */
async function inCycle(ctx: AppContext, db: CommonQueryMethods, a: number, b: number) {
  const other = new pg.Client({ connectionString: ctx.db.url });
  await other.connect();
  const watcher = new pg.Client({ connectionString: ctx.db.url });
  await watcher.connect();
  try {
    await other.query(`SET deadlock_timeout = '60s'`);
    for (const [first, second] of [
      [b, a],
      [a, b],
    ]) {
      await other.query('BEGIN');
      await other.query(`SELECT 1 FROM alerts WHERE id = $1 FOR UPDATE`, [`alert-${first}`]);
      const before = await counts(ctx.db.url, a, b);
      const written: Promise<Outcome> = receiveDb
        .updateByIdentity(db, [directDuplicate(a), directDuplicate(b)], 10)
        .then(
          (rows) => ({ rows }),
          (err: unknown) => ({ err }),
        );
      await untilSomeoneWaits(watcher);
      const { rows } = await watcher.query(`SELECT xmax::text <> '0' AS held FROM alerts WHERE id = $1`, [
        `alert-${second}`,
      ]);
      if (!(rows[0] as { held: boolean }).held) {
        await other.query('ROLLBACK');
        await written;
        continue;
      }
      // Blocks on the alert the write holds until PostgreSQL ends the write's statement.
      await other.query(`SELECT 1 FROM alerts WHERE id = $1 FOR UPDATE`, [`alert-${second}`]);
      await other.query('COMMIT');
      return { outcome: await written, before };
    }
    throw new Error('no lock cycle could be made');
  } finally {
    await other.end();
    await watcher.end();
  }
}

test("without slonik's retry the write is the victim: the cycle is real (the test can fail)", async (ctx) => {
  const plain = await createPool(ctx.db.url, { queryRetryLimit: 0 });
  try {
    const { outcome } = await inCycle(ctx, plain, 1, 2);
    assert.ok('err' in outcome, 'the write was expected to fail');
    assert.match(
      String(
        (outcome.err as { code?: string; cause?: { code?: string } }).cause?.code ??
          (outcome.err as { code?: string }).code,
      ),
      '40P01',
    );
  } finally {
    await plain.end();
  }
});

test("through the product's pool the write is done once the other transaction ends, each alert once", async (ctx) => {
  const { outcome, before } = await inCycle(ctx, ctx.running.deps.db, 3, 4);
  assert.ok('rows' in outcome, `the write failed: ${'err' in outcome ? String(outcome.err) : ''}`);
  assert.equal(
    outcome.rows.map((r) => r?.id),
    ['alert-3', 'alert-4'],
  );
  assert.equal(
    await counts(ctx.db.url, 3, 4),
    before.map((n) => n + 1),
  );
});

test.run();
