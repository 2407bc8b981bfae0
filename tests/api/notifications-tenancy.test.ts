/**
 * CUSTOMER_VIEWS and notifications: a caller restricted to a customer sees, changes and tests only
 * its customer's receivers and rules (global ones included: not found), creates them for its
 * customer only, names only its customer's receivers in its rules, and sees an alert's deliveries
 * only for its own alerts; a customer's rule is told only about that customer's alerts and reaches
 * only that customer's receivers, enforced in routing whatever the tables hold (docs/notifications.md,
 * "Customers"). Every notifications endpoint, for a customer's reader, each customer's
 * notifications admin and an admin.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Api, Answer } from '../helpers/api.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { sleep, until } from '../helpers/live.ts';
import { StubService, type Received } from '../helpers/receivers.ts';
import { callAs, ok, securedSettings } from '../helpers/secured.ts';

const ADMIN_KEY = 'notify-tenancy-admin-key-0123456789';
type Who = 'admin' | 'acmeReader' | 'acme' | 'globex';

interface Ctx extends AppContext {
  stub: StubService;
  keys: Record<Who, string>;
  ids: Record<string, string>;
}

const test = suite<Ctx>('notifications: customers', {} as Ctx);

const call = (ctx: Ctx, who: Who, method: string, path: string, body?: unknown): Promise<Answer> =>
  callAs(ctx.api, method, path, { key: ctx.keys[who], body });

/** A key made through the API (whatever form keys are stored in). */
async function keyFor(api: Api, user: string, customer: string, scopes: string[]): Promise<string> {
  const body = await ok(
    callAs(api, 'POST', '/key', { key: ADMIN_KEY, body: { user, customer, scopes, text: user } }),
    201,
  );
  return body.key as string;
}

const hook = (ctx: Ctx, path: string) => ({
  url: ctx.stub.url(`/${path}/token-${path}`),
  secret: `hmac-${path}`,
});
const alertsAt = (ctx: Ctx, path: string): Received[] =>
  ctx.stub.received.filter((r) => r.path.startsWith(`/${path}/`));
const alertIds = (rs: Received[]) =>
  rs.flatMap((r) => (r.json.alerts as { id: string }[] | undefined)?.map((a) => a.id) ?? []);

/** A webhook receiver made by `who` for the stub's `name` path; its id is kept in ctx.ids. */
async function addHook(ctx: Ctx, who: Who, name: string): Promise<Record<string, unknown>> {
  const body = await ok(
    call(ctx, who, 'POST', '/notifications/receivers', { name, type: 'webhook', settings: hook(ctx, name) }),
    201,
  );
  ctx.ids[name] = body.id as string;
  return body.receiver as Record<string, unknown>;
}

/** An alert in Production for service web, sent as `who`; its id. */
async function raise(ctx: Ctx, who: Who, resource: string, event: string, severity: string): Promise<string> {
  const body = await ok(
    call(ctx, who, 'POST', '/alert', {
      resource,
      event,
      environment: 'Production',
      service: ['web'],
      severity,
    }),
    201,
  );
  return (body.alert as { id: string }).id;
}

/** Waits until every alert id has reached the receiver at `path`. */
const reached = (ctx: Ctx, path: string, ids: string[]) =>
  until(
    () => (ids.every((id) => alertIds(alertsAt(ctx, path)).includes(id)) ? true : undefined),
    15_000,
    () => `${path} got ${JSON.stringify(alertIds(alertsAt(ctx, path)))}, expected ${JSON.stringify(ids)}`,
  );

