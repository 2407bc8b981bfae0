/**
 * Parser for Alerta-style settings files (alertad.conf): a sequence of Python
 * assignments `NAME = <literal>`. Only literals are understood — strings,
 * numbers, True/False/None, lists, tuples, dicts and sets — never code.
 *
 * Structure: a small tokenizer (`Lexer`) that mirrors Python's rules for
 * newlines inside brackets, comments and line continuations, feeding a
 * recursive-descent `Parser` with one token of lookahead.
 */

export type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

export interface PyAssignment {
  name: string;
  value: PyValue;
  /** 1-based line where the assignment starts. */
  line: number;
}

/** A syntax error; `line` and `column` are 1-based and not repeated in the message. */
export class PyLiteralError extends Error {
  line: number;
  column: number;

  constructor(message: string, line: number, column: number) {
    super(message);
    this.name = 'PyLiteralError';
    this.line = line;
    this.column = column;
  }
}

const MAX_DEPTH = 32;
const EXPECTED_VALUE = 'a literal value (string, number, True/False/None, list, tuple or dict)';
const CLOSERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
/** Punctuation that Python knows; anything else outside a string is an unexpected character. */
const OPERATORS = new Set('()[]{},:;=+-*/%@&|^~<>!.');
/** Operators that can only mean an expression or a call when they follow a value. */
const EXPRESSION_OPERATORS = new Set('+-*/%@&|^~<>!.([');
const KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for ' +
    'from global if import in is lambda nonlocal not or pass raise return try while with yield'
  ).split(' '),
);
const STRING_PREFIXES = new Set(['r', 'u', 'b', 'br', 'rb']);
const SIMPLE_ESCAPES: Record<string, string> = {
  '\n': '',
  '\\': '\\',
  "'": "'",
  '"': '"',
  n: '\n',
  r: '\r',
  t: '\t',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
};
const HEX_ESCAPE_LENGTHS: Record<string, number> = { x: 2, u: 4, U: 8 };

const IDENTIFIER = /[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*/uy;
const RADIX_INTEGER = /0(?:[xX](?:_?[0-9a-fA-F])+|[oO](?:_?[0-7])+|[bB](?:_?[01])+)/y;
const DECIMAL_NUMBER = /(?:\d(?:_?\d)*)?(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][+-]?\d(?:_?\d)*)?/y;
const NUMBER_TAIL = /[\p{L}\p{N}_.]+/uy;

interface Pos {
  line: number;
  column: number;
}

type Token = Pos &
  (
    | { kind: 'name'; text: string }
    | { kind: 'op'; text: string }
    | { kind: 'string'; value: string }
    | { kind: 'number'; text: string; value: number; float: boolean }
    | { kind: 'newline' | 'eof' }
  );
type OpToken = Extract<Token, { kind: 'op' }>;

function matchAt(re: RegExp, text: string, index: number): string {
  re.lastIndex = index;
  return re.exec(text)?.[0] ?? '';
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'name':
      return `'${token.text}'${constantHint(token.text)}`;
    case 'op':
    case 'number':
      return `'${token.text}'`;
    case 'string':
      return 'a string';
    case 'newline':
      return 'end of line';
    case 'eof':
      return 'end of file';
  }
}

/** Suggests the Python spelling for a misspelt constant such as `true` or `null`. */
function constantHint(name: string): string {
  const lower = name.toLowerCase();
  const fixed =
    lower === 'null'
      ? 'None'
      : ['true', 'false', 'none'].includes(lower)
        ? name[0]!.toUpperCase() + lower.slice(1)
        : undefined;
  return fixed && fixed !== name ? ` (did you mean ${fixed}?)` : '';
}

