/**
 * The notification delivery history (docs/notifications.md, "Delivery history"): every attempt's
 * outcome per alert — sent, failed, expired, rejected, suppressed — and test messages, through GET
 * /notifications/deliveries with its filters and pages, newest first; a caller restricted to
 * customers reads only its customers' receivers' entries; bad parameters are 400 JSON errors;
 * housekeeping removes entries older than NOTIFY_DELIVERY_RETENTION; and a history that cannot be
 * written never holds up a delivery.
 */
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DeliveriesPageSchema,
  NotificationHealthSchema,
  ReceiverSchema,
  RuleSchema,
  type DeliveriesPage,
  type Delivery,
} from '../../shared/notifications.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import type { Api } from '../helpers/api.ts';
import { queryDb } from '../helpers/db.ts';
import { until } from '../helpers/live.ts';
import { StubService } from '../helpers/receivers.ts';
import { assertError, callAs, ok, securedSettings } from '../helpers/secured.ts';

const ADMIN_KEY = 'notify-deliveries-admin-key-0123456789';

interface Ctx extends AppContext {
  /** Answers 200, 500 and 400. */
  fine: StubService;
  down: StubService;
  refusing: StubService;
  acmeKey: string;
}

const tag = () => randomBytes(4).toString('hex');

const test = suite<Ctx>('notification delivery history', {} as Ctx);
test.before(async (ctx) => {
  [ctx.fine, ctx.down, ctx.refusing] = await Promise.all([
    StubService.start(),
    StubService.start(),
    StubService.start(),
  ]);
  ctx.down.status = 500;
  ctx.refusing.status = 400;
  await startApp(
    ctx,
    securedSettings('notify_deliveries', 'notify-deliveries-secret-0123456789', {
      ADMIN_KEY,
      CUSTOMER_VIEWS: 'True',
      NOTIFY_RETRY_DELAY: '0.2',
      NOTIFY_RETRY_MAX_DELAY: '0.3',
      NOTIFY_MAX_ATTEMPTS: '2',
      NOTIFY_SWEEP_INTERVAL: '0.3',
    }),
  );
  const key = await ok(
    callAs(ctx.api, 'POST', '/key', {
      key: ADMIN_KEY,
      body: { user: 'ops@acme.example', customer: 'acme', scopes: ['read', 'write', 'admin:notifications'] },
    }),
    201,
  );
  ctx.acmeKey = key.key as string;
});
test.after(async (ctx) => {
  await Promise.all([ctx.fine?.close(), ctx.down?.close(), ctx.refusing?.close()]);
  await stopApp(ctx);
});

const as = (api: Api, method: string, path: string, body?: unknown, key = ADMIN_KEY) =>
  callAs(api, method, path, { key, body });

/** A webhook receiver at `stub` and a rule for alerts of its own event. */
async function route(ctx: Ctx, stub: StubService, opts: { key?: string; groupWait?: number } = {}) {
  const id = tag();
  const key = opts.key ?? ADMIN_KEY;
  const receiver = ReceiverSchema.parse(
    (
      await ok(
        as(
          ctx.api,
          'POST',
          '/notifications/receivers',
          { name: `r-${id}`, type: 'webhook', settings: { url: stub.url(`/hook/${id}`) } },
          key,
        ),
        201,
      )
    ).receiver,
  );
  const event = `Event-${id}`;
  const rule = RuleSchema.parse(
    (
      await ok(
        as(
          ctx.api,
          'POST',
          '/notifications/rules',
          {
            name: `rule-${id}`,
            event,
            receivers: [receiver.name],
            groupWait: opts.groupWait ?? 0,
            continue: true,
          },
          key,
        ),
        201,
      )
    ).rule,
  );
  return { receiver, rule, event };
}

async function raise(ctx: Ctx, event: string, key = ADMIN_KEY) {
  const resource = `host-${tag()}`;
  const body = await ok(
    as(
      ctx.api,
      'POST',
      '/alert',
      { resource, event, environment: 'Production', service: ['web'], severity: 'major' },
      key,
    ),
    201,
  );
  return { id: (body.alert as { id: string }).id, resource };
}