test.before(async (ctx) => {
  ctx.stub = await StubService.start();
  await startApp(
    ctx,
    securedSettings('notify_tenancy', 'notify-tenancy-secret-0123456789', {
      CUSTOMER_VIEWS: 'True',
      ADMIN_KEY,
      NOTIFY_RETRY_DELAY: '0.2',
      NOTIFY_RETRY_MAX_DELAY: '0.5',
    }),
  );
  const notify = ['read', 'write', 'admin:notifications'];
  ctx.keys = {
    admin: ADMIN_KEY,
    acmeReader: await keyFor(ctx.api, 'reader@acme.example', 'acme', ['read']),
    acme: await keyFor(ctx.api, 'ops@acme.example', 'acme', notify),
    globex: await keyFor(ctx.api, 'ops@globex.example', 'globex', notify),
  };
  ctx.ids = {};
  const rule = async (who: Who, name: string, receivers: string[]) => {
    const body = await ok(
      call(ctx, who, 'POST', '/notifications/rules', { name, receivers, continue: true, groupWait: 0 }),
      201,
    );
    ctx.ids[name] = body.id as string;
    return body.rule as Record<string, unknown>;
  };
  // Made by each customer's own admin (so owned by it without saying), and a global pair by the admin.
  assert.is((await addHook(ctx, 'acme', 'acme-hook')).customer, 'acme');
  assert.is((await addHook(ctx, 'globex', 'globex-hook')).customer, 'globex');
  assert.is((await addHook(ctx, 'admin', 'ops-hook')).customer, null);
  assert.is((await rule('acme', 'acme-rule', ['acme-hook'])).owner, 'acme');
  assert.is((await rule('globex', 'globex-rule', ['globex-hook'])).owner, 'globex');
  assert.is((await rule('admin', 'ops-rule', ['ops-hook'])).owner, null);
});
test.after(async (ctx) => {
  await ctx.stub?.close();
  await stopApp(ctx);
});

const names = (body: Record<string, unknown>, list: 'receivers' | 'rules') =>
  (body[list] as { name: string }[]).map((r) => r.name).sort();

test('GET /notifications/receivers and /rules list only the caller customer; the admin sees all', async (ctx) => {
  for (const who of ['acmeReader', 'acme'] as const) {
    const receivers = await ok(call(ctx, who, 'GET', '/notifications/receivers'));
    assert.equal([names(receivers, 'receivers'), receivers.total], [['acme-hook'], 1], who);
    assert.not.match(JSON.stringify(receivers), /globex|ops-hook/);
    const rules = await ok(call(ctx, who, 'GET', '/notifications/rules'));
    assert.equal([names(rules, 'rules'), rules.total], [['acme-rule'], 1], who);
    assert.not.match(JSON.stringify(rules), /globex|ops-/);
  }
  assert.equal(names(await ok(call(ctx, 'globex', 'GET', '/notifications/receivers')), 'receivers'), [
    'globex-hook',
  ]);
  assert.equal(names(await ok(call(ctx, 'globex', 'GET', '/notifications/rules')), 'rules'), ['globex-rule']);
  assert.equal(names(await ok(call(ctx, 'admin', 'GET', '/notifications/receivers')), 'receivers'), [
    'acme-hook',
    'globex-hook',
    'ops-hook',
  ]);
  assert.equal(names(await ok(call(ctx, 'admin', 'GET', '/notifications/rules')), 'rules'), [
    'acme-rule',
    'globex-rule',
    'ops-rule',
  ]);
});

test('/management/status tells a customer only about its own receivers', async (ctx) => {
  const status = async (who: Who) => {
    const body = await ok(call(ctx, who, 'GET', '/management/status'));
    return ((body.notifications as { receivers: { name: string }[] }).receivers ?? [])
      .map((r) => r.name)
      .sort();
  };
  assert.equal(await status('acmeReader'), ['acme-hook']);
  assert.equal(await status('globex'), ['globex-hook']);
  assert.equal(await status('admin'), ['acme-hook', 'globex-hook', 'ops-hook']);
});

