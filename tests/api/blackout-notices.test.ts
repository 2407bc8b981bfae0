/**
 * Blackout notices (docs/notifications.md, "Blackout notices"): a rule with `blackoutNotices` tells
 * its receivers when a blackout it matches starts and ends, one-off and recurring, through the
 * delivery queue (history kinds blackoutStart / blackoutEnd); every receiver type gets a readable
 * message; two instances on one database tell each edge once.
 */
import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { Engine } from '../../server/notifications/engine.ts';
import { DeliveriesPageSchema, RuleSchema } from '../../shared/notifications.ts';
import { apiFor, twoInstanceSuite, type TwoInstances } from '../helpers/app.ts';
import type { Api } from '../helpers/api.ts';
import { queryDb } from '../helpers/db.ts';
import { sleep } from '../helpers/live.ts';
import { MailServer, StubService, type Received } from '../helpers/receivers.ts';
import { okResponse } from '../helpers/secured.ts';

interface Ctx extends TwoInstances {
  stub: StubService;
  mail: MailServer;
}

const test = twoInstanceSuite<Ctx>(
  'blackout notices',
  { TEST_LABEL: 'blackout_notices', DASHBOARD_URL: 'https://alerts.example.com', NOTIFY_RETRY_DELAY: '0.2' },
  { DASHBOARD_URL: 'https://alerts.example.com', NOTIFY_RETRY_DELAY: '0.2' },
);
test.before(async (ctx) => {
  ctx.stub = await StubService.start();
  ctx.mail = await MailServer.start();
});
test.after(async (ctx) => {
  await ctx.stub?.close();
  await ctx.mail?.close();
});

const tag = () => randomBytes(4).toString('hex');
const at = (ms: number) => new Date(ms).toISOString();

/** A receiver of `type` at the stub under its own path, and a rule with `rule`'s fields naming it. */
async function route(ctx: Ctx, rule: Record<string, unknown>, type = 'webhook') {
  const id = tag();
  const path = `/hook/${id}`;
  const settings: Record<string, unknown> =
    type === 'pagerduty'
      ? { routingKey: `rk-${id}`, url: ctx.stub.url(`${path}/v2/enqueue`) }
      : type === 'opsgenie'
        ? { apiKey: `key-${id}`, url: ctx.stub.url(path) }
        : type === 'telegram'
          ? { token: `tok${id}`, chatId: '42', apiUrl: ctx.stub.url(path) }
          : type === 'email'
            ? { to: [`ops-${id}@example.com`], host: '127.0.0.1', port: ctx.mail.port, ignoreTLS: true }
            : { url: ctx.stub.url(path) };
  const receiver = (
    await okResponse(await ctx.api.post('/notifications/receivers', { name: `r-${id}`, type, settings }), 201)
  ).receiver as { id: string; name: string };
  const made = RuleSchema.parse(
    (
      await okResponse(
        await ctx.api.post('/notifications/rules', {
          name: `rule-${id}`,
          receivers: [receiver.name],
          groupWait: 0,
          continue: true,
          ...rule,
        }),
        201,
      )
    ).rule,
  );
  const mine = (r: Received) => r.path.startsWith(path);
  return { id, path, receiver, rule: made, mine };
}

async function blackout(api: Api, body: Record<string, unknown>): Promise<string> {
  return (await okResponse(await api.post('/blackout', body), 201)).id as string;
}

/** The notices a webhook request carries. */
const noticesOf = (r: Received) => r.json.blackouts as Record<string, unknown>[];

test('a rule opts in with blackoutNotices (off by default); a wrong type is a 400 naming it', async (ctx) => {
  const { rule } = await route(ctx, { environment: 'Nowhere' });
  assert.is(rule.blackoutNotices, false);
  const res = await ctx.api.put(`/notifications/rules/${rule.id}`, { blackoutNotices: 'yes' });
  assert.is(res.status, 400);
  assert.match(((await res.json()) as { message: string }).message, 'blackoutNotices must be true or false');
  const on = RuleSchema.parse(
    (await okResponse(await ctx.api.put(`/notifications/rules/${rule.id}`, { blackoutNotices: true }))).rule,
  );
  assert.is(on.blackoutNotices, true);
});

