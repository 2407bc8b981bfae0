// The `lucene` package (a PEG.js Lucene query grammar) ships no types; these describe its AST.
declare module 'lucene' {
  export interface Location {
    start: { offset: number; line: number; column: number };
    end: { offset: number; line: number; column: number };
  }
  export interface TermNode {
    field: string;
    term: string;
    quoted: boolean;
    regex: boolean;
    prefix: '+' | '-' | '!' | null;
    boost: number | null;
    similarity?: number | null;
    proximity?: number | null;
    termLocation?: Location;
    fieldLocation?: Location | null;
  }
  export interface RangeNode {
    field: string;
    term_min: string;
    term_max: string;
    inclusive: 'both' | 'none' | 'left' | 'right';
    fieldLocation?: Location | null;
  }
  export interface BinaryNode {
    left: AST;
    operator?: string;
    right?: AST;
    parenthesized?: boolean;
    field?: string;
    start?: string;
  }
  export type AST = BinaryNode | TermNode | RangeNode;
  export interface SyntaxError extends Error {
    location?: Location;
    found?: string | null;
  }
  const lucene: { parse(query: string): AST };
  export default lucene;
}