test("another customer's or a global receiver or rule is not found by id or name, for reading or changing", async (ctx) => {
  const foreign = { acme: ['globex-hook', 'ops-hook'], globex: ['acme-hook', 'ops-hook'] };
  const foreignRules = { acme: ['globex-rule', 'ops-rule'], globex: ['acme-rule', 'ops-rule'] };
  for (const who of ['acme', 'globex'] as const) {
    for (const name of foreign[who]) {
      for (const key of [name, ctx.ids[name]!]) {
        const path = `/notifications/receivers/${key}`;
        assert.is((await call(ctx, who, 'GET', path)).status, 404, `${who} GET ${path}`);
        assert.is((await call(ctx, who, 'PUT', path, { enabled: false })).status, 404, `${who} PUT ${path}`);
        assert.is((await call(ctx, who, 'POST', `${path}/test`)).status, 404, `${who} test ${path}`);
        assert.is((await call(ctx, who, 'DELETE', path)).status, 404, `${who} DELETE ${path}`);
      }
    }
    for (const name of foreignRules[who]) {
      for (const key of [name, ctx.ids[name]!]) {
        const path = `/notifications/rules/${key}`;
        assert.is((await call(ctx, who, 'GET', path)).status, 404, `${who} GET ${path}`);
        assert.is((await call(ctx, who, 'PUT', path, { enabled: false })).status, 404, `${who} PUT ${path}`);
        assert.is((await call(ctx, who, 'DELETE', path)).status, 404, `${who} DELETE ${path}`);
      }
    }
  }
  assert.is((await call(ctx, 'acmeReader', 'GET', '/notifications/receivers/globex-hook')).status, 404);
  assert.is((await call(ctx, 'acmeReader', 'GET', '/notifications/rules/ops-rule')).status, 404);
  // Nothing changed or went away.
  const all = await ok(call(ctx, 'admin', 'GET', '/notifications/receivers'));
  assert.ok((all.receivers as { enabled: boolean }[]).every((r) => r.enabled));
  assert.is(all.total, 3);
  const rules = await ok(call(ctx, 'admin', 'GET', '/notifications/rules'));
  assert.ok((rules.rules as { enabled: boolean }[]).every((r) => r.enabled));
  assert.is(rules.total, 3);
});

test('own receivers and rules are read by the reader and changed and tested by the customer admin', async (ctx) => {
  const mine = await ok(call(ctx, 'acmeReader', 'GET', '/notifications/receivers/acme-hook'));
  assert.is((mine.receiver as { customer: string }).customer, 'acme');
  assert.is(
    (await ok(call(ctx, 'acmeReader', 'GET', `/notifications/rules/${ctx.ids['acme-rule']}`))).status,
    'ok',
  );
  // The plain read scope does not change anything, even its own customer's.
  const denied = await call(ctx, 'acmeReader', 'PUT', '/notifications/receivers/acme-hook', {
    enabled: false,
  });
  assert.equal([denied.status, denied.body.message], [403, 'Missing required scope: admin:notifications']);
  const updated = await ok(
    call(ctx, 'acme', 'PUT', '/notifications/receivers/acme-hook', { rateLimit: 600 }),
  );
  assert.is((updated.receiver as { rateLimit: number }).rateLimit, 600);
  const tested = await ok(call(ctx, 'acme', 'POST', '/notifications/receivers/acme-hook/test'));
  assert.is(tested.outcome, 'sent', JSON.stringify(tested));
  const rule = await ok(call(ctx, 'acme', 'PUT', '/notifications/rules/acme-rule', { priority: 5 }));
  assert.equal(
    [(rule.rule as { priority: number }).priority, (rule.rule as { owner: string }).owner],
    [5, 'acme'],
  );
  // The admin manages every customer's, and the global ones.
  await ok(call(ctx, 'admin', 'PUT', '/notifications/receivers/globex-hook', { rateLimit: 600 }));
  await ok(call(ctx, 'admin', 'POST', '/notifications/receivers/ops-hook/test'));
});

test('a customer creates only for itself: another customer or a global one is refused', async (ctx) => {
  const other = await call(ctx, 'acme', 'POST', '/notifications/receivers', {
    name: 'acme-sneaky',
    type: 'webhook',
    customer: 'globex',
    settings: hook(ctx, 'sneaky'),
  });
  assert.equal([other.status, other.body.message], [400, "not allowed to set customer to 'globex'"]);
  const ownRule = await call(ctx, 'acme', 'POST', '/notifications/rules', {
    name: 'acme-sneaky-rule',
    owner: 'globex',
    receivers: ['acme-hook'],
  });
  assert.equal([ownRule.status, ownRule.body.message], [400, "not allowed to set customer to 'globex'"]);
  // Null asks for a global one: a customer gets its own instead, as for blackouts.
  const nulled = await ok(
    call(ctx, 'acme', 'POST', '/notifications/receivers', {
      name: 'acme-second',
      type: 'webhook',
      customer: null,
      settings: hook(ctx, 'acme-second'),
    }),
    201,
  );
  assert.is((nulled.receiver as { customer: string }).customer, 'acme');
  // Moving one's own to another customer is refused; null keeps it.
  const moved = await call(ctx, 'acme', 'PUT', '/notifications/receivers/acme-second', {
    customer: 'globex',
  });
  assert.is(moved.status, 400);
  const kept = await ok(call(ctx, 'acme', 'PUT', '/notifications/receivers/acme-second', { customer: null }));
  assert.is((kept.receiver as { customer: string }).customer, 'acme');
  await ok(call(ctx, 'acme', 'DELETE', '/notifications/receivers/acme-second'));
  assert.is((await call(ctx, 'admin', 'GET', '/notifications/receivers/acme-second')).status, 404);
});

