/**
 * Counts from the alert tally (migration 0031, server/db/alert-tally.ts) are exactly the counts the
 * scans give: the same endpoints (list counts, /alerts/count, /environments, /services) are asked
 * with the tally on and off after receipts, status changes, severity, service, environment and
 * customer changes, deletes, bulk operations, housekeeping, concurrent writers on two connections
 * with compactions running between them, and two server instances writing to one database.
 */
import pg from 'pg';
import * as assert from 'uvu/assert';
import * as tally from '../../server/db/alert-tally.ts';
import * as query from '../../server/db/alert-query.ts';
import { parseAlertQuery } from '../../server/domain/query/params.ts';
import type { Running } from '../../server/boot.ts';
import { createAlert, put } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { apiFor, appSuite, twoInstanceSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ENVS = ['Production', 'Development', 'Staging'];
const SERVICES = [['web'], ['db', 'web'], ['api'], ['db']];
const SEVERITIES = ['critical', 'major', 'minor', 'warning', 'informational'];

/** Query strings asked of every endpoint: most answered by the tally, some by scans. */
const QUERIES = [
  '',
  'status=open&status=ack',
  'status=open&status=ack&sort-by=severity&sort-by=lastReceiveTime',
  'environment=Production',
  'environment=Staging&status=open',
  'service=web',
  'severity=major&severity=critical',
  'status!=closed',
  'customer=acme',
  `q=${encodeURIComponent('severity:major OR status:ack')}`,
  `q=${encodeURIComponent('environment:Prod*')}`,
  `q=${encodeURIComponent('NOT service:db')}`,
  // scans: free text, a lower time bound, an upper bound in the past
  'resource=r1',
  `q=${encodeURIComponent('text:disk')}`,
  `from-date=${new Date(Date.now() - 60_000).toISOString()}`,
  'to-date=2020-01-01T00:00:00.000Z',
];

async function json(api: Api, path: string): Promise<Record<string, unknown>> {
  const res = await api.get(path);
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(res.status, 200, `${path}: ${JSON.stringify(body)}`);
  return body;
}

const TOP_GROUP_BY = ['event', 'environment', 'service', 'severity', 'status', 'customer', 'resource'];

/** What an endpoint answers about counts (the list's page depends on the request's time). */
async function answers(api: Api): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const qs of QUERIES) {
    const list = await json(api, `/alerts?${qs}&page-size=7`);
    out[`/alerts?${qs}`] = [list.total, list.pages, list.severityCounts, list.statusCounts];
    out[`/alerts/count?${qs}`] = await json(api, `/alerts/count?${qs}`);
    out[`/environments?${qs}`] = await json(api, `/environments?${qs}`);
    out[`/services?${qs}`] = await json(api, `/services?${qs}`);
    // Top-N counts its groups from a tally when it groups by one of its columns (event, or a key
    // column of alert_tally); resource is always scanned.
    for (const by of TOP_GROUP_BY) {
      const top = await json(api, `/alerts/topn/count?${qs}&group-by=${by}&topn=4`);
      // (without the hrefs: two instances answer with their own addresses)
      out[`/alerts/topn/count?${qs}&group-by=${by}`] = (
        top.top10 as { resources: { href?: string }[] }[]
      ).map((t) => ({ ...t, resources: t.resources.map(({ href: _, ...r }) => r) }));
    }
  }
  return out;
}

/** The same endpoints with the tally on and off agree, and the tally did answer the keyed ones. */
async function sameAnswers(api: Api, running: Running, label: string) {
  tally.tallySwitch.on = false;
  let scanned: Record<string, unknown>;
  try {
    scanned = await answers(api);
  } finally {
    tally.tallySwitch.on = true;
  }
  const tallied = await answers(api);
  for (const key of Object.keys(scanned)) assert.equal(tallied[key], scanned[key], `${label}: ${key}`);
  // Customer restrictions (callers of one customer) straight through the query functions.
  for (const customers of [['acme'], ['acme', 'globex'], []]) {
    const s = {
      where: parseAlertQuery(new URLSearchParams('status=open&status=ack'), opts).where,
      customers,
    };
    const db = running.deps.db;
    const rows = await tally.tallyBySeverityAndStatus(db, s);
    assert.ok(rows, 'the tally answers a customer restriction');
    assert.equal(sorted(query.sumPairs(rows)), sorted(await query.countBySeverityAndStatus(db, s)), label);
    // /environments and /services have no time bound (as their endpoints parse them).
    const u = {
      where: parseAlertQuery(new URLSearchParams('status=open&status=ack'), untimed).where,
      customers,
    };
    const env = await tally.tallyByEnvironment(db, u);
    assert.ok(env);
    assert.equal(sortRows(env.counts), sortRows(await query.countByEnvironment(db, u)), label);
    assert.equal(env.known, await query.knownEnvironments(db, customers));
    const svc = await tally.tallyByService(db, u);
    assert.ok(svc);
    assert.equal(sortRows(svc), sortRows(await query.countByService(db, u)), label);
  }
  return tallied;
}

