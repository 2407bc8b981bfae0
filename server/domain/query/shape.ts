import { appError } from '../../errors.ts';

/** Deeper nesting than this is refused before parsing: the parser recurses once per level. */
export const MAX_QUERY_DEPTH = 32;
/**
 * More terms and operators than this are refused before parsing: the parser recurses once per
 * operator and its time grows faster than the length (500 take it about 30 ms).
 */
export const MAX_QUERY_TOKENS = 500;

type Token =
  | { kind: 'operand'; at: number }
  | { kind: 'operator'; text: string; at: number }
  | { kind: 'not'; text: string; at: number }
  | { kind: 'open'; at: number }
  | { kind: 'close'; at: number };

const WHITESPACE = /[ \t\r\n\f]/;
/** Characters that end an unquoted word (as in the `lucene` grammar; `:` stays inside). */
const WORD_END = /[ \t\r\n\f(){}[\]"/^~]/;
const BINARY = new Set(['AND', 'OR', '&&', '||']);

/**
 * Splits `q` into operands, operators and parentheses the way the `lucene` grammar reads them:
 * quoted phrases, /regexes/ and [ranges] are single operands, a word that ends in `:` names the
 * field of what follows (so `status:AND` is a term), and AND, OR, NOT, && and || are operators
 * only when whitespace or the end follows them. Never throws, whatever the text.
 */
function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  let fieldPending = false;
  let i = 0;
  /** Index just past the closing `close` (any of its characters), skipping backslash escapes. */
  const skipTo = (from: number, close: string) => {
    let j = from;
    while (j < q.length && !close.includes(q[j]!)) j += q[j] === '\\' ? 2 : 1;
    return Math.min(j + 1, q.length);
  };
  while (i < q.length) {
    const c = q[i]!;
    const at = i + 1;
    if (WHITESPACE.test(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'open' : 'close', at });
      fieldPending = false;
      i++;
      continue;
    }
    if (c === '^' || c === '~') {
      // A boost or fuzziness modifier belongs to the operand before it.
      i++;
      while (i < q.length && /[0-9.]/.test(q[i]!)) i++;
      continue;
    }
    if (c === ']' || c === '}') {
      i++;
      continue;
    }
    if (c === '"' || c === '/' || c === '[' || c === '{') {
      i = skipTo(i + 1, c === '"' ? '"' : c === '/' ? '/' : ']}');
      tokens.push({ kind: 'operand', at });
      fieldPending = false;
      continue;
    }
    let j = i;
    while (j < q.length && !WORD_END.test(q[j]!)) j += q[j] === '\\' ? 2 : 1;
    j = Math.min(j, q.length);
    const word = q.slice(i, j);
    const isOperatorWord = (BINARY.has(word) || word === 'NOT') && (j === q.length || WHITESPACE.test(q[j]!));
    if (isOperatorWord && !fieldPending) {
      tokens.push(word === 'NOT' ? { kind: 'not', text: word, at } : { kind: 'operator', text: word, at });
    } else if (/(^|[^\\])(\\\\)*:$/.test(word) && !fieldPending) {
      fieldPending = true; // `field:` then its value or group, possibly after whitespace
    } else {
      tokens.push({ kind: 'operand', at });
      fieldPending = false;
    }
    i = Math.max(j, i + 1);
  }
  return tokens;
}

/**
 * Refuses, before parsing, a query the parser would recurse too deeply on or take long over:
 * parentheses nested deeper than MAX_QUERY_DEPTH, or more than MAX_QUERY_TOKENS terms and
 * operators. 400 with a position.
 */
export function checkQuerySize(q: string): void {
  let tokens = 0;
  let depth = 0;
  for (const t of tokenize(q)) {
    if (t.kind !== 'open' && t.kind !== 'close' && ++tokens > MAX_QUERY_TOKENS) {
      throw appError('invalid_query').with({
        errors: [`more than ${MAX_QUERY_TOKENS} terms and operators (at position ${t.at})`],
      });
    }
    if (t.kind === 'open' && ++depth > MAX_QUERY_DEPTH) {
      throw appError('invalid_query').with({
        errors: [`parentheses nested deeper than ${MAX_QUERY_DEPTH} (at position ${t.at})`],
      });
    }
    if (t.kind === 'close') depth = Math.max(0, depth - 1);
  }
}

/**
 * Refuses, with the parser's 400 and a position, operators without a term on each side, which the
 * `lucene` package crashes on (`AND`) or silently drops (`a OR`, `(|| a)`, `a AND OR b`). Run on
 * text the package has parsed.
 */
export function checkOperators(q: string): void {
  let expectingTerm = true;
  let previous: Token | null = null;
  const noTermAfter = (t: Token | null) =>
    t && (t.kind === 'operator' || t.kind === 'not')
      ? appError('invalid_query').with({ errors: [`'${t.text}' at position ${t.at} has no term after it`] })
      : null;
  for (const t of tokenize(q)) {
    if (t.kind === 'operand') expectingTerm = false;
    else if (t.kind === 'not' || t.kind === 'open') expectingTerm = true;
    else if (t.kind === 'operator') {
      if (expectingTerm) {
        const follows = previous?.kind === 'operator' || previous?.kind === 'not';
        throw appError('invalid_query').with({
          errors: [
            `'${t.text}' at position ${t.at} ${follows ? 'follows another operator' : 'has no term before it'}`,
          ],
        });
      }
      expectingTerm = true;
    } else {
      const e = expectingTerm ? noTermAfter(previous) : null;
      if (e) throw e;
      expectingTerm = false;
    }
    previous = t;
  }
  const e = noTermAfter(previous);
  if (e) throw e;
}
