import { appError, type AppError } from '../../errors.ts';

/**
 * Checks a regular expression the way PostgreSQL compiles it for `~*` (an ARE, Spencer's engine:
 * https://www.postgresql.org/docs/current/functions-matching.html#POSIX-SYNTAX-DETAILS) before it
 * reaches SQL, so a bad one is our 400 with a position instead of the database's error. It refuses
 * only what PostgreSQL refuses; the few errors it cannot foresee (a pattern too complex to compile,
 * unknown collating element names, other flavours chosen with `(?b)`, `(?e)`, `(?x)`) are still
 * answered with the same 400 by the errors middleware.
 */
export function regexProblem(pattern: string): RegexProblem | null {
  try {
    new Checker(Array.from(pattern)).check();
    return null;
  } catch (err) {
    if (err instanceof RegexProblem) return err;
    throw err;
  }
}

/** A 400 naming the parameter, the problem and where it is, when `pattern` would not compile. */
export function assertRegex(pattern: string, label: string): void {
  const problem = regexProblem(pattern);
  if (problem) throw invalidRegex(label, pattern, problem);
}

const invalidRegex = (label: string, pattern: string, p: RegexProblem): AppError => {
  const shown = pattern.length > 100 ? `${pattern.slice(0, 100)}…` : pattern;
  return appError('invalid_regex').with({
    errors: [`${label}: ${p.message} at position ${p.at} of /${shown}/`],
  });
};

/** What is wrong, and the position (in characters, from 1) where the engine would notice. */
export class RegexProblem extends Error {
  readonly at: number;
  constructor(message: string, at: number) {
    super(message);
    this.at = at;
  }
}

const CLASS_NAMES = new Set([
  'alnum',
  'alpha',
  'ascii',
  'blank',
  'cntrl',
  'digit',
  'graph',
  'lower',
  'print',
  'punct',
  'space',
  'upper',
  'xdigit',
  'word',
]);
const OPTIONS = 'bceimnpqstwx';
/** Options that switch to syntax this checker does not follow (BRE, ERE, literal, expanded). */
const OTHER_SYNTAX = 'beqx';
/** The largest repetition count and character value the engine takes. */
const DUP_MAX = 255;
const CHR_MAX = 0x7ffffffe;

/** `[[:<:]]` and `[[:>:]]`: the start and end of a word, constraints like `\m` and `\M`. */
const WORD_EDGES = new Set(['[[:<:]]', '[[:>:]]']);
/** Escapes for single characters, by letter. */
const CHARACTER_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  B: 92,
  e: 27,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
};

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);
const isAsciiAlnum = (c: string) => /^[A-Za-z0-9]$/.test(c);

/** An escape's meaning: a character (with its code), a class (\d), a constraint (\y) or a back reference. */
type Escape =
  | { kind: 'char'; code: number }
  | { kind: 'class' }
  | { kind: 'constraint' }
  | { kind: 'backref'; n: number };

/** An open group: where it starts, the group number it captures (0: none), whether it is a lookaround. */
interface Group {
  open: number;
  capture: number;
  lookaround: boolean;
}

/** A token inside a bracket expression. */
type BracketToken =
  | { kind: 'char'; code: number | null }
  | { kind: 'range' }
  | { kind: 'class' }
  | { kind: 'equivalence' }
  | { kind: 'end' };

class Checker {
  private readonly cs: string[];
  private i = 0;
  /** Capturing groups opened so far, and those closed (a back reference needs a closed one). */
  private opened = 0;
  private readonly closed = new Set<number>();
  /** Inside a lookahead or lookbehind: groups do not capture, back references are refused. */
  private lookaround = 0;

  constructor(cs: string[]) {
    this.cs = cs;
  }

  /** Stops the check; `at` is an index into the pattern (its length: the end). */
  private fail(message: string, at = this.i): never {
    throw new RegexProblem(message, Math.min(at, this.cs.length) + 1);
  }

  check(): void {
    const { cs } = this;
    if (cs.length >= 4 && cs[0] === '*' && cs[1] === '*' && cs[2] === '*') {
      if (cs[3] === '=') return; // the rest is a literal string
      if (cs[3] !== ':') this.fail('unknown *** director', 3);
      this.i = 4;
    }
    if (cs[this.i] === '(' && cs[this.i + 1] === '?' && /^[A-Za-z]$/.test(cs[this.i + 2] ?? '')) {
      let j = this.i + 2;
      let other = false;
      for (; j < cs.length && /^[A-Za-z]$/.test(cs[j]!); j++) {
        if (!OPTIONS.includes(cs[j]!)) this.fail(`unknown embedded option '${cs[j]}'`, j);
        if (OTHER_SYNTAX.includes(cs[j]!)) other = true;
      }
      if (cs[j] !== ')') this.fail('embedded options must end with )', j);
      if (other) return; // another syntax: the database checks it
      this.i = j + 1;
    }
    this.pieces();
  }

