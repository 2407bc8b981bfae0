/**
 * Length limits of indexed fields (issue #18, item 3; docs/alerts.md "Field limits"): a value
 * over the limit is a 400 naming the field on every endpoint that writes it, and stores nothing; a
 * value at the limit, in 3-byte characters, fits the index. The same for the list and attribute
 * limits (issue #37 item 1). tests/api/index-limits.test.ts writes every limit at once into every
 * btree index, in characters that do not compress.
 */
import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import { MAX_ATTRIBUTES, MAX_LENGTH, MAX_LIST } from '../../shared/alerts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { createAlert } from '../helpers/alerts.ts';
import type { Answer } from '../helpers/api.ts';
import { type AppContext, appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;
/** `n` characters of 3 bytes each in UTF-8: the most an index row can be asked to hold per character. */
const wide = (n: number) => '日'.repeat(n);
const long = (n: number) => 'x'.repeat(n);

/** A 400 whose message or errors say `field` is too long; never a 500 or database text. */
function assertTooLong(r: Answer, field: string, max: number) {
  assertRefused(r, `${field} must be at most ${max} characters`);
}

/** A 400 whose message or errors say `said`; never a 500 or database text. */
function assertRefused(r: Answer, expected: string) {
  assert.is(r.status, 400, JSON.stringify(r.body).slice(0, 500));
  const body = ErrorBodySchema.parse(r.body);
  const said = [body.message, ...(body.errors ?? [])].join(' | ');
  assert.ok(said.includes(expected), `${said} does not say ${expected}`);
  assert.not.match(said, /index row|btree|postgres/i);
}

const count = async (ctx: AppContext, sql: string, values: unknown[]) =>
  Number((await queryDb<{ n: string }>(ctx.db.url, sql, values))[0]!.n);

const app = appSuite('indexed fields have length limits', { TEST_LABEL: 'field_limits' });

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
    service: [wide(MAX_LIST.service.total)],
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

app(
  'lists over their item count or total length and attributes over theirs are 400s that store nothing',
  async (ctx) => {
    const { api } = ctx;
    const base = { environment: 'Production', resource: 'lists', event: unique('Lists') };
    const names = (n: number, length = 3) =>
      Array.from({ length: n }, (_, i) => `${i}`.padStart(length, 'n'));
    for (const list of ['service', 'tags', 'correlate'] as const) {
      const { items, total } = MAX_LIST[list];
      assertRefused(
        await api.call('POST', '/alert', { ...base, [list]: names(items + 1) }),
        `${list} must have at most ${items} items`,
      );
      const long = names(Math.ceil((total + 1) / 100), 100);
      assertRefused(
        await api.call('POST', '/alert', { ...base, [list]: long }),
        `${list} must be at most ${total} characters in total`,
      );
    }
    // The two service lists: 1,000 short names, and 15 names of 250 characters (both 500s).
    assertRefused(
      await api.call('POST', '/alert', { ...base, service: names(1000) }),
      'service must have at most',
    );
    assertRefused(
      await api.call('POST', '/alert', { ...base, service: names(15, 250) }),
      `service must be at most ${MAX_LIST.service.total} characters in total`,
    );
    const many = Object.fromEntries(names(MAX_ATTRIBUTES.count + 1).map((k) => [k, 1]));
    assertRefused(
      await api.call('POST', '/alert', { ...base, attributes: many }),
      `attributes must have at most ${MAX_ATTRIBUTES.count} keys`,
    );
    assertRefused(
      await api.call('POST', '/alert', { ...base, attributes: { [long(MAX_ATTRIBUTES.keyLength + 1)]: 1 } }),
      `each attribute key must be at most ${MAX_ATTRIBUTES.keyLength} characters`,
    );
    assertRefused(
      await api.call('POST', '/alert', { ...base, attributes: { big: long(MAX_ATTRIBUTES.jsonLength) } }),
      `attributes must be at most ${MAX_ATTRIBUTES.jsonLength} characters as JSON`,
    );
    assert.is(await count(ctx, 'SELECT count(*) AS n FROM alerts WHERE event = $1', [base.event]), 0);

    // At the limits: accepted.
    const atLimits = await api.call('POST', '/alert', {
      ...base,
      service: names(MAX_LIST.service.items, Math.floor(MAX_LIST.service.total / MAX_LIST.service.items)),
      tags: names(MAX_LIST.tags.items, Math.floor(MAX_LIST.tags.total / MAX_LIST.tags.items)),
      correlate: names(
        MAX_LIST.correlate.items,
        Math.floor(MAX_LIST.correlate.total / MAX_LIST.correlate.items),
      ),
      attributes: Object.fromEntries(names(MAX_ATTRIBUTES.count).map((k) => [k, 1])),
    });
    assert.is(atLimits.status, 201, JSON.stringify(atLimits.body).slice(0, 300));
    const id = (atLimits.body as { id: string }).id;

    // Every other endpoint that writes these fields: tag (single and bulk), attributes (single and
    // bulk), blackouts, heartbeats and webhooks.
    const tooMany = names(MAX_LIST.tags.items + 1);
    const tagsSaid = `tags must have at most ${MAX_LIST.tags.items} items`;
    assertRefused(await api.call('PUT', `/alert/${id}/tag`, { tags: tooMany }), tagsSaid);
    assertRefused(await api.call('PUT', `/_bulk/alerts/tag?id=${id}`, { tags: tooMany }), tagsSaid);
    const keysSaid = `attributes must have at most ${MAX_ATTRIBUTES.count} keys`;
    assertRefused(await api.call('PUT', `/alert/${id}/attributes`, { attributes: many }), keysSaid);
    assertRefused(await api.call('PUT', `/_bulk/alerts/attributes?id=${id}`, { attributes: many }), keysSaid);
    assertRefused(
      await api.call('POST', '/blackout', { environment: 'Production', service: names(1000) }),
      `service must have at most ${MAX_LIST.service.items} items`,
    );
    assertRefused(
      await api.call('POST', '/blackout', { environment: 'Production', tags: tooMany }),
      tagsSaid,
    );
    assertRefused(await api.call('POST', '/heartbeat', { origin: unique('hb'), tags: tooMany }), tagsSaid);
    assertRefused(await api.call('POST', '/heartbeat', { origin: unique('hb'), attributes: many }), keysSaid);
    const alertname = unique('ManyLabels');
    const labels = Object.fromEntries(names(MAX_LIST.tags.items + 1).map((k) => [`l${k}`, 'v']));
    assertRefused(
      await api.call('POST', '/webhooks/prometheus', {
        alerts: [{ status: 'firing', labels: { alertname, instance: 'i', ...labels } }],
      }),
      tagsSaid,
    );
    // The refused tag and attribute changes added nothing (the server adds attributes of its own).
    const stored = await queryDb<{ tags: number; extra: boolean }>(
      ctx.db.url,
      `SELECT cardinality(tags) AS tags, attributes ? $2 AS extra FROM alerts WHERE id = $1`,
      [id, String(MAX_ATTRIBUTES.count)],
    );
    assert.equal(stored, [{ tags: MAX_LIST.tags.items, extra: false }]);
    assert.is(await count(ctx, 'SELECT count(*) AS n FROM alerts WHERE event = $1', [alertname]), 0);
    assert.is(
      await count(
        ctx,
        "SELECT count(*) AS n FROM blackouts WHERE environment = 'Production' AND cardinality(service) > 16",
        [],
      ),
      0,
    );
  },
);

app.run();
