/**
 * Notifications when another plugin's post-receive hook runs first (PLUGINS names one that has no
 * `receiptAlong`): the rules then see the alert as that hook left it, and their triggers are
 * written apart from the receipt (server/db/notifications.ts `fire`). Two rules for one alert, a
 * severity change, and a duplicate that changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { sleep } from '../helpers/live.ts';
import { StubService } from '../helpers/receivers.ts';

interface Ctx extends AppContext {
  stub: StubService;
}

const test = suite<Ctx>('notifications: after another post-receive hook', {} as Ctx);

test.before(async (ctx) => {
  await startApp(ctx, {
    TEST_LABEL: 'notify_after',
    PLUGINS: 'remote_ip,./tests/fixtures/plugins/post-receive-mark.ts',
  });
  ctx.stub = await StubService.start();
});
test.after(async (ctx) => {
  await ctx.stub?.close();
  await stopApp(ctx);
});

async function created(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(res.status, 201, JSON.stringify(body));
  return body;
}

test('two rules for one alert: each receiver told once, the states keep the marked alert', async ({
  api,
  stub,
  db,
}) => {
  const id = randomBytes(4).toString('hex');
  const event = `Event-${id}`;
  for (const n of [1, 2]) {
    await created(
      await api.post('/notifications/receivers', {
        name: `r${n}-${id}`,
        type: 'webhook',
        settings: { url: stub.url(`/hook/${id}/${n}`) },
      }),
    );
    await created(
      await api.post('/notifications/rules', {
        name: `rule${n}-${id}`,
        event,
        receivers: [`r${n}-${id}`],
        groupWait: 0,
        continue: true,
      }),
    );
  }
  const to = (n: number) => (r: { path: string }) => r.path.startsWith(`/hook/${id}/${n}`);
  const alert = { environment: 'Production', service: ['web'], resource: 'web01', event, severity: 'major' };
  const alertId = (await created(await api.post('/alert', alert))).id as string;
  const [one] = await stub.waitFor(1, to(1));
  const [two] = await stub.waitFor(1, to(2));
  for (const message of [one!, two!]) {
    const [item] = message.json.alerts as Record<string, unknown>[];
    assert.equal([item!.id, item!.kind, item!.severity], [alertId, 'trigger', 'major']);
  }
  const states = await queryDb<{ severity: string; receivers: string[]; marked: boolean }>(
    db.url,
    `SELECT s.severity, s.receivers, (s.alert->'attributes'->>'marked')::boolean AS marked
       FROM notification_state s JOIN notification_rules r ON r.id::text = s.rule_id
      WHERE s.alert_id = $1 ORDER BY r.name`,
    [alertId],
  );
  assert.equal(states, [
    { severity: 'major', receivers: [`r1-${id}`], marked: true },
    { severity: 'major', receivers: [`r2-${id}`], marked: true },
  ]);

  // A duplicate that changes nothing tells nobody; a severity change tells both again.
  await created(await api.post('/alert', alert));
  await sleep(1000);
  assert.is(stub.received.filter(to(1)).length, 1);
  assert.is(stub.received.filter(to(2)).length, 1);
  await created(await api.post('/alert', { ...alert, severity: 'critical' }));
  for (const n of [1, 2]) {
    const [, again] = await stub.waitFor(2, to(n));
    const [item] = again!.json.alerts as Record<string, unknown>[];
    assert.equal([item!.id, item!.severity], [alertId, 'critical']);
  }
  const severities = await queryDb<{ severity: string }>(
    db.url,
    'SELECT severity FROM notification_state WHERE alert_id = $1',
    [alertId],
  );
  assert.equal(
    severities.map((s) => s.severity),
    ['critical', 'critical'],
  );
});

test.run();
