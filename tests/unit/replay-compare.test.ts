import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareAnswers, pathPattern } from '../../scripts/replay/compare.ts';
import { knownMatcher } from '../../scripts/replay/known.ts';
import { Normaliser } from '../../scripts/replay/normalise.ts';

const ID_A1 = '3f1c6a52-1b7e-4c43-9f53-0d9e2a1c7b10';
const ID_A2 = '9b2d3e44-5a6f-4b70-8c81-92a3b4c5d6e7';
const ID_B1 = 'c0ffee00-1111-4222-8333-444455556666';
const ID_B2 = 'deadbeef-aaaa-4bbb-8ccc-dddddddddddd';

const values = { mode: 'values' as const, unordered: [] };

test('ids by saved name or first appearance, times, links without the base: two servers read alike', () => {
  const a = new Normaliser('http://alerta.test:8080/api');
  const b = new Normaliser('http://127.0.0.1:41234/api');
  a.name(ID_A1, 'alert');
  b.name(ID_B1, 'alert');
  // Keys in another order, another base, other ids and times: the same answer.
  const left = a.answer({
    status: 201,
    type: 'application/json',
    location: `http://alerta.test:8080/api/alert/${ID_A1}`,
    body: {
      status: 'ok',
      alert: {
        id: ID_A1,
        href: `http://alerta.test:8080/api/alert/${ID_A1}`,
        createTime: '2026-03-01T10:00:00.123Z',
      },
      note: { id: ID_A2, text: `note on ${ID_A1.slice(0, 8)}` },
      requestId: 'r-1',
    },
  });
  const right = b.answer({
    status: 201,
    type: 'application/json',
    location: `http://127.0.0.1:41234/api/alert/${ID_B1}`,
    body: {
      requestId: 'another',
      note: { text: `note on ${ID_B1.slice(0, 8)}`, id: ID_B2 },
      alert: {
        createTime: '2031-12-31T23:59:59.999Z',
        href: `http://127.0.0.1:41234/api/alert/${ID_B1}`,
        id: ID_B1,
      },
      status: 'ok',
    },
  });
  assert.equal(left, right);
  assert.equal(left.body, {
    alert: { createTime: '<time>', href: '/alert/<alert>', id: '<alert>' },
    note: { id: '<id:1>', text: 'note on <alert>' },
    requestId: '<string>',
    status: 'ok',
  });
  assert.equal(compareAnswers('new', left, right, values), []);
});

test('key values become tokens wherever they appear; a masked key is told apart from a whole one', () => {
  const n = new Normaliser('http://x.test/api');
  const value = 'Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5pR7';
  const created = n.answer({
    status: 201,
    type: 'application/json',
    body: { key: value, data: { href: `http://x.test/api/key/${value}` } },
  });
  assert.equal(created.body, { data: { href: '/key/<key:1>' }, key: '<key:1>' });
  const listed = n.answer({ status: 200, type: 'application/json', body: { keys: [{ key: 'Ab3dE5…' }] } });
  assert.equal(listed.body, { keys: [{ key: '<masked key>' }] });
});

test('differences name the step and JSON path with both values; missing keys and list lengths too', () => {
  const a = {
    status: 200,
    type: 'application/json',
    body: { alerts: [{ severity: 'major' }], pageSize: 1000, page: 1 },
  };
  const b = {
    status: 200,
    type: 'application/json',
    body: { alerts: [{ severity: 'minor' }, { severity: 'ok' }], pageSize: 50 },
  };
  assert.equal(compareAnswers('list', a, b, values), [
    { path: 'list.body.alerts.length', a: 1, b: 2 },
    { path: 'list.body.alerts[0].severity', a: 'major', b: 'minor' },
    { path: 'list.body.alerts[1]', a: '(absent)', b: { severity: 'ok' } },
    { path: 'list.body.page', a: 1, b: '(absent)' },
    { path: 'list.body.pageSize', a: 1000, b: 50 },
  ]);
  assert.equal(
    compareAnswers(
      'status',
      { status: 200, type: 'text/plain', body: 'OK' },
      { status: 500, type: 'application/json', body: {} },
      values,
    ).map((d) => d.path),
    ['status.status', 'status.type', 'status.body'],
  );
});

test('shape compares keys and types only; unordered lists compare as sets', () => {
  const a = {
    status: 200,
    type: 'application/json',
    body: { uptime: 5, metrics: [{ name: 'x', value: 1 }], application: 'alerta' },
  };
  const b = {
    status: 200,
    type: 'application/json',
    body: { uptime: 9, metrics: [{ name: 'y', value: 2 }, {}], application: 'ours' },
  };
  assert.equal(compareAnswers('status', a, b, { mode: 'shape', unordered: [] }), []);
  const c = { status: 200, type: 'application/json', body: { uptime: '9', metrics: [{ name: 'y' }] } };
  assert.equal(
    compareAnswers('status', a, c, { mode: 'shape', unordered: [] }).map((d) => d.path),
    ['status.body.application', 'status.body.metrics[0].value', 'status.body.uptime'],
  );
  const x = { status: 200, type: 'application/json', body: { top10: [{ resources: ['r1', 'r2'] }] } };
  const y = { status: 200, type: 'application/json', body: { top10: [{ resources: ['r2', 'r1'] }] } };
  assert.equal(compareAnswers('count', x, y, values).length, 2);
  assert.equal(
    compareAnswers('count', x, y, {
      mode: 'values',
      unordered: [pathPattern('count.body.top10[*].resources')],
    }),
    [],
  );
});

test('known patterns: * within a segment, ** across segments, scenario names too', () => {
  const known = knownMatcher([
    { scenario: 'key*', path: 'list.body.keys[*].key', reason: 'masked' },
    { scenario: '*', path: '**.attributes.notify', reason: 'server attribute' },
  ]);
  const at = (path: string) => ({ path, a: 1, b: 2 });
  assert.is(known.explain('keys', at('list.body.keys[3].key'))?.reason, 'masked');
  assert.is(known.explain('keys', at('list.body.keys[3].user')), undefined);
  assert.is(known.explain('users', at('list.body.keys[0].key')), undefined);
  assert.is(known.explain('alerts', at('get.body.alert.attributes.notify'))?.reason, 'server attribute');
  assert.is(known.explain('alerts', at('get.body.alert.attributes.notifyMe')), undefined);
});

test.run();
