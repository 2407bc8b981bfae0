import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postAlert } from '../helpers/alerts.ts';
import { bootInstance, startPair, stopPair, type InstancePair } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { createBlackoutCache } from '../../server/domain/blackouts.ts';
import type { AlertDraft } from '../../server/domain/alert-types.ts';

const withBlackouts = (url: string) => bootInstance(url, { PLUGINS: 'remote_ip,blackout' });

/** Each instance matches receipts against an in-memory copy of the recent blackouts (docs/blackouts.md). */
const cache = suite<InstancePair>('blackout matching with per-instance copies', {} as InstancePair);
cache.before((ctx) => startPair(ctx, 'blackout_cache', withBlackouts));
cache.after(stopPair);

cache('a blackout applies at once on its own instance and within about a second on another', async (ctx) => {
  // Both instances have loaded (and cached) the empty set of blackouts.
  assert.is((await postAlert(ctx.apiA, { resource: 'warm-a', event: 'e', environment: 'Lab' })).status, 201);
  assert.is((await postAlert(ctx.apiB, { resource: 'warm-b', event: 'e', environment: 'Lab' })).status, 201);
  const res = await ctx.apiA.post('/blackout', { environment: 'Lab', resource: 'cached' });
  assert.is(res.status, 201);
  const { id } = (await res.json()) as { id: string };
  assert.is((await postAlert(ctx.apiA, { resource: 'cached', event: 'e', environment: 'Lab' })).status, 202);
  await new Promise((r) => setTimeout(r, 1100));
  assert.is((await postAlert(ctx.apiB, { resource: 'cached', event: 'e2', environment: 'Lab' })).status, 202);
  // Deleting it applies at once on the instance that deleted it.
  assert.is((await ctx.apiB.delete(`/blackout/${id}`)).status, 200);
  assert.is((await postAlert(ctx.apiB, { resource: 'cached', event: 'e3', environment: 'Lab' })).status, 201);
});

cache('an alert created long ago is matched against the blackouts of its own time', async (ctx) => {
  const hour = 3600_000;
  const now = Date.now();
  const res = await ctx.apiA.post('/blackout', {
    environment: 'Lab',
    resource: 'late',
    startTime: new Date(now - 3 * hour).toISOString(),
    endTime: new Date(now - 1.5 * hour).toISOString(),
  });
  assert.is(res.status, 201);
  const old = new Date(now - 2 * hour).toISOString();
  const recent = new Date(now - 0.5 * hour).toISOString();
  assert.is(
    (await postAlert(ctx.apiB, { resource: 'late', event: 'old', environment: 'Lab', createTime: old }))
      .status,
    202,
  );
  assert.is(
    (await postAlert(ctx.apiB, { resource: 'late', event: 'new', environment: 'Lab', createTime: recent }))
      .status,
    201,
  );
});

cache('the copy re-reads the blackouts only after a change, whichever instance made it', async (ctx) => {
  // A copy of its own over instance A's pool, on a clock the test moves, counting the row reads.
  let now = Date.now();
  let reads = 0;
  const { deps } = ctx.a;
  const db = new Proxy(deps.db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'any' && typeof value === 'function')
        return (...args: unknown[]) => {
          reads += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
  const copy = createBlackoutCache({ ...deps, db, clock: { now: () => now } });
  const alert = (resource: string) =>
    ({
      environment: 'Lab',
      resource,
      event: 'e',
      group: 'Misc',
      service: [],
      tags: [],
      origin: null,
      customer: null,
      createTime: now,
    }) as unknown as AlertDraft;
  assert.is(await copy.findActive(alert('versioned')), null);
  const first = reads;
  assert.is(first, 1);
  for (let i = 0; i < 5; i++) {
    now += 1000;
    assert.is(await copy.findActive(alert('versioned')), null);
  }
  assert.is(reads, first, 'no change: the rows are not read again');
  // Another instance (here: SQL) adds a blackout: the next check sees the version move and reads.
  const id = '6b1f0f5e-0000-4000-8000-000000000057';
  await queryDb(
    ctx.db.url,
    `INSERT INTO blackouts (id, priority, environment, service, resource, tags, start_time, end_time, duration,
       create_time, text)
     VALUES ($1, 2, 'Lab', '{}', 'versioned', '{}', now() - interval '1 minute', now() + interval '1 hour', 3660,
       now(), '')`,
    [id],
  );
  now += 1000;
  assert.ok(await copy.findActive(alert('versioned')));
  assert.is(reads, first + 1);
  now += 1000;
  assert.ok(await copy.findActive(alert('versioned')));
  assert.is(reads, first + 1);
  await queryDb(ctx.db.url, 'DELETE FROM blackouts WHERE id = $1', [id]);
  now += 1000;
  assert.is(await copy.findActive(alert('versioned')), null);
  assert.is(reads, first + 2);
  // A statement that changes no row does not move the version.
  await queryDb(ctx.db.url, 'DELETE FROM blackouts WHERE id = $1', [id]);
  now += 1000;
  assert.is(await copy.findActive(alert('versioned')), null);
  assert.is(reads, first + 2);
  // Emptying the table moves it too.
  await queryDb(ctx.db.url, 'TRUNCATE blackouts');
  now += 1000;
  assert.is(await copy.findActive(alert('versioned')), null);
  assert.is(reads, first + 3);
});

cache.run();
