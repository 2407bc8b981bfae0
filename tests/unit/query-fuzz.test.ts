import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { conditionSql } from '../../server/db/alert-query.ts';
import { AppError } from '../../server/errors.ts';
import { parseLucene } from '../../server/domain/query/lucene.ts';
import { parseAlertQuery } from '../../server/domain/query/params.ts';
import { MAX_QUERY_DEPTH, MAX_QUERY_TOKENS } from '../../server/domain/query/shape.ts';
import { compileMatcher } from '../../server/realtime/matcher.ts';
import { rng } from '../helpers/rng.ts';

/** The parser's answer: the condition, or the 400's message and errors; anything else fails the test. */
function outcome(q: string): { ok: true } | { ok: false; said: string } {
  try {
    const cond = parseLucene(q, 'text');
    // What a parsed query goes on to: SQL, and the live matcher.
    conditionSql(cond);
    compileMatcher(cond);
    return { ok: true };
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 400) {
      throw new Error(`q=${JSON.stringify(q).slice(0, 200)} threw ${String(err)}`, { cause: err });
    }
    return { ok: false, said: `${err.message} ${(err.errors ?? []).join(' ')}` };
  }
}

const refused = (q: string, said: RegExp) => {
  const r = outcome(q);
  assert.ok(!r.ok, `q=${JSON.stringify(q).slice(0, 200)} should be refused`);
  if (!r.ok) assert.match(r.said, said, q.slice(0, 200));
};

const ops = suite('q: operators without terms');

ops('a bare operator is a 400 naming it and its position, never a TypeError', () => {
  for (const op of ['AND', 'OR', '||', '&&']) {
    refused(op, new RegExp(`Failed to parse query string\\. '${op.replace(/[|&]/g, '\\$&')}' at position 1`));
    refused(`  ${op}  `, /at position 3/);
    refused(`OR ${op}`, /'OR' at position 1 has no term before it/);
  }
  refused('NOT', /'NOT' at position 1 has no term after it/);
});

ops('an operator at either end of the query or of a group, or after another, is a 400', () => {
  refused('a AND', /'AND' at position 3 has no term after it/);
  refused('AND a', /'AND' at position 1 has no term before it/);
  refused('a OR ', /'OR' at position 3 has no term after it/);
  refused('a NOT', /'NOT' at position 3 has no term after it/);
  refused('(a AND ) b', /'AND' at position 4 has no term after it/);
  refused('(|| a)', /'\|\|' at position 2 has no term before it/);
  refused('a AND OR b', /'OR' at position 7 follows another operator/);
  refused('a && || b', /'\|\|' at position 6 follows another operator/);
  refused('status:open AND NOT', /'NOT' at position 17 has no term after it/);
});

ops('operator words that are terms stay terms', () => {
  for (const q of [
    'status:AND',
    'status: OR',
    'text:(AND)',
    '"AND"',
    '/AND/',
    'a&&b',
    'ANDROID OR NOTE',
    'a\\ AND',
    'a AND NOT b',
    'a OR NOT b',
    'NOT a',
    '!a',
    '-a',
    'a -b',
    '"x"AND y',
    '(a)AND (b)',
  ]) {
    assert.ok(outcome(q).ok, q.slice(0, 200));
  }
});

ops.run();

const limits = suite('q: nesting and length');

limits('nesting deeper than the limit is a 400, however deep', () => {
  const nest = (n: number) => '('.repeat(n) + 'a' + ')'.repeat(n);
  assert.ok(outcome(nest(MAX_QUERY_DEPTH)).ok);
  refused(nest(MAX_QUERY_DEPTH + 1), new RegExp(`nested deeper than ${MAX_QUERY_DEPTH}`));
  refused(nest(100_000), /nested deeper/);
  refused('('.repeat(100_000), /nested deeper/);
  refused('status:('.repeat(5000) + 'a', /nested deeper/);
});

