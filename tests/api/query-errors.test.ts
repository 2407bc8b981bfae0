/**
 * Bad `q` and filter input on every endpoint that takes an alert query, and on the live socket
 * (issue #18): a 400 in our own words with a position, never a 500, never database text, and a
 * refused bulk request changes nothing.
 */
import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import { ErrorBodySchema } from '../../shared/errors.ts';
import { createAlert, getAlert } from '../helpers/alerts.ts';
import type { Answer } from '../helpers/api.ts';
import { appSuite } from '../helpers/app.ts';
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

/** A live subscription with `q` is answered with the HTTP reads' 400 for an invalid regular expression. */
async function assertSocketRefusesRegex(origin: string, q: string) {
  const live = await LiveClient.connect(origin, {});
  try {
    assert.equal(await live.subscribe(q), {
      status: 'error',
      message: 'Invalid regular expression',
      code: 400,
      errorCode: 'invalid_regex',
    });
  } finally {
    live.close();
  }
}

const app = appSuite('bad alert queries are 400 everywhere', { TEST_LABEL: 'query_errors' });

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
      assert.equal(
        answer,
        { status: 'error', message: http.body.message, code: 400, errorCode: 'invalid_query' },
        op,
      );
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

app('an invalid regular expression is our 400 everywhere, never the database text', async (ctx) => {
  const { api } = ctx;
  const group = unique('regex-untouched');
  const alert = await createAlert(api, { resource: 'db02', event: 'DiskFull', severity: 'major', group });
  const q = `q=${encodeURIComponent('resource:/(/')}`;
  for (const path of READS) {
    const body = assertBadRequest(await api.call('GET', `${path}?${q}`), `${path} ${q}`, /position 1/);
    assert.is(body.message, 'Invalid regular expression');
    assert.equal(body.errors, ['q: unbalanced parentheses at position 1 of /(/']);
  }
  // Several values with a ~ make one regular expression.
  assertBadRequest(
    await api.call('GET', '/alerts?resource=~(&resource=b'),
    'resource=~(',
    /resource: unbalanced parentheses at position 1 of \/\(\|b\//,
  );
  assertBadRequest(await api.call('GET', '/blackouts?environment=~[&environment=x'), 'blackouts', /brackets/);
  assertBadRequest(
    await api.call('PUT', `/_bulk/alerts/status?group=${group}&${q}`, { status: 'ack' }),
    'bulk',
    /Invalid regular expression/,
  );
  assert.is((await getAlert(api, alert.id)).status, 'open', 'the refused bulk request changed nothing');
  for (const [pattern, said] of [
    ['a**', /quantifier \* has nothing to repeat at position 3/],
    ['[z-a]', /invalid character range/],
    ['a{3,1}', /invalid repetition count/],
  ] as const) {
    assertBadRequest(
      await api.call('GET', `/alerts?q=${encodeURIComponent(`resource:/${pattern}/`)}`),
      pattern,
      said,
    );
  }
  // Escapes the q syntax cannot carry, through a ~ filter.
  for (const [pattern, said] of [
    ['\\q', /invalid escape \\q/],
    ['(a)\\2', /back reference \\2 names no group/],
  ] as const) {
    const qs = new URLSearchParams([
      ['event', `~${pattern}`],
      ['event', 'x'],
    ]);
    assertBadRequest(await api.call('GET', `/alerts?${qs.toString()}`), pattern, said);
  }
  // Valid ones still work.
  const ok = await api.call('GET', `/alerts?group=${group}&q=${encodeURIComponent('resource:/^db0[0-9]$/')}`);
  assert.is((ok.body as { total: number }).total, 1);

  await assertSocketRefusesRegex(ctx.origin, q);
});

app(
  'a regular expression only the database refuses is the same 400, on HTTP and on the socket',
  async (ctx) => {
    // Valid syntax, but too complex for PostgreSQL to compile.
    const q = `q=${encodeURIComponent('resource:/((a{255}){255})/')}`;
    for (const path of ['/alerts', '/alerts/count', '/environments']) {
      const body = assertBadRequest(await ctx.api.call('GET', `${path}?${q}`), path);
      assert.is(body.message, 'Invalid regular expression');
    }
    await assertSocketRefusesRegex(ctx.origin, q);
  },
);

app.run();
