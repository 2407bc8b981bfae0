/**
 * The regular-expression checker against PostgreSQL itself (issue #18, item 4): over hand-picked
 * and thousands of generated patterns, it never refuses one PostgreSQL compiles, and it catches
 * every one PostgreSQL refuses except the kinds only the database can judge.
 */
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { regexProblem } from '../../server/domain/query/regex.ts';
import { serverUrl } from '../helpers/db.ts';

/** Hand-picked patterns, separated by spaces; then two nested thousands deep. */
const HAND = [
  ...String.raw`( ) a) [ ] { a{ a{1 a{1, a{,2} a{x} a{2,1} a{255} a{256} * a** a*? a{2}? a{2}* ^* a|* (*) $* \ a\ \q \d \y \m \A \Z \1 (a)\1 (a)\2 \0 \x41 \x \u12 \u1234 \cA \c \e \k [[:foo:]] [[:alpha:]] [[:word:]] [[:ascii:]] [z-a] [a-] [-a] []a] [^]a] [[.a.]] [[=a=]] [a [\d] [\q] (?:a) (?=a) (?<=a) (?<!a) (?<n>a) (?i)a (?z)a a(?i) ***:a ***=a( ***? (?=a)* (?=(a)\1) a{1}{2} () (|) | \b* \B* \y* \U0001F600 \Uzz \777 \08 \89 \8 \18 \1a [[:<:]]a [[:<:]]* [a[:<:]] (a\1) (?=(a))\1 (?:(a))\1 [\D] [\y] [\1] [\b] [\x41-\x5a] [\d-z] [a-\d] [[:alpha:]-z] [a-z-9] [--a] [a--] [!--] [!---] [] [^] [[:alpha]] [[.hyphen.]] [[.hyphen.]-a] [[=a=]-z] [[:] [[ [a[b] (?#abc (? (?i (?) (?i)(?i)a ***:(?i)a (?i)***:a \U7FFFFFFF \x110000 \xFFFFFFFFFF \x100000000 \x7FFFFFFE \é a{000001} a{0255} a{2555} a{1,x} a??? a{2}?? a+* [\c] [\uffff-\u0000] \c\ a(?#x)* (?#x)* [[.].]] [\n-\t] [a-[] (?I)a (a)(?=\1) web[0-9]+ \yweb\y ^(?:[a-z0-9-]+\.)+[a-z]{2,}$`.split(
    ' ',
  ),
  `${'('.repeat(3000)}a${')'.repeat(3000)}`,
  '('.repeat(3000),
];

/** What generated patterns are made of. */
const PIECES = [
  ...String.raw`( ) [ ] { } * + ? | ^ $ . \ a z 0 1 2 9 , - : = ! < > # d x u y c q A B [: :] [. .] [= =] (? (?: (?= (?<= (?i) {2} {1,3} {3,1} {256} \d \1 \2 \x4 é alpha ***`.split(
    ' ',
  ),
  ' ',
];

/** What PostgreSQL refuses that only it can judge: complexity, collating element names, other flavours. */
const DATABASE_ONLY = /too complex|collating element/;
const OTHER_FLAVOUR = /^(\*\*\*:)?\(\?[a-z]*[beqx][a-z]*\)/;

test('the checker agrees with PostgreSQL', async () => {
  const random = (() => {
    let s = 18;
    return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  })();
  const generated = Array.from({ length: 4000 }, () => {
    let p = '';
    for (let n = 1 + Math.floor(random() * 8); n > 0; n--) p += PIECES[Math.floor(random() * PIECES.length)];
    return p;
  });
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  const refusedWrongly: string[] = [];
  const missed: string[] = [];
  let refusedByBoth = 0;
  try {
    for (const pattern of [...HAND, ...generated]) {
      let database: string | null = null;
      try {
        await client.query("SELECT '' ~* $1", [pattern]);
      } catch (err) {
        database = (err as Error).message;
      }
      const ours = regexProblem(pattern);
      if (ours && !database) refusedWrongly.push(`${pattern.slice(0, 60)} (${ours.message})`);
      if (!ours && database && !DATABASE_ONLY.test(database) && !OTHER_FLAVOUR.test(pattern)) {
        missed.push(`${pattern.slice(0, 60)} (${database})`);
      }
      if (ours && database) refusedByBoth++;
    }
  } finally {
    await client.end();
  }
  assert.equal(refusedWrongly, [], 'never refuse what PostgreSQL compiles');
  assert.equal(missed, [], 'catch what PostgreSQL refuses');
  assert.ok(refusedByBoth > 1000, `the generated patterns exercise the errors (${refusedByBoth})`);
});

test.run();