limits('more terms and operators than the limit is a 400; long single terms are fine', () => {
  const terms = (n: number, op: string) => Array<string>(n).fill('a').join(op);
  const half = Math.floor(MAX_QUERY_TOKENS / 2);
  const tooMany = new RegExp(`more than ${MAX_QUERY_TOKENS} terms and operators`);
  assert.ok(outcome(terms(half, ' OR ')).ok);
  assert.ok(outcome(terms(MAX_QUERY_TOKENS, ' ')).ok);
  refused(terms(MAX_QUERY_TOKENS + 1, ' '), tooMany);
  refused(terms(half + 1, ' AND '), tooMany);
  refused(terms(50_000, ' AND '), tooMany);
  refused('NOT '.repeat(50_000) + 'a', tooMany);
  assert.ok(outcome('x'.repeat(100_000)).ok);
  assert.ok(outcome(`resource:"${'y '.repeat(20_000)}"`).ok);
});

limits.run();

const fuzz = suite('q: malformed input is parsed or refused with a 400');

const PIECES = [
  'AND',
  'OR',
  'NOT',
  'AND NOT',
  'OR NOT',
  '||',
  '&&',
  '!',
  '-',
  '+',
  '(',
  ')',
  '"',
  '/',
  '[',
  ']',
  '{',
  '}',
  ':',
  '\\',
  '^',
  '~',
  '*',
  '?',
  ' ',
  ' ',
  ' ',
  'TO',
  'a',
  'web01',
  'disk full',
  'status',
  'status:',
  'resource:',
  'tags:',
  'duplicateCount:',
  'createTime:',
  'attributes.region:',
  '_.x:',
  '_exists_:',
  'foo:',
  ':value',
  '2024-05-01',
  '0000-01-01',
  '>',
  '>=',
  '<',
  '<=',
  '10',
  '-5',
  '1e9',
  'web*',
  'qu?ck',
  '"a b"',
  '/re(/',
  '/[a-/',
  '/ok.*/',
  '[1 TO',
  'TO 5]',
  '[* TO *]',
  '{a TO b]',
  '[ TO ]',
  '^2',
  '~0.5',
  '\u0000',
  'é',
  '日本',
  '\uD83D\uDE00',
  '\t',
  '\n',
  "'",
  ';',
  '%',
  '$',
  '.',
  ',',
  '=',
  'true',
  'null',
  '{"status":1}',
];

fuzz('the documented malformed shapes', () => {
  for (const q of [
    '(',
    ')',
    '((a)',
    '(a))',
    '"',
    'a"',
    '"a',
    '[',
    ']',
    '{',
    '}',
    '[a TO',
    '[a TO b',
    'a TO b]',
    '[ TO b]',
    '[a TO ]',
    '{* TO',
    'field:',
    ':value',
    'status:',
    ':',
    '::',
    'a::b',
    'a:b:c',
    '\\',
    'a\\',
    '/',
    '/a',
    'a/',
    '//',
    '^',
    'a^',
    'a^x',
    '~',
    'a~x',
    '!',
    '-',
    '+',
    '!!',
    '--a',
    '+-!a',
    '*',
    '?',
    '_exists_:',
    '_exists_',
    'attributes.:x',
    'attributes.',
    '_.',
    'status:()',
    '()',
    '( )',
    'a ()',
    '((()))',
    'status:(AND)',
    'status:(OR a)',
    'NOT NOT a',
    'a NOT NOT b',
    'TO',
    'a TO',
    'status:[a TO b TO c]',
    'createTime:[2024-01-01 TO yesterday]',
    'duplicateCount:>abc',
    'timeout:[1 TO 2]',
    'repeat:maybe',
  ]) {
    outcome(q);
  }
});

fuzz('thousands of random combinations', () => {
  const random = rng(18);
  for (let i = 0; i < 4000; i++) {
    const n = 1 + Math.floor(random() * 12);
    let q = '';
    for (let k = 0; k < n; k++) q += PIECES[Math.floor(random() * PIECES.length)]!;
    outcome(q);
  }
});

fuzz('through the whole parameter parser too', () => {
  const random = rng(7);
  for (let i = 0; i < 500; i++) {
    const q = Array.from(
      { length: 1 + Math.floor(random() * 8) },
      () => PIECES[Math.floor(random() * PIECES.length)],
    ).join('');
    try {
      parseAlertQuery(new URLSearchParams({ q }), { defaultPageSize: 10, defaultField: 'text' });
    } catch (err) {
      assert.ok(err instanceof AppError && err.status === 400, `q=${JSON.stringify(q)}: ${String(err)}`);
    }
  }
});

fuzz.run();
