/**
 * Notification health (docs/notifications.md, "Health"): each receiver's state from every attempt,
 * kept in PostgreSQL — failing with since when and the last error while a service answers 500 or
 * its port is closed, ok again after the next success; what is queued and when it is next tried;
 * paging receivers (by type, or marked by a rule) and GET /notifications/health's count of those
 * failing; the live `notifications:health` event to sockets that may read it; and two instances
 * on one database and Redis telling the same story to every socket.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  NotificationHealthSchema,
  QueuedNotificationSchema,
  ReceiverSchema,
  RuleSchema,
  type NotificationHealth,
  type ReceiverHealth,
} from '../../shared/notifications.ts';
import type { Running } from '../../server/boot.ts';
import { apiFor, bootInstance, startApp, stopApp, type AppContext } from '../helpers/app.ts';
import type { Api } from '../helpers/api.ts';
import { LiveClient, sleep, until } from '../helpers/live.ts';
import { StubService } from '../helpers/receivers.ts';
import { callAs, ok, securedSettings } from '../helpers/secured.ts';

const ADMIN_KEY = 'notify-health-admin-key-0123456789';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DELIVERY = {
  NOTIFY_RETRY_DELAY: '0.3',
  NOTIFY_RETRY_MAX_DELAY: '0.6',
  NOTIFY_SWEEP_INTERVAL: '0.3',
  // Messages are retried for as long as a test keeps its receiver failing.
  NOTIFY_MAX_ATTEMPTS: '1000',
};

interface Ctx extends AppContext {
  stub: StubService;
  clients: LiveClient[];
}

const tag = () => randomBytes(4).toString('hex');
const as = (api: Api, method: string, path: string, body?: unknown) =>
  callAs(api, method, path, { key: ADMIN_KEY, body });

/** A receiver of `type` at its own path of the stub, and a rule sending it alerts of its own event. */
async function route(
  api: Api,
  stub: StubService,
  opts: { type?: string; url?: string; rule?: Record<string, unknown> } = {},
) {
  const id = tag();
  const type = opts.type ?? 'webhook';
  const url = opts.url ?? stub.url(`/hook/${id}`);
  const settings =
    type === 'pagerduty'
      ? { routingKey: `rk-${id}`, url }
      : type === 'opsgenie'
        ? { apiKey: `key-${id}`, url }
        : { url };
  const made = await ok(
    as(api, 'POST', '/notifications/receivers', { name: `r-${id}`, type, settings }),
    201,
  );
  const receiver = ReceiverSchema.parse(made.receiver);
  const event = `Event-${id}`;
  const rule = RuleSchema.parse(
    (
      await ok(
        as(api, 'POST', '/notifications/rules', {
          name: `rule-${id}`,
          event,
          receivers: [receiver.name],
          groupWait: 0,
          continue: true,
          ...opts.rule,
        }),
        201,
      )
    ).rule,
  );
  return { receiver, rule, event, path: `/hook/${id}` };
}

async function raise(api: Api, event: string, resource = `host-${tag()}`): Promise<string> {
  const body = await ok(
    as(api, 'POST', '/alert', {
      resource,
      event,
      environment: 'Production',
      service: ['web'],
      severity: 'major',
    }),
    201,
  );
  return (body.alert as { id: string }).id;
}

async function healthOf(api: Api, id: string): Promise<ReceiverHealth> {
  return ReceiverSchema.parse((await ok(as(api, 'GET', `/notifications/receivers/${id}`))).receiver).health;
}

const healthWhen = (api: Api, id: string, pred: (h: ReceiverHealth) => boolean, what: string) =>
  until(
    async () => {
      const h = await healthOf(api, id);
      return pred(h) ? h : undefined;
    },
    15_000,
    what,
    50,
  );

async function summary(api: Api, key = ADMIN_KEY): Promise<NotificationHealth> {
  return NotificationHealthSchema.parse(await ok(callAs(api, 'GET', '/notifications/health', { key })));
}

/** A socket that records every `notifications:health` it hears. */
async function listen(ctx: { clients: LiveClient[] }, origin: string, key = ADMIN_KEY) {
  const client = await LiveClient.connect(origin, { key });
  ctx.clients.push(client);
  const heard: NotificationHealth[] = [];
  client.socket.on('notifications:health', (m) => heard.push(NotificationHealthSchema.parse(m)));
  return heard;
}

/** A socket that records when it hears `notifications:activity` (attempts that changed no state). */
async function listenActivity(ctx: { clients: LiveClient[] }, origin: string, key = ADMIN_KEY) {
  const client = await LiveClient.connect(origin, { key });
  ctx.clients.push(client);
  const times: number[] = [];
  client.socket.on('notifications:activity', () => times.push(Date.now()));
  return times;
}

