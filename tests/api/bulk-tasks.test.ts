import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BulkTaskSchema, type BulkTask } from '../../shared/queries.ts';
import { createAlert } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { queryDb } from '../helpers/db.ts';
import { apiFor, bootInstance, startPair, stopPair, type InstancePair } from '../helpers/app.ts';

// BULK_SYNC_LIMIT=0: every bulk operation becomes a task.
const tasking = (url: string) => bootInstance(url, { BULK_SYNC_LIMIT: '0' });

const tasks = suite<InstancePair>('bulk tasks across instances', {} as InstancePair);
tasks.before((ctx) => startPair(ctx, 'bulk_tasks', tasking));
tasks.after(stopPair);

async function waitTask(api: Api, id: string): Promise<BulkTask> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await api.get(`/_bulk/task/${id}`);
    assert.is(res.status, 200);
    const task = BulkTaskSchema.parse(await res.json());
    if (task.status === 'success' || task.status === 'failure') return task;
    if (Date.now() > deadline) throw new Error(`task ${id} still ${task.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

tasks('a task made on one instance is reported by another, also after that one restarts', async (ctx) => {
  const alerts = await Promise.all(
    [1, 2, 3].map((i) => createAlert(ctx.apiA, { resource: `cross-${i}`, event: 'e', group: 'cross' })),
  );
  const res = await ctx.apiA.put('/_bulk/alerts/tag?group=cross', { tags: ['crossed'] });
  assert.is(res.status, 202);
  const { id } = (await res.json()) as { id: string };
  const done = await waitTask(ctx.apiB, id);
  assert.is(done.status, 'success');
  assert.equal(done.progress, { done: 3, total: 3 });
  assert.equal([...(done.result?.updated ?? [])].sort(), alerts.map((a) => a.id).sort());

  await ctx.b.close();
  ctx.b = await tasking(ctx.db.url);
  ctx.apiB = apiFor(ctx.b);
  assert.equal(await waitTask(ctx.apiB, id), done);
});

tasks(
  'a task whose runner went away is resumed from where it stopped once its lease expires',
  async (ctx) => {
    const alerts = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        createAlert(ctx.apiA, { resource: `orphan-${i}`, event: 'e', group: 'orphan' }),
      ),
    );
    const ids = alerts.map((a) => a.id).sort();
    // As a crashed instance leaves it: started, half done, lease run out.
    await queryDb(
      ctx.db.url,
      `INSERT INTO bulk_tasks (id, type, status, ids, body, caller, done, changed, owner, lease_until, create_time, update_time)
     VALUES ('orphan-task', 'tag', 'started', $1, '{"type":"tag","tags":["resumed"]}',
       '{"ip":"127.0.0.1","user":null,"baseUrl":"http://x/api","customers":null,"headers":{}}',
       2, $2, 'dead-instance', now() - interval '1 minute', now(), now())`,
      [ids, ids.slice(0, 2)],
    );
    // Runners sweep every 10 s; a restart claims at once.
    await ctx.b.close();
    ctx.b = await bootInstance(ctx.db.url);
    ctx.apiB = apiFor(ctx.b);
    const task = await waitTask(ctx.apiA, 'orphan-task');
    assert.is(task.status, 'success');
    assert.equal(task.progress, { done: 4, total: 4 });
    assert.equal(task.result?.updated, ids);
    // Only the second half was run again: the first two were (by the dead runner's record) done.
    const rows = await queryDb<{ id: string; tags: string[] }>(
      ctx.db.url,
      `SELECT id, tags FROM alerts WHERE "group" = 'orphan' ORDER BY id`,
    );
    assert.equal(
      rows.map((r) => r.tags.includes('resumed')),
      ids.map((_, i) => i >= 2),
    );
  },
);

tasks('a task that is still leased to a live runner is left alone', async (ctx) => {
  await createAlert(ctx.apiA, { resource: 'leased-1', event: 'e', group: 'leased' });
  const [row] = await queryDb<{ id: string }>(ctx.db.url, `SELECT id FROM alerts WHERE "group" = 'leased'`);
  await queryDb(
    ctx.db.url,
    `INSERT INTO bulk_tasks (id, type, status, ids, body, caller, owner, lease_until, create_time, update_time)
     VALUES ('leased-task', 'tag', 'started', $1, '{"type":"tag","tags":["stolen"]}',
       '{"ip":"127.0.0.1","user":null,"baseUrl":"http://x/api","customers":null,"headers":{}}',
       'live-instance', now() + interval '1 hour', now(), now())`,
    [[row!.id]],
  );
  await ctx.b.close();
  ctx.b = await bootInstance(ctx.db.url);
  ctx.apiB = apiFor(ctx.b);
  await new Promise((r) => setTimeout(r, 500));
  const res = await ctx.apiB.get('/_bulk/task/leased-task');
  const task = BulkTaskSchema.parse(await res.json());
  assert.equal([task.status, task.progress.done, task.result], ['started', 0, null]);
});

tasks.run();