  /**
   * Every piece, with the open groups on a stack rather than in recursion: PostgreSQL takes
   * thousands of nested groups, which would overflow a recursive checker.
   */
  private pieces(): void {
    const { cs } = this;
    const groups: Group[] = [];
    for (;;) {
      this.skipComment();
      const c = cs[this.i];
      if (c === undefined) {
        if (groups.length) this.fail('unbalanced parentheses', groups[groups.length - 1]!.open);
        return;
      }
      if (c === '|') this.i++;
      else if (c === '(') groups.push(this.openGroup());
      else if (c === ')') {
        const group = groups.pop();
        if (!group) this.fail('unbalanced parentheses'); // a ) without its (
        this.i++;
        if (group.capture) this.closed.add(group.capture);
        if (group.lookaround) this.lookaround--;
        else this.quantifier();
      } else this.piece();
    }
  }

  /** Skips `(?#…)` comments, which the engine drops before reading tokens. */
  private skipComment(): void {
    const { cs } = this;
    while (cs[this.i] === '(' && cs[this.i + 1] === '?' && cs[this.i + 2] === '#') {
      let j = this.i + 3;
      while (j < cs.length && cs[j] !== ')') j++;
      this.i = Math.min(j + 1, cs.length);
    }
  }

  /** One atom other than a group, and its quantifier; or one constraint (which takes none). */
  private piece(): void {
    const { cs } = this;
    const at = this.i;
    const c = cs[at]!;
    let quantifiable = true;
    switch (c) {
      case '^':
      case '$':
        this.i++;
        quantifiable = false;
        break;
      case '*':
      case '+':
      case '?':
        this.fail(`quantifier ${c} has nothing to repeat`);
        break;
      case '{':
        if (isDigit(cs[at + 1])) this.fail('quantifier {…} has nothing to repeat');
        this.i++;
        break;
      case '[':
        if (WORD_EDGES.has(cs.slice(at, at + 7).join(''))) {
          this.i += 7;
          quantifiable = false;
        } else {
          this.bracket();
        }
        break;
      case '\\': {
        const e = this.escape(false);
        if (e.kind === 'constraint') quantifiable = false;
        if (e.kind === 'backref') {
          if (this.lookaround > 0)
            this.fail('back references are not allowed in lookahead or lookbehind', at);
          if (!this.closed.has(e.n)) this.fail(`back reference \\${e.n} names no group before it`, at);
        }
        break;
      }
      default:
        this.i++;
    }
    if (quantifiable) this.quantifier();
  }

  /** The start of `(…)`, `(?:…)`, `(?=…)`, `(?!…)`, `(?<=…)` or `(?<!…)`. */
  private openGroup(): Group {
    const { cs } = this;
    const open = this.i;
    if (cs[open + 1] !== '?') {
      this.i++;
      // Groups inside a lookaround do not capture.
      return { open, capture: this.lookaround === 0 ? ++this.opened : 0, lookaround: false };
    }
    const kind = cs[open + 2];
    if (kind === ':') this.i += 3;
    else if (kind === '=' || kind === '!') this.i += 3;
    else if (kind === '<' && (cs[open + 3] === '=' || cs[open + 3] === '!')) this.i += 4;
    else this.fail('quantifier ? has nothing to repeat', open + 1);
    if (kind === ':') return { open, capture: 0, lookaround: false };
    this.lookaround++;
    return { open, capture: 0, lookaround: true };
  }

  /** `*`, `+`, `?` (each with an optional `?` for non-greedy), `{m}`, `{m,}`, `{m,n}`, or nothing. */
  private quantifier(): void {
    this.skipComment();
    const { cs } = this;
    const c = cs[this.i];
    if (c === '*' || c === '+' || c === '?') {
      this.i += cs[this.i + 1] === '?' ? 2 : 1;
      return;
    }
    if (c !== '{' || !isDigit(cs[this.i + 1])) return;
    const open = this.i;
    this.i++;
    const min = this.count();
    let max = min;
    if (cs[this.i] === ',') {
      this.i++;
      max = isDigit(cs[this.i]) ? this.count() : Infinity;
    }
    if (this.i >= cs.length) this.fail('unbalanced braces', open);
    if (cs[this.i] !== '}' || min > max)
      this.fail(`invalid repetition count: at most ${DUP_MAX}, minimum first`, open);
    this.i++;
    if (cs[this.i] === '?') this.i++;
  }

  private count(): number {
    const start = this.i;
    while (isDigit(this.cs[this.i])) this.i++;
    const n = Number(
      this.cs
        .slice(start, this.i)
        .join('')
        .replace(/^0+(?=\d)/, ''),
    );
    if (n > DUP_MAX) this.fail(`invalid repetition count: at most ${DUP_MAX}, minimum first`, start);
    return n;
  }

  /** A bracket expression from its `[` to its `]`. */
  private bracket(): void {
    const { cs } = this;
    const open = this.i;
    this.i++;
    if (cs[this.i] === '^') this.i++;
    let first = true;
    for (;;) {
      if (this.i >= cs.length) this.fail('unbalanced brackets', open);
      const at = this.i;
      const t = this.bracketToken(first, open);
      first = false;
      if (t.kind === 'end') return;
      if (t.kind === 'range') this.fail('invalid character range', at);
      if (t.kind !== 'char') continue;
      if (this.i < cs.length && this.peekRange()) {
        this.i++;
        if (this.i >= cs.length) this.fail('unbalanced brackets', open);
        const endAt = this.i;
        const end = this.bracketToken(false, open, true);
        if (end.kind !== 'char') this.fail('invalid character range', endAt);
        if (t.code !== null && end.code !== null && t.code > end.code)
          this.fail('invalid character range', at);
      }
    }
  }