const stateIn = (m: NotificationHealth, id: string) => m.receivers.find((r) => r.id === id)?.state;

const test = suite<Ctx>('notification health', {} as Ctx);
test.before(async (ctx) => {
  ctx.clients = [];
  ctx.stub = await StubService.start();
  await startApp(
    ctx,
    securedSettings('notify_health', 'notify-health-secret-0123456789', { ADMIN_KEY, ...DELIVERY }),
  );
});
test.after.each((ctx) => {
  for (const c of ctx.clients.splice(0)) c.close();
  ctx.stub.status = 200;
});
test.after(async (ctx) => {
  await ctx.stub?.close();
  await stopApp(ctx);
});

test('a receiver answering 500 is failing since its first failure, with the error; its next success makes it ok', async (ctx) => {
  const { receiver, event, path } = await route(ctx.api, ctx.stub);
  assert.equal(receiver.health, {
    state: 'unknown',
    paging: false,
    lastSuccessTime: null,
    lastErrorTime: null,
    lastError: null,
    failingSince: null,
    failedAttempts: 0,
    queued: 0,
    nextAttemptTime: null,
  });
  ctx.stub.status = 500;
  const before = Date.now();
  const alertId = await raise(ctx.api, event);
  const failing = await healthWhen(ctx.api, receiver.id, (h) => h.state === 'failing', 'failing');
  assert.ok(failing.failingSince !== null && Date.parse(failing.failingSince) >= before - 1000);
  assert.is(failing.lastError, 'HTTP 500');
  assert.ok(Date.parse(failing.lastErrorTime!) >= Date.parse(failing.failingSince));
  assert.is(failing.lastSuccessTime, null);
  assert.ok(failing.failedAttempts >= 1);
  // The message waits for its retry: queued, with its next attempt.
  const retrying = await healthWhen(ctx.api, receiver.id, (h) => h.queued === 1, 'queued for a retry');
  assert.ok(retrying.nextAttemptTime !== null);

  // The alert page says what is happening to it.
  const queued = await until(
    async () => {
      const body = await ok(as(ctx.api, 'GET', `/alert/${alertId}/notifications`));
      const q = QueuedNotificationSchema.array().parse(body.queued);
      return q[0] && q[0].attempts >= 1 ? q[0] : undefined;
    },
    10_000,
    'a queued entry with a failed attempt',
  );
  assert.is(queued.state, 'retrying');
  assert.is(queued.lastError, 'HTTP 500');
  assert.is(queued.receiver, receiver.name);

  // More failures keep the first one's time and count up.
  const later = await healthWhen(ctx.api, receiver.id, (h) => h.failedAttempts >= 3, 'three failed attempts');
  assert.is(later.state, 'failing');
  assert.is(later.failingSince, failing.failingSince);
  assert.ok(Date.parse(later.lastErrorTime!) > Date.parse(failing.lastErrorTime!));

  ctx.stub.status = 200;
  const okAgain = await healthWhen(ctx.api, receiver.id, (h) => h.state === 'ok', 'ok again');
  assert.ok(ctx.stub.received.some((r) => r.path === path));
  assert.is(okAgain.failingSince, null);
  assert.is(okAgain.failedAttempts, 0);
  assert.ok(Date.parse(okAgain.lastSuccessTime!) >= Date.parse(later.lastErrorTime!));
  // The last error is kept, with its time, for whoever wonders what happened.
  assert.is(okAgain.lastError, 'HTTP 500');
  const drained = await healthWhen(ctx.api, receiver.id, (h) => h.queued === 0, 'nothing queued');
  assert.is(drained.nextAttemptTime, null);
});

test('a closed port: failing with the connection error while down, ok once it is back', async (ctx) => {
  const down = await StubService.start();
  try {
    const { receiver, event } = await route(ctx.api, down, { url: down.url('/hook') });
    await down.down();
    await raise(ctx.api, event);
    const failing = await healthWhen(ctx.api, receiver.id, (h) => h.state === 'failing', 'failing');
    assert.match(failing.lastError ?? '', /ECONNREFUSED|refused/i);
    assert.ok(failing.failingSince !== null);
    await down.up();
    await down.waitFor(1);
    const back = await healthWhen(ctx.api, receiver.id, (h) => h.state === 'ok', 'ok');
    assert.is(back.failingSince, null);
    assert.ok(back.lastSuccessTime !== null);
  } finally {
    await down.close();
  }
});

