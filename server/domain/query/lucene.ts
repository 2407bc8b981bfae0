import lucene, { type AST, type BinaryNode, type RangeNode, type TermNode } from 'lucene';
import { appError } from '../../errors.ts';
import { and, not, or, parseIsoDate, parseScalar, regexEscape, type Bound, type Cond } from './conditions.ts';
import { FIELD_NAMES, resolveField, typeOf, type FieldRef } from './fields.ts';
import { assertRegex } from './regex.ts';
import { checkOperators, checkQuerySize } from './shape.ts';

const IMPLICIT = '<implicit>';
const DAY_MS = 86_400_000;

const fail = (detail: string) => appError('invalid_query').with({ errors: [detail] });

/**
 * Translates a Lucene-style `q` (query-syntax.md) into a condition. The text is only ever parsed:
 * values become typed parameters, field names are looked up in the field catalogue.
 */
export function parseLucene(q: string, defaultField: string): Cond {
  if (!q.trim()) return { kind: 'all' };
  if (q.trim().startsWith('{')) {
    throw fail(
      'Mongo-style JSON queries are no longer supported (deprecated since 6.3): use Lucene syntax, e.g. status:open',
    );
  }
  checkQuerySize(q);
  let ast: AST;
  try {
    ast = lucene.parse(q);
  } catch (err) {
    if (err instanceof RangeError) throw fail('the query is too complex');
    const e = err as { location?: { start: { offset: number } }; found?: string | null };
    const at = e.location ? e.location.start.offset + 1 : 1;
    throw fail(
      e.found === null || e.found === undefined
        ? `unexpected end of query at position ${at}`
        : `unexpected '${e.found}' at position ${at}`,
    );
  }
  checkOperators(q);
  const defaultRef = resolveField(defaultField);
  if (!defaultRef) throw appError('invalid_default_field', defaultField).with({ errors: [allowed()] });
  return new Translator(defaultField).node(ast, null);
}

const allowed = () => `fields: ${FIELD_NAMES.join(', ')}, attributes.<key>, _.<key>, _exists_`;

/** How operands are joined: `OR-NOT` is an OR before a negated term, which Alerta reads as AND. */
type Operator = 'AND' | 'OR' | 'OR-NOT';
type Joiner = Exclude<Operator, 'AND'>;

const isBinary = (n: AST): n is BinaryNode => 'left' in n;
const isRange = (n: AST): n is RangeNode => 'term_min' in n;

/**
 * A term's `+`, `-` or `!` modifier: the parser keeps it in `prefix` for terms without a field and
 * folds it into the field name (`-status`) for terms with one.
 */
function prefixOf(n: TermNode | RangeNode): '+' | '-' | '!' | null {
  if ('prefix' in n && n.prefix) return n.prefix;
  const first = n.field.charAt(0);
  return first === '-' || first === '+' || first === '!' ? first : null;
}

/** Removes backslash escapes (`\:` → `:`, `\\` → `\`). */
const unescape = (s: string) => s.replace(/\\(.)/g, '$1');

class Translator {
  readonly defaultField: string;
  constructor(defaultField: string) {
    this.defaultField = defaultField;
  }

  /** A node and the chain of operators to its right, with NOT > AND > OR precedence. */
  node(n: AST, field: string | null): Cond {
    if (!isBinary(n)) return this.atom(n, field);
    let first = this.operand(n.left, field);
    if (n.start === 'NOT') first = not(first);
    const { operators, operands } =
      n.operator !== undefined && n.right !== undefined
        ? this.tail(n.operator, n.right, field)
        : { operators: [], operands: [] };
    const all = [first, ...operands];
    // AND binds tighter than OR: split into AND groups at each OR (plain or "AND NOT" reading).
    const groups: Cond[][] = [[first]];
    const joins: Joiner[] = [];
    operators.forEach((op, i) => {
      if (op === 'AND') groups[groups.length - 1]!.push(all[i + 1]!);
      else {
        joins.push(op);
        groups.push([all[i + 1]!]);
      }
    });
    // Folded left to right, as Alerta does: an OR before a negated term ANDs it with everything before.
    let result = and(groups[0]!);
    let ors: Cond[] = [result];
    joins.forEach((join, i) => {
      const group = and(groups[i + 1]!);
      if (join === 'OR') ors.push(group);
      else {
        result = and([or(ors), group]);
        ors = [result];
      }
    });
    return or(ors);
  }