  /** A `-` that makes a range: not first in the brackets and not just before the `]`. */
  private peekRange(): boolean {
    return this.cs[this.i] === '-' && this.cs[this.i + 1] !== ']';
  }

  /** The next token in brackets; `rangeEnd`: a `-` here is the end of a range, not a new one. */
  private bracketToken(first: boolean, open: number, rangeEnd = false): BracketToken {
    const { cs } = this;
    const c = cs[this.i]!;
    if (c === ']' && !first) {
      this.i++;
      return { kind: 'end' };
    }
    if (c === '\\') {
      const e = this.escape(true);
      if (e.kind === 'char') return { kind: 'char', code: e.code };
      return { kind: 'class' };
    }
    if (c === '-' && !first && !rangeEnd && cs[this.i + 1] !== ']') {
      this.i++;
      return { kind: 'range' };
    }
    if (c === '[' && (cs[this.i + 1] === '.' || cs[this.i + 1] === '=' || cs[this.i + 1] === ':')) {
      const mark = cs[this.i + 1]!;
      const start = this.i;
      let j = this.i + 2;
      while (j < cs.length && !(cs[j] === mark && cs[j + 1] === ']')) j++;
      if (j >= cs.length) this.fail('unbalanced brackets', open);
      const name = cs.slice(start + 2, j).join('');
      this.i = j + 2;
      if (mark === ':') {
        if (!CLASS_NAMES.has(name)) this.fail(`unknown character class [:${name}:]`, start);
        return { kind: 'class' };
      }
      if (name === '') this.fail('invalid collating element', start);
      const chars = Array.from(name);
      // A multi-character name (`[.hyphen.]`) is one of the engine's names: its code is not known here.
      const code = chars.length === 1 ? chars[0]!.codePointAt(0)! : null;
      return mark === '.' ? { kind: 'char', code } : { kind: 'equivalence' };
    }
    this.i++;
    return { kind: 'char', code: c.codePointAt(0)! };
  }

  /** The escape at the backslash under the cursor; in brackets only characters and classes are allowed. */
  private escape(inBracket: boolean): Escape {
    const { cs } = this;
    const at = this.i;
    const c = cs[at + 1];
    if (c === undefined) this.fail('a \\ at the end', at);
    this.i += 2;
    const bad = (): never => this.fail(`invalid escape \\${c}`, at);
    let e: Escape;
    if (!isAsciiAlnum(c)) e = { kind: 'char', code: c.codePointAt(0)! };
    else if ('dDsSwW'.includes(c)) e = { kind: 'class' };
    else if ('mMyYAZ'.includes(c)) e = { kind: 'constraint' };
    else if (c in CHARACTER_ESCAPES) e = { kind: 'char', code: CHARACTER_ESCAPES[c]! };
    else if (c === 'c') {
      if (this.i >= cs.length) bad();
      e = { kind: 'char', code: cs[this.i]!.codePointAt(0)! & 0x1f };
      this.i++;
    } else if (c === 'u' || c === 'U' || c === 'x') {
      const [min, max] = c === 'u' ? [4, 4] : c === 'U' ? [8, 8] : [1, 255];
      const start = this.i;
      while (this.i - start < max && isHex(cs[this.i])) this.i++;
      if (this.i - start < min) bad();
      // 32-bit arithmetic, as the engine's: larger values wrap around.
      const code = Number(BigInt(`0x${cs.slice(start, this.i).join('')}`) % 2n ** 32n);
      if (code > CHR_MAX) bad();
      e = { kind: 'char', code };
    } else if (isDigit(c)) e = this.numericEscape(c, at, bad);
    else return bad();
    if (inBracket && e.kind !== 'char' && e.kind !== 'class') bad();
    return e;
  }

  /** `\1`…`\9`, or `\nn` naming a group opened so far: a back reference; otherwise an octal character. */
  private numericEscape(c: string, at: number, bad: () => never): Escape {
    const { cs } = this;
    if (c !== '0') {
      let j = at + 1;
      while (j < cs.length && j - (at + 1) < 255 && isDigit(cs[j])) j++;
      const n = Number(cs.slice(at + 1, j).join(''));
      if (j === at + 2 || (n > 0 && n <= this.opened)) {
        this.i = j;
        return { kind: 'backref', n };
      }
    }
    let j = at + 1;
    while (j < cs.length && j - (at + 1) < 3 && /^[0-7]$/.test(cs[j]!)) j++;
    if (j === at + 1) bad();
    let code = parseInt(cs.slice(at + 1, j).join(''), 8);
    if (code > 0xff) {
      j--; // three digits that make more than a byte: the last is a plain character
      code >>= 3;
    }
    this.i = j;
    return { kind: 'char', code };
  }
}