async function deliveries(ctx: Ctx, query: string, key = ADMIN_KEY): Promise<DeliveriesPage> {
  return DeliveriesPageSchema.parse(
    await ok(as(ctx.api, 'GET', `/notifications/deliveries?${query}`, undefined, key)),
  );
}

/** Waits until the history of `query` holds `n` entries; gives the page. */
const historyOf = (ctx: Ctx, query: string, n: number) =>
  until(
    async () => {
      const page = await deliveries(ctx, query);
      return page.total >= n ? page : undefined;
    },
    15_000,
    `${n} entries for ${query}`,
    50,
  );

test('each attempt is an entry: sent, failed then expired, rejected, suppressed, and test messages', async (ctx) => {
  const sent = await route(ctx, ctx.fine);
  const alert = await raise(ctx, sent.event);
  const [entry] = (await historyOf(ctx, `receiver=${sent.receiver.name}`, 1)).deliveries;
  assert.equal({ ...entry, id: typeof entry!.id, time: typeof entry!.time }, {
    id: 'string',
    time: 'string',
    receiver: { id: sent.receiver.id, name: sent.receiver.name, type: 'webhook' },
    rule: { id: sent.rule.id, name: sent.rule.name },
    alertId: alert.id,
    blackoutId: null,
    resource: alert.resource,
    event: sent.event,
    kind: 'alert',
    outcome: 'sent',
    attempt: 1,
    error: null,
  } satisfies Record<keyof Delivery, unknown>);

  // 500 twice: a failed attempt, then (NOTIFY_MAX_ATTEMPTS=2) given up; newest first.
  const failing = await route(ctx, ctx.down);
  const lost = await raise(ctx, failing.event);
  const twice = await historyOf(ctx, `receiver=${failing.receiver.id}`, 2);
  assert.equal(
    twice.deliveries.map((d) => [d.outcome, d.attempt, d.error, d.alertId]),
    [
      ['expired', 2, 'HTTP 500', lost.id],
      ['failed', 1, 'HTTP 500', lost.id],
    ],
  );

  const refused = await route(ctx, ctx.refusing);
  await raise(ctx, refused.event);
  const [rejected] = (await historyOf(ctx, `receiver=${refused.receiver.name}`, 1)).deliveries;
  assert.equal([rejected?.outcome, rejected?.error], ['rejected', 'HTTP 400']);

  // Acknowledged within the group wait: never mentioned, and the history says so.
  const waiting = await route(ctx, ctx.fine, { groupWait: 1 });
  const acked = await raise(ctx, waiting.event);
  await ok(as(ctx.api, 'PUT', `/alert/${acked.id}/status`, { status: 'ack', text: 'on it' }));
  const [suppressed] = (await historyOf(ctx, `rule=${waiting.rule.name}`, 1)).deliveries;
  assert.equal([suppressed?.outcome, suppressed?.attempt, suppressed?.alertId], ['suppressed', 0, acked.id]);

  const test = await ok(as(ctx.api, 'POST', `/notifications/receivers/${sent.receiver.id}/test`));
  assert.is(test.outcome, 'sent');
  const tried = await deliveries(ctx, `receiver=${sent.receiver.id}`);
  assert.equal(
    tried.deliveries.map((d) => [d.kind, d.outcome, d.rule, d.alertId]),
    [
      ['test', 'sent', null, null],
      ['alert', 'sent', { id: sent.rule.id, name: sent.rule.name }, alert.id],
    ],
  );
});

test('a recurring maintenance window that opens during the group wait: the message is suppressed', async (ctx) => {
  const waiting = await route(ctx, ctx.fine, { groupWait: 2 });
  const alert = await raise(ctx, waiting.event);
  // Every hour for an hour, in Berlin's time: in force whatever the time of day (docs/blackouts.md).
  await ok(
    as(ctx.api, 'POST', '/blackout', {
      environment: 'Production',
      resource: alert.resource,
      rrule: 'FREQ=HOURLY',
      timezone: 'Europe/Berlin',
      duration: 3600,
    }),
    201,
  );
  const [entry] = (await historyOf(ctx, `rule=${waiting.rule.name}`, 1)).deliveries;
  assert.equal([entry?.outcome, entry?.attempt, entry?.alertId], ['suppressed', 0, alert.id]);
  assert.not.ok(
    ctx.fine.received.some((r) => r.body.includes(alert.resource)),
    'nothing sent about it',
  );
});

