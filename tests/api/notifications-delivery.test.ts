/**
 * Notifications end to end against stand-ins for the services (local HTTP servers) on a real
 * server and database: what triggers a message and what does not, grouping, reminders, escalation,
 * acks and resolves, suppression by blackouts and shelving, retries while a receiver is down,
 * history entries, and delivery by another instance after a restart.
 */
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bootInstance, apiFor, startApp, stopApp, type AppContext } from '../helpers/app.ts';
import type { Api } from '../helpers/api.ts';
import { sleep, until } from '../helpers/live.ts';
import { queryDb } from '../helpers/db.ts';
import { StubService } from '../helpers/receivers.ts';
import { okResponse } from '../helpers/secured.ts';

interface Ctx extends AppContext {
  stub: StubService;
}

const test = suite<Ctx>('notifications: delivery', {} as Ctx);
const SETTINGS = {
  TEST_LABEL: 'notify_delivery',
  PLUGINS: 'remote_ip,reject,blackout',
  NOTIFICATION_BLACKOUT: 'True',
  DASHBOARD_URL: 'https://alerts.example.com',
  NOTIFY_SWEEP_INTERVAL: '0.3',
  NOTIFY_RETRY_DELAY: '0.2',
  NOTIFY_RETRY_MAX_DELAY: '0.5',
};

test.before(async (ctx) => {
  await startApp(ctx, SETTINGS);
  ctx.stub = await StubService.start();
});
test.after(async (ctx) => {
  await ctx.stub?.close();
  await stopApp(ctx);
});

const tag = () => randomBytes(4).toString('hex');

/** A receiver of `type` at the stub under its own path, and a rule for alerts whose event is `event`. */
async function route(
  api: Api,
  stub: StubService,
  opts: {
    type?: string;
    settings?: Record<string, unknown>;
    rule?: Record<string, unknown>;
    receiver?: Record<string, unknown>;
  } = {},
) {
  const id = tag();
  const path = `/hook/${id}`;
  const type = opts.type ?? 'webhook';
  const settings =
    opts.settings ??
    (type === 'pagerduty'
      ? { routingKey: `rk-${id}`, url: stub.url(path) }
      : type === 'opsgenie'
        ? { apiKey: `key-${id}`, url: stub.url(path) }
        : { url: stub.url(path) });
  const receiver = (
    await okResponse(
      await api.post('/notifications/receivers', { name: `r-${id}`, type, settings, ...opts.receiver }),
      201,
    )
  ).receiver as { id: string; name: string };
  const event = `Event-${id}`;
  await okResponse(
    await api.post('/notifications/rules', {
      name: `rule-${id}`,
      event,
      receivers: [receiver.name],
      groupWait: 0,
      continue: true,
      ...opts.rule,
    }),
    201,
  );
  const mine = (r: { path: string }) => r.path.startsWith(path);
  return { id, path, event, receiver, mine };
}

const send = async (api: Api, alert: Record<string, unknown>) =>
  (await okResponse(await api.post('/alert', { environment: 'Production', service: ['web'], ...alert }), 201))
    .id as string;

const alertsOf = (r: { json: Record<string, unknown> }) => r.json.alerts as Record<string, unknown>[];

test('a new alert that matches a rule is sent once; duplicates that change nothing are not', async ({
  api,
  stub,
}) => {
  const { event, mine, receiver } = await route(api, stub);
  const id = await send(api, { resource: 'web01', event, severity: 'major', text: 'down' });
  const [first] = await stub.waitFor(1, mine);
  const body = first!.json;
  assert.is(body.receiver, receiver.name);
  assert.is(body.status, 'firing');
  const [a] = alertsOf(first!);
  assert.equal(
    [a!.kind, a!.id, a!.severity, a!.environment, a!.resource, a!.event, a!.text],
    ['trigger', id, 'major', 'Production', 'web01', event, 'down'],
  );
  assert.is(a!.href, `https://alerts.example.com/alert/${id}`);
  for (let i = 0; i < 5; i++) await send(api, { resource: 'web01', event, severity: 'major', text: 'down' });
  await sleep(1500);
  assert.is(stub.received.filter(mine).length, 1, 'duplicates are not notified');
  // A severity change is.
  await send(api, { resource: 'web01', event, severity: 'critical', text: 'worse' });
  const [, second] = await stub.waitFor(2, mine);
  assert.equal([alertsOf(second!)[0]!.severity, alertsOf(second!)[0]!.kind], ['critical', 'trigger']);
});