test("a customer's rule names only its customer's receivers; a global rule any", async (ctx) => {
  for (const name of ['globex-hook', 'ops-hook']) {
    const a = await call(ctx, 'acme', 'POST', '/notifications/rules', {
      name: `acme-to-${name}`,
      receivers: [name],
    });
    // Not even their existence is told.
    assert.equal([a.status, a.body.message], [400, `receivers: no receiver named '${name}'`]);
    const esc = await call(ctx, 'acme', 'PUT', '/notifications/rules/acme-rule', {
      escalations: [{ after: 60, receivers: [name] }],
    });
    assert.equal([esc.status, esc.body.message], [400, `receivers: no receiver named '${name}'`]);
  }
  // The admin sees them all, and is told why.
  const owned = await call(ctx, 'admin', 'POST', '/notifications/rules', {
    name: 'acme-to-ops',
    owner: 'acme',
    receivers: ['ops-hook'],
  });
  assert.equal(
    [owned.status, owned.body.message],
    [
      400,
      "receivers: 'ops-hook' belongs to no customer (global); a rule of customer 'acme' may name only that customer's receivers",
    ],
  );
  const moveRule = await call(ctx, 'admin', 'PUT', '/notifications/rules/acme-rule', { owner: 'globex' });
  assert.is(moveRule.status, 400);
  // A global rule may name a customer's receiver (routing gives it only that customer's alerts).
  await ok(
    call(ctx, 'admin', 'POST', '/notifications/rules', { name: 'ops-to-acme', receivers: ['acme-hook'] }),
    201,
  );
  await ok(call(ctx, 'admin', 'DELETE', '/notifications/rules/ops-to-acme'));
  // A receiver named by its customer's rule cannot move away from under it.
  const moveReceiver = await call(ctx, 'admin', 'PUT', '/notifications/receivers/acme-hook', {
    customer: 'globex',
  });
  assert.equal(moveReceiver.status, 409);
  assert.match(moveReceiver.body.message as string, /named by rule 'acme-rule' of customer 'acme'/);
});

test('a global rule and its receiver from before owners can be handed to a customer, receiver first', async (ctx) => {
  await addHook(ctx, 'admin', 'legacy-hook');
  await ok(
    call(ctx, 'admin', 'POST', '/notifications/rules', { name: 'legacy-rule', receivers: ['legacy-hook'] }),
    201,
  );
  const rule = await call(ctx, 'admin', 'PUT', '/notifications/rules/legacy-rule', { owner: 'acme' });
  assert.equal(
    [rule.status, rule.body.message],
    [
      400,
      "receivers: 'legacy-hook' belongs to no customer (global); a rule of customer 'acme' may name only that customer's receivers",
    ],
  );
  await ok(call(ctx, 'admin', 'PUT', '/notifications/receivers/legacy-hook', { customer: 'acme' }));
  await ok(call(ctx, 'admin', 'PUT', '/notifications/rules/legacy-rule', { owner: 'acme' }));
  assert.is((await ok(call(ctx, 'acmeReader', 'GET', '/notifications/rules/legacy-rule'))).status, 'ok');
  assert.is((await call(ctx, 'globex', 'GET', '/notifications/receivers/legacy-hook')).status, 404);
  await ok(call(ctx, 'acme', 'DELETE', '/notifications/rules/legacy-rule'));
  await ok(call(ctx, 'acme', 'DELETE', '/notifications/receivers/legacy-hook'));
});