test('a message waiting out its group wait is queued as waiting, with no attempt yet', async (ctx) => {
  const { receiver, event } = await route(ctx.api, ctx.stub, { rule: { groupWait: 3600 } });
  const alertId = await raise(ctx.api, event);
  const body = await ok(as(ctx.api, 'GET', `/alert/${alertId}/notifications`));
  const [queued] = QueuedNotificationSchema.array().parse(body.queued);
  assert.is(queued?.state, 'waiting');
  assert.is(queued?.attempts, 0);
  assert.is(queued?.lastError, null);
  assert.ok(Date.parse(queued!.dueTime) > Date.now() + 3000 * 1000);
  const health = await healthOf(ctx.api, receiver.id);
  assert.equal([health.state, health.queued, health.nextAttemptTime], ['unknown', 1, queued!.dueTime]);
});

test('paging receivers: PagerDuty and Opsgenie, and any a paging rule names; the failing ones are counted', async (ctx) => {
  ctx.stub.status = 500;
  const pd = await route(ctx.api, ctx.stub, { type: 'pagerduty' });
  const og = await route(ctx.api, ctx.stub, { type: 'opsgenie' });
  const chat = await route(ctx.api, ctx.stub);
  const escalated = await route(ctx.api, ctx.stub);
  assert.equal([pd.receiver.health.paging, og.receiver.health.paging], [true, true]);
  assert.is(chat.receiver.health.paging, false);
  assert.is(chat.rule.paging, false);

  const base = (await summary(ctx.api)).pagingFailing;
  // A rule marks the receivers it names, escalation steps included, as paging.
  const marked = RuleSchema.parse(
    (
      await ok(
        as(ctx.api, 'PUT', `/notifications/rules/${chat.rule.id}`, {
          paging: true,
          escalations: [{ after: 600, receivers: [escalated.receiver.name] }],
        }),
      )
    ).rule,
  );
  assert.is(marked.paging, true);
  assert.is((await healthOf(ctx.api, chat.receiver.id)).paging, true);
  assert.is((await healthOf(ctx.api, escalated.receiver.id)).paging, true);

  await raise(ctx.api, pd.event);
  await raise(ctx.api, chat.event);
  await healthWhen(ctx.api, pd.receiver.id, (h) => h.state === 'failing', 'pagerduty failing');
  await healthWhen(ctx.api, chat.receiver.id, (h) => h.state === 'failing', 'chat failing');
  const s = await summary(ctx.api);
  const listed = s.receivers.find((r) => r.id === chat.receiver.id)!;
  assert.equal(
    { ...listed, failingSince: typeof listed.failingSince },
    {
      id: chat.receiver.id,
      name: chat.receiver.name,
      type: 'webhook',
      paging: true,
      state: 'failing',
      failingSince: 'string',
      lastError: 'HTTP 500',
    },
  );
  assert.is(s.pagingFailing, base + 2);
  // The Opsgenie receiver was never tried: unknown, not counted.
  assert.is(s.receivers.find((r) => r.id === og.receiver.id)?.state, 'unknown');

  // A disabled receiver is not expected to page; the rule no longer paging unmarks the other.
  await ok(as(ctx.api, 'PUT', `/notifications/receivers/${pd.receiver.id}`, { enabled: false }));
  await ok(as(ctx.api, 'PUT', `/notifications/rules/${chat.rule.id}`, { paging: false }));
  const after = await summary(ctx.api);
  assert.is(after.pagingFailing, base);
  assert.is(after.receivers.find((r) => r.id === chat.receiver.id)?.paging, false);
});

test('rules refuse a paging that is not true or false', async (ctx) => {
  const answer = await as(ctx.api, 'POST', '/notifications/rules', {
    name: `bad-${tag()}`,
    receivers: [],
    escalations: [],
    paging: 'yes',
  });
  assert.is(answer.status, 400);
  assert.match(JSON.stringify(answer.body), /paging must be true or false/);
});

test.run();

// ---- the live event, on an app of its own (so that no other receiver changes meanwhile) --------

const live = suite<Ctx>('notification health: live', {} as Ctx);
live.before(async (ctx) => {
  ctx.clients = [];
  ctx.stub = await StubService.start();
  await startApp(
    ctx,
    securedSettings('notify_health_live', 'notify-health-secret-0123456789', { ADMIN_KEY, ...DELIVERY }),
  );
});
live.after(async (ctx) => {
  for (const c of ctx.clients.splice(0)) c.close();
  await ctx.stub?.close();
  await stopApp(ctx);
});

