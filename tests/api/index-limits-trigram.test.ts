/**
 * The trigram index on lower(resource) (migration 0059) takes the widest resource the limits
 * allow, as index-limits.test.ts checks for every btree index: GIN stores each trigram, never the
 * whole value, so it has no row size to outgrow; this test writes the widest resources in 3- and
 * 4-byte characters (which pg_trgm hashes) through the API, finds them again by a substring, and
 * fails when another non-btree index appears on alerts without a check of its own.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_LENGTH } from '../../shared/alerts.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

/** Non-btree indexes on alerts and what checks each. */
const CHECKED = {
  alerts_attributes_idx: 'jsonb_path_ops: hashes of paths and values, any size',
  alerts_service_idx: 'array elements, each within MAX_LENGTH.listItem (index-limits.test.ts)',
  alerts_tags_idx: 'array elements, each within MAX_LENGTH.listItem (index-limits.test.ts)',
  alerts_resource_trgm_idx: 'this test',
};

const t = suite<AppContext>('the resource trigram index takes the widest resources', {} as AppContext);
t.before((ctx) => startApp(ctx, { PLUGINS: '', TEST_LABEL: 'index_trgm' }));
t.after(stopApp);

t('every non-btree index on alerts is accounted for', async (ctx) => {
  const rows = await queryDb<{ index: string }>(
    ctx.db.url,
    `SELECT i.relname AS index FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class c ON c.oid = x.indrelid JOIN pg_am am ON am.oid = i.relam
     WHERE c.relname = 'alerts' AND am.amname <> 'btree' ORDER BY 1`,
  );
  assert.equal(
    rows.map((r) => r.index),
    Object.keys(CHECKED).sort(),
  );
});

t('the widest resources are stored, updated and found by a substring', async (ctx) => {
  const cjk = Array.from({ length: MAX_LENGTH.resource }, (_, i) =>
    String.fromCharCode(0x4e00 + i * 37),
  ).join('');
  // 4-byte characters: a surrogate pair each in JavaScript, so half as many fit the limit's length.
  const emoji = Array.from({ length: MAX_LENGTH.resource / 2 }, (_, i) =>
    String.fromCodePoint(0x1f300 + i),
  ).join('');
  for (const resource of [cjk, emoji, 'A'.repeat(MAX_LENGTH.resource)]) {
    for (const round of [1, 2]) {
      const res = await ctx.api.post('/alert', { resource, event: 'wide', environment: 'Production' });
      assert.is(
        res.status,
        201,
        `round ${round}: ${res.status} ${JSON.stringify(await res.json()).slice(0, 200)}`,
      );
    }
    const middle = [...resource].slice(100, 110).join('');
    const found = await ctx.api.get(`/alerts?resource=~${encodeURIComponent(middle)}`);
    assert.is(found.status, 200);
    const body = (await found.json()) as { alerts: { resource: string; duplicateCount: number }[] };
    assert.equal(
      body.alerts.map((a) => [a.resource, a.duplicateCount]),
      [[resource, 1]],
    );
  }
});

t.run();