  /** The operators and operands of a chain continuing after `op`. */
  tail(op: string, right: AST, field: string | null): { operators: Operator[]; operands: Cond[] } {
    const operators: Operator[] = [];
    const operands: Cond[] = [];
    let curOp: string | undefined = op;
    let curRight: AST | undefined = right;
    while (curOp !== undefined && curRight !== undefined) {
      const next: BinaryNode | null =
        isBinary(curRight) && !curRight.parenthesized && curRight.field === undefined ? curRight : null;
      const operandAst = next ? next.left : curRight;
      let operand = this.operand(operandAst, field);
      if (next?.start === 'NOT') operand = not(operand);
      const [bool, negate] = this.operator(curOp);
      // An OR whose right side is a negated term is read as AND NOT, as Alerta does (`a -b`, `a OR !b`).
      const negatedTerm =
        next?.start === 'NOT' ||
        (isBinary(operandAst)
          ? /^[-!]/.test(operandAst.field ?? '')
          : /^[-!]/.test(prefixOf(operandAst) ?? ''));
      operators.push(bool === 'OR' && negatedTerm && !negate ? 'OR-NOT' : bool);
      operands.push(negate ? not(operand) : operand);
      curOp = next?.operator;
      curRight = next?.right;
    }
    return { operators, operands };
  }

  operator(op: string): ['AND' | 'OR', boolean] {
    switch (op) {
      case 'AND':
      case '&&':
        return ['AND', false];
      case 'OR':
      case '||':
      case IMPLICIT:
        return ['OR', false];
      case 'AND NOT':
      case 'OR NOT':
      case 'NOT':
        return ['AND', true];
      default:
        throw fail(`unsupported operator '${op}'`);
    }
  }

  /** One operand: a parenthesised group (possibly `field:(…)`) or a term. */
  operand(n: AST, field: string | null): Cond {
    if (isBinary(n)) {
      const named = n.field !== undefined && n.field !== IMPLICIT ? n.field : null;
      const modifier = named?.charAt(0);
      const negated = modifier === '-' || modifier === '!';
      const groupField = named ? named.replace(/^[-+!]/, '') : field;
      const group = this.node({ ...n, parenthesized: false, field: undefined }, groupField);
      return negated ? not(group) : group;
    }
    return this.atom(n, field);
  }

  atom(n: TermNode | RangeNode, inherited: string | null): Cond {
    // The package returns a bare `{operator}` for text that is only operators: never read it as a term.
    if (typeof n.field !== 'string') throw fail('an operator needs a term on each side');
    const field = n.field.replace(/^[-+!]/, '');
    const name = field === IMPLICIT || field === '' ? (inherited ?? this.defaultField) : field;
    const cond = isRange(n) ? this.range(name, n) : this.term(name, n);
    const prefix = prefixOf(n);
    return prefix === '-' || prefix === '!' ? not(cond) : cond;
  }

  ref(name: string): FieldRef {
    const ref = resolveField(name);
    if (!ref) throw appError('unknown_query_field', name).with({ errors: [allowed()] });
    return ref;
  }