live(
  'sockets that may read notifications hear each change of state, with the summary; others do not',
  async (ctx) => {
    const readerKey = (
      await ok(
        as(ctx.api, 'POST', '/key', {
          user: 'admin@example.com',
          scopes: ['read:alerts'],
          text: 'alerts only',
        }),
        201,
      )
    ).key as string;
    const heard = await listen(ctx, ctx.origin);
    const outsider = await listen(ctx, ctx.origin, readerKey);
    const activity = await listenActivity(ctx, ctx.origin);
    const outsiderActivity = await listenActivity(ctx, ctx.origin, readerKey);
    const { receiver, event } = await route(ctx.api, ctx.stub);
    // Making the receiver and its rule is told too (what makes a receiver paging may change).
    await until(() => heard.find((m) => stateIn(m, receiver.id) === 'unknown'), 5000, 'the new receiver');
    await sleep(500);
    const from = heard.length;
    ctx.stub.status = 500;
    await raise(ctx.api, event);
    const failing = await until(
      () => heard.find((m) => stateIn(m, receiver.id) === 'failing'),
      15_000,
      'a failing push',
    );
    // The body is GET /notifications/health's.
    assert.equal(failing, await summary(ctx.api));
    assert.is(failing.pagingFailing, 0);
    // Further failures change no state: no push for them (this app has no other receiver), but
    // they are told as activity, at most once a second.
    const activityFrom = activity.length;
    await healthWhen(ctx.api, receiver.id, (h) => h.failedAttempts >= 3, 'more failures');
    assert.is(heard.length - from, 1);
    await until(() => activity.length > activityFrom, 5000, 'activity after further failures');
    for (let i = 1; i < activity.length; i++)
      assert.ok(
        activity[i]! - activity[i - 1]! >= 900,
        `activity ${i} came ${activity[i]! - activity[i - 1]!} ms after the one before`,
      );
    ctx.stub.status = 200;
    await until(() => heard.find((m) => stateIn(m, receiver.id) === 'ok'), 15_000, 'an ok push');
    await sleep(300);
    assert.is(heard.length - from, 2);
    assert.equal(outsider, []);
    assert.equal(outsiderActivity, []);
  },
);

live.run();

// ---- two instances on one database and Redis -------------------------------------------------

interface Two extends Ctx {
  other: Running;
  otherApi: Api;
}

const two = suite<Two>('notification health: two instances', {} as Two);
two.before(async (ctx) => {
  ctx.clients = [];
  ctx.stub = await StubService.start();
  const shared = { ADMIN_KEY, ...DELIVERY, REDIS_URL, BUS_CHANNEL: `notify-health-${randomUUID()}` };
  const secured = securedSettings('notify_health_two', 'notify-health-secret-0123456789', shared);
  await startApp(ctx, secured);
  ctx.other = await bootInstance(ctx.db.url, { ...secured, PLUGINS: 'remote_ip' });
  ctx.otherApi = apiFor(ctx.other);
});
two.after(async (ctx) => {
  for (const c of ctx.clients.splice(0)) c.close();
  await ctx.other?.close();
  await ctx.stub?.close();
  await stopApp(ctx);
});

two(
  'both instances deliver into one health: the same answer from each, and every socket hears each change',
  async (ctx) => {
    const { receiver, event } = await route(ctx.api, ctx.stub);
    const originB = `http://127.0.0.1:${ctx.other.port}`;
    const onA = await listen(ctx, ctx.origin);
    const onB = await listen(ctx, originB);
    ctx.stub.status = 500;
    // Alerts through both instances: either one's worker may take each message.
    await Promise.all([raise(ctx.api, event), raise(ctx.otherApi, event), raise(ctx.api, event)]);
    const failing = await healthWhen(
      ctx.api,
      receiver.id,
      (h) => h.failedAttempts >= 4,
      'four failed attempts',
    );
    assert.is(failing.state, 'failing');
    for (const heard of [onA, onB])
      await until(() => heard.find((m) => stateIn(m, receiver.id) === 'failing'), 15_000, 'failing pushed');
    const onOther = await healthOf(ctx.otherApi, receiver.id);
    assert.is(onOther.state, 'failing');
    assert.is(onOther.failingSince, failing.failingSince);
    assert.ok(onOther.failedAttempts >= failing.failedAttempts);

    ctx.stub.status = 200;
    const fine = await healthWhen(
      ctx.otherApi,
      receiver.id,
      (h) => h.state === 'ok' && h.queued === 0,
      'ok on B',
    );
    assert.equal(await healthOf(ctx.api, receiver.id), fine);
    assert.is(fine.failedAttempts, 0);
    for (const heard of [onA, onB])
      await until(() => heard.find((m) => stateIn(m, receiver.id) === 'ok'), 15_000, 'ok pushed');
    assert.equal(await summary(ctx.api), await summary(ctx.otherApi));
  },
);

two.run();
