import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { SubscribeAnswer } from '../../shared/events.ts';
import { createAlert } from '../helpers/alerts.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { LiveClient, until } from '../helpers/live.ts';

/**
 * `maintenance` on the live socket (docs/live.md, "Maintenance"): each view's alerts that a
 * blackout in force now covers, decided by the server's matchesBlackout, sent on joining the view
 * and again at a window's start and end, when blackouts are created, changed or deleted, and when
 * an alert's change makes a blackout cover it.
 */
interface Ctx extends AppContext {
  client: LiveClient;
  messages: { view: string; ids: string[]; at: number }[];
}

const maint = suite<Ctx>('live: alerts in maintenance', {} as Ctx);
maint.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'live_maintenance', PLUGINS: 'remote_ip' });
  ctx.client = await LiveClient.connect(ctx.origin, {});
  ctx.messages = [];
  ctx.client.socket.on('maintenance', (m) => ctx.messages.push({ ...m, at: Date.now() }));
});
maint.after(async (ctx) => {
  ctx.client?.close();
  await stopApp(ctx);
});

const iso = (t: number) => new Date(t).toISOString();

async function subscribe(ctx: Ctx, query: string): Promise<string> {
  const answer = (await ctx.client.subscribe(query)) as SubscribeAnswer;
  assert.is(answer.status, 'ok', JSON.stringify(answer));
  return (answer as { view: string }).view;
}

/** The ids last sent for `view`, once they equal `want` (sorted); fails after `ms`. */
async function sees(ctx: Ctx, view: string, want: string[], ms = 8000): Promise<number> {
  const expected = JSON.stringify([...want].sort());
  let last = 'nothing';
  return until(
    () => {
      const m = ctx.messages.filter((x) => x.view === view).at(-1);
      last = m ? JSON.stringify(m.ids) : 'nothing';
      return last === expected ? m!.at : undefined;
    },
    ms,
    `view ${view}: wanted ${expected}`,
  ).catch((err: Error) => {
    throw new Error(`${err.message}, last sent ${last}`);
  });
}

async function blackout(ctx: Ctx, body: Record<string, unknown>): Promise<string> {
  const res = await ctx.api.post('/blackout', body);
  assert.is(res.status, 201, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

maint('a window that starts and ends: the covered alerts, sent at each edge', async (ctx) => {
  const group = `mw${Date.now()}`;
  const db = await createAlert(ctx.api, {
    resource: `db-${group}`,
    event: 'DiskFull',
    group,
    environment: 'Production',
  });
  const web = await createAlert(ctx.api, {
    resource: `web-${group}`,
    event: 'DiskFull',
    group,
    environment: 'Production',
  });
  const view = await subscribe(ctx, `group=${group}`);
  await sees(ctx, view, []);
  const start = Date.now() + 2500;
  await blackout(ctx, {
    environment: 'Production',
    resource: db.resource,
    startTime: iso(start),
    endTime: iso(start + 3000),
  });
  const began = await sees(ctx, view, [db.id]);
  assert.ok(began >= start, `sent ${start - began} ms before the window started`);
  assert.ok(began < start + 1500, `sent ${began - start} ms after the window started`);
  const ended = await sees(ctx, view, [], 8000);
  assert.ok(ended >= start + 3000 && ended < start + 4500, `sent ${ended - start - 3000} ms after the end`);
  // The alert not matched was never in maintenance.
  assert.not.ok(ctx.messages.some((m) => m.ids.includes(web.id)));
});

maint('recurring windows, blackout changes and deletion, and a joining socket', async (ctx) => {
  const group = `mr${Date.now()}`;
  const a = await createAlert(ctx.api, {
    resource: `app-${group}`,
    event: 'Latency',
    group,
    environment: 'Production',
  });
  const b = await createAlert(ctx.api, {
    resource: `app-${group}`,
    event: 'Errors',
    group,
    environment: 'Production',
  });
  const view = await subscribe(ctx, `group=${group}`);
  await sees(ctx, view, []);
  // Every minute at a second a few seconds from now, for 3 s: an occurrence starts, then ends.
  const start = Math.ceil((Date.now() + 3000) / 1000) * 1000;
  const second = new Date(start).getUTCSeconds();
  const id = await blackout(ctx, {
    environment: 'Production',
    resource: a.resource,
    rrule: `FREQ=MINUTELY;BYSECOND=${second}`,
    duration: 3,
  });
  const began = await sees(ctx, view, [a.id, b.id]);
  assert.ok(began >= start && began < start + 1500, `start sent at ${began - start} ms`);
  const ended = await sees(ctx, view, []);
  assert.ok(ended >= start + 3000 && ended < start + 4500, `end sent at ${ended - start - 3000} ms`);
  // Changed to a window in force now (every minute, a minute long), for one event only.
  const res = await ctx.api.put(`/blackout/${id}`, { rrule: 'FREQ=MINUTELY', duration: 60, event: 'Errors' });
  assert.is(res.status, 200, await res.text());
  await sees(ctx, view, [b.id], 4000);
  // A socket joining the view now is told at once.
  const other = await LiveClient.connect(ctx.origin, {});
  try {
    const told = new Promise<string[]>((ok) => other.socket.on('maintenance', (m) => ok(m.ids)));
    assert.is(((await other.subscribe(`group=${group}`)) as { status: string }).status, 'ok');
    assert.equal(await told, [b.id]);
  } finally {
    other.close();
  }
  assert.is((await ctx.api.delete(`/blackout/${id}`)).status, 200);
  await sees(ctx, view, [], 4000);
});

maint('an alert whose change makes a blackout in force cover it joins the set', async (ctx) => {
  const group = `mt${Date.now()}`;
  const a = await createAlert(ctx.api, {
    resource: `q-${group}`,
    event: 'QueueDepth',
    group,
    environment: 'Production',
  });
  const view = await subscribe(ctx, `group=${group}`);
  await blackout(ctx, { environment: 'Production', tags: [`maint-${group}`], duration: 600 });
  await sees(ctx, view, []);
  assert.is((await ctx.api.put(`/alert/${a.id}/tag`, { tags: [`maint-${group}`] })).status, 200);
  await sees(ctx, view, [a.id], 4000);
  assert.is((await ctx.api.put(`/alert/${a.id}/untag`, { tags: [`maint-${group}`] })).status, 200);
  await sees(ctx, view, [], 4000);
});

maint.run();
