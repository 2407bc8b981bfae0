import { SignJWT } from 'jose';
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import type { RequestOptions } from '../helpers/api.ts';
import { appSuite, type AppContext } from '../helpers/app.ts';
import { audienceOf } from '../../server/auth/tokens.ts';
import { customerKeys, insertKeys } from '../helpers/db.ts';
import { tokenUser } from '../helpers/users.ts';

/**
 * CUSTOMER_VIEWS: a caller restricted to one customer never sees or touches another customer's
 * alerts, blackouts, heartbeats or keys — by id or by query (auth.md §5).
 */
const KEYS = {
  acme: 'tenancy-acme-key-000000000000000000000000',
  globex: 'tenancy-globex-key-0000000000000000000000',
  admin: 'tenancy-admin-key-00000000000000000000000',
};
const as = (who: keyof typeof KEYS): RequestOptions => ({ headers: { Authorization: `Key ${KEYS[who]}` } });

interface Ctx extends AppContext {
  alerts: Record<'acme' | 'globex', Alert>;
}

const tenancy = appSuite<Ctx>('customer tenancy', {
  TEST_LABEL: 'tenancy',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'tenancy-secret',
  CUSTOMER_VIEWS: 'True',
  ADMIN_USERS: 'admin@example.com',
  PLUGINS: 'remote_ip',
});
tenancy.before(async (ctx) => {
  await insertKeys(ctx.db.url, customerKeys(KEYS));
  ctx.alerts = {} as Ctx['alerts'];
  for (const who of ['acme', 'globex'] as const) {
    const res = await ctx.api.post(
      '/alert',
      {
        resource: `shared-host`,
        event: `${who}-down`,
        environment: 'Production',
        service: ['web'],
        severity: 'major',
      },
      as(who),
    );
    assert.is(res.status, 201, await res.clone().text());
    ctx.alerts[who] = ((await res.json()) as { alert: Alert }).alert;
  }
});

const json = async <T>(res: Response) => (await res.json()) as T;

tenancy('alerts take the caller customer; a customer cannot set another one', async (ctx) => {
  assert.is(ctx.alerts.acme.customer, 'acme');
  assert.is(ctx.alerts.globex.customer, 'globex');
  const res = await ctx.api.post(
    '/alert',
    { resource: 'x', event: 'y', environment: 'Production', service: ['web'], customer: 'globex' },
    as('acme'),
  );
  assert.is(res.status, 400);
  assert.match((await json<{ message: string }>(res)).message, /not allowed to set customer to 'globex'/);
});

tenancy('searches, counts and reports only cover the caller customer', async (ctx) => {
  const { api } = ctx;
  const list = await json<{ alerts: Alert[]; total: number }>(await api.get('/alerts', as('acme')));
  assert.equal(
    list.alerts.map((a) => a.customer),
    ['acme'],
  );
  assert.is(list.total, 1);
  assert.is((await json<{ total: number }>(await api.get('/alerts/count', as('globex')))).total, 1);
  assert.is((await json<{ total: number }>(await api.get('/alerts/count', as('admin')))).total, 2);
  const q = encodeURIComponent('event:globex');
  assert.is((await json<{ total: number }>(await api.get(`/alerts?q=${q}`, as('acme')))).total, 0);
  assert.is((await json<{ total: number }>(await api.get(`/alerts?customer=globex`, as('acme')))).total, 0);
  const envs = await json<{ environments: { count: number }[] }>(await api.get('/environments', as('acme')));
  assert.equal(
    envs.environments.map((e) => e.count),
    [1],
  );
  const history = await json<{ history: { customer: string }[] }>(
    await api.get('/alerts/history', as('acme')),
  );
  assert.ok(history.history.length > 0 && history.history.every((h) => h.customer === 'acme'));
  const top = await json<{ top10: { count: number }[] }>(
    await api.get('/alerts/top10/count?group-by=resource', as('acme')),
  );
  assert.equal(
    top.top10.map((t) => t.count),
    [1],
  );
  const services = await json<{ services: { count: number }[] }>(await api.get('/services', as('globex')));
  assert.equal(
    services.services.map((s) => s.count),
    [1],
  );
});

tenancy('another customer alert is not found by id, prefix, action or delete, nor by bulk', async (ctx) => {
  const { api } = ctx;
  const theirs = ctx.alerts.globex;
  assert.is((await api.get(`/alert/${theirs.id}`, as('acme'))).status, 404);
  assert.is((await api.get(`/alert/${theirs.id.slice(0, 8)}`, as('acme'))).status, 404);
  assert.is((await api.get(`/alert/${theirs.id}/notes`, as('acme'))).status, 404);
  assert.is((await api.put(`/alert/${theirs.id}/status`, { status: 'closed' }, as('acme'))).status, 404);
  assert.is((await api.put(`/alert/${theirs.id}/action`, { action: 'ack' }, as('acme'))).status, 404);
  assert.is((await api.put(`/alert/${theirs.id}/tag`, { tags: ['x'] }, as('acme'))).status, 404);
  assert.is((await api.put(`/alert/${theirs.id}/note`, { text: 'hi' }, as('acme'))).status, 404);
  assert.is((await api.delete(`/alert/${theirs.id}`, as('acme'))).status, 404);
  const bulk = await api.request('DELETE', `/_bulk/alerts?resource=shared-host`, undefined, as('acme'));
  const body = await json<{ deleted: string[] }>(bulk);
  assert.equal(body.deleted, [ctx.alerts.acme.id]);
  const still = await api.get(`/alert/${theirs.id}`, as('globex'));
  assert.is(still.status, 200);
  assert.is((await json<{ alert: Alert }>(still)).alert.status, 'open');
});

