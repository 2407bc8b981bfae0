import * as assert from 'uvu/assert';
import { postAlert } from '../helpers/alerts.ts';
import { apiFor, type AppContext, appSuite, twoInstanceSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

/**
 * Each alert's own counts of its history (migration 0041), which the flapping and standing reports
 * read instead of the history: `severity_entries` (entries typed severity, migration 0054) and
 * `flaps` (those that changed the severity of the new/severity entry before them). After any mix
 * of receipts, actions, trims to HISTORY_LIMIT, deletes and hand-made changes, they must equal a
 * count of the history as it is (`alert_history_counts`, the reports' old definition).
 */

const counts = appSuite('history counts', {
  TEST_LABEL: 'histcounts',
  PLUGINS: 'remote_ip',
  HISTORY_LIMIT: '4',
});

interface Wrong {
  id: string;
  severity_entries: number;
  flaps: number;
  entries: number;
  counted_flaps: number;
}

/** Alerts whose stored counts differ from a count of their history now. */
const wrong = (ctx: AppContext) =>
  queryDb<Wrong>(
    ctx.db.url,
    `SELECT a.id, a.severity_entries, a.flaps, c.entries, c.flaps AS counted_flaps
     FROM alerts a CROSS JOIN LATERAL alert_history_counts(a.id) c
     WHERE (a.severity_entries, a.flaps) IS DISTINCT FROM (c.entries, c.flaps)`,
  );

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let x = seed;
  return (n: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor(x / 65536) % n;
  };
}

counts('stay equal to the history through receipts, actions, trims and deletes', async (ctx) => {
  const next = random(20261128);
  const severities = ['critical', 'major', 'minor', 'warning', 'ok'];
  const ids = new Map<string, string>();
  for (let step = 0; step < 160; step++) {
    const resource = `host${next(6)}`;
    const event = next(4) === 0 ? 'Other' : 'Flap';
    const roll = next(10);
    const id = ids.get(`${resource}/${event}`);
    if (roll < 6 || !id) {
      const severity = severities[next(severities.length)]!;
      const r = await postAlert(ctx.api, { resource, event, severity, correlate: ['Flap', 'Other'] });
      assert.ok(r.status === 201 || r.status === 202, JSON.stringify(r.body));
      ids.set(`${resource}/${event}`, r.body.id);
    } else if (roll < 9) {
      const action = ['ack', 'unack', 'close', 'open', 'shelve', 'unshelve'][next(6)]!;
      const res = await ctx.api.put(`/alert/${id}/action`, { action, text: `step ${step}` });
      assert.ok(res.status === 200 || res.status === 409 || res.status === 400, `${action}: ${res.status}`);
    } else {
      const res = await ctx.api.put(`/alert/${id}/status`, {
        status: next(2) ? 'ack' : 'open',
        text: 'by hand',
      });
      assert.ok(res.status === 200 || res.status === 409 || res.status === 400, `status: ${res.status}`);
    }
    if (step % 20 === 19) assert.equal(await wrong(ctx), [], `after step ${step}`);
  }
  const [totals] = await queryDb<{ alerts: number; flaps: number; entries: number; posted: number }>(
    ctx.db.url,
    `SELECT count(*)::int AS alerts, sum(flaps)::int AS flaps, sum(severity_entries)::int AS entries,
       sum(duplicate_count + 1)::int AS posted FROM alerts`,
  );
  // The run flapped, and trims removed counted entries (HISTORY_LIMIT 4).
  assert.ok(totals!.flaps > 5, JSON.stringify(totals));
  const [trimmed] = await queryDb<{ n: number }>(
    ctx.db.url,
    `SELECT count(*)::int AS n FROM alerts a WHERE (SELECT count(*) FROM alert_history h WHERE h.alert_id = a.id) = 4
       AND a.severity_entries < 4`,
  );
  assert.ok(trimmed!.n > 0, 'some alert had counted entries trimmed');

  // Deletes of entries by hand (an operator's clean-up), a hand-made change of type, and of severity.
  const [some] = await queryDb<{ id: string }>(
    ctx.db.url,
    `SELECT id FROM alerts ORDER BY flaps DESC, id LIMIT 1`,
  );
  await queryDb(
    ctx.db.url,
    `DELETE FROM alert_history WHERE seq = (SELECT min(seq) FROM alert_history WHERE alert_id = $1)`,
    [some!.id],
  );
  assert.equal(await wrong(ctx), []);
  await queryDb(
    ctx.db.url,
    `UPDATE alert_history SET type = 'new' WHERE alert_id = $1 AND type = 'severity'`,
    [some!.id],
  );
  assert.equal(await wrong(ctx), []);
  await queryDb(ctx.db.url, `UPDATE alert_history SET severity = 'minor' WHERE type IN ('new', 'severity')`);
  assert.equal(await wrong(ctx), []);
  const [flat] = await queryDb<{ flaps: number }>(ctx.db.url, `SELECT sum(flaps)::int AS flaps FROM alerts`);
  assert.is(flat!.flaps, 0);

  // Deleting alerts through the API, and emptying the history.
  const res = await ctx.api.delete(`/alert/${some!.id}`);
  assert.is(res.status, 200);
  assert.equal(await wrong(ctx), []);
  await queryDb(ctx.db.url, 'TRUNCATE alert_history');
  assert.equal(await wrong(ctx), []);
  const [none] = await queryDb<{ n: number }>(
    ctx.db.url,
    `SELECT count(*)::int AS n FROM alerts WHERE severity_entries <> 0 OR flaps <> 0`,
  );
  assert.is(none!.n, 0);
});

