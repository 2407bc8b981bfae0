/**
 * The console's search box (docs/ui-console.md "Search"): what people type, turned into the API's
 * `q` (docs/queries.md). Plain words, with no field, operator, quote, wildcard or bracket, are
 * looked for in the fields an operator means by them; anything else is sent as typed. The API's
 * own `q` keeps its meaning (a bare word searches the default field) for every other client.
 * A plain module, so unit tests can import it (tests/unit/console-search.test.ts).
 */

/** The fields a plain word is looked for in, each as a case-insensitive substring. */
export const PLAIN_FIELDS = ['resource', 'event', 'service', 'group', 'text'] as const;

/** How the search box names them to the reader. */
export const PLAIN_FIELD_NAMES = 'resource, event, service, group or description';

/** Characters with a meaning in the query syntax; a word holding one is not plain. */
const SYNTAX = /[:"()[\]{}^~*?\\/]|&&|\|\|/;
const OPERATORS = new Set(['AND', 'OR', 'NOT']);

/** The words of a plain search, or null when the text uses the query syntax (or is empty). */
export function plainWords(text: string): string[] | null {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  for (const w of words) {
    if (SYNTAX.test(w) || OPERATORS.has(w) || /^[-+!]/.test(w)) return null;
  }
  return words;
}

/** A word as one term of the query syntax: every character that could mean something escaped. */
export const escapeTerm = (word: string) => word.replace(/[-+&|!(){}[\]^"~*?:\\/<>=]/g, (c) => `\\${c}`);

/**
 * The API `q` for what was typed: each plain word must be found in one of PLAIN_FIELDS (services
 * are a list, so they are matched with a wildcard: any service containing the word); several
 * words must all be found. Text using the query syntax is returned unchanged.
 */
export function searchQuery(text: string): string {
  const words = plainWords(text);
  if (!words) return text.trim();
  const one = (w: string) => {
    const t = escapeTerm(w);
    return `(${PLAIN_FIELDS.map((f) => (f === 'service' ? `service:*${t}*` : `${f}:${t}`)).join(' OR ')})`;
  };
  return words.map(one).join(' AND ');
}
