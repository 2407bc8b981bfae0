import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  formatPyValue,
  parsePySettings,
  PyLiteralError,
  type PyValue,
} from '../../server/config/py-literal.ts';

/** The value of a single `X = <literal>` assignment. */
function value(literal: string): PyValue {
  const assignments = parsePySettings(`X = ${literal}`);
  assert.is(assignments.length, 1);
  return assignments[0]!.value;
}

/** The error parsing `source` produces; fails the test if it parses. */
function failure(source: string): PyLiteralError {
  try {
    parsePySettings(source);
  } catch (err) {
    if (err instanceof PyLiteralError) return err;
    throw err;
  }
  assert.unreachable(`expected a PyLiteralError for ${JSON.stringify(source)}`);
  throw new Error('unreachable');
}

function assertFails(source: string, line: number, column: number, message: string | RegExp): void {
  const err = failure(source);
  assert.is(
    `${err.line}:${err.column}`,
    `${line}:${column}`,
    `position of error in ${JSON.stringify(source)}`,
  );
  if (typeof message === 'string') assert.is(err.message, message);
  else assert.match(err.message, message);
}

const EXPECTED_VALUE = 'expected a literal value (string, number, True/False/None, list, tuple or dict)';

test('an empty file or one with only comments and blank lines has no assignments', () => {
  assert.equal(parsePySettings(''), []);
  assert.equal(parsePySettings('\n\n# just a comment\n   # indented comment\n\t\n'), []);
});

test('scalar literals: strings, ints, floats, True, False, None', () => {
  const source = `A = 'single'
B = "double"
C = 42
D = 0.75
E = True
F = False
G = None
`;
  assert.equal(parsePySettings(source), [
    { name: 'A', value: 'single', line: 1 },
    { name: 'B', value: 'double', line: 2 },
    { name: 'C', value: 42, line: 3 },
    { name: 'D', value: 0.75, line: 4 },
    { name: 'E', value: true, line: 5 },
    { name: 'F', value: false, line: 6 },
    { name: 'G', value: null, line: 7 },
  ]);
});

test('names are any Python identifier', () => {
  const names = parsePySettings('lower = 1\n_private = 2\nMixed_Case9 = 3\nÉTAT = 4\n').map((a) => a.name);
  assert.equal(names, ['lower', '_private', 'Mixed_Case9', 'ÉTAT']);
});

test('comments, trailing semicolons, several statements per line', () => {
  const source = `# header with 'quotes' and [brackets] and {braces
A = 1  # trailing comment with "quote" and ( paren
B = 2;
C = 3 ;  # semicolon then comment
D = 4; E = 5
`;
  assert.equal(
    parsePySettings(source).map((a) => [a.name, a.value, a.line]),
    [
      ['A', 1, 2],
      ['B', 2, 3],
      ['C', 3, 4],
      ['D', 4, 5],
      ['E', 5, 5],
    ],
  );
});

test("'#' inside strings is not a comment; brackets inside strings do not nest", () => {
  assert.is(value("'#not-a-comment'  # but this is"), '#not-a-comment');
  assert.is(value('"a # b"'), 'a # b');
  assert.equal(value("['[', '(', '{', '#']"), ['[', '(', '{', '#']);
  assert.equal(value("{'}': ']'}"), { '}': ']' });
});

test('Windows line endings, old Mac line endings and a byte-order mark', () => {
  const assignments = parsePySettings('\uFEFFA = 1\r\nB = [\r\n  2,\r\n]\r\nC = """x\r\ny"""\rD = 4\r\n');
  assert.equal(
    assignments.map((a) => [a.name, a.value, a.line]),
    [
      ['A', 1, 1],
      ['B', [2], 2],
      ['C', 'x\ny', 5],
      ['D', 4, 7],
    ],
  );
});

test('string escapes in ordinary strings', () => {
  assert.is(value(String.raw`'a\\b'`), 'a\\b');
  assert.is(value(String.raw`'it\'s'`), "it's");
  assert.is(value(String.raw`"say \"hi\""`), 'say "hi"');
  assert.is(value(String.raw`'\n\r\t\0'`), '\n\r\t\0');
  assert.is(value(String.raw`'\a\b\f\v'`), '\x07\b\f\v');
  assert.is(value(String.raw`'\x41\x7e'`), 'A~');
  assert.is(value(String.raw`'\u00e9\u20AC'`), 'é€');
  assert.is(value(String.raw`'\U0001F600'`), '😀');
  assert.is(value(String.raw`'\101\60'`), 'A0', 'octal escapes');
  assert.is(value("'one \\\ntwo'"), 'one two', 'backslash-newline continues the string');
});