counts('the flapping report reads the counts: the same answer as counting the history', async (ctx) => {
  const group = `flaps${Date.now()}`;
  for (const severity of ['minor', 'major', 'minor', 'major', 'major', 'critical'])
    await postAlert(ctx.api, { resource: 'a', event: 'F', severity, group });
  for (const severity of ['minor', 'major'])
    await postAlert(ctx.api, { resource: 'b', event: 'F', severity, group });
  // HISTORY_LIMIT 4: a's oldest entries are gone, so the first kept change has nothing before it.
  const expected = await queryDb<{ resource: string; flaps: number }>(
    ctx.db.url,
    `SELECT a.resource, c.flaps FROM alerts a CROSS JOIN LATERAL alert_history_counts(a.id) c
     WHERE a."group" = $1 AND c.flaps > 0 ORDER BY c.flaps DESC, a.resource`,
    [group],
  );
  const res = await ctx.api.get(`/alerts/topn/flapping?group=${group}&group-by=resource`);
  assert.is(res.status, 200);
  const body = (await res.json()) as { top10: { resource: string; count: number }[] };
  assert.equal(
    body.top10.map((e) => [e.resource, e.count]),
    expected.map((e) => [e.resource, e.flaps]),
  );
  assert.equal(
    expected.map((e) => [e.resource, e.flaps]),
    [
      ['a', 3],
      ['b', 1],
    ],
  );
});

counts.run();

/**
 * Two instances on one database changing the same alerts at once (receipts that flip severity,
 * actions, trims at HISTORY_LIMIT 4): the counts stay what the history says. The guarantee is the
 * database's (each count is written in the statement that locks the alert's row), not a process's.
 */
const two = twoInstanceSuite(
  'history counts: two instances',
  { TEST_LABEL: 'histcounts2', PLUGINS: 'remote_ip', HISTORY_LIMIT: '4' },
  { HISTORY_LIMIT: '4' },
);

two('concurrent receipts and actions from both instances leave the counts right', async (ctx) => {
  const apis = [ctx.api, apiFor(ctx.other)];
  const severities = ['critical', 'major', 'minor', 'warning'];
  const ids = new Set<string>();
  for (let round = 0; round < 8; round++)
    await Promise.all(
      apis.flatMap((api, k) =>
        Array.from({ length: 6 }, async (_, i) => {
          const resource = `shared${i % 3}`;
          const severity = severities[(round + i + k) % severities.length]!;
          const r = await postAlert(api, { resource, event: 'Flap', severity });
          assert.ok(r.status === 201 || r.status === 202, JSON.stringify(r.body));
          ids.add(r.body.id);
          if ((round + i) % 4 === k) {
            const res = await api.put(`/alert/${r.body.id}/action`, { action: round % 2 ? 'ack' : 'open' });
            assert.ok([200, 400, 409].includes(res.status), `action: ${res.status}`);
          }
        }),
      ),
    );
  assert.is(ids.size, 3);
  assert.equal(await wrong(ctx), []);
  const [totals] = await queryDb<{ flaps: number }>(
    ctx.db.url,
    `SELECT sum(flaps)::int AS flaps FROM alerts`,
  );
  assert.ok(totals!.flaps > 0, JSON.stringify(totals));
});

two.run();
