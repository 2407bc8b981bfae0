/**
 * The tag and attribute limits hold for what an alert stores, not only for each request
 * (docs/alerts.md, "Field limits"; issue #37 item 1). Duplicate and correlated receipts add their
 * tags and merge their attributes: when together they would be over a limit, the receipt's own set
 * takes the place of the stored one, and the receipt never fails for it. The SQL of the receive
 * statements (server/db/alerts.ts, receivedTags / receivedAttributes) and its JavaScript twin
 * (server/domain/receive/fields.ts, what the plugins plan on) must agree on every receipt. A
 * client's explicit change (PUT tag / attributes) over a limit is a 400 and stores nothing; a bulk
 * change leaves such alerts untouched and reports them. User attributes take the same limits.
 */
import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import {
  MAX_ATTRIBUTES,
  MAX_LIST,
  SERVER_ATTRIBUTES,
  attributesOverLimit,
  storedJsonBytes,
  tagsOverLimit,
} from '../../shared/alerts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { receivedAttributes, receivedTags } from '../../server/domain/receive/fields.ts';
import { createAlert, getAlert, postAlert, put } from '../helpers/alerts.ts';
import { apiFor, type AppContext, twoInstanceSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;
/** Attribute keys other than the server's own (notify, flapping), which the key limit does not count. */
const senderKeys = (a: Record<string, unknown>) =>
  Object.keys(a).filter((k) => !SERVER_ATTRIBUTES.includes(k)).length;
const TAGS = MAX_LIST.tags.items;
const KEYS = MAX_ATTRIBUTES.count;

/** A 400 whose message or errors say `expected`; never a 500 or database text. */
function assertRefused(r: { status: number; body: unknown }, expected: string) {
  assert.is(r.status, 400, JSON.stringify(r.body).slice(0, 500));
  const body = ErrorBodySchema.parse(r.body);
  const said = [body.message, ...(body.errors ?? [])].join(' | ');
  assert.ok(said.includes(expected), `${said} does not say ${expected}`);
}

/** The largest tag count and attribute key count any stored alert has. */
async function largestStored(ctx: AppContext) {
  const [row] = await queryDb<{ tags: number; keys: number; chars: number; bytes: number }>(
    ctx.db.url,
    `SELECT max(cardinality(tags))::int AS tags, max(char_length(array_to_string(tags, '')))::int AS chars,
       max((SELECT count(*) FROM jsonb_object_keys(attributes) k WHERE k NOT IN ('notify', 'flapping')))::int AS keys,
       max(octet_length(attributes::text))::int AS bytes FROM alerts`,
    [],
  );
  return row!;
}

// No plugin adds attributes, so that a receipt's own set is what the test sent (and notify). The
// second instance has no hint of the identities the first wrote: its plain duplicates are read first.
const test = twoInstanceSuite(
  'stored tags and attributes stay within their limits',
  { TEST_LABEL: 'stored-limits', PLUGINS: 'reject' },
  { PLUGINS: 'reject' },
);

test('600 duplicates, each with another tag and attribute key, leave at most 500 tags and 256 keys', async (ctx) => {
  const fields = { resource: unique('host'), event: 'Flood', severity: 'minor' };
  const first = await createAlert(ctx.api, { ...fields, tags: ['t0'], attributes: { k0: 0 } });
  let last = first;
  for (let i = 1; i < 600; i++) {
    const r = await postAlert(ctx.api, { ...fields, tags: [`t${i}`], attributes: { [`k${i}`]: i } });
    assert.is(r.status, 201, JSON.stringify(r.body).slice(0, 300));
    last = r.body.alert;
    assert.is(last.id, first.id);
    assert.ok(last.tags.length <= TAGS, `${last.tags.length} tags after receipt ${i}`);
    assert.ok(senderKeys(last.attributes) <= KEYS, `${senderKeys(last.attributes)} keys`);
    assert.ok(last.tags.includes(`t${i}`), `receipt ${i}'s tag is kept`);
    assert.is(last.attributes[`k${i}`], i);
  }
  assert.is(last.duplicateCount, 599);
  const stored = await getAlert(ctx.api, first.id);
  assert.equal(stored.tags, last.tags);
  assert.equal(stored.attributes, last.attributes);
  // Past the limit the receipt's own set took the stored one's place, and grew again from there.
  assert.ok(stored.tags.length < TAGS);
  assert.ok(!stored.tags.includes('t0'));
  const most = await largestStored(ctx);
  assert.ok(most.tags <= TAGS && most.keys <= KEYS, JSON.stringify(most));
});

test('duplicates sent at once (runs written as one) stay within the limits too', async (ctx) => {
  const fields = { resource: unique('burst'), event: 'Flood', severity: 'minor' };
  const first = await createAlert(ctx.api, fields);
  for (let round = 0; round < 12; round++) {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        postAlert(ctx.api, {
          ...fields,
          tags: [`r${round}-${j}`],
          attributes: { [`r${round}-${j}`]: 'x'.repeat(20) },
        }),
      ),
    );
    for (const [j, r] of answers.entries()) {
      assert.is(r.status, 201, JSON.stringify(r.body).slice(0, 300));
      assert.ok(r.body.alert.tags.length <= TAGS);
      assert.ok(r.body.alert.tags.includes(`r${round}-${j}`), 'each receipt finds its own tag');
    }
  }
  const stored = await getAlert(ctx.api, first.id);
  assert.is(stored.duplicateCount, 600);
  assert.ok(stored.tags.length <= TAGS, `${stored.tags.length} tags`);
  assert.ok(senderKeys(stored.attributes) <= KEYS);
  const most = await largestStored(ctx);
  assert.ok(most.tags <= TAGS && most.keys <= KEYS, JSON.stringify(most));
});