const untimed = { defaultPageSize: 50, defaultField: 'text' };
const opts = { ...untimed, now: Date.now() + 3_600_000 };
const sorted = (c: { severity: { name: string; n: number }[]; status: { name: string; n: number }[] }) => ({
  severity: [...c.severity].sort((a, b) => a.name.localeCompare(b.name)),
  status: [...c.status].sort((a, b) => a.name.localeCompare(b.name)),
});
const sortRows = <T extends object>(rows: readonly T[]) =>
  rows.map((r) => JSON.stringify(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)))).sort();

let n = 0;
async function receiveSome(api: Api, count: number, prefix: string) {
  const made = [];
  for (let i = 0; i < count; i++) {
    n++;
    made.push(
      await createAlert(api, {
        resource: `${prefix}-r${n % 9}`,
        event: `ev${n}`,
        environment: ENVS[n % ENVS.length],
        service: SERVICES[n % SERVICES.length],
        severity: SEVERITIES[n % SEVERITIES.length],
        text: n % 4 === 0 ? 'disk full' : 'cpu',
        timeout: 0,
      }),
    );
  }
  return made;
}

async function waitTask(api: Api, id: string) {
  for (let i = 0; i < 300; i++) {
    const task = await json(api, `/_bulk/task/${id}`);
    if (task.status === 'success' || task.status === 'failure') return task;
    await sleep(100);
  }
  throw new Error(`task ${id} did not end`);
}

async function bulk(api: Api, method: 'PUT' | 'DELETE', path: string, body?: unknown) {
  const res = await api.request(method, path, body);
  const answer = (await res.json()) as Record<string, unknown>;
  assert.ok(res.status === 200 || res.status === 202, `${path}: ${res.status} ${JSON.stringify(answer)}`);
  if (res.status === 202) assert.is((await waitTask(api, String(answer.id))).status, 'success');
}

const deltas = async (url: string) =>
  Number(
    (
      await queryDb<{ n: string }>(
        url,
        'SELECT (SELECT count(*) FROM alert_tally_delta) + (SELECT count(*) FROM alert_event_tally_delta) AS n',
      )
    )[0]!.n,
  );

const one = appSuite('alert tally: one instance', {
  TEST_LABEL: 'tally',
  PLUGINS: 'remote_ip',
  HOUSEKEEPING_INTERVAL: '0',
});

one('the tally plans only selections of key columns and one upper time bound', () => {
  const plan = (qs: string) => tally.tallyPlan(parseAlertQuery(new URLSearchParams(qs), untimed).where);
  assert.ok(plan('status=open&status=ack&environment=Production&service=web&customer=acme'));
  const listed = tally.tallyPlan(parseAlertQuery(new URLSearchParams('status=open'), opts).where);
  assert.equal(listed?.after?.kind, 'range', 'GET /alerts bounds lastReceiveTime by its own time');
  assert.is(plan('status=open&to-date=2026-01-01T00:00:00Z')?.after?.kind, 'range');
  assert.is(plan('q=severity:major OR NOT status:closed')?.after, null);
  for (const scanned of ['resource=x', 'q=text:disk', 'from-date=2026-01-01T00:00:00Z', 'tag=a', 'id=abc'])
    assert.is(plan(scanned), null, scanned);
  assert.is(tally.tallyPlan({ kind: 'exists', key: 'region' }), null);
});