  term(name: string, n: TermNode): Cond {
    if (n.boost !== null && n.boost !== undefined) throw fail('boosts (^) are not supported');
    if (n.similarity !== null && n.similarity !== undefined)
      throw fail('fuzzy searches (~) are not supported');
    if (n.proximity !== null && n.proximity !== undefined)
      throw fail('proximity searches (~) are not supported');
    if (name === '_exists_') return { kind: 'exists', key: unescape(n.term) };
    const ref = this.ref(name);
    const label = name;
    if (ref.field.type === 'json' && ref.key === undefined) {
      throw appError('attributes_need_key').with({ errors: [allowed()] });
    }
    const type = typeOf(ref);
    if (n.regex) {
      if (type !== 'text' && type !== 'list') throw appError('field_not_regex', label);
      assertRegex(n.term, 'q');
      return { kind: 'match', ref, pattern: n.term };
    }
    if (n.quoted) {
      const phrase = unescape(n.term);
      if (type === 'list') return { kind: 'in', ref, values: [phrase] };
      if (type !== 'text') return this.typedEquals(ref, phrase, label);
      return { kind: 'match', ref, pattern: `\\y${regexEscape(phrase)}\\y` };
    }
    const raw = n.term;
    if (raw === '*') return { kind: 'present', ref };
    const cmp = /^(>=|<=|>|<)(.+)$/.exec(raw);
    if (cmp) {
      const isUpper = cmp[1]!.startsWith('<');
      const bound = this.bound(ref, unescape(cmp[2]!), label, isUpper, cmp[1]!.endsWith('='));
      return { kind: 'range', ref, ...(isUpper ? { upper: bound } : { lower: bound }) };
    }
    if (/(^|[^\\])[*?]/.test(raw)) {
      if (type !== 'text' && type !== 'list') throw appError('field_not_wildcard', label);
      const pattern = raw
        .split(/(\\.|[*?])/)
        .map((part) =>
          part === '*'
            ? '.*'
            : part === '?'
              ? '.?'
              : regexEscape(part.startsWith('\\') ? part.slice(1) : part),
        )
        .join('');
      return { kind: 'match', ref, pattern: `\\y${pattern}\\y` };
    }
    const word = unescape(raw);
    if (type === 'list') return { kind: 'in', ref, values: [word] };
    if (type === 'text') return { kind: 'like', ref, value: word };
    return this.typedEquals(ref, word, label);
  }

  /** Equality on a number, boolean or time field; a bare date matches that whole (UTC) day. */
  typedEquals(ref: FieldRef, word: string, label: string): Cond {
    if (typeOf(ref) === 'time') {
      const d = parseIsoDate(word);
      if (d?.dateOnly) {
        return {
          kind: 'range',
          ref,
          lower: { value: d.ms, inclusive: true },
          upper: { value: d.ms + DAY_MS, inclusive: false },
        };
      }
    }
    return { kind: 'in', ref, values: [parseScalar(ref, word, label)] };
  }

  /** A range bound typed for the field; a bare date as an upper bound covers that whole day when inclusive. */
  bound(ref: FieldRef, raw: string, label: string, upper: boolean, inclusive: boolean): Bound {
    const type = typeOf(ref);
    if (type === 'list') throw appError('field_not_range', label);
    if (type === 'time' && upper) {
      const d = parseIsoDate(raw);
      if (d?.dateOnly && inclusive) return { value: d.ms + DAY_MS, inclusive: false };
    }
    return { value: parseScalar(ref, raw, label), inclusive };
  }

  range(name: string, n: RangeNode): Cond {
    const ref = this.ref(name);
    const lowerInclusive = n.inclusive === 'both' || n.inclusive === 'left';
    const upperInclusive = n.inclusive === 'both' || n.inclusive === 'right';
    const min = unescape(n.term_min);
    const max = unescape(n.term_max);
    const cond: Cond = { kind: 'range', ref };
    if (min !== '*') cond.lower = this.bound(ref, min, name, false, lowerInclusive);
    if (max !== '*') cond.upper = this.bound(ref, max, name, true, upperInclusive);
    return cond.lower || cond.upper ? cond : { kind: 'present', ref };
  }
}
