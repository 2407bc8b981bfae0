import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postAlert } from '../helpers/alerts.ts';
import { bootInstance, startPair, stopPair, type InstancePair } from '../helpers/app.ts';

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

cache.run();
