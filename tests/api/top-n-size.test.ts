import * as assert from 'uvu/assert';
import { createAlert } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import { appSuite } from '../helpers/app.ts';

/**
 * How many groups a top-N answer holds (docs/queries.md): the established server takes N from
 * `page-size` (alias `limit`) on every top-N path; we keep the spec's `topn` on the topn paths and
 * honour `page-size` where `topn` is not given, defaulting to 10. The answer is one page: any
 * `page` but 1 is 416 `page out of range: 1-1`, as there.
 */

const size = appSuite('top-N size', { TEST_LABEL: 'topnsize', PLUGINS: 'remote_ip' });

const PATHS = ['count', 'flapping', 'standing'].flatMap((v) => [`/alerts/top10/${v}`, `/alerts/topn/${v}`]);

size.before(async ({ api }) => {
  // Twelve resources of group `sized`, each changing severity once (so every report has 12 groups
  // by resource); r00 has the most alerts and changes, and stood the longest.
  for (let i = 0; i < 12; i++) {
    const resource = `r${String(i).padStart(2, '0')}`;
    const createTime = new Date(Date.UTC(2024, 0, 1 + i)).toISOString();
    const events = i === 0 ? ['E1', 'E2'] : ['E1'];
    for (const event of events)
      for (const severity of ['minor', 'major'])
        await createAlert(api, { resource, event, severity, group: 'sized', createTime });
  }
});

const groups = async (api: Api, path: string, query: string) => {
  const res = await api.get(`${path}?group=sized&group-by=resource${query}`);
  const body = (await res.json()) as { top10?: { resource: string }[]; message?: string };
  return { status: res.status, body, names: (body.top10 ?? []).map((e) => e.resource) };
};

size('page-size sets N on every top-N path; without it, N is 10', async ({ api }) => {
  for (const path of PATHS) {
    const one = await groups(api, path, '&page-size=1');
    assert.is(one.status, 200, path);
    assert.equal(one.names, ['r00'], path);
    assert.is((await groups(api, path, '&page-size=3')).names.length, 3, path);
    assert.is((await groups(api, path, '&page-size=50')).names.length, 12, path);
    // `limit`, the old name of page-size, as for lists.
    assert.is((await groups(api, path, '&limit=2')).names.length, 2, path);
    // Missing or 0: the default of 10.
    assert.is((await groups(api, path, '')).names.length, 10, path);
    assert.is((await groups(api, path, '&page-size=0')).names.length, 10, path);
  }
});

size('topn wins over page-size on the topn paths; top10 ignores topn', async ({ api }) => {
  for (const v of ['count', 'flapping', 'standing']) {
    assert.is((await groups(api, `/alerts/topn/${v}`, '&topn=2&page-size=5')).names.length, 2, v);
    assert.is((await groups(api, `/alerts/topn/${v}`, '&topn=11')).names.length, 11, v);
    assert.is((await groups(api, `/alerts/top10/${v}`, '&topn=2&page-size=5')).names.length, 5, v);
    assert.is((await groups(api, `/alerts/top10/${v}`, '&topn=2')).names.length, 10, v);
  }
});

size('one page: page 1 answers, any other page is 416; a bad size is 400', async ({ api }) => {
  for (const path of PATHS) {
    assert.is((await groups(api, path, '&page=1&page-size=2')).names.length, 2, path);
    const second = await groups(api, path, '&page=2&page-size=2');
    assert.equal([second.status, second.body.message], [416, 'page out of range: 1-1'], path);
    for (const bad of ['&page-size=-1', '&page-size=x', '&page=0']) {
      const res = await groups(api, path, bad);
      assert.is(res.status, 400, `${path}${bad}`);
    }
  }
  const badTopn = await groups(api, '/alerts/topn/count', '&topn=0');
  assert.is(badTopn.status, 400);
});

size.run();