test('the receive statements and their JavaScript twin decide alike, at the edges of every limit', async (ctx) => {
  // Severity changes (written by updateReceived, with history), plain duplicates without a read
  // (updateByIdentity) and, from the other instance, read first (updateDuplicates); tags and values
  // of 1- to 4-byte characters, numbers PostgreSQL writes without exponent.
  const fields = { resource: unique('edge'), event: 'Edge' };
  const chars = ['a', 'é', '日', '😀'];
  const tag = (i: number, n: number) => {
    const c = chars[i % 4]!;
    return `${i}-${c.repeat(n / c.length)}`;
  };
  const other = apiFor(ctx.other);
  let stored = await createAlert(ctx.api, { ...fields, severity: 'minor' });
  const fallbacks = { tags: 0, attributes: 0 };
  for (let i = 0; i < 80; i++) {
    const size = [30, 120, 240, 60][i % 4]!;
    const tags = Array.from({ length: 1 + (i % 7) * 20 }, (_, j) => tag(i * 1000 + j, size)).filter(
      (_, j, all) => tagsOverLimit(all.slice(0, j + 1)) === null,
    );
    const attributes: Record<string, unknown> = {};
    for (let j = 0; j < 1 + (i % 5) * 12; j++) {
      const value =
        j % 3 === 0 ? 1.5e-7 * (j + 1) : j % 3 === 1 ? 2e21 * (j + 1) : chars[j % 4]!.repeat(1200);
      attributes[`a${i}-${j}`] = value;
    }
    if (i % 9 === 4) attributes[`a${i - 1}-0`] = null;
    const severity = i % 3 === 0 ? (stored.severity === 'major' ? 'minor' : 'major') : stored.severity;
    const r = await postAlert(i % 3 === 2 ? other : ctx.api, { ...fields, severity, tags, attributes });
    assert.is(r.status, 201, JSON.stringify(r.body).slice(0, 300));
    const got = r.body.alert;
    const expectedTags = receivedTags(stored.tags, tags);
    assert.equal([...got.tags].sort(), expectedTags, `tags of receipt ${i}`);
    // The server's own attributes (notify, flapping) come with the receipt's.
    const incoming: Record<string, unknown> = { ...attributes, notify: got.attributes.notify };
    if ('flapping' in got.attributes && got.severity !== stored.severity)
      incoming.flapping = got.attributes.flapping;
    assert.equal(
      got.attributes,
      receivedAttributes(stored.attributes, incoming),
      `attributes of receipt ${i}`,
    );
    assert.is(tagsOverLimit(got.tags), null);
    assert.is(attributesOverLimit(got.attributes), null);
    if (tagsOverLimit([...new Set([...stored.tags, ...tags])]) !== null) fallbacks.tags++;
    if (attributesOverLimit({ ...stored.attributes, ...incoming }) !== null) fallbacks.attributes++;
    stored = got;
  }
  // The edges were reached: both limits made receipts fall back to their own sets.
  assert.ok(fallbacks.tags > 2 && fallbacks.attributes > 2, JSON.stringify(fallbacks));
  const [row] = await queryDb<{ bytes: number }>(
    ctx.db.url,
    'SELECT octet_length(attributes::text)::int AS bytes FROM alerts WHERE id = $1',
    [stored.id],
  );
  assert.is(row!.bytes, storedJsonBytes(stored.attributes));
});