test('rules: first match stops, continue goes on, disabled rules and non-matching alerts are skipped', async ({
  api,
  stub,
}) => {
  const a = await route(api, stub, { rule: { continue: false, priority: 1000 } });
  const b = await route(api, stub, { rule: { priority: 1001 } });
  // Rule b matches b's event only: make it match a's too with a regex.
  await okResponse(await api.put(`/notifications/rules/rule-${b.id}`, { event: `${a.event}|${b.event}` }));
  await send(api, { resource: 'first', event: a.event, severity: 'major' });
  await stub.waitFor(1, a.mine);
  await send(api, { resource: 'second', event: b.event, severity: 'major' });
  await stub.waitFor(1, b.mine);
  await sleep(800);
  assert.is(stub.received.filter(b.mine).length, 1, 'rule a stopped the routing of its alert');
  // minSeverity: at least major.
  const c = await route(api, stub, { rule: { minSeverity: 'major' } });
  await send(api, { resource: 'low', event: c.event, severity: 'minor' });
  await send(api, { resource: 'high', event: c.event, severity: 'critical' });
  const [got] = await stub.waitFor(1, c.mine);
  assert.is(alertsOf(got!)[0]!.resource, 'high');
  await sleep(800);
  assert.is(stub.received.filter(c.mine).length, 1);
});

test('grouping: alerts within the group wait go out as one message', async ({ api, stub }) => {
  // The wait spans the 40 posts even on a loaded CI machine (2 s once split them 31 + 9).
  const { event, mine } = await route(api, stub, { rule: { groupWait: 5 } });
  await Promise.all(
    Array.from({ length: 40 }, (_, i) => send(api, { resource: `node${i}`, event, severity: 'major' })),
  );
  const [message] = await stub.waitFor(1, mine);
  await sleep(1500);
  assert.is(stub.received.filter(mine).length, 1, 'one message');
  assert.is(alertsOf(message!).length, 40);
  assert.match(String(message!.json.summary), /^40 alerts \(rule-\w+\): 40 firing$/);
});

test('an ack stops reminders and is passed to paging services; a close sends a resolve', async ({
  api,
  stub,
}) => {
  const pd = await route(api, stub, { type: 'pagerduty', rule: { repeatInterval: 1 } });
  const chat = await route(api, stub, { rule: { event: pd.event, repeatInterval: 1 } });
  const id = await send(api, { resource: 'db01', event: pd.event, severity: 'critical', text: 'disk full' });
  const [trigger] = await stub.waitFor(1, pd.mine);
  assert.equal(
    [trigger!.json.event_action, trigger!.json.dedup_key, trigger!.json.routing_key],
    ['trigger', id, `rk-${pd.id}`],
  );
  const payload = trigger!.json.payload as Record<string, unknown>;
  assert.equal([payload.severity, payload.source, payload.class], ['critical', 'db01', pd.event]);
  assert.is(trigger!.json.client_url, `https://alerts.example.com/alert/${id}`);
  // Reminders reach the chat receiver, not PagerDuty (which keeps its own).
  const reminders = await stub.waitFor(2, (r) => chat.mine(r) && alertsOf(r)[0]!.kind === 'repeat');
  assert.ok(reminders.length >= 2);
  assert.is(stub.received.filter(pd.mine).length, 1);

  await okResponse(await api.put(`/alert/${id}/action`, { action: 'ack', text: 'on it' }));
  const [ack] = await stub.waitFor(1, (r) => pd.mine(r) && r.json.event_action === 'acknowledge');
  assert.is(ack!.json.dedup_key, id);
  await sleep(300);
  const count = stub.received.filter(chat.mine).length;
  await sleep(2000);
  assert.is(stub.received.filter(chat.mine).length, count, 'no reminders after the ack');

  await okResponse(await api.put(`/alert/${id}/action`, { action: 'close', text: 'fixed' }));
  const [resolve] = await stub.waitFor(1, (r) => pd.mine(r) && r.json.event_action === 'resolve');
  assert.is(resolve!.json.dedup_key, id);
  const [resolved] = await stub.waitFor(1, (r) => chat.mine(r) && alertsOf(r)[0]!.kind === 'resolve');
  assert.is(resolved!.json.status, 'resolved');
});

test('escalation: unacknowledged after the delay, the next receiver is told; an ack stops it', async ({
  api,
  stub,
}) => {
  const second = await route(api, stub, { rule: { event: 'never-matches' } });
  const first = await route(api, stub, {
    rule: { escalations: [{ after: 1, receivers: [second.receiver.name] }] },
  });
  const id = await send(api, { resource: 'app01', event: first.event, severity: 'major' });
  await stub.waitFor(1, first.mine);
  const [escalated] = await stub.waitFor(1, second.mine);
  assert.equal([alertsOf(escalated!)[0]!.kind, alertsOf(escalated!)[0]!.id], ['escalate', id]);

  // Acknowledged in time: no escalation.
  const third = await route(api, stub, { rule: { event: 'never-matches-either' } });
  const late = await route(api, stub, {
    rule: { escalations: [{ after: 2, receivers: [third.receiver.name] }] },
  });
  const acked = await send(api, { resource: 'app02', event: late.event, severity: 'major' });
  await stub.waitFor(1, late.mine);
  await okResponse(await api.put(`/alert/${acked}/action`, { action: 'ack' }));
  await sleep(3000);
  assert.is(stub.received.filter(third.mine).length, 0);
});

