import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { GroupCounts, SubscribeAnswer, ViewCounts } from '../../shared/events.ts';
import { createAlert } from '../helpers/alerts.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { LiveClient, until } from '../helpers/live.ts';

/**
 * Grouped views (docs/live.md, the wall's `group-by`): the counts of a subscription made with
 * `groupBy` carry the first groups and how many there are, and follow every change.
 */

interface Ctx extends AppContext {
  client: LiveClient;
}

const groups = suite<Ctx>('live: grouped views', {} as Ctx);
groups.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'live_groups', PLUGINS: 'remote_ip' });
  ctx.client = await LiveClient.connect(ctx.origin, {});
});
groups.after(async (ctx) => {
  ctx.client?.close();
  await stopApp(ctx);
});

type Ok = Extract<SubscribeAnswer, { status: 'ok'; mode: 'snapshot' }>;

async function subscribe(ctx: Ctx, request: Record<string, unknown>): Promise<Ok> {
  const answer = (await ctx.client.socket
    .timeout(10_000)
    .emitWithAck('subscribe', request as never)) as SubscribeAnswer;
  assert.is(answer.status, 'ok', JSON.stringify(answer));
  return answer as Ok;
}

/** The newest counts pushed for `view` (alone or riding on an alert message), else the answer's. */
function latest(ctx: Ctx, answer: Ok): ViewCounts {
  let counts: ViewCounts = answer;
  for (const m of ctx.client.received) {
    if (m.event === 'counts' && m.data.view === answer.view) counts = m.data;
    if ((m.event === 'alert.updated' || m.event === 'alert.removed-from-view') && m.data.view === answer.view)
      counts = m.data.counts ?? counts;
  }
  return counts;
}

const brief = (gs: GroupCounts[] | undefined) =>
  (gs ?? []).map((g) => `${g.key}:${g.total}:${Object.keys(g.severityCounts).join('+')}`);

groups('counts per group: unacknowledged first, then most severe, then size; limited; live', async (ctx) => {
  const group = `grp${Date.now()}`;
  const raise = (resource: string, event: string, severity: string, service = ['web']) =>
    createAlert(ctx.api, { resource, event, severity, group, service });
  await raise('a1', 'DiskFull', 'minor');
  await raise('a2', 'DiskFull', 'minor');
  await raise('a3', 'DiskFull', 'major');
  await raise('b1', 'NodeDown', 'critical');
  const acked = await raise('c1', 'Backup', 'critical');
  assert.is((await ctx.api.put(`/alert/${acked.id}/action`, { action: 'ack' })).status, 200);
  await raise('d1', 'Latency', 'warning');

  const query = `group=${group}&status=open&status=ack`;
  const answer = await subscribe(ctx, { query, groupBy: 'event', groupLimit: 3 });
  assert.is(answer.total, 6);
  assert.is(answer.groupTotal, 4);
  // The acked critical group comes after every group with something waiting; the limit cuts it.
  assert.equal(brief(answer.groups), ['NodeDown:1:critical', 'DiskFull:3:minor+major', 'Latency:1:warning']);
  const disk = answer.groups!.find((g) => g.key === 'DiskFull')!;
  assert.equal(disk.severityCounts, { minor: 2, major: 1 });
  assert.equal(disk.statusCounts, { open: 3 });

  // A plain subscription to the same query has no groups.
  const plain = await subscribe(ctx, { query });
  assert.is(plain.groups, undefined);
  assert.is(plain.groupTotal, undefined);

  // Live: a critical DiskFull puts that group first (bigger than NodeDown at the same severity).
  await raise('a4', 'DiskFull', 'critical');
  await until(
    () => (brief(latest(ctx, answer).groups)[0]?.startsWith('DiskFull:4') ? true : undefined),
    5000,
    () => `DiskFull first: ${JSON.stringify(brief(latest(ctx, answer).groups))}`,
  );
  // A new group is counted; closing the only NodeDown alert removes its group.
  await raise('e1', 'CertExpiry', 'informational');
  const nodeDown = (await ctx.api.get(`/alerts?${query}&event=NodeDown`).then((r) => r.json())) as {
    alerts: { id: string }[];
  };
  await ctx.api.put(`/alert/${nodeDown.alerts[0]!.id}/status`, { status: 'closed', text: '' });
  await until(
    () => {
      const c = latest(ctx, answer);
      return c.groupTotal === 4 && !brief(c.groups).some((g) => g.startsWith('NodeDown')) ? true : undefined;
    },
    5000,
    () => `NodeDown gone: ${JSON.stringify(latest(ctx, answer))}`,
  );
  assert.is(latest(ctx, answer).total, 7);
});

groups('by service: an alert counts under each of its services; groupBy is validated', async (ctx) => {
  const group = `svc${Date.now()}`;
  await createAlert(ctx.api, {
    resource: 's1',
    event: 'E',
    severity: 'major',
    group,
    service: ['api', 'db'],
  });
  await createAlert(ctx.api, { resource: 's2', event: 'E', severity: 'minor', group, service: ['db'] });
  const answer = await subscribe(ctx, { query: `group=${group}`, groupBy: 'service' });
  assert.equal(brief(answer.groups), ['db:2:major+minor', 'api:1:major']);
  assert.is(answer.groupTotal, 2);

  const bad = (await ctx.client.socket
    .timeout(5000)
    .emitWithAck('subscribe', { query: `group=${group}`, groupBy: 'text' } as never)) as SubscribeAnswer;
  assert.is(bad.status, 'error');
});

groups.run();