test('PUT /alert/:id/tag and /attributes over a limit: 400 naming it, nothing stored', async (ctx) => {
  const tags = Array.from({ length: TAGS - 1 }, (_, i) => `t${i}`);
  const a = await createAlert(ctx.api, { resource: unique('put'), event: 'Put', tags });
  assert.is((await put(ctx.api, `/alert/${a.id}/tag`, { tags: ['one-more'] })).status, 200);
  const r = await put(ctx.api, `/alert/${a.id}/tag`, { tags: ['x', 'y'] });
  assertRefused(r, `tags must have at most ${TAGS} items`);
  assert.is((await getAlert(ctx.api, a.id)).tags.length, TAGS);
  // Removing is always allowed.
  assert.is((await put(ctx.api, `/alert/${a.id}/untag`, { tags: ['t0'] })).status, 200);
  assert.is((await getAlert(ctx.api, a.id)).tags.length, TAGS - 1);

  const long = Array.from({ length: 70 }, (_, i) => `${i}-${'z'.repeat(240)}`);
  const b = await createAlert(ctx.api, { resource: unique('put'), event: 'Put', tags: long.slice(0, 60) });
  const total = await put(ctx.api, `/alert/${b.id}/tag`, { tags: long.slice(60) });
  assertRefused(total, `tags must be at most ${MAX_LIST.tags.total} characters in total`);
  assert.is((await getAlert(ctx.api, b.id)).tags.length, 60);

  const attributes = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, i]));
  const c = await createAlert(ctx.api, { resource: unique('put'), event: 'Put', attributes });
  const before = await getAlert(ctx.api, c.id);
  // The server's notify and flapping come on top of the senders' 256 keys.
  assert.is(senderKeys(before.attributes), KEYS);
  const over = await put(ctx.api, `/alert/${c.id}/attributes`, { attributes: { x: 1 } });
  assertRefused(over, `attributes must have at most ${KEYS} keys`);
  assert.equal((await getAlert(ctx.api, c.id)).attributes, before.attributes);
  // Replacing keys, or removing them, is fine.
  assert.is((await put(ctx.api, `/alert/${c.id}/attributes`, { attributes: { k0: 'zero' } })).status, 200);
  assert.is(
    (await put(ctx.api, `/alert/${c.id}/attributes`, { attributes: { k1: null, x: 1 } })).status,
    200,
  );
  assert.is(senderKeys((await getAlert(ctx.api, c.id)).attributes), KEYS);

  // Size: five requests of 50,000 characters each are within the request limit, not together.
  const d = await createAlert(ctx.api, { resource: unique('put'), event: 'Put' });
  let refused = 0;
  for (let i = 0; i < 8; i++) {
    const s = await put(ctx.api, `/alert/${d.id}/attributes`, {
      attributes: { [`big${i}`]: '日'.repeat(16_000) },
    });
    if (s.status === 400) {
      assertRefused(s, `attributes must be at most ${MAX_ATTRIBUTES.storedBytes} bytes as stored JSON`);
      refused++;
    } else assert.is(s.status, 200);
  }
  assert.ok(refused > 0);
  assert.is(attributesOverLimit((await getAlert(ctx.api, d.id)).attributes), null);
});