test('changes made in the database without a hook: the sweep passes on the ack and the resolve', async ({
  api,
  stub,
  db,
}) => {
  const { event, mine } = await route(api, stub);
  const id = await send(api, { resource: 'quiet01', event, severity: 'major' });
  await stub.waitFor(1, mine);
  const kinds = () =>
    stub.received.filter(mine).flatMap((r) =>
      alertsOf(r)
        .filter((a) => a.id === id)
        .map((a) => a.kind),
    );
  // Another tool acknowledges the alert, then deletes it: no action, no hook, only the sweep sees it.
  await queryDb(db.url, `UPDATE alerts SET status = 'ack' WHERE id = $1`, [id]);
  await until(async () => (kinds().includes('ack') ? true : undefined), 5000, 'the ack passed on');
  // Changed once more, then deleted: the resolve tells the alert as it was when deleted (the
  // deletion's trigger writes that copy; the receipt wrote none).
  await queryDb(db.url, `UPDATE alerts SET text = 'last words', duplicate_count = 7 WHERE id = $1`, [id]);
  await queryDb(db.url, `DELETE FROM alerts WHERE id = $1`, [id]);
  await until(async () => (kinds().includes('resolve') ? true : undefined), 5000, 'the resolve passed on');
  assert.equal(kinds(), ['trigger', 'ack', 'resolve']);
  const resolved = stub.received
    .filter(mine)
    .flatMap((r) => alertsOf(r))
    .find((a) => a.id === id && a.kind === 'resolve')!;
  assert.equal(
    [resolved.resource, resolved.event, resolved.status, resolved.text, resolved.duplicateCount],
    ['quiet01', event, 'ack', 'last words', 7],
  );
});

test('a state whose alert is gone without a copy (no row trigger ran) is dropped without a message', async ({
  api,
  stub,
  db,
}) => {
  const { event, mine } = await route(api, stub, { rule: { repeatInterval: 1 } });
  const id = await send(api, { resource: 'gone01', event, severity: 'major' });
  await stub.waitFor(1, mine);
  // Removed the way TRUNCATE removes alerts: without the row trigger that writes the state's copy.
  assert.match(id, /^[0-9a-f-]{36}$/);
  await queryDb(
    db.url,
    `DO $$ BEGIN PERFORM set_config('session_replication_role', 'replica', true); DELETE FROM alerts WHERE id = '${id}'; END $$`,
  );
  // The reminder comes due after 1 s; the sweep finds the state with neither alert nor copy.
  await until(
    async () =>
      (await queryDb(db.url, `SELECT 1 FROM notification_state WHERE alert_id = $1`, [id])).length === 0
        ? true
        : undefined,
    5000,
    'the state dropped',
  );
  await sleep(500);
  const told = stub.received.filter(mine).flatMap((r) => alertsOf(r).map((a) => a.kind));
  assert.equal(told, ['trigger'], 'nothing told after the alert went');
  // The scheduler carries on: the next alert of the rule is told.
  const next = await send(api, { resource: 'gone02', event, severity: 'major' });
  const [later] = await stub.waitFor(1, (r) => mine(r) && alertsOf(r)[0]!.id === next);
  assert.is(alertsOf(later!)[0]!.kind, 'trigger');
});

test('blackouts and shelving suppress notifications', async ({ api, stub }) => {
  const { event, mine } = await route(api, stub, { rule: { repeatInterval: 1 } });
  await okResponse(
    await api.post('/blackout', { environment: 'Production', resource: 'dark01', duration: 3600 }),
    201,
  );
  await send(api, { resource: 'dark01', event, severity: 'major' });
  // A firing alert that goes into a blackout gets no more reminders; a shelved one neither.
  await send(api, { resource: 'lit01', event, severity: 'major' });
  const shelvedId = await send(api, { resource: 'shelf01', event, severity: 'major' });
  await stub.waitFor(
    2,
    // Due together, lit01's and shelf01's reminders may share a message, in either order.
    (r) => mine(r) && alertsOf(r).some((a) => a.kind === 'repeat' && a.resource === 'lit01'),
  );
  await okResponse(
    await api.post('/blackout', { environment: 'Production', resource: 'lit01', duration: 3600 }),
    201,
  );
  await okResponse(await api.put(`/alert/${shelvedId}/action`, { action: 'shelve' }));
  await sleep(1500);
  const before = stub.received.filter(mine).length;
  await sleep(2500);
  const after = stub.received.filter(mine);
  assert.is(after.length, before, 'no reminders while blacked out or shelved');
  assert.not.ok(
    after.some((r) => alertsOf(r).some((a) => a.resource === 'dark01')),
    'the blacked-out alert was never sent',
  );
});

