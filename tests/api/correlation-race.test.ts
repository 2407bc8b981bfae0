import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appSuite } from '../helpers/app.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';

/**
 * Correlated events sent at the same moment (issue #18 item 7): `NodeDown` and `NodeUp` with
 * `correlate: [NodeDown, NodeUp]` for one resource must end as one alert however they race, on one
 * instance and across instances sharing the database. Before the fix most pairs made two alerts.
 */

const TRIES = 30;
const PAIRS = 30;

const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

const pairBody = (resource: string, event: 'NodeDown' | 'NodeUp') => ({
  resource,
  event,
  environment: 'Production',
  service: ['Network'],
  severity: event === 'NodeDown' ? 'critical' : 'normal',
  correlate: ['NodeDown', 'NodeUp'],
});

async function post(api: string, body: unknown): Promise<void> {
  const res = await fetch(`${api}/alert`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.is(res.status, 201, text);
}

/** Sends the pair at once, NodeDown to `down` and NodeUp to `up` (the same instance or two). */
const racePair = (down: string, up: string, resource: string) =>
  Promise.all([post(down, pairBody(resource, 'NodeDown')), post(up, pairBody(resource, 'NodeUp'))]);

/** Resources (of those given) that ended with other than exactly one alert, with their counts. */
async function splits(dbUrl: string, resources: string[]): Promise<string[]> {
  const rows = await queryDb<{ resource: string; n: number }>(
    dbUrl,
    `SELECT resource, count(*)::int AS n FROM alerts WHERE resource = ANY($1) GROUP BY resource`,
    [resources],
  );
  const count = new Map(rows.map((r) => [r.resource, r.n]));
  return resources.filter((r) => count.get(r) !== 1).map((r) => `${r}: ${count.get(r) ?? 0} alerts`);
}

/** TRIES pairs one after the other, then PAIRS pairs all at once; every resource must hold one alert. */
async function raceAll(dbUrl: string, down: string, up: string) {
  const resources: string[] = [];
  for (let i = 0; i < TRIES; i++) {
    const resource = unique('node');
    resources.push(resource);
    await racePair(down, up, resource);
  }
  const burst = Array.from({ length: PAIRS }, () => unique('burst'));
  resources.push(...burst);
  await Promise.all(burst.map((r) => racePair(down, up, r)));
  const split = await splits(dbUrl, resources);
  assert.equal(split, [], `${split.length} of ${resources.length} resources split`);
}

// ---- one instance ------------------------------------------------------------------------------

const one = appSuite('correlated pair racing on one instance', { PLUGINS: 'remote_ip' });

one('NodeDown and NodeUp sent together always end as one alert', async (ctx) => {
  await raceAll(ctx.db.url, ctx.api.base, ctx.api.base);
});

one(
  'the surviving alert is the correlated one: event of the later receipt, one history entry each',
  async (ctx) => {
    const resource = unique('node');
    await racePair(ctx.api.base, ctx.api.base, resource);
    const [alert] = await queryDb<{ id: string; event: string; correlate: string[] }>(
      ctx.db.url,
      `SELECT id, event, correlate FROM alerts WHERE resource = $1`,
      [resource],
    );
    assert.ok(alert);
    assert.equal(alert.correlate, ['NodeDown', 'NodeUp']);
    const history = await queryDb<{ event: string }>(
      ctx.db.url,
      `SELECT event FROM alert_history WHERE alert_id = $1 ORDER BY seq`,
      [alert.id],
    );
    assert.equal(history.map((h) => h.event).sort(), ['NodeDown', 'NodeUp']);
    assert.is(history.at(-1)!.event, alert.event);
  },
);

one.run();

// ---- two instances, one database ---------------------------------------------------------------

interface Two {
  db: { name: string; url: string };
  servers: ServerProcess[];
  apis: string[];
}
const two = suite<Two>('correlated pair racing across two instances on one database', {} as Two);

two.before(async (ctx) => {
  ctx.db = await createTestDatabase('correlation_race');
  ctx.servers = [];
  // One after the other: the first migrates, the second finds nothing to do.
  for (let i = 0; i < 2; i++) {
    ctx.servers.push(await startServerProcess({ DATABASE_URL: ctx.db.url, PLUGINS: 'remote_ip' }));
  }
  ctx.apis = ctx.servers.map((s) => `${s.url.replace(/\/$/, '')}/api`);
});

two.after(async (ctx) => {
  await Promise.all((ctx.servers ?? []).map((s) => s.stop()));
  if (ctx.db) await dropTestDatabase(ctx.db.name);
});

two('NodeDown to one instance and NodeUp to the other always end as one alert', async (ctx) => {
  await raceAll(ctx.db.url, ctx.apis[0]!, ctx.apis[1]!);
});

two('and the other way round', async (ctx) => {
  await raceAll(ctx.db.url, ctx.apis[1]!, ctx.apis[0]!);
});

two.run();