test('bulk tag and attributes leave an alert they would take over a limit untouched and report it', async (ctx) => {
  const resource = unique('bulk');
  const full = await createAlert(ctx.api, {
    resource,
    event: 'Full',
    tags: Array.from({ length: TAGS }, (_, i) => `t${i}`),
    attributes: Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, i])),
  });
  const roomy = await createAlert(ctx.api, { resource, event: 'Roomy', tags: ['a'] });
  const tagged = await put(ctx.api, `/_bulk/alerts/tag?resource=${resource}`, { tags: ['new'] });
  assert.is(tagged.status, 200, JSON.stringify(tagged.body));
  assert.equal(tagged.body.updated, [roomy.id]);
  const errors = tagged.body.errors as string[];
  assert.is(errors.length, 1);
  assert.ok(errors[0]!.startsWith(`${full.id}: `) && errors[0]!.includes(`at most ${TAGS} tags`), errors[0]);
  assert.is((await getAlert(ctx.api, full.id)).tags.length, TAGS);
  assert.equal((await getAlert(ctx.api, roomy.id)).tags, ['a', 'new']);

  const set = await put(ctx.api, `/_bulk/alerts/attributes?resource=${resource}`, {
    attributes: { extra: 1 },
  });
  assert.is(set.status, 200, JSON.stringify(set.body));
  assert.equal(set.body.updated, [roomy.id]);
  assert.ok((set.body.errors as string[])[0]!.includes(`at most ${KEYS} keys`));
  assert.is(senderKeys((await getAlert(ctx.api, full.id)).attributes), KEYS);
  // Removing keys is never refused.
  const removed = await put(ctx.api, `/_bulk/alerts/attributes?resource=${resource}`, {
    attributes: { k0: null },
  });
  assert.is(removed.status, 200);
  assert.is((removed.body.updated as string[]).length, 2);
});

test('user attributes take the same limits, on each request and merged', async (ctx) => {
  const keys = (n: number, prefix = 'k') =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));
  const user = { name: 'Uma', email: `${unique('uma')}@corp.example`, password: 'uma-secret-1' };
  assertRefused(
    await ctx.api
      .post('/user', { ...user, attributes: keys(KEYS + 1) })
      .then(async (r) => ({ status: r.status, body: await r.json() })),
    `attributes must have at most ${KEYS} keys`,
  );
  const created = await ctx.api.post('/user', { ...user, attributes: keys(200) });
  assert.is(created.status, 201);
  const id = ((await created.json()) as { id: string }).id;
  assertRefused(
    await put(ctx.api, `/user/${id}/attributes`, { attributes: keys(20_000, 'x') }),
    `attributes must have at most ${KEYS} keys`,
  );
  assertRefused(
    await put(ctx.api, `/user/${id}/attributes`, {
      attributes: { ['k'.repeat(MAX_ATTRIBUTES.keyLength + 1)]: 1 },
    }),
    `each attribute key must be at most ${MAX_ATTRIBUTES.keyLength} characters`,
  );
  // Each request within the limits, merged over them.
  assertRefused(
    await put(ctx.api, `/user/${id}/attributes`, { attributes: keys(100, 'y') }),
    `attributes must have at most ${KEYS} keys`,
  );
  const stored = await ctx.api.get(`/user/${id}`);
  const body = (await stored.json()) as { user: { attributes: Record<string, unknown> } };
  assert.is(Object.keys(body.user.attributes).length, 200);
  assert.is((await put(ctx.api, `/user/${id}/attributes`, { attributes: keys(56, 'y') })).status, 200);
});

test.run();