test('a receiver that is down gets its messages when it is back; failures show in the history', async ({
  api,
  stub,
}) => {
  const { event, mine, receiver } = await route(api, stub);
  stub.status = 500;
  const id = await send(api, { resource: 'flaky01', event, severity: 'major' });
  await stub.waitFor(2, mine);
  const failing = await until(
    async () => {
      const body = await okResponse(await api.get(`/alert/${id}/notifications`));
      return (body.queued as unknown[]).length ? body : undefined;
    },
    5000,
    'queued notification',
  );
  const queued = (failing.queued as Record<string, unknown>[])[0]!;
  assert.equal([queued.receiver, queued.kind, queued.lastError], [receiver.name, 'trigger', 'HTTP 500']);
  stub.status = 200;
  await until(
    async () => {
      const body = await okResponse(await api.get(`/alert/${id}`));
      const history = ((body.alert as Record<string, unknown>).history as Record<string, unknown>[]).filter(
        (h) => h.type === 'notification',
      );
      return history.some((h) => String(h.text).endsWith('trigger sent')) ? history : undefined;
    },
    10_000,
    'a "sent" history entry',
  );
  const body = await okResponse(await api.get(`/alert/${id}/notifications`));
  assert.equal(body.queued, []);
  const delivered = body.delivered as Record<string, unknown>[];
  // A delivery changes no status: its entries have none, so unack and "who set it" look past them.
  assert.equal(
    delivered.map((h) => h.status),
    [null, null],
  );
  const texts = delivered.map((h) => h.text);
  assert.equal(texts, [
    `${receiver.name} (webhook): trigger failed (HTTP 500), retrying`,
    `${receiver.name} (webhook): trigger sent`,
  ]);
});

test('queued notifications survive a restart and are sent by whichever instance runs', async (ctx) => {
  const { api, stub } = ctx;
  const { event, mine } = await route(api, stub, { rule: { groupWait: 3 } });
  await send(api, { resource: 'restart01', event, severity: 'major' });
  // Stop this instance before the group wait ends; another one on the same database delivers.
  await ctx.running.close();
  const other = await bootInstance(ctx.db.url, { ...SETTINGS, PLUGINS: SETTINGS.PLUGINS });
  try {
    const [message] = await stub.waitFor(1, mine, 15_000);
    assert.is(alertsOf(message!)[0]!.resource, 'restart01');
  } finally {
    ctx.running = other;
    ctx.api = apiFor(other);
  }
});

test.run();

const capped = suite<Ctx>('notifications: history limit', {} as Ctx);
capped.before(async (ctx) => {
  await startApp(ctx, { ...SETTINGS, TEST_LABEL: 'notify_capped', HISTORY_LIMIT: '3' });
  ctx.stub = await StubService.start();
});
capped.after(async (ctx) => {
  await ctx.stub?.close();
  await stopApp(ctx);
});

capped(
  'delivery entries count against HISTORY_LIMIT: the newest are kept, the queue rows go',
  async ({ api, stub, db }) => {
    const { event, mine } = await route(api, stub);
    let id = '';
    // Each severity change is a history entry and a new message, whose delivery adds another.
    const severities = ['minor', 'major', 'critical', 'major'];
    for (const [k, severity] of severities.entries()) {
      id = await send(api, { resource: 'capped01', event, severity });
      await stub.waitFor(k + 1, mine);
      // Delivered and settled: this message's entry is the newest, and nothing is left queued.
      await until(
        async () => {
          const [newest] = await queryDb<{ type: string; severity: string }>(
            db.url,
            'SELECT type, severity FROM alert_history WHERE alert_id = $1 ORDER BY seq DESC LIMIT 1',
            [id],
          );
          const { queued } = await okResponse(await api.get(`/alert/${id}/notifications`));
          const settled = !(queued as unknown[]).length;
          return newest?.type === 'notification' && newest.severity === severity && settled
            ? true
            : undefined;
        },
        5000,
        `the ${severity} message delivered`,
      );
    }
    const rows = await queryDb<{ type: string; severity: string }>(
      db.url,
      'SELECT type, severity FROM alert_history WHERE alert_id = $1 ORDER BY seq',
      [id],
    );
    // The newest three of: new/minor, notification, severity/major, notification,
    // severity/critical, notification, severity/major, notification.
    assert.equal(
      rows.map((r) => `${r.type}/${r.severity}`),
      ['notification/critical', 'severity/major', 'notification/major'],
    );
  },
);

capped.run();
