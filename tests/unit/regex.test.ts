import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AppError } from '../../server/errors.ts';
import { assertRegex, regexProblem } from '../../server/domain/query/regex.ts';

const said = (pattern: string) => {
  const p = regexProblem(pattern);
  return p ? `${p.message} @${p.at}` : null;
};

const check = suite('regular expressions checked as PostgreSQL compiles them');

check('ordinary expressions, and the ones the query translator builds, pass', () => {
  for (const ok of [
    'web[0-9]+',
    '\\yweb01\\.example\\.com\\y',
    '\\ybro.*\\y',
    '^(?:[a-z0-9-]+\\.)+[a-z]{2,}$',
    '(foo|bar)+baz',
    '(a)\\1',
    'a*?b+?c??d{2,3}?',
    '[]a-]',
    '[^]a]',
    '[[:alpha:][:digit:]_-]',
    '[[.hyphen.]-a]',
    '[\\d\\s.]',
    '\\x41\\u00e9\\U0001F600\\cA\\0\\777',
    '(?i)abc',
    '***:(?n)a',
    '***=a(b[',
    '(?=a)(?!b)(?<=c)(?<!d)e',
    'a(?#comment)*',
    '[[:<:]]word[[:>:]]',
    'x{1}{',
    'a{,2}',
    '\\é',
    '',
  ]) {
    assert.is(said(ok), null, ok);
  }
});

check('what PostgreSQL refuses is refused, with the position it notices it at', () => {
  for (const [bad, want] of [
    ['(', 'unbalanced parentheses @1'],
    ['a(b', 'unbalanced parentheses @2'],
    ['a)', 'unbalanced parentheses @2'],
    ['[a', 'unbalanced brackets @1'],
    ['[[:alpha]]', 'unbalanced brackets @1'],
    ['a{1', 'unbalanced braces @2'],
    ['a{2,1}', 'invalid repetition count: at most 255, minimum first @2'],
    ['a{256}', 'invalid repetition count: at most 255, minimum first @3'],
    ['a{1,2,3}', 'invalid repetition count: at most 255, minimum first @2'],
    ['*a', 'quantifier * has nothing to repeat @1'],
    ['a**', 'quantifier * has nothing to repeat @3'],
    ['a|+', 'quantifier + has nothing to repeat @3'],
    ['^*', 'quantifier * has nothing to repeat @2'],
    ['{1}', 'quantifier {…} has nothing to repeat @1'],
    ['a{2}*', 'quantifier * has nothing to repeat @5'],
    ['(?=a)*', 'quantifier * has nothing to repeat @6'],
    ['\\y?', 'quantifier ? has nothing to repeat @3'],
    ['(?<n>a)', 'quantifier ? has nothing to repeat @2'],
    ['(?', 'quantifier ? has nothing to repeat @2'],
    ['a\\', 'a \\ at the end @2'],
    ['\\q', 'invalid escape \\q @1'],
    ['\\x', 'invalid escape \\x @1'],
    ['\\u12', 'invalid escape \\u @1'],
    ['\\xffffffff', 'invalid escape \\x @1'],
    ['\\89', 'invalid escape \\8 @1'],
    ['[\\y]', 'invalid escape \\y @2'],
    ['\\1', 'back reference \\1 names no group before it @1'],
    ['(a\\1)', 'back reference \\1 names no group before it @3'],
    ['(?=(a))\\1', 'back reference \\1 names no group before it @8'],
    ['(a)(?=\\1)', 'back references are not allowed in lookahead or lookbehind @7'],
    ['[[:foo:]]', 'unknown character class [:foo:] @2'],
    ['[z-a]', 'invalid character range @2'],
    ['[a-c-e]', 'invalid character range @5'],
    ['[\\d-z]', 'invalid character range @4'],
    ['[a-[:alpha:]]', 'invalid character range @4'],
    ['[[..]]', 'invalid collating element @2'],
    ['(?z)a', "unknown embedded option 'z' @3"],
    ['(?i', 'embedded options must end with ) @4'],
    ['***?', 'unknown *** director @4'],
  ] as const) {
    assert.is(said(bad), want, bad);
  }
});

check('syntax the checker does not follow is left to the database', () => {
  for (const pattern of ['(?b)a\\(', '(?e)a{', '(?x) a b # c', '(?q)(('])
    assert.is(said(pattern), null, pattern);
});

check('assertRegex: a 400 naming the parameter, the problem and the position', () => {
  try {
    assertRegex('(', 'q');
    assert.unreachable('expected a 400');
  } catch (err) {
    assert.instance(err, AppError);
    const e = err as AppError;
    assert.equal(
      [e.status, e.message, e.errors],
      [400, 'Invalid regular expression', ['q: unbalanced parentheses at position 1 of /(/']],
    );
  }
  assert.not.throws(() => assertRegex('a|b', 'resource'));
});

check('any text at all: a problem or null, never an exception', () => {
  const chars = [
    '(',
    ')',
    '[',
    ']',
    '{',
    '}',
    '*',
    '+',
    '?',
    '|',
    '^',
    '$',
    '\\',
    'a',
    '1',
    ',',
    '-',
    ':',
    '.',
    '=',
    '#',
    '<',
  ];
  let s = 5;
  for (let k = 0; k < 20_000; k++) {
    let p = '';
    for (let n = 0; n < 1 + (k % 9); n++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      p += chars[s % chars.length];
    }
    regexProblem(p);
  }
  regexProblem('('.repeat(10_000));
  regexProblem('a'.repeat(100_000));
});

check.run();