test('filters narrow, pages page, newest first', async (ctx) => {
  const { receiver, rule, event } = await route(ctx, ctx.fine);
  const alerts = [];
  for (let i = 0; i < 3; i++) {
    alerts.push(await raise(ctx, event));
    await historyOf(ctx, `receiver=${receiver.name}`, i + 1);
  }
  const all = await deliveries(ctx, `receiver=${receiver.name}`);
  assert.equal(
    all.deliveries.map((d) => d.alertId),
    alerts.map((a) => a.id).reverse(),
  );
  assert.equal([all.total, all.page, all.pageSize, all.pages, all.more], [3, 1, 50, 1, false]);

  const second = await deliveries(ctx, `receiver=${receiver.id}&page-size=2&page=2`);
  assert.equal([second.total, second.page, second.pageSize, second.pages, second.more], [3, 2, 2, 2, false]);
  assert.equal(
    second.deliveries.map((d) => d.alertId),
    [alerts[0]!.id],
  );
  assert.is((await deliveries(ctx, `rule=${rule.id}&page-size=2`)).more, true);
  assert.is((await deliveries(ctx, `rule=${rule.name}`)).total, 3);

  const one = await deliveries(ctx, `alert=${alerts[1]!.id}`);
  assert.equal(
    one.deliveries.map((d) => [d.alertId, d.outcome]),
    [[alerts[1]!.id, 'sent']],
  );
  assert.is((await deliveries(ctx, `receiver=${receiver.name}&outcome=failed`)).total, 0);
  assert.is((await deliveries(ctx, `receiver=${receiver.name}&outcome=sent`)).total, 3);

  const newest = Date.parse(all.deliveries[0]!.time);
  const oldest = Date.parse(all.deliveries[2]!.time);
  const iso = (ms: number) => new Date(ms).toISOString();
  assert.is(
    (await deliveries(ctx, `receiver=${receiver.name}&from=${iso(newest)}`)).deliveries[0]?.alertId,
    alerts[2]!.id,
  );
  assert.is((await deliveries(ctx, `receiver=${receiver.name}&to=${iso(oldest)}`)).total, 1);
  assert.is((await deliveries(ctx, `receiver=${receiver.name}&from=${iso(newest + 1)}`)).total, 0);
  assert.is((await deliveries(ctx, `receiver=nobody-${tag()}`)).total, 0);
});

test('bad parameters are 400 JSON errors that say what is wrong', async (ctx) => {
  const cases: [string, RegExp][] = [
    ['outcome=lost', /outcome must be one of sent, failed, rejected, expired, suppressed/],
    ['page=0', /page must be a whole number from 1/],
    ['page=abc', /page must be a whole number/],
    ['page-size=1001', /page-size must be a whole number from 1 to 1000/],
    ['page-size=-1', /page-size must be a whole number/],
    ['from=yesterday', /from must be an ISO 8601 time/],
    ['to=0000-01-01T00:00:00Z', /to must be an ISO 8601 time/],
    ['receiver=a%20b', /receiver must be an id or a name/],
    ['rule=', /rule must not be empty/],
    ['alert=a%00b', /alert must not contain NUL characters/],
    [`alert=${'a'.repeat(101)}`, /alert must be at most 100 characters/],
    ['page=99999999999999999999', /page must be a whole number from 1 to 1000000/],
    ['reciever=x', /unknown parameter: reciever/],
    ['outcome=sent&outcome=failed', /outcome may be given only once/],
  ];
  for (const [query, message] of cases) {
    const answer = await as(ctx.api, 'GET', `/notifications/deliveries?${query}`);
    assertError(answer, 400);
    assert.match(JSON.stringify(answer.body), message, query);
  }
  const anonymous = await callAs(ctx.api, 'GET', '/notifications/deliveries');
  assertError(anonymous, 401);
});