tenancy('blackouts and heartbeats of another customer are invisible and untouchable', async (ctx) => {
  const { api } = ctx;
  const b = await api.post('/blackout', { environment: 'Production', resource: 'shared-host' }, as('globex'));
  assert.is(b.status, 201);
  const blackout = await json<{ id: string; blackout: { customer: string } }>(b);
  assert.is(blackout.blackout.customer, 'globex');
  assert.is((await json<{ total: number }>(await api.get('/blackouts', as('acme')))).total, 0);
  assert.is((await api.get(`/blackout/${blackout.id}`, as('acme'))).status, 404);
  assert.is((await api.put(`/blackout/${blackout.id}`, { text: 'mine now' }, as('acme'))).status, 404);
  assert.is((await api.delete(`/blackout/${blackout.id}`, as('acme'))).status, 404);
  // globex's blackout does not suppress acme's alerts.
  const acmeAlert = await api.post(
    '/alert',
    { resource: 'shared-host', event: 'again', environment: 'Production', service: ['web'] },
    as('acme'),
  );
  assert.is(acmeAlert.status, 201);

  const h = await api.post('/heartbeat', { origin: 'globex/probe' }, as('globex'));
  assert.is(h.status, 201);
  const hb = await json<{ id: string; heartbeat: { customer: string } }>(h);
  assert.is(hb.heartbeat.customer, 'globex');
  const acmeBeats = await json<{ heartbeats: unknown[] }>(await api.get('/heartbeats', as('acme')));
  assert.equal(acmeBeats.heartbeats, []);
  assert.is((await api.get(`/heartbeat/${hb.id}`, as('acme'))).status, 404);
  assert.is((await api.delete(`/heartbeat/${hb.id}`, as('acme'))).status, 404);
  assert.is((await api.get(`/heartbeat/${hb.id}`, as('admin'))).status, 200);
});

tenancy('keys of another customer are not listed or readable', async (ctx) => {
  const { api } = ctx;
  const keys = await json<{ keys: { customer: string | null; user: string }[] }>(
    await api.get('/keys', as('acme')),
  );
  assert.ok(keys.keys.length >= 1, JSON.stringify(keys));
  assert.ok(
    keys.keys.every((k) => k.customer === 'acme'),
    JSON.stringify(keys),
  );
  assert.is((await api.get(`/key/${KEYS.globex}`, as('acme'))).status, 404);
  assert.is((await api.request('DELETE', `/key/${KEYS.globex}`, undefined, as('acme'))).status, 403);
});

tenancy(
  'environments and services with no match list only the caller customer ones (count 0)',
  async (ctx) => {
    const { api } = ctx;
    const res = await api.post(
      '/alert',
      {
        resource: 'globex-db',
        event: 'Slow',
        environment: 'Development',
        service: ['db'],
        severity: 'minor',
      },
      as('globex'),
    );
    assert.is(res.status, 201);
    const theirs = (await json<{ alert: Alert }>(res)).alert;
    type Envs = { environments: { environment: string; count: number }[] };
    type Services = { services: { environment: string; service: string; count: number }[] };
    const envs = await json<Envs>(await api.get('/environments?status=shelved', as('acme')));
    assert.equal(envs.environments, [
      { environment: 'Production', count: 0, severityCounts: {}, statusCounts: {} },
    ]);
    const services = await json<Services>(await api.get('/services?status=shelved', as('acme')));
    assert.equal(
      services.services.map((s) => [s.environment, s.service, s.count]),
      [['Production', 'web', 0]],
    );
    const all = await json<Envs>(await api.get('/environments?status=shelved', as('admin')));
    assert.equal(
      all.environments.map((e) => [e.environment, e.count]),
      [
        ['Development', 0],
        ['Production', 0],
      ],
    );
    assert.is((await api.delete(`/alert/${theirs.id}`, as('globex'))).status, 200);
  },
);

tenancy('a Bearer token restricts to its customers claim, or to a single customer claim', async (ctx) => {
  const { api } = ctx;
  // A token without a subject (as other issuers sign them) names its user by login.
  await tokenUser(ctx.db.url, 'sso@example.com');
  const token = (claims: Record<string, unknown>) =>
    new SignJWT({ scope: 'read write', preferred_username: 'sso@example.com', ...claims })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .setIssuer(`${api.base}/`)
      .setAudience(audienceOf(ctx.running.deps.config, api.base))
      .sign(new TextEncoder().encode('tenancy-secret'));
  for (const claims of [{ customers: ['acme'] }, { customer: 'acme' }]) {
    const headers = { Authorization: `Bearer ${await token(claims)}` };
    const list = await api.call('GET', '/alerts?resource=shared-host', undefined, { headers });
    assert.is(list.status, 200, JSON.stringify(list.body));
    const customers = (list.body.alerts as Alert[]).map((a) => a.customer);
    assert.equal(customers, ['acme'], JSON.stringify(claims));
  }
});

tenancy.run();