one('after receipts, changes, deletes, bulk operations and housekeeping the tally agrees', async (ctx) => {
  const { api, db, running } = ctx;
  const made = await receiveSome(api, 40, 'a');
  await sameAnswers(api, running, 'receipts');

  // Status changes: ack, close, reopen, shelve; and a plain status PUT.
  for (const [i, a] of made.entries()) {
    const action = ['ack', 'close', 'shelve', null][i % 4];
    if (action) assert.is((await put(api, `/alert/${a.id}/action`, { action })).status, 200);
  }
  for (const [i, a] of made.slice(0, 7).entries()) {
    const back = ['unack', 'open', 'unshelve', null][i % 4];
    if (back) assert.is((await put(api, `/alert/${a.id}/action`, { action: back })).status, 200, back);
  }
  assert.is((await put(api, `/alert/${made[7]!.id}/status`, { status: 'closed', text: 'x' })).status, 200);
  await sameAnswers(api, running, 'status changes');

  // Severity changes and service changes by receipt (de-duplication writes service too).
  for (const a of made.slice(10, 20)) {
    const res = await api.post('/alert', {
      resource: a.resource,
      event: a.event,
      environment: a.environment,
      severity: 'critical',
      service: ['moved', 'web'],
    });
    assert.ok(res.status === 200 || res.status === 201, String(res.status));
  }
  // Environment and customer changes (written in SQL: no endpoint moves them).
  await queryDb(db.url, `UPDATE alerts SET environment = 'Lab' WHERE resource = 'a-r3'`);
  await queryDb(db.url, `UPDATE alerts SET customer = 'acme' WHERE resource IN ('a-r1', 'a-r2')`);
  await queryDb(db.url, `UPDATE alerts SET customer = 'globex' WHERE resource = 'a-r4'`);
  await sameAnswers(api, running, 'severity, service, environment and customer changes');

  // Event changes (correlation renames an alert's event; here also in SQL, alone and with a
  // key column), so that some events hold several alerts.
  const onePerIdentity = (resources: string) =>
    `SELECT DISTINCT ON (environment, resource, COALESCE(customer, '')) id FROM alerts
     WHERE resource IN (${resources}) ORDER BY environment, resource, COALESCE(customer, ''), id`;
  await queryDb(
    db.url,
    `UPDATE alerts SET event = 'shared' WHERE id IN (${onePerIdentity(`'a-r5', 'a-r6'`)})`,
  );
  await queryDb(
    db.url,
    `UPDATE alerts SET event = 'other', severity = 'minor' WHERE id IN (${onePerIdentity(`'a-r7'`)})`,
  );
  const pair = {
    resource: 'a-corr',
    environment: 'Production',
    service: ['web'],
    correlate: ['down', 'shared'],
  };
  const first = await createAlert(api, { ...pair, event: 'down', severity: 'major' });
  const correlated = await api.post('/alert', { ...pair, event: 'shared', severity: 'critical' });
  assert.ok(correlated.status === 200 || correlated.status === 201, String(correlated.status));
  const renamed = await queryDb<{ event: string }>(db.url, `SELECT event FROM alerts WHERE id = $1`, [
    first.id,
  ]);
  assert.equal(renamed, [{ event: 'shared' }], 'the correlated receipt renamed the event');
  await sameAnswers(api, running, 'event changes');

  // Deletes, bulk operations, housekeeping.
  assert.is((await api.delete(`/alert/${made[20]!.id}`)).status, 200);
  await bulk(api, 'PUT', '/_bulk/alerts/action?environment=Staging', { action: 'ack' });
  await bulk(api, 'PUT', '/_bulk/alerts/status?environment=Development&severity=minor', { status: 'closed' });
  await bulk(api, 'DELETE', '/_bulk/alerts?severity=warning');
  await queryDb(
    db.url,
    `UPDATE alerts SET last_receive_time = now() - interval '30 hours' WHERE status IN ('closed', 'expired')`,
  );
  const hk = await api.request('POST', '/management/housekeeping');
  assert.is(hk.status, 200);
  const left = await queryDb<{ n: string }>(
    db.url,
    `SELECT count(*) AS n FROM alerts WHERE status = 'closed'`,
  );
  assert.is(left[0]!.n, '0', 'housekeeping deleted the closed alerts');
  const after = await sameAnswers(api, running, 'deletes, bulk operations and housekeeping');
  assert.ok((after['/alerts/count?'] as { total: number }).total > 0);

  // Compaction moves every delta into the base and changes no answer; each instance runs it
  // about every second on its own.
  await queryDb(db.url, `UPDATE alerts SET severity = 'major' WHERE severity <> 'major'`);
  for (let i = 0; i < 40 && (await deltas(db.url)) > 0; i++) await sleep(100);
  assert.is(await deltas(db.url), 0, 'the compaction timer emptied the deltas');
  assert.is(await tally.compactTally(running.deps.db), 0);
  for (const table of ['alert_tally', 'alert_event_tally']) {
    const zero = await queryDb(db.url, `SELECT * FROM ${table} WHERE n <= 0`);
    assert.equal(zero, [], `no empty or negative keys are kept in ${table}`);
  }
  const exact = await queryDb(
    db.url,
    `SELECT customer, environment, service, severity, status, event, count(*) AS n FROM alerts
       GROUP BY 1, 2, 3, 4, 5, 6
     EXCEPT ALL
     SELECT customer, environment, service, severity, status, event, n FROM alert_event_tally`,
  );
  assert.equal(exact, [], 'the compacted event tally holds exactly the alerts per key');
  await sameAnswers(api, running, 'compacted');
});

