/**
 * Parser for Alerta-style settings files (alertad.conf): a sequence of Python
 * assignments `NAME = <literal>`. Only literals are understood — strings,
 * numbers, True/False/None, lists, tuples, dicts and sets — never code.
 *
 * Structure: a small tokenizer (`Lexer`, py-lexer.ts) that mirrors Python's rules for
 * newlines inside brackets, comments and line continuations, feeding a
 * recursive-descent `Parser` with one token of lookahead.
 */

import { CLOSERS, describe, Lexer, PyLiteralError, type OpToken, type Pos, type Token } from './py-lexer.ts';

export { PyLiteralError };

export type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

export interface PyAssignment {
  name: string;
  value: PyValue;
  /** 1-based line where the assignment starts. */
  line: number;
}

const MAX_DEPTH = 32;
const EXPECTED_VALUE = 'a literal value (string, number, True/False/None, list, tuple or dict)';
/** Operators that can only mean an expression or a call when they follow a value. */
const EXPRESSION_OPERATORS = new Set('+-*/%@&|^~<>!.([');
const KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for ' +
    'from global if import in is lambda nonlocal not or pass raise return try while with yield'
  ).split(' '),
);
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