test("a customer's caller reads only its receivers' entries and health", async (ctx) => {
  const global = await route(ctx, ctx.fine);
  const own = await route(ctx, ctx.fine, { key: ctx.acmeKey });
  assert.is(own.receiver.customer, 'acme');
  await raise(ctx, global.event);
  const mine = await raise(ctx, own.event, ctx.acmeKey);
  await historyOf(ctx, `receiver=${global.receiver.name}`, 1);
  await historyOf(ctx, `receiver=${own.receiver.name}`, 1);

  const seen = await deliveries(ctx, '', ctx.acmeKey);
  assert.ok(seen.total >= 1);
  assert.ok(
    seen.deliveries.every((d) => d.receiver.id === own.receiver.id),
    JSON.stringify(seen.deliveries),
  );
  assert.equal(
    seen.deliveries.map((d) => d.alertId),
    [mine.id],
  );
  assert.is((await deliveries(ctx, `receiver=${global.receiver.name}`, ctx.acmeKey)).total, 0);
  assert.is((await deliveries(ctx, `receiver=${global.receiver.name}`)).total, 1);

  const health = NotificationHealthSchema.parse(
    await ok(as(ctx.api, 'GET', '/notifications/health', undefined, ctx.acmeKey)),
  );
  assert.equal(
    health.receivers.map((r) => [r.name, r.state]),
    [[own.receiver.name, 'ok']],
  );
});

test('housekeeping removes entries older than NOTIFY_DELIVERY_RETENTION (7 days by default)', async (ctx) => {
  const { receiver, event } = await route(ctx, ctx.fine);
  await raise(ctx, event);
  await historyOf(ctx, `receiver=${receiver.name}`, 1);
  await queryDb(
    ctx.db.url,
    `INSERT INTO notification_deliveries (time, receiver_id, receiver_name, receiver_type, kind, outcome, attempt)
     VALUES (now() - interval '8 days', $1, $2, 'webhook', 'alert', 'sent', 1),
            (now() - interval '6 days', $1, $2, 'webhook', 'alert', 'failed', 1)`,
    [receiver.id, receiver.name],
  );
  assert.is((await deliveries(ctx, `receiver=${receiver.name}`)).total, 3);
  await ok(as(ctx.api, 'POST', '/management/housekeeping'));
  const kept = await deliveries(ctx, `receiver=${receiver.name}`);
  const ages = kept.deliveries.map((d) => [
    d.outcome,
    Math.round((Date.now() - Date.parse(d.time)) / 86_400_000),
  ]);
  assert.equal(ages.sort(), [
    ['failed', 6],
    ['sent', 0],
  ]);
});

test('a history that cannot be written does not hold up delivery', async (ctx) => {
  const { receiver, event } = await route(ctx, ctx.fine);
  await queryDb(ctx.db.url, 'ALTER TABLE notification_deliveries RENAME TO notification_deliveries_away');
  try {
    const alert = await raise(ctx, event);
    await ctx.fine.waitFor(
      1,
      (r) => r.path.startsWith('/hook/') && JSON.stringify(r.json).includes(alert.id),
    );
    const body = await ok(as(ctx.api, 'GET', `/alert/${alert.id}`));
    const history = (body.alert as { history: { type: string; text: string }[] }).history;
    await until(
      async () => {
        const h = (
          (await ok(as(ctx.api, 'GET', `/alert/${alert.id}`))).alert as typeof body.alert & {
            history: { type: string; text: string }[];
          }
        ).history;
        return h.some((e) => e.type === 'notification' && e.text.endsWith('sent')) ? true : undefined;
      },
      10_000,
      `a sent entry in ${JSON.stringify(history)}`,
    );
  } finally {
    await queryDb(ctx.db.url, 'ALTER TABLE notification_deliveries_away RENAME TO notification_deliveries');
  }
  assert.is((await deliveries(ctx, `receiver=${receiver.name}`)).total, 0);
});

test.run();
