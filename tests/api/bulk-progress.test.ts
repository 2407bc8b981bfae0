import * as assert from 'uvu/assert';
import { BulkTaskSchema } from '../../shared/queries.ts';
import { appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

/**
 * A bulk task's progress moves while it runs (issue #40: the console shows "Acking 412 / 1022"):
 * status and action tasks record it every 100 alerts, tag and the other set-based ones every 500.
 * Every value `done` takes is kept by a trigger on bulk_tasks, so the steps are seen exactly.
 */
const progress = appSuite('bulk task progress steps', { BULK_SYNC_LIMIT: '0' });
progress.before(async (ctx) => {
  await queryDb(
    ctx.db.url,
    `CREATE TABLE progress_seen (task text, done int, at serial);
     CREATE FUNCTION note_progress() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN INSERT INTO progress_seen (task, done) VALUES (NEW.id, NEW.done); RETURN NEW; END $$;
     CREATE TRIGGER note_progress AFTER UPDATE OF done ON bulk_tasks
       FOR EACH ROW WHEN (OLD.done IS DISTINCT FROM NEW.done) EXECUTE FUNCTION note_progress();`,
  );
});

async function run(ctx: Parameters<Parameters<typeof progress>[1]>[0], path: string, body: unknown) {
  const res = await ctx.api.put(path, body);
  assert.is(res.status, 202, await res.clone().text());
  const { id } = (await res.json()) as { id: string };
  for (const end = Date.now() + 60_000; Date.now() < end;) {
    const task = BulkTaskSchema.parse(await (await ctx.api.get(`/_bulk/task/${id}`)).json());
    if (task.status === 'success') {
      const rows = await queryDb<{ done: number }>(
        ctx.db.url,
        'SELECT done FROM progress_seen WHERE task = $1 ORDER BY at',
        [id],
      );
      return { task, steps: rows.map((r) => r.done) };
    }
    assert.is.not(task.status, 'failure');
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('task did not finish');
}

progress('an ack of 250 alerts reports 100, 200, 250; a tag of 600 reports 500, 600', async (ctx) => {
  const group = `steps${Date.now()}`;
  for (let i = 0; i < 600; i += 50) {
    const batch = Array.from({ length: 50 }, (_, k) =>
      ctx.api.post('/alert', {
        resource: `${group}-${i + k}`,
        event: 'Steps',
        environment: 'Production',
        service: ['web'],
        severity: 'major',
        group: i + k < 250 ? group : `${group}-tag`,
      }),
    );
    for (const r of await Promise.all(batch)) assert.is(r.status, 201);
  }
  const ack = await run(ctx, `/_bulk/alerts/action?group=${group}`, { action: 'ack' });
  assert.equal(ack.task.progress, { done: 250, total: 250 });
  assert.is(ack.task.result?.count, 250);
  assert.equal(ack.steps, [100, 200, 250]);

  const tag = await run(ctx, `/_bulk/alerts/tag?group=${group}&group=${group}-tag`, { tags: ['stepped'] });
  assert.equal(tag.task.progress, { done: 600, total: 600 });
  assert.equal(tag.steps, [500, 600]);
});

progress.run();