test('unknown escapes are kept literally, as Python does', () => {
  assert.is(value(String.raw`'C:\Data\q'`), 'C:\\Data\\q');
  assert.is(value(String.raw`'\d+\.\w'`), '\\d+\\.\\w');
});

test('string prefixes: raw, unicode and bytes', () => {
  assert.is(value(String.raw`r'\d+\n'`), '\\d+\\n');
  assert.is(value(String.raw`R"\x41"`), '\\x41');
  assert.is(value(String.raw`r'it\'s'`), "it\\'s", 'a backslash still protects the quote in a raw string');
  assert.is(value(String.raw`u'caf\u00e9'`), 'café');
  assert.is(value(`U"plain"`), 'plain');
  assert.is(value(`b'bytes'`), 'bytes');
  assert.is(value(String.raw`B'\x41'`), 'A');
  assert.is(value(String.raw`rb'\x41'`), '\\x41');
  assert.is(value(String.raw`Br'\x41'`), '\\x41');
});

test('triple-quoted strings span lines and may contain quotes', () => {
  const source = `A = '''first line
it's "quoted"
last'''
B = """x ''' y \\""" z"""
C = 3
`;
  assert.equal(parsePySettings(source), [
    { name: 'A', value: 'first line\nit\'s "quoted"\nlast', line: 1 },
    { name: 'B', value: `x ''' y """ z`, line: 4 },
    { name: 'C', value: 3, line: 5 },
  ]);
  assert.is(value("''''''"), '');
  assert.is(value(`"""a\\\nb"""`), 'ab');
});

test('adjacent string literals concatenate, also across lines in brackets and after a backslash', () => {
  assert.is(value(`'a' 'b'"c"`), 'abc');
  assert.is(value(`r'\\d' '\\n'`), '\\d\n');
  assert.is(value(`('multi '\n     'line '  # comment between\n     "string")`), 'multi line string');
  assert.equal(value(`['a' 'b', 'c']`), ['ab', 'c']);
  assert.is(value(`'one ' \\\n  'two'`), 'one two');
});

test('integers: decimal, underscores, hex, octal, binary, signs', () => {
  assert.is(value('0'), 0);
  assert.is(value('000'), 0);
  assert.is(value('1_000_000'), 1_000_000);
  assert.is(value('0xFF'), 255);
  assert.is(value('0x_ff'), 255);
  assert.is(value('0o755'), 0o755);
  assert.is(value('0O17'), 15);
  assert.is(value('0b1010'), 10);
  assert.is(value('-5'), -5);
  assert.is(value('+3'), 3);
  assert.is(value('- 7'), -7);
  assert.is(value('--2'), 2);
  assert.ok(Object.is(value('-0'), 0), 'an int has no negative zero');
  assert.is(value('9007199254740991'), Number.MAX_SAFE_INTEGER);
  assert.is(value('-9007199254740991'), -Number.MAX_SAFE_INTEGER);
});

test('floats in every form', () => {
  assert.is(value('1.5'), 1.5);
  assert.is(value('.5'), 0.5);
  assert.is(value('5.'), 5);
  assert.is(value('1e3'), 1000);
  assert.is(value('1.5E-2'), 0.015);
  assert.is(value('2.5e+1'), 25);
  assert.is(value('1_0.2_5'), 10.25);
  assert.is(value('-1.5'), -1.5);
  assert.is(value('007.5'), 7.5, 'leading zeros are allowed in floats');
});

