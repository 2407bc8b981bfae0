/**
 * Length limits of indexed fields (issue #18, item 3; docs/alerts.md "Field length limits"): a
 * value over the limit is a 400 naming the field on every endpoint that writes it, and stores
 * nothing; a value at the limit, in 3-byte characters, fits the index.
 */
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_LENGTH } from '../../shared/alerts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { createAlert } from '../helpers/alerts.ts';
import type { Answer } from '../helpers/api.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;
/** `n` characters of 3 bytes each in UTF-8: the most an index row can be asked to hold per character. */
const wide = (n: number) => '日'.repeat(n);
const long = (n: number) => 'x'.repeat(n);

/** A 400 whose message or errors say `field` is too long; never a 500 or database text. */
function assertTooLong(r: Answer, field: string, max: number) {
  assert.is(r.status, 400, JSON.stringify(r.body).slice(0, 500));
  const body = ErrorBodySchema.parse(r.body);
  const said = [body.message, ...(body.errors ?? [])].join(' | ');
  assert.match(said, new RegExp(`${field} must be at most ${max} characters`), said);
  assert.not.match(said, /index row|btree|postgres/i);
}

const count = async (ctx: AppContext, sql: string, values: unknown[]) =>
  Number((await queryDb<{ n: string }>(ctx.db.url, sql, values))[0]!.n);

const app = suite<AppContext>('indexed fields have length limits', {} as AppContext);
app.before((ctx) => startApp(ctx, { TEST_LABEL: 'field_limits' }));
app.after(stopApp);

app('POST /alert: an over-long resource is a 400 that stores nothing (it was a 500)', async (ctx) => {
  const { api } = ctx;
  const base = { environment: 'Production', service: ['web'], resource: 'web01', event: 'Big' };
  const resource = long(2800);
  assertTooLong(await api.call('POST', '/alert', { ...base, resource }), 'resource', MAX_LENGTH.resource);
  assert.is(await count(ctx, 'SELECT count(*) AS n FROM alerts WHERE resource = $1', [resource]), 0);
  for (const [field, value, max] of [
    ['event', long(MAX_LENGTH.event + 1), MAX_LENGTH.event],
    ['environment', long(MAX_LENGTH.environment + 1), MAX_LENGTH.environment],
    ['customer', long(MAX_LENGTH.customer + 1), MAX_LENGTH.customer],
    ['severity', long(MAX_LENGTH.severity + 1), MAX_LENGTH.severity],
    ['status', long(MAX_LENGTH.status + 1), MAX_LENGTH.status],
    ['origin', long(MAX_LENGTH.origin + 1), MAX_LENGTH.origin],
  ] as const) {
    assertTooLong(await api.call('POST', '/alert', { ...base, [field]: value }), field, max);
  }
  for (const list of ['tags', 'service', 'correlate']) {
    assertTooLong(
      await api.call('POST', '/alert', { ...base, [list]: ['ok', long(MAX_LENGTH.listItem + 1)] }),
      `each of ${list}`,
      MAX_LENGTH.listItem,
    );
  }
  assert.is(await count(ctx, "SELECT count(*) AS n FROM alerts WHERE event = 'Big'", []), 0);
});

app('values at the limits, in 3-byte characters, fit the indexes', async ({ api }) => {
  const alert = await createAlert(api, {
    environment: 'Production',
    resource: wide(MAX_LENGTH.resource),
    event: wide(MAX_LENGTH.event),
    service: [wide(MAX_LENGTH.listItem)],
    tags: [wide(MAX_LENGTH.listItem)],
    origin: wide(MAX_LENGTH.origin),
    customer: wide(MAX_LENGTH.customer),
  });
  assert.is(alert.resource.length, MAX_LENGTH.resource);
  // And the same with the longest environment (blackouts index it too).
  const env = wide(MAX_LENGTH.environment);
  const blackout = await api.call('POST', '/blackout', {
    environment: env,
    resource: wide(MAX_LENGTH.resource),
    tags: [wide(MAX_LENGTH.listItem)],
  });
  assert.is(blackout.status, 201, JSON.stringify(blackout.body).slice(0, 300));
  const hb = await api.call('POST', '/heartbeat', {
    origin: wide(MAX_LENGTH.origin),
    customer: wide(MAX_LENGTH.customer),
  });
  assert.is(hb.status, 201, JSON.stringify(hb.body).slice(0, 300));
  const tagged = await api.call('PUT', `/alert/${alert.id}/tag`, { tags: [wide(MAX_LENGTH.listItem)] });
  assert.is(tagged.status, 200, JSON.stringify(tagged.body).slice(0, 300));
});