test('a one-off window: its start and its end are told to the rules that match it, once each', async (ctx) => {
  const resource = `db-${tag()}`;
  const told = await route(ctx, { environment: 'Production', resource: 'db-.*', blackoutNotices: true });
  const silent = await route(ctx, { environment: 'Production' });
  const elsewhere = await route(ctx, { environment: 'Staging', blackoutNotices: true });
  const start = Date.now() + 1000;
  const id = await blackout(ctx.api, {
    environment: 'Production',
    resource,
    startTime: at(start),
    endTime: at(start + 3000),
    text: 'nightly backup',
  });
  const [first, second] = await ctx.stub.waitFor(2, told.mine);
  assert.is(first!.json.status, 'maintenance');
  assert.equal(first!.json.alerts, []);
  const [started] = noticesOf(first!);
  assert.is(started!.kind, 'blackoutStart');
  assert.is(started!.id, id);
  assert.is(started!.text, 'nightly backup');
  assert.equal([started!.startTime, started!.endTime], [at(start), at(start + 3000)]);
  const until = new Date(start + 3000).toISOString().slice(11, 16);
  assert.is(first!.json.summary, `maintenance started: Production/${resource}, until ${until} UTC`);
  assert.is(started!.href, 'https://alerts.example.com/blackouts');
  const [ended] = noticesOf(second!);
  assert.is(ended!.kind, 'blackoutEnd');
  assert.is(second!.json.summary, `maintenance ended: Production/${resource}`);
  await sleep(2500);
  assert.is(ctx.stub.received.filter(told.mine).length, 2, 'each edge once');
  assert.is(ctx.stub.received.filter(silent.mine).length, 0, 'a rule without blackoutNotices hears nothing');
  assert.is(ctx.stub.received.filter(elsewhere.mine).length, 0, 'nor one whose environment differs');
  // The delivery history names the blackout, with a kind for each edge.
  const history = DeliveriesPageSchema.parse(
    await okResponse(await ctx.api.get(`/notifications/deliveries?receiver=${told.receiver.name}`)),
  );
  assert.equal(
    history.deliveries.map((d) => [d.kind, d.outcome, d.blackoutId, d.alertId, d.resource, d.attempt]),
    [
      ['blackoutEnd', 'sent', id, null, resource, 1],
      ['blackoutStart', 'sent', id, null, resource, 1],
    ],
  );
});

test('two instances on one database tell each edge once, however their looks race', async (ctx) => {
  const resource = `race-${tag()}`;
  const told = await route(ctx, { resource, blackoutNotices: true });
  const engines = [ctx.running.deps.notifier, ctx.other.deps.notifier] as unknown as Engine[];
  // Both instances know the rule before the window starts.
  await Promise.all(engines.map((e) => e.reload()));
  const start = Date.now() + 500;
  const id = await blackout(apiFor(ctx.other), {
    environment: 'Production',
    resource,
    startTime: at(start),
    endTime: at(start + 2000),
  });
  // Besides their own timers, both look at the same moments, side by side.
  let queued = 0;
  for (let t = start; t <= start + 2600; t += 100) {
    await sleep(Math.max(0, t - Date.now()));
    const counts = await Promise.all(engines.map((e) => e.notices.tick(t)));
    queued += counts.reduce((a, b) => a + b, 0);
  }
  await ctx.stub.waitFor(2, told.mine);
  await sleep(1500);
  const kinds = ctx.stub.received.filter(told.mine).map((r) => noticesOf(r)[0]!.kind);
  assert.equal(kinds, ['blackoutStart', 'blackoutEnd']);
  assert.ok(queued <= 2, 'the side-by-side looks queued no edge the timers had queued');
  const claims = await queryDb<{ edge: string }>(
    ctx.db.url,
    'SELECT edge FROM blackout_notices WHERE blackout_id = $1 ORDER BY edge DESC',
    [id],
  );
  assert.equal(
    claims.map((c) => c.edge),
    ['start', 'end'],
  );
});

test('a recurring window: each occurrence is told as it starts and ends, with the rule in words', async (ctx) => {
  const resource = `rec-${tag()}`;
  const told = await route(ctx, { resource, blackoutNotices: true });
  const id = await blackout(ctx.api, {
    environment: 'Production',
    resource,
    rrule: 'FREQ=MINUTELY;BYSECOND=0,10,20,30,40,50',
    timezone: 'Europe/Berlin',
    duration: 3,
  });
  const got = await ctx.stub.waitFor(3, told.mine, 30_000);
  await okResponse(await ctx.api.delete(`/blackout/${id}`));
  // Its series began at local midnight: the windows before it was made are not told. Notices due
  // together travel in one message (docs/notifications.md, "Grouping"), so a slow worker may send an
  // end and the next start at once: read them in the order sent.
  const notices = got.flatMap((r) => noticesOf(r));
  // Each edge once.
  const edges = notices.map((n) => `${String(n.kind)} ${String(n.startTime)}`);
  assert.equal(edges, [...new Set(edges)]);
  // The first may be an end (a window already under way when created); a start is followed by its end.
  const i = notices.findIndex((n) => n.kind === 'blackoutStart');
  const [start, end] = [notices[i]!, notices[i + 1]!];
  assert.is(end.kind, 'blackoutEnd');
  assert.is(start.startTime, end.startTime);
  assert.is(Date.parse(start.endTime as string) - Date.parse(start.startTime as string), 3000);
  assert.is(new Date(start.startTime as string).getUTCSeconds() % 10, 0);
  assert.is(start.description, 'every minute at second 0, 10, 20, 30, 40 and 50 for 3s Europe/Berlin');
  // A message of one notice is titled by it; one of several counts them.
  const carrying = got.find((r) => noticesOf(r).includes(start))!;
  assert.match(
    carrying.json.summary as string,
    noticesOf(carrying).length === 1
      ? /^maintenance started: Production\/rec-\w+, until \d\d:\d\d Europe\/Berlin$/
      : /^\d+ maintenance windows \(.+\): (\d+ started, \d+ ended|\d+ started|\d+ ended)$/,
  );
});