test('integers beyond the safe range and bad number literals are errors', () => {
  assertFails('X = 9007199254740992', 1, 5, 'integer out of range');
  assertFails('X = -0x20000000000000', 1, 6, 'integer out of range');
  assertFails('X = 1e400', 1, 5, 'number out of range');
  assertFails('X = 0777', 1, 5, /^leading zeros in decimal integer literals are not permitted/);
  assertFails('X = 1_', 1, 5, "invalid number '1_'");
  assertFails('X = 1__0', 1, 5, "invalid number '1__0'");
  assertFails('X = 0x', 1, 5, "invalid number '0x'");
  assertFails('X = 0b12', 1, 5, "invalid number '0b12'");
  assertFails('X = 12abc', 1, 5, "invalid number '12abc'");
  assertFails('X = 1e', 1, 5, "invalid number '1e'");
  assertFails('X = 3j', 1, 5, 'complex numbers are not supported');
  assertFails('X = -True', 1, 6, "expected a number after the sign, found 'True'");
});

test('lists and tuples, with trailing commas; tuples become arrays', () => {
  assert.equal(value('[]'), []);
  assert.equal(value("[1, 'two', 3.0, True, None]"), [1, 'two', 3, true, null]);
  assert.equal(value('[1, 2,]'), [1, 2]);
  assert.equal(value('()'), []);
  assert.equal(value('(1,)'), [1]);
  assert.equal(value('(1, 2)'), [1, 2]);
  assert.equal(value('(1, 2,)'), [1, 2]);
  assert.is(value('(5)'), 5, 'parentheses without a comma only group');
  assert.is(value("(('x'))"), 'x');
  assert.equal(value('((5),)'), [5]);
  assert.equal(value('1, 2'), [1, 2], 'a bare tuple');
  assert.equal(value("'solo',"), ['solo']);
});

test('dicts: keys become strings the way Python str() renders them', () => {
  assert.equal(value('{}'), {});
  assert.equal(value("{'a': 1, \"b\": [2], 'c': {'d': None},}"), { a: 1, b: [2], c: { d: null } });
  assert.equal(value('{1: "int", 2.5: "float", 1.0: "whole float", 1e16: "big", 1e-5: "small", -3: "neg"}'), {
    '1': 'int',
    '2.5': 'float',
    '1.0': 'whole float',
    '1e+16': 'big',
    '1e-05': 'small',
    '-3': 'neg',
  });
  assert.equal(value("{True: 't', False: 'f', None: 'n', 0x10: 'hex'}"), {
    True: 't',
    False: 'f',
    None: 'n',
    '16': 'hex',
  });
  assert.equal(value("{'k': 1, 'k': 2}"), { k: 2 }, 'a repeated key keeps the last value');
  const proto = value("{'__proto__': 1}") as Record<string, PyValue>;
  assert.equal(Object.keys(proto), ['__proto__']);
  assert.is(Object.getPrototypeOf(proto), Object.prototype);
});

test('dict keys that are not simple literals are rejected', () => {
  assertFails("X = {'a': 1, [2]: 3}", 1, 14, 'dict keys must be strings, numbers, True/False or None');
  assertFails("X = {'a': 1, 'b'}", 1, 17, "expected ':', found '}'");
  assertFails("X = {'a' = 1}", 1, 10, "expected ':', found '='");
});

test('sets become arrays, without duplicates, in written order', () => {
  assert.equal(value("{'b', 'a', 'b'}"), ['b', 'a']);
  assert.equal(value('{1, 2, 3,}'), [1, 2, 3]);
  assert.equal(value("{('x', 1), ('x', 1)}"), [['x', 1]]);
  assertFails('X = {1, 2: 3}', 1, 10, "expected ',' or '}', found ':'");
});

test('nested structures, as in real alertad.conf files', () => {
  const source = `FWD_DESTINATIONS = [
    ('http://peer:8080/api', {'key': 'k', 'secret': 's'}, ['alerts', 'actions']),
]
COLOR_MAP = {'severity': {'critical': 'red', 'major': 'orange'}, 'text': 'black'}
`;
  assert.equal(parsePySettings(source), [
    {
      name: 'FWD_DESTINATIONS',
      value: [['http://peer:8080/api', { key: 'k', secret: 's' }, ['alerts', 'actions']]],
      line: 1,
    },
    { name: 'COLOR_MAP', value: { severity: { critical: 'red', major: 'orange' }, text: 'black' }, line: 4 },
  ]);
});

test('nesting is capped at 32 levels', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  let expected: PyValue = [];
  for (let i = 1; i < 32; i++) expected = [expected];
  assert.equal(value(nested(32)), expected);
  assertFails(`X = ${nested(33)}`, 1, 37, 'nesting too deep');
  assertFails(`X = ${'{"a": '.repeat(40)}1${'}'.repeat(40)}`, 1, 5 + 32 * 6, 'nesting too deep');
});

