/**
 * Bad `q` and filter input on every endpoint that takes an alert query, and on the live socket
 * (issue #18): a 400 in our own words with a position, never a 500, never database text, and a
 * refused bulk request changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { createAlert, getAlert } from '../helpers/alerts.ts';
import type { Answer } from '../helpers/api.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { LiveClient } from '../helpers/live.ts';

const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

/** Every GET that takes the alert query parameters. */
const READS = [
  '/alerts',
  '/alerts/count',
  '/alerts/history',
  '/alerts/top10/count',
  '/alerts/topn/flapping',
  '/alerts/topn/standing',
  '/environments',
  '/services',
  '/alerts/groups',
  '/alerts/tags',
];

/** What no error body may carry: database, driver or runtime text. */
const LEAKS = /postgres|sql|syntax error|regular expression:|TypeError|RangeError|Cannot read|at \w+ \(/i;

function assertBadRequest(r: Answer, what: string, detail?: RegExp) {
  assert.is(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
  const body = ErrorBodySchema.parse(r.body);
  assert.is(body.code, 400, what);
  assert.not.match(JSON.stringify(body), LEAKS, what);
  if (detail) assert.match(`${body.message} ${(body.errors ?? []).join(' ')}`, detail, what);
  return body;
}

const app = suite<AppContext>('bad alert queries are 400 everywhere', {} as AppContext);
app.before((ctx) => startApp(ctx, { TEST_LABEL: 'query_errors' }));
app.after(stopApp);

app('a bare operator as q is a 400 naming the position on every read, bulk and the socket', async (ctx) => {
  const { api } = ctx;
  const group = unique('bulk-untouched');
  const alert = await createAlert(api, { resource: 'db01', event: 'DiskFull', severity: 'major', group });
  for (const op of ['AND', 'OR', 'NOT', '||', '&&']) {
    const q = encodeURIComponent(op);
    for (const path of READS) {
      const body = assertBadRequest(await api.call('GET', `${path}?q=${q}`), `${path} q=${op}`, /position 1/);
      assert.is(body.message, 'Failed to parse query string.');
    }
    assertBadRequest(
      await api.call('PUT', `/_bulk/alerts/status?group=${group}&q=${q}`, { status: 'ack' }),
      `bulk status q=${op}`,
      /position 1/,
    );
    assertBadRequest(await api.call('DELETE', `/_bulk/alerts?group=${group}&q=${q}`), `bulk delete q=${op}`);
  }
  // Dangling operators are refused too, rather than silently dropped.
  assertBadRequest(
    await api.call('GET', `/alerts?q=${encodeURIComponent('severity:major AND')}`),
    'trailing AND',
    /'AND' at position 16 has no term after it/,
  );
  const after = await getAlert(api, alert.id);
  assert.equal(
    [after.status, after.duplicateCount],
    ['open', 0],
    'the refused bulk requests changed nothing',
  );

  const live = await LiveClient.connect(ctx.origin, {});
  try {
    for (const op of ['AND', 'OR', 'NOT', '||', '&&']) {
      const answer = await live.subscribe(`q=${encodeURIComponent(op)}`);
      const http = await api.call('GET', `/alerts?q=${encodeURIComponent(op)}`);
      assert.equal(answer, { status: 'error', message: http.body.message, code: 400 }, op);
    }
    // The socket stays usable.
    const view = await live.view(`group=${group}`);
    assert.is(view.alerts.size, 1);
  } finally {
    live.close();
  }
});

app('deep nesting and very long queries are a 400, not a crash', async ({ api }) => {
  const deep = encodeURIComponent('('.repeat(2000) + 'a' + ')'.repeat(2000));
  assertBadRequest(await api.call('GET', `/alerts?q=${deep}`), 'deep', /nested deeper than 32/);
  const long = encodeURIComponent(Array(1200).fill('a').join(' '));
  assertBadRequest(await api.call('GET', `/alerts/count?q=${long}`), 'long', /more than 500 terms/);
});

app.run();