function showChar(char: string): string {
  return /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(char)
    ? `'${char}'`
    : `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

class Lexer {
  private readonly src: string;
  private readonly lineStarts: number[] = [0];
  private i = 0;
  /** Open brackets; newlines inside brackets are not statement ends. */
  private depth = 0;
  /** Whether the current logical line has produced a token yet. */
  private lineHasToken = false;

  constructor(source: string) {
    this.src = source.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
    for (let i = this.src.indexOf('\n'); i !== -1; i = this.src.indexOf('\n', i + 1))
      this.lineStarts.push(i + 1);
  }

  pos(index: number): Pos {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: index - this.lineStarts[lo]! + 1 };
  }

  error(message: string, index: number): PyLiteralError {
    const { line, column } = this.pos(index);
    return new PyLiteralError(message, line, column);
  }

  next(): Token {
    const src = this.src;
    for (;;) {
      const c = src[this.i];
      if (c === undefined) {
        if (this.lineHasToken && this.depth === 0) return this.endLine(this.i);
        return { kind: 'eof', ...this.pos(this.i) };
      }
      if (c === ' ' || c === '\t' || c === '\f') {
        this.i++;
      } else if (c === '#') {
        const end = src.indexOf('\n', this.i);
        this.i = end === -1 ? src.length : end;
      } else if (c === '\n') {
        this.i++;
        if (this.lineHasToken && this.depth === 0) return this.endLine(this.i - 1);
      } else if (c === '\\') {
        const after = src[this.i + 1];
        if (after !== '\n') {
          throw this.error(
            after === undefined
              ? 'unexpected end of file after line continuation character'
              : 'unexpected character after line continuation character',
            this.i,
          );
        }
        this.i += 2;
      } else {
        if (!this.lineHasToken && this.depth === 0 && this.pos(this.i).column > 1) {
          throw this.error('unexpected indent', this.i);
        }
        this.lineHasToken = true;
        return this.scanToken();
      }
    }
  }

  /** Whether the text right after the last token read is a single `=` (not `==`). */
  assignmentFollows(): boolean {
    return matchAt(/[ \t\f]*=(?!=)/y, this.src, this.i) !== '';
  }

  private endLine(index: number): Token {
    this.lineHasToken = false;
    return { kind: 'newline', ...this.pos(index) };
  }

  private scanToken(): Token {
    const src = this.src;
    const start = this.i;
    const c = src[start]!;

    const word = matchAt(IDENTIFIER, src, start);
    if (word) {
      this.i += word.length;
      const after = src[this.i];
      if ((after === "'" || after === '"') && /^[rubf]{1,2}$/i.test(word)) {
        const prefix = word.toLowerCase();
        if (prefix.includes('f')) throw this.error('f-strings are not supported', start);
        if (!STRING_PREFIXES.has(prefix)) throw this.error(`invalid string prefix '${word}'`, start);
        return this.scanString(start, prefix.includes('r'));
      }
      return { kind: 'name', text: word, ...this.pos(start) };
    }
    if (c === "'" || c === '"') return this.scanString(start, false);
    if (/\d/.test(c) || (c === '.' && /\d/.test(src[start + 1] ?? ''))) return this.scanNumber(start);
    if (OPERATORS.has(c)) {
      this.i++;
      if (c in CLOSERS) this.depth++;
      else if (c === ')' || c === ']' || c === '}') this.depth = Math.max(0, this.depth - 1);
      return { kind: 'op', text: c, ...this.pos(start) };
    }
    throw this.error(
      `unexpected character ${showChar(String.fromCodePoint(src.codePointAt(start)!))}`,
      start,
    );
  }

  /** `start` is where the token begins (its prefix, if any); `this.i` is at the opening quote. */
  private scanString(start: number, raw: boolean): Token {
    const src = this.src;
    const quote = src[this.i]!;
    const triple = src.startsWith(quote.repeat(3), this.i);
    const close = triple ? quote.repeat(3) : quote;
    this.i += close.length;
    let value = '';
    for (;;) {
      const c = src[this.i];
      if (c === undefined || (c === '\n' && !triple)) {
        throw this.error(triple ? 'unterminated triple-quoted string' : 'unterminated string', start);
      }
      if (src.startsWith(close, this.i)) {
        this.i += close.length;
        return { kind: 'string', value, ...this.pos(start) };
      }
      if (c === '\\') {
        value += raw ? this.rawEscape() : this.escape();
      } else {
        value += c;
        this.i++;
      }
    }
  }

  /** In a raw string a backslash still protects the next character from ending the string. */
  private rawEscape(): string {
    const next = this.src[this.i + 1] ?? '';
    this.i += 1 + next.length;
    return '\\' + next;
  }

  private escape(): string {
    const src = this.src;
    const at = this.i;
    const letter = src[at + 1];
    if (letter === undefined) {
      this.i++;
      return '\\';
    }
    this.i += 2;
    const simple = SIMPLE_ESCAPES[letter];
    if (simple !== undefined) return simple;
    const hexLength = HEX_ESCAPE_LENGTHS[letter];
    if (hexLength !== undefined) {
      const digits = src.slice(this.i, this.i + hexLength);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(digits)) {
        throw this.error(`truncated \\${letter}${'X'.repeat(hexLength)} escape`, at);
      }
      const code = parseInt(digits, 16);
      if (code > 0x10ffff) throw this.error('illegal Unicode character in \\U escape', at);
      this.i += hexLength;
      return String.fromCodePoint(code);
    }
    if (letter >= '0' && letter <= '7') {
      const digits = matchAt(/[0-7]{1,3}/y, src, at + 1);
      this.i = at + 1 + digits.length;
      return String.fromCharCode(parseInt(digits, 8));
    }
    if (letter === 'N') throw this.error('\\N{...} escapes are not supported', at);
    // Python keeps unknown escapes as they are, backslash included.
    return '\\' + letter;
  }

  private scanNumber(start: number): Token {
    const src = this.src;
    let text = matchAt(RADIX_INTEGER, src, start);
    const radix = text !== '' || /^0[xob]/i.test(src.slice(start, start + 2));
    if (!radix) text = matchAt(DECIMAL_NUMBER, src, start);
    const float = !radix && /[.eE]/.test(text);

    const tail = text ? matchAt(NUMBER_TAIL, src, start + text.length) : '';
    if (tail === 'j' || tail === 'J') throw this.error('complex numbers are not supported', start);
    if (!text || tail)
      throw this.error(`invalid number '${text}${tail || matchAt(NUMBER_TAIL, src, start)}'`, start);
    if (!radix && !float && /^0[0_]*[1-9]/.test(text)) {
      throw this.error(
        'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers',
        start,
      );
    }

    this.i = start + text.length;
    const digits = text.replace(/_/g, '');
    let value: number;
    if (float) {
      value = Number(digits);
      if (!Number.isFinite(value)) throw this.error('number out of range', start);
    } else {
      const big = BigInt(digits);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw this.error('integer out of range', start);
      value = Number(big);
    }
    return { kind: 'number', text, value, float, ...this.pos(start) };
  }
}

/** Python's str() of a float, e.g. 1.0 → '1.0', 1e16 → '1e+16', 1e-05 → '1e-05'. */
function pyFloatString(n: number): string {
  if (Object.is(n, -0)) return '-0.0';
  const [mantissa, exponentText] = n.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  const plain = String(n);
  return plain.includes('.') ? plain : `${plain}.0`;
}

/** The string a dict key becomes, or undefined when the value cannot be a key. */
function keyString(value: PyValue): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null) return 'None';
  return undefined;
}

class Parser {
  private readonly lexer: Lexer;
  private tok: Token;
  /** Opening bracket tokens not yet closed, innermost last. */
  private readonly open: OpToken[] = [];

  constructor(source: string) {
    this.lexer = new Lexer(source);
    this.tok = this.lexer.next();
  }

  parseFile(): PyAssignment[] {
    const assignments: PyAssignment[] = [];
    for (;;) {
      const { kind } = this.tok;
      if (kind === 'eof') return assignments;
      if (kind !== 'newline') {
        assignments.push(this.parseAssignment());
        if (!this.atStatementEnd()) this.fail('end of line', true);
      }
      this.advance(); // past the newline or ';' (at end of file this stays at end of file)
    }
  }

  private parseAssignment(): PyAssignment {
    const nameTok = this.tok;
    if (nameTok.kind !== 'name') return this.fail('NAME = value');
    if (nameTok.text === 'True' || nameTok.text === 'False' || nameTok.text === 'None') {
      throw this.errorAt(`cannot assign to ${nameTok.text}`, nameTok);
    }
    if (KEYWORDS.has(nameTok.text)) {
      throw this.errorAt(`unsupported statement '${nameTok.text}'; expected NAME = value`, nameTok);
    }
    this.advance();
    if (!this.isOp('=')) this.fail('NAME = value');
    this.advance();

    let value = this.parseValue();
    if (this.isOp(',')) {
      // A bare tuple: NAME = 1, 2
      const items = [value];
      while (this.isOp(',')) {
        this.advance();
        if (this.atStatementEnd()) break;
        items.push(this.parseValue());
      }
      value = items;
    }
    return { name: nameTok.text, value, line: nameTok.line };
  }

  private parseValue(): PyValue {
    const tok = this.tok;
    switch (tok.kind) {
      case 'string':
        return this.parseStrings();
      case 'number':
        return this.parseNumber().value;
      case 'name':
        if (tok.text === 'True' || tok.text === 'False' || tok.text === 'None') {
          this.advance();
          return tok.text === 'None' ? null : tok.text === 'True';
        }
        break;
      case 'op':
        if (tok.text === '-' || tok.text === '+') return this.parseNumber().value;
        if (tok.text === '[') return this.parseList(tok);
        if (tok.text === '(') return this.parseParens(tok);
        if (tok.text === '{') return this.parseBraces(tok);
        break;
    }
    return this.fail(EXPECTED_VALUE);
  }

  /** Adjacent string literals concatenate, as in Python. */
  private parseStrings(): string {
    let value = '';
    while (this.tok.kind === 'string') {
      value += this.tok.value;
      this.advance();
    }
    return value;
  }

  private parseNumber(): { value: number; float: boolean } {
    let negative = false;
    while (this.tok.kind === 'op' && (this.tok.text === '-' || this.tok.text === '+')) {
      if (this.tok.text === '-') negative = !negative;
      this.advance();
    }
    const tok = this.tok;
    if (tok.kind !== 'number') return this.fail('a number after the sign');
    this.advance();
    let value = negative ? -tok.value : tok.value;
    if (!tok.float && value === 0) value = 0; // an int has no negative zero
    return { value, float: tok.float };
  }

  private parseList(open: OpToken): PyValue[] {
    const items: PyValue[] = [];
    this.parseItems(open, () => items.push(this.parseValue()));
    return items;
  }

  /** `()` and `(1,)` are tuples (arrays); `(x)` is just x. */
  private parseParens(open: OpToken): PyValue {
    const items: PyValue[] = [];
    const sawComma = this.parseItems(open, () => items.push(this.parseValue()));
    return items.length === 1 && !sawComma ? items[0]! : items;
  }

  /** `{}` and `{k: v}` are dicts (keys stringified as Python's str() would); `{a, b}` is a set (an array). */
  private parseBraces(open: OpToken): PyValue {
    const entries: [string, PyValue][] = [];
    const elements: PyValue[] = [];
    let isSet: boolean | undefined;
    this.parseItems(open, () => {
      const start = this.tok;
      const item = this.parseKeyOrElement();
      isSet ??= this.isOp(',') || this.isOp('}');
      if (isSet) {
        elements.push(item.value);
        return;
      }
      if (item.key === undefined)
        throw this.errorAt('dict keys must be strings, numbers, True/False or None', start);
      if (!this.isOp(':')) this.fail("':'", true);
      this.advance();
      entries.push([item.key, this.parseValue()]);
    });
    if (!isSet) return Object.fromEntries(entries);
    // Like Python's set, drop duplicates (but keep the order they were written in).
    const seen = new Set<string>();
    return elements.filter((element) => {
      const identity = JSON.stringify(element);
      if (seen.has(identity)) return false;
      seen.add(identity);
      return true;
    });
  }

  private parseKeyOrElement(): { value: PyValue; key: string | undefined } {
    const tok = this.tok;
    if (tok.kind === 'number' || (tok.kind === 'op' && (tok.text === '-' || tok.text === '+'))) {
      const { value, float } = this.parseNumber();
      return { value, key: float ? pyFloatString(value) : String(value) };
    }
    const value = this.parseValue();
    return { value, key: keyString(value) };
  }

  /**
   * Parses comma-separated items up to the bracket matching `open` (already
   * current), allowing a trailing comma. Returns whether any comma was seen.
   */
  private parseItems(open: OpToken, parseItem: () => void): boolean {
    const close = CLOSERS[open.text]!;
    this.open.push(open);
    if (this.open.length > MAX_DEPTH) throw this.errorAt('nesting too deep', open);
    this.advance();
    let sawComma = false;
    while (!this.isOp(close)) {
      parseItem();
      if (this.isOp(',')) {
        sawComma = true;
        this.advance();
      } else if (!this.isOp(close)) {
        this.fail(`',' or '${close}'`, true);
      }
    }
    this.open.pop();
    this.advance();
    return sawComma;
  }

  private advance(): void {
    this.tok = this.lexer.next();
  }

  private atStatementEnd(): boolean {
    return this.tok.kind === 'newline' || this.tok.kind === 'eof' || this.isOp(';');
  }

  private isOp(text: string): boolean {
    return this.tok.kind === 'op' && this.tok.text === text;
  }

  private errorAt(message: string, at: Pos): PyLiteralError {
    return new PyLiteralError(message, at.line, at.column);
  }

  /** Throws the most helpful error for finding the current token where `expected` should be. */
  private fail(expected: string, afterValue = false): never {
    const tok = this.tok;
    const open = this.open.at(-1);
    if (open) {
      // `NAME =` at the start of a line inside a bracket almost always means the bracket was left open.
      const looksLikeNextStatement =
        tok.kind === 'name' && tok.column === 1 && this.lexer.assignmentFollows();
      if (tok.kind === 'eof' || looksLikeNextStatement)
        throw this.errorAt(`'${open.text}' was never closed`, open);
      if (tok.kind === 'op' && [')', ']', '}'].includes(tok.text) && tok.text !== CLOSERS[open.text]) {
        throw this.errorAt(`closing '${tok.text}' does not match '${open.text}'`, tok);
      }
    }
    if (afterValue && tok.kind === 'op' && EXPRESSION_OPERATORS.has(tok.text)) {
      throw this.errorAt(
        `only literal values are supported, not expressions or function calls (found '${tok.text}')`,
        tok,
      );
    }
    throw this.errorAt(`expected ${expected}, found ${describe(tok)}`, tok);
  }
}

/** Parses an alertad.conf-style settings file into its `NAME = literal` assignments, in source order. */
export function parsePySettings(source: string): PyAssignment[] {
  return new Parser(source).parseFile();
}

function formatString(s: string): string {
  let out = "'";
  for (const ch of s) {
    if (ch === '\\' || ch === "'") out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && /^[\p{C}\p{Z}]$/u.test(ch)) {
      const code = ch.codePointAt(0)!;
      const [escape, width] = code <= 0xff ? ['x', 2] : code <= 0xffff ? ['u', 4] : ['U', 8];
      out += `\\${escape}${code.toString(16).padStart(width, '0')}`;
    } else out += ch;
  }
  return out + "'";
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return "float('nan')";
  if (!Number.isFinite(n)) return n > 0 ? "float('inf')" : "-float('inf')";
  return Number.isInteger(n) ? String(n) : pyFloatString(n);
}

/** Renders a value as a Python literal: 'strings', True/False/None, [lists] and {'dicts': ...}. */
export function formatPyValue(v: PyValue): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'string') return formatString(v);
  if (typeof v === 'number') return formatNumber(v);
  if (Array.isArray(v)) return `[${v.map(formatPyValue).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([key, item]) => `${formatString(key)}: ${formatPyValue(item)}`)
    .join(', ')}}`;
}