test('a window already on when made is told as started; one already over is not told', async (ctx) => {
  const resource = `late-${tag()}`;
  const told = await route(ctx, { resource, blackoutNotices: true });
  const now = Date.now();
  await blackout(ctx.api, {
    environment: 'Production',
    resource,
    startTime: at(now - 120_000),
    endTime: at(now - 60_000),
  });
  const on = await blackout(ctx.api, {
    environment: 'Production',
    resource,
    startTime: at(now - 60_000),
    endTime: at(now + 1500),
  });
  const got = await ctx.stub.waitFor(2, told.mine);
  await sleep(1500);
  assert.equal(
    ctx.stub.received.filter(told.mine).map((r) => [noticesOf(r)[0]!.kind, noticesOf(r)[0]!.id]),
    [
      ['blackoutStart', on],
      ['blackoutEnd', on],
    ],
  );
  assert.is(got.length, 2);
});

test('every receiver type gets a readable message', async (ctx) => {
  const resource = `kinds-${tag()}`;
  const rule = { resource, blackoutNotices: true };
  const routes = Object.fromEntries(
    await Promise.all(
      ['slack', 'mattermost', 'msteams', 'telegram', 'pagerduty', 'opsgenie', 'email'].map(
        async (type) => [type, await route(ctx, rule, type)] as const,
      ),
    ),
  );
  const mailsBefore = ctx.mail.mails.length;
  const start = Date.now() + 1000;
  const id = await blackout(ctx.api, {
    environment: 'Production',
    resource,
    service: ['db'],
    startTime: at(start),
    endTime: at(start + 2000),
    text: 'patching',
  });
  const line = `maintenance started: Production/${resource} (service db), until ${at(start + 2000).slice(11, 16)} UTC`;
  const ended = `maintenance ended: Production/${resource} (service db)`;
  const two = async (type: string) => ctx.stub.waitFor(2, routes[type]!.mine);
  const [slack1, slack2] = await two('slack');
  assert.is(slack1!.json.text, line);
  const attachment = (slack1!.json.attachments as Record<string, unknown>[])[0]!;
  assert.is(attachment.title, line);
  assert.is(attachment.text, 'patching');
  assert.is(attachment.callback_id, undefined, 'no Ack buttons');
  assert.is(slack2!.json.text, ended);
  assert.is((await two('mattermost'))[0]!.json.text, line);
  const [teams] = await two('msteams');
  assert.equal([teams!.json.title, teams!.json['@type']], [line, 'MessageCard']);
  const [telegram] = await two('telegram');
  assert.ok(telegram!.path.endsWith('/sendMessage'));
  assert.match(telegram!.json.text as string, `<b>${line}</b>`);
  assert.is(telegram!.json.reply_markup, undefined);
  const [pdStart, pdEnd] = await two('pagerduty');
  assert.ok(pdStart!.path.endsWith('/v2/change/enqueue'), 'a change event, which pages nobody');
  assert.is((pdStart!.json.payload as Record<string, unknown>).summary, line);
  assert.is((pdEnd!.json.payload as Record<string, unknown>).summary, ended);
  const [ogStart, ogEnd] = await two('opsgenie');
  assert.equal([ogStart!.json.message, ogStart!.json.priority], [line, 'P5']);
  assert.is(ogStart!.json.alias, `blackout-${id}-${start}`);
  assert.is(
    ogEnd!.path,
    `${routes.opsgenie!.path}/v2/alerts/blackout-${id}-${start}/close?identifierType=alias`,
  );
  const mails = await ctx.mail.waitFor(mailsBefore + 2);
  // Headers unfolded (a long subject is folded over lines).
  const mine = mails.slice(mailsBefore).map((m) => m.raw.replace(/\r?\n[ \t]+/g, ' ').replace(/ +/g, ' '));
  assert.ok(
    mine.some((raw) => raw.includes(`Subject: [alertwall] ${line}`)),
    'the e-mail says it in its subject',
  );
});

test.run();