test('multi-line values: inside brackets and with backslash continuation', () => {
  const source = `PLUGINS = [
    'reject',   # comment inside a list

    "blackout",
]
TIMEOUT = \\
    3600
MAP = {
  'a':
      1,
  'b': (
    2,
    3),
}
AFTER = 'x'
`;
  assert.equal(parsePySettings(source), [
    { name: 'PLUGINS', value: ['reject', 'blackout'], line: 1 },
    { name: 'TIMEOUT', value: 3600, line: 6 },
    { name: 'MAP', value: { a: 1, b: [2, 3] }, line: 8 },
    { name: 'AFTER', value: 'x', line: 15 },
  ]);
});

test('duplicate assignments are all kept, in order', () => {
  const assignments = parsePySettings('DEBUG = False\nPORT = 1\nDEBUG = True\n');
  assert.equal(
    assignments.map((a) => [a.name, a.value, a.line]),
    [
      ['DEBUG', false, 1],
      ['PORT', 1, 2],
      ['DEBUG', true, 3],
    ],
  );
});

test('function calls, attribute access and names are rejected at the offending token', () => {
  assertFails("DEBUG = True\nPLUGINS = os.environ.get('X')\n", 2, 11, `${EXPECTED_VALUE}, found 'os'`);
  assertFails('X = dict(a=1)', 1, 5, `${EXPECTED_VALUE}, found 'dict'`);
  assertFails(
    "X = 'a'.upper()",
    1,
    8,
    /^only literal values are supported, not expressions or function calls/,
  );
  assertFails('X = [1][0]', 1, 8, /^only literal values are supported/);
  assertFails('X = true', 1, 5, `${EXPECTED_VALUE}, found 'true' (did you mean True?)`);
  assertFails('X = null', 1, 5, `${EXPECTED_VALUE}, found 'null' (did you mean None?)`);
});

test('expressions are rejected', () => {
  assertFails(
    'X = 1+2',
    1,
    6,
    "only literal values are supported, not expressions or function calls (found '+')",
  );
  assertFails('X = [1 * 2]', 1, 8, /found '\*'/);
  assertFails("X = 'a' % 3", 1, 9, /^only literal values are supported/);
  assertFails('X = 1 if True else 2', 1, 7, "expected end of line, found 'if'");
  assertFails('X = 1 2', 1, 7, "expected end of line, found '2'");
  assertFails('X = [1 2]', 1, 8, "expected ',' or ']', found '2'");
  assertFails('X = *a', 1, 5, `${EXPECTED_VALUE}, found '*'`);
});

test('anything but NAME = value is rejected', () => {
  assertFails('import os\n', 1, 1, "unsupported statement 'import'; expected NAME = value");
  assertFails('A = 1\nfrom x import y\n', 2, 1, /^unsupported statement 'from'/);
  assertFails('X 5', 1, 3, "expected NAME = value, found '5'");
  assertFails('X\n', 1, 2, 'expected NAME = value, found end of line');
  assertFails("print('hi')", 1, 6, "expected NAME = value, found '('");
  assertFails('X += 1', 1, 3, "expected NAME = value, found '+'");
  assertFails("'str' = 1", 1, 1, 'expected NAME = value, found a string');
  assertFails('5 = X', 1, 1, "expected NAME = value, found '5'");
  assertFails('A = 1;;', 1, 7, "expected NAME = value, found ';'");
  assertFails('True = 1', 1, 1, 'cannot assign to True');
  assertFails('X =\nY = 1', 1, 4, `${EXPECTED_VALUE}, found end of line`);
  assertFails('X = ', 1, 5, `${EXPECTED_VALUE}, found end of line`);
  assertFails('A = 1\n  B = 2\n', 2, 3, 'unexpected indent');
});