test("alerts reach their customer's rules and receivers only; delivery history follows the alert", async (ctx) => {
  const acmeAlert = await raise(ctx, 'acme', 'shared-host', 'AcmeDown', 'major');
  const globexAlert = await raise(ctx, 'globex', 'shared-host', 'GlobexDown', 'major');
  // The global rule tells the global receiver about both; each customer's about its own.
  await reached(ctx, 'ops-hook', [acmeAlert, globexAlert]);
  await reached(ctx, 'acme-hook', [acmeAlert]);
  await reached(ctx, 'globex-hook', [globexAlert]);
  await sleep(300);
  assert.not.ok(alertIds(alertsAt(ctx, 'acme-hook')).includes(globexAlert));
  assert.not.ok(alertIds(alertsAt(ctx, 'globex-hook')).includes(acmeAlert));

  // GET /alert/:id/notifications: the alert's customer and the admin; anyone else: 404.
  const history = await ok(call(ctx, 'acmeReader', 'GET', `/alert/${acmeAlert}/notifications`));
  const texts = (history.delivered as { text: string }[]).map((h) => h.text);
  assert.ok(
    texts.some((t) => t.startsWith('acme-hook (webhook): trigger sent')),
    JSON.stringify(texts),
  );
  assert.is((await call(ctx, 'globex', 'GET', `/alert/${acmeAlert}/notifications`)).status, 404);
  assert.is((await call(ctx, 'acme', 'GET', `/alert/${globexAlert}/notifications`)).status, 404);
  await ok(call(ctx, 'admin', 'GET', `/alert/${globexAlert}/notifications`));
});

test("routing holds whatever the tables say: a customer's rule and receiver only ever see that customer's alerts", async (ctx) => {
  // Written behind the API's back (an old import, a hand edit): acme's rule names globex's receiver,
  // and the global rule names acme's.
  await queryDb(
    ctx.db.url,
    `UPDATE notification_rules SET receivers = CASE name WHEN 'acme-rule' THEN ARRAY['acme-hook', 'globex-hook']
       ELSE ARRAY['ops-hook', 'acme-hook'] END WHERE name IN ('acme-rule', 'ops-rule')`,
  );
  await ctx.running.deps.notifier.reload();
  const acmeAlert = await raise(ctx, 'acme', 'other-host', 'AcmeRoutingCheck', 'critical');
  const globexAlert = await raise(ctx, 'globex', 'other-host', 'GlobexRoutingCheck', 'critical');
  await reached(ctx, 'ops-hook', [globexAlert, acmeAlert]);
  await reached(ctx, 'acme-hook', [acmeAlert]);
  await reached(ctx, 'globex-hook', [globexAlert]);
  await sleep(300);
  // Acme's receiver heard of acme's alert from both rules, and of globex's from neither (the global
  // rule names it, acme's rule matches every alert by its patterns); globex's receiver, named by
  // acme's rule, heard nothing of acme's alert.
  const acmeRules = () =>
    alertsAt(ctx, 'acme-hook')
      .filter((r) => alertIds([r]).includes(acmeAlert))
      .map((r) => String(r.json.rule))
      .sort();
  await until(
    () => (acmeRules().length >= 2 ? true : undefined),
    15_000,
    () => JSON.stringify(acmeRules()),
  );
  assert.equal(acmeRules(), ['acme-rule', 'ops-rule']);
  assert.not.ok(alertIds(alertsAt(ctx, 'acme-hook')).includes(globexAlert));
  assert.not.ok(alertIds(alertsAt(ctx, 'globex-hook')).includes(acmeAlert));
});

test("messages queued for a receiver before it moved to a customer go out only for that customer's alerts", async (ctx) => {
  await addHook(ctx, 'admin', 'moving-hook');
  await ok(
    call(ctx, 'admin', 'POST', '/notifications/rules', {
      name: 'moving-rule',
      receivers: ['moving-hook'],
      continue: true,
      groupWait: 2,
    }),
    201,
  );
  const acmeAlert = await raise(ctx, 'acme', 'queued-host', 'acmeQueued', 'major');
  const globexAlert = await raise(ctx, 'globex', 'queued-host', 'globexQueued', 'major');
  // Both wait out the group wait in the queue while the receiver moves.
  await ok(call(ctx, 'admin', 'PUT', '/notifications/receivers/moving-hook', { customer: 'acme' }));
  await reached(ctx, 'moving-hook', [acmeAlert]);
  await sleep(500);
  assert.not.ok(alertIds(alertsAt(ctx, 'moving-hook')).includes(globexAlert));
  await ok(call(ctx, 'admin', 'DELETE', '/notifications/rules/moving-rule'));
});

test.run();
