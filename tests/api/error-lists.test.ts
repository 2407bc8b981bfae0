/**
 * Error amplification (issue #18, item 5): however many problems a request has, the error body
 * lists the first 20 and counts the rest, so its size does not grow with the input.
 */
import * as assert from 'uvu/assert';
import { ErrorBodySchema } from '../../shared/errors.ts';
import type { Answer, Api } from '../helpers/api.ts';
import { appSuite } from '../helpers/app.ts';

function assertCapped(r: Answer, bad: number, bytes: number) {
  assert.is(r.status, 400, JSON.stringify(r.body).slice(0, 300));
  const body = ErrorBodySchema.parse(r.body);
  assert.is(body.errors!.length, 21);
  assert.is(body.errors![20], `… and ${bad - 20} more`);
  assert.ok(bytes < 10_000, `the body is ${bytes} bytes`);
}

const app = appSuite('long lists of errors are capped', { TEST_LABEL: 'error_lists' });

app('the Grafana webhook with 100,000 bad evalMatches answers a small body', async ({ api }) => {
  const res = await api.post('/webhooks/grafana', {
    ruleId: 1,
    ruleName: 'High CPU',
    state: 'alerting',
    evalMatches: Array<number>(100_000).fill(1),
  });
  const text = await res.text();
  const body = JSON.parse(text) as Answer['body'];
  assertCapped({ status: res.status, body, headers: res.headers }, 100_000, Buffer.byteLength(text));
  assert.match(String(body.message), /invalid Grafana payload: .* \(and 99999 more\)/);
});

/** POST /alert of a valid alert but for `count` tags that are numbers. */
const postBadTags = (api: Api, count: number) =>
  api.post('/alert', {
    resource: 'r',
    event: 'e',
    environment: 'Production',
    service: ['web'],
    tags: Array<number>(count).fill(7),
  });

app('POST /alert with 500 bad tags (the most a list may hold) answers a small body', async ({ api }) => {
  const res = await postBadTags(api, 500);
  const text = await res.text();
  const body = JSON.parse(text) as Answer['body'];
  assertCapped({ status: res.status, body, headers: res.headers }, 500, Buffer.byteLength(text));
});

app(
  'POST /alert with 50,000 bad tags is refused by the item limit alone, in a small body',
  async ({ api }) => {
    const res = await postBadTags(api, 50_000);
    const text = await res.text();
    assert.is(res.status, 400, text.slice(0, 300));
    const body = ErrorBodySchema.parse(JSON.parse(text));
    assert.ok(Buffer.byteLength(text) < 10_000, `the body is ${Buffer.byteLength(text)} bytes`);
    assert.match([body.message, ...(body.errors ?? [])].join(' | '), /tags must have at most 500 items/);
  },
);

app.run();