test('string errors: unterminated, f-strings, bad escapes and prefixes', () => {
  assertFails("A = 1\nX = 'abc\nY = 2", 2, 5, 'unterminated string');
  assertFails('X = "abc', 1, 5, 'unterminated string');
  assertFails("X = 'abc\\", 1, 5, 'unterminated string');
  assertFails("A = 1\nX = '''abc\n\nY = 2\n", 2, 5, 'unterminated triple-quoted string');
  assertFails("X = f'{a}'", 1, 5, 'f-strings are not supported');
  assertFails('X = rF"x"', 1, 5, 'f-strings are not supported');
  assertFails("X = ur'x'", 1, 5, "invalid string prefix 'ur'");
  assertFails("X = 'a\\x4'", 1, 7, 'truncated \\xXX escape');
  assertFails("X = 'a\\u12'", 1, 7, 'truncated \\uXXXX escape');
  assertFails("X = '\\U00110000'", 1, 6, 'illegal Unicode character in \\U escape');
  assertFails("X = '\\N{BULLET}'", 1, 6, '\\N{...} escapes are not supported');
});

test('bracket errors: never closed, mismatched, stray', () => {
  assertFails("PLUGINS = [\n  'a',\n  'b'\n", 1, 11, "'[' was never closed");
  assertFails("PLUGINS = ['a', 'b'\nDEBUG = True\n", 1, 11, "'[' was never closed");
  assertFails("X = {'a': [1, 2}", 1, 16, "closing '}' does not match '['");
  assertFails('X = (1, 2]', 1, 10, "closing ']' does not match '('");
  assertFails('X = ]', 1, 5, `${EXPECTED_VALUE}, found ']'`);
  assertFails('X = [\nfoo,\n]', 2, 1, `${EXPECTED_VALUE}, found 'foo'`);
  assertFails('X = [1,,]', 1, 8, `${EXPECTED_VALUE}, found ','`);
});

test('lexical errors: stray characters and bad line continuations', () => {
  assertFails('X = $5', 1, 5, "unexpected character '$'");
  assertFails('X = `1`', 1, 5, "unexpected character '`'");
  assertFails('X = \u00a01', 1, 5, 'unexpected character U+00A0');
  assertFails('X = \\ 1', 1, 5, 'unexpected character after line continuation character');
  assertFails('X = \\', 1, 5, 'unexpected end of file after line continuation character');
});

test('errors carry 1-based line and column, and the message does not repeat them', () => {
  const err = failure('A = 1\n\n# comment\nB = [\n  1,\n  foo,\n]\n');
  assert.instance(err, PyLiteralError);
  assert.instance(err, Error);
  assert.is(err.name, 'PyLiteralError');
  assert.is(err.line, 6);
  assert.is(err.column, 3);
  assert.is(err.message, `${EXPECTED_VALUE}, found 'foo'`);
  assert.not.match(err.message, /\b6\b/);
});

test('formatPyValue renders Python literals', () => {
  assert.is(formatPyValue(null), 'None');
  assert.is(formatPyValue(true), 'True');
  assert.is(formatPyValue(false), 'False');
  assert.is(formatPyValue(42), '42');
  assert.is(formatPyValue(-1.5), '-1.5');
  assert.is(formatPyValue(1e-7), '1e-07');
  assert.is(formatPyValue('plain'), "'plain'");
  assert.is(formatPyValue(`it's "x" \\ \n\t\r`), `'it\\'s "x" \\\\ \\n\\t\\r'`);
  assert.is(formatPyValue('\x00\x7f\u2028é😀'), "'\\x00\\x7f\\u2028é😀'");
  assert.is(formatPyValue([]), '[]');
  assert.is(formatPyValue({}), '{}');
  assert.is(formatPyValue(['a', 1, [null]]), "['a', 1, [None]]");
  assert.is(formatPyValue({ key: 'v', n: { deep: [true] } }), "{'key': 'v', 'n': {'deep': [True]}}");
  assert.is(formatPyValue({ "it's": 1 }), "{'it\\'s': 1}");
});

test('formatPyValue output parses back to the same value', () => {
  const samples: PyValue[] = [
    null,
    true,
    0,
    -17,
    3.25,
    1e-7,
    1e300,
    '',
    'quote \' and "double" and \\ and \n and \x01 and \u2028 and 😀',
    ['x', [1, [2, []]], {}],
    { a: { b: ['c', null, false] }, 'key with space': 1.5, '#': '#' },
  ];
  for (const sample of samples) assert.equal(value(formatPyValue(sample)), sample, formatPyValue(sample));
});

test.run();
