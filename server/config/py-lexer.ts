// The tokenizer of py-literal.ts: Python's rules for newlines inside brackets, comments, line
// continuations, string prefixes and escapes, and number spellings.

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

export const CLOSERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
/** Punctuation that Python knows; anything else outside a string is an unexpected character. */
const OPERATORS = new Set('()[]{},:;=+-*/%@&|^~<>!.');
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

export interface Pos {
  line: number;
  column: number;
}

export type Token = Pos &
  (
    | { kind: 'name'; text: string }
    | { kind: 'op'; text: string }
    | { kind: 'string'; value: string }
    | { kind: 'number'; text: string; value: number; float: boolean }
    | { kind: 'newline' | 'eof' }
  );
export type OpToken = Extract<Token, { kind: 'op' }>;

function matchAt(re: RegExp, text: string, index: number): string {
  re.lastIndex = index;
  return re.exec(text)?.[0] ?? '';
}

export function describe(token: Token): string {
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

export class Lexer {
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