app('webhooks go through the same limits', async (ctx) => {
  const alertname = unique('LongOne');
  const r = await ctx.api.call('POST', '/webhooks/prometheus', {
    alerts: [
      {
        status: 'firing',
        labels: { alertname, instance: long(3000), severity: 'major' },
        annotations: { summary: 'big' },
        startsAt: '2026-03-01T12:00:00.000Z',
      },
    ],
  });
  assertTooLong(r, 'resource', MAX_LENGTH.resource);
  assert.is(await count(ctx, 'SELECT count(*) AS n FROM alerts WHERE event = $1', [alertname]), 0);
});

app('blackouts, heartbeats, tags, keys, perms and customers refuse over-long indexed fields', async (ctx) => {
  const { api } = ctx;
  const environment = long(2800);
  assertTooLong(await api.call('POST', '/blackout', { environment }), 'environment', MAX_LENGTH.environment);
  assert.is(await count(ctx, 'SELECT count(*) AS n FROM blackouts WHERE environment = $1', [environment]), 0);
  const made = await api.call('POST', '/blackout', { environment: 'Production', resource: unique('bo') });
  assert.is(made.status, 201);
  const id = (made.body as { id: string }).id;
  assertTooLong(
    await api.call('PUT', `/blackout/${id}`, { environment: long(MAX_LENGTH.environment + 1) }),
    'environment',
    MAX_LENGTH.environment,
  );
  assertTooLong(
    await api.call('POST', '/blackout', { environment: 'Production', tags: [long(3000)] }),
    'each of tags',
    MAX_LENGTH.listItem,
  );

  const origin = long(3000);
  assertTooLong(await api.call('POST', '/heartbeat', { origin }), 'origin', MAX_LENGTH.origin);
  assertTooLong(
    await api.call('POST', '/heartbeat', { origin: 'hb', customer: long(3000) }),
    'customer',
    MAX_LENGTH.customer,
  );
  assert.is(await count(ctx, 'SELECT count(*) AS n FROM heartbeats WHERE origin = $1', [origin]), 0);

  const alert = await createAlert(api, {
    environment: 'Production',
    service: ['web'],
    resource: 'r',
    event: 'e',
  });
  assertTooLong(
    await api.call('PUT', `/alert/${alert.id}/tag`, { tags: [long(3000)] }),
    'each of tags',
    MAX_LENGTH.listItem,
  );
  assertTooLong(
    await api.call('PUT', `/_bulk/alerts/tag?id=${alert.id}`, { tags: [long(3000)] }),
    'each of tags',
    MAX_LENGTH.listItem,
  );

  assertTooLong(
    await api.call('POST', '/key', { user: 'a@example.com', scopes: ['read'], customer: long(3000) }),
    'customer',
    MAX_LENGTH.customer,
  );
  const match = long(3000);
  assertTooLong(await api.call('POST', '/perm', { match, scopes: ['read'] }), 'match', 512);
  assert.is(await count(ctx, 'SELECT count(*) AS n FROM perms WHERE match = $1', [match]), 0);
  assertTooLong(
    await api.call('POST', '/customer', { match: 'acme.com', customer: long(3000) }),
    'customer',
    MAX_LENGTH.customer,
  );
});

app.run();