one(
  'top-N counts groups of event and of key columns from the tallies, other groupings by a scan',
  async (ctx) => {
    const { api, db } = ctx;
    const [a] = await receiveSome(api, 1, 'topn');
    const count = async (qs: string, key: string, value: string) => {
      const top = (await json(api, `/alerts/topn/count?${qs}&topn=1000`)).top10 as Record<string, unknown>[];
      return top.find((t) => t[key] === value)?.count as number | undefined;
    };
    const before = {
      event: await count('', 'event', a!.event),
      environment: await count('group-by=environment', 'environment', a!.environment),
      resource: await count('group-by=resource', 'resource', a!.resource),
      scanned: await count('text=cpu', 'event', a!.event),
    };
    // A count the alerts do not have, written into both tallies: what reads a tally shows it. It is
    // taken back by a delta of the opposite sign (the compaction timer may have folded it meanwhile).
    const extra = [a!.customer ?? null, a!.environment, ['x'], a!.severity, a!.status];
    const bogus = (n: number) =>
      Promise.all([
        queryDb(
          db.url,
          `INSERT INTO alert_tally_delta (customer, environment, service, severity, status, n) VALUES ($1, $2, $3, $4, $5, $6)`,
          [...extra, n],
        ),
        queryDb(
          db.url,
          `INSERT INTO alert_event_tally_delta (customer, environment, service, severity, status, event, n)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [...extra, a!.event, n],
        ),
      ]);
    await bogus(5);
    try {
      assert.is(await count('', 'event', a!.event), before.event! + 5, 'grouped by event: the event tally');
      assert.is(
        await count('group-by=environment', 'environment', a!.environment),
        before.environment! + 5,
        'grouped by environment: alert_tally',
      );
      assert.is(
        await count('group-by=resource', 'resource', a!.resource),
        before.resource,
        'resource: scanned',
      );
      assert.is(await count('text=cpu', 'event', a!.event), before.scanned, 'free text: scanned');
    } finally {
      await bogus(-5);
    }
  },
);

one(
  'alerts received after the list time bound are taken off; many of them fall back to a scan',
  async (ctx) => {
    const { api, db, running } = ctx;
    await receiveSome(api, 6, 'future');
    // A clock ahead of this instance's (another instance, or a test clock) stamped these.
    await queryDb(
      db.url,
      `UPDATE alerts SET last_receive_time = now() + interval '1 hour' WHERE resource LIKE 'future-%'`,
    );
    const list = await json(api, '/alerts?status=open');
    const count = await json(api, '/alerts/count?status=open');
    assert.ok((count.total as number) > (list.total as number), 'the list leaves out the future alerts');
    await sameAnswers(api, running, 'future alerts');
    // A to-date bound with more than MAX_AFTER alerts past it: scanned, same answer.
    const s = {
      where: parseAlertQuery(new URLSearchParams('to-date=2020-01-01T00:00:00Z'), opts).where,
      customers: null,
    };
    await queryDb(
      db.url,
      `INSERT INTO alerts (id, resource, event, environment, severity, status, service, create_time, previous_severity,
       trend_indication, receive_time, last_receive_id, last_receive_time, update_time)
     SELECT 'bulk-' || i, 'bulk', 'e' || i, 'Lab', 'minor', 'open', '{x}', now(), 'indeterminate', 'moreSevere',
       now(), 'r' || i, now(), now() FROM generate_series(1, $1::int) i`,
      [tally.MAX_AFTER + 5],
    );
    assert.is(await tally.tallyBySeverityAndStatus(running.deps.db, s), null);
    await sameAnswers(api, running, 'a past to-date');
  },
);

one('concurrent writers on two connections, compactions between them', async (ctx) => {
  const { db, api, running } = ctx;
  const clients = [new pg.Client({ connectionString: db.url }), new pg.Client({ connectionString: db.url })];
  await Promise.all(clients.map((c) => c.connect()));
  try {
    let compacting = true;
    const compactor = (async () => {
      while (compacting) {
        await tally.compactTally(running.deps.db);
        await sleep(5);
      }
    })();
    // Each connection moves alerts between keys in many transactions, some rolled back, in
    // opposite orders of severity so both touch the same tally keys at once.
    await Promise.all(
      clients.map(async (c, k) => {
        for (let round = 0; round < 30; round++) {
          await c.query('BEGIN');
          await c.query(
            `INSERT INTO alerts (id, resource, event, environment, severity, status, service, create_time,
               previous_severity, trend_indication, receive_time, last_receive_id, last_receive_time, update_time)
             VALUES ($1, 'conc', $1, 'Production', 'major', 'open', '{web}', now(), 'indeterminate', 'moreSevere',
               now(), $1, now(), now())`,
            [`conc-${k}-${round}`],
          );
          await c.query(
            `UPDATE alerts SET severity = $1, status = CASE WHEN status = 'open' THEN 'ack' ELSE 'open' END
             WHERE id IN (SELECT id FROM alerts WHERE environment = $2 ORDER BY id LIMIT 5)`,
            [SEVERITIES[(round + k) % SEVERITIES.length], ENVS[k]],
          );
          if (round % 3 === 2) await c.query(`DELETE FROM alerts WHERE id = $1`, [`conc-${k}-${round - 1}`]);
          await c.query(round % 7 === 6 ? 'ROLLBACK' : 'COMMIT');
        }
      }),
    );
    compacting = false;
    await compactor;
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
  await sameAnswers(api, running, 'two connections');
  // TRUNCATE empties the tally too.
  await queryDb(db.url, 'TRUNCATE alerts CASCADE');
  assert.equal((await json(api, '/alerts/count')).total, 0);
  assert.equal((await json(api, '/environments')).environments, []);
  await sameAnswers(api, running, 'truncated');
});

one('keys that net to zero before a compaction are left out; compaction waits for the lock', async (ctx) => {
  const { api, db, running } = ctx;
  // Holding compaction's lock keeps every instance's timer from compacting meanwhile.
  const holder = new pg.Client({ connectionString: db.url });
  await holder.connect();
  try {
    await holder.query('SELECT pg_advisory_lock($1, hashtext(current_schema()))', [tally.LOCK_CLASS]);
    await tally.compactTally(running.deps.db);
    const ghost = await createAlert(api, {
      resource: 'ghost',
      event: 'ghost',
      environment: 'Ghost',
      service: ['ghost'],
      severity: 'major',
    });
    assert.is((await api.delete(`/alert/${ghost.id}`)).status, 200);
    assert.ok((await deltas(db.url)) >= 2, 'the deltas are still there');
    assert.is(await tally.compactTally(running.deps.db), 0, 'no compaction without the lock');
    const answered = await sameAnswers(api, running, 'zero-sum deltas');
    assert.not.match(JSON.stringify(answered), /Ghost|ghost/);
  } finally {
    await holder.query('SELECT pg_advisory_unlock($1, hashtext(current_schema()))', [tally.LOCK_CLASS]);
    await holder.end();
  }
  assert.ok((await tally.compactTally(running.deps.db)) >= 0);
  assert.is(await deltas(db.url), 0);
  assert.equal(await queryDb(db.url, `SELECT * FROM alert_tally WHERE environment = 'Ghost'`), []);
});

one.run();

const two = twoInstanceSuite(
  'alert tally: two instances on one database',
  { TEST_LABEL: 'tally2', PLUGINS: 'remote_ip', HOUSEKEEPING_INTERVAL: '0' },
  { HOUSEKEEPING_INTERVAL: '0' },
);

two('both instances receive and change alerts at once; each answers what the scans answer', async (ctx) => {
  const apis = [ctx.api, apiFor(ctx.other)];
  await Promise.all(
    apis.map(async (api, k) => {
      const made = await receiveSome(api, 25, `two${k}`);
      await Promise.all(
        made.map((a, i) =>
          i % 3 === 0
            ? put(api, `/alert/${a.id}/action`, { action: 'ack' })
            : i % 3 === 1
              ? api.post('/alert', {
                  resource: a.resource,
                  event: a.event,
                  environment: a.environment,
                  severity: 'minor',
                  service: ['x'],
                })
              : api.delete(`/alert/${a.id}`),
        ),
      );
      // Both instances' compaction timers run meanwhile; also compact from both pools at once.
    }),
  );
  await Promise.all([tally.compactTally(ctx.running.deps.db), tally.compactTally(ctx.other.deps.db)]);
  await sleep(1200); // at least one timer round on each instance
  const a = await sameAnswers(apis[0]!, ctx.running, 'instance one');
  const b = await sameAnswers(apis[1]!, ctx.other, 'instance two');
  assert.equal(a, b);
});

two.run();
