/**
 * `alert_claim_new` (migrations 0010, 0045) runs on every batch of new alerts and keeps one generic
 * plan per connection, made at the connection's first call. Made on a table of a few alerts, the
 * plan must still find each identity by the identity index when the table has grown to thousands
 * without another ANALYZE (a new deployment's first storm, or autovacuum off). Before 0045 a
 * connection that planned after an ANALYZE of 5 alerts read all of them sequentially for each
 * identity, and one that planned in `ingest.ts`'s first seconds a hash anti join over every alert.
 * Counted from `pg_stat_xact_user_tables`, which sees the
 * function's own scans.
 */
import pg from 'pg';
import * as assert from 'uvu/assert';
import { queryDb } from '../helpers/db.ts';
import { readsOf } from '../helpers/plans.ts';
import { insertRouterAlerts, routerAlertsSuite } from '../helpers/receive-statements.ts';

const test = routerAlertsSuite('alert_claim_new planned on a small table', 5);

type Identity = [resource: string, event: string];

const CLAIM = `SELECT coalesce(array_agg(i ORDER BY i), '{}') AS claimed
  FROM alert_claim_new($1::text[], $2::text[], $3::text[], $4::text[]) AS i`;

const claimValues = (ids: readonly Identity[]) => [
  ids.map(() => 'Production'),
  ids.map(([resource]) => resource),
  ids.map(() => ''),
  ids.map(([, event]) => event),
];

/** Claims `ids` in a transaction that is rolled back, and what its scans of the alerts read. */
async function claimCounted(client: pg.Client, ids: readonly Identity[]) {
  const { rows, reads } = await readsOf<{ claimed: number[] }>(client, ['alerts'], CLAIM, claimValues(ids));
  return { claimed: rows[0]!.claimed, ...reads.alerts! };
}

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

test('plans made on 5 alerts, analysed or not, probe the identity index at 10,005', async (ctx) => {
  const warmUp: Identity[] = [
    ['router1', 'node_down'],
    ['router9999', 'node_down'],
  ];
  // One connection plans before the table was ever analysed (estimates from its size on disk),
  // the other after an ANALYZE of the 5 alerts (estimates that say the table is tiny).
  const unanalysed = await connected(ctx.db.url);
  const analysed = await connected(ctx.db.url);
  try {
    for (let n = 0; n < 3; n++) assert.equal((await claimCounted(unanalysed, warmUp)).claimed, [2]);
    await queryDb(ctx.db.url, 'ANALYZE alerts');
    for (let n = 0; n < 3; n++) assert.equal((await claimCounted(analysed, warmUp)).claimed, [2]);

    await insertRouterAlerts(ctx.db.url, 6, 10_005);
    await queryDb(ctx.db.url, `UPDATE alerts SET correlate = '{node_down,node_up}' WHERE id = 'alert-7'`);

    const ids: Identity[] = [
      ['router20', 'node_down'], // exists
      ['router7', 'node_up'], // correlates with alert-7
      ['router7', 'link_down'], // same resource, neither the event nor in its correlate list
      ['router20000', 'node_down'], // no such resource
      ['router10005', 'node_down'], // exists (the last one written)
    ];
    for (const [name, client] of [
      ['planned before any ANALYZE', unanalysed],
      ['planned after an ANALYZE of 5 alerts', analysed],
    ] as const) {
      const counted = await claimCounted(client, ids);
      assert.equal(counted.claimed, [3, 4], name);
      assert.is(counted.seqScans, 0, `${name}: sequential scans of alerts`);
      assert.is(counted.seqRows, 0, `${name}: alerts read sequentially`);
      assert.ok(
        counted.fetched <= 10,
        `${name}: ${counted.fetched} alerts fetched by index for 5 identities`,
      );
    }
  } finally {
    await Promise.all([unanalysed.end(), analysed.end()]);
  }
});

test.run();
