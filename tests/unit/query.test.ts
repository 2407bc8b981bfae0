import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { conditionSql, whereOf } from '../../server/db/alert-query.ts';
import { AppError } from '../../server/errors.ts';
import type { Cond } from '../../server/domain/query/conditions.ts';
import { parseIsoDate } from '../../server/domain/query/conditions.ts';
import { parseLucene } from '../../server/domain/query/lucene.ts';
import { parseAlertQuery } from '../../server/domain/query/params.ts';

/** A condition as a compact string: fields by JSON name, values JSON-encoded. */
function show(c: Cond): string {
  const name = (r: { field: { name: string }; key?: string }) =>
    r.key !== undefined ? `attributes.${r.key}` : r.field.name;
  switch (c.kind) {
    case 'all':
      return 'ALL';
    case 'and':
      return `(${c.items.map(show).join(' AND ')})`;
    case 'or':
      return `(${c.items.map(show).join(' OR ')})`;
    case 'not':
      return `NOT ${show(c.item)}`;
    case 'in':
      return `${name(c.ref)} IN ${JSON.stringify(c.values)}`;
    case 'like':
      return `${name(c.ref)} LIKE ${JSON.stringify(c.value)}`;
    case 'match':
      return `${name(c.ref)} ~ ${JSON.stringify(c.pattern)}`;
    case 'range':
      return `${name(c.ref)} ${c.lower ? (c.lower.inclusive ? '[' : '{') + JSON.stringify(c.lower.value) : '*'}..${
        c.upper ? JSON.stringify(c.upper.value) + (c.upper.inclusive ? ']' : '}') : '*'
      }`;
    case 'exists':
      return `EXISTS ${c.key}`;
    case 'present':
      return `PRESENT ${name(c.ref)}`;
    case 'idPrefix':
      return `ID ${JSON.stringify(c.prefixes)}`;
  }
}

const q = (text: string, df = 'text') => show(parseLucene(text, df));

function throws400(fn: () => unknown, message: RegExp) {
  try {
    fn();
  } catch (err) {
    assert.instance(err, AppError);
    const e = err as AppError;
    assert.is(e.status, 400);
    assert.match(`${e.message} ${(e.errors ?? []).join(' ')}`, message);
    return;
  }
  assert.unreachable('expected a 400');
}

const lucene = suite('q: Lucene-style query translation');

lucene('bare words search the default field; missing operator is OR', () => {
  assert.is(q('disk'), 'text LIKE "disk"');
  assert.is(q('disk full'), '(text LIKE "disk" OR text LIKE "full")');
  assert.is(q('web', 'resource'), 'resource LIKE "web"');
});

lucene('NOT binds tighter than AND, AND tighter than OR, in any order', () => {
  assert.is(q('a OR b AND c'), '(text LIKE "a" OR (text LIKE "b" AND text LIKE "c"))');
  assert.is(q('a AND b OR c'), '((text LIKE "a" AND text LIKE "b") OR text LIKE "c")');
  assert.is(q('NOT a OR b'), '(NOT text LIKE "a" OR text LIKE "b")');
  assert.is(q('(a OR b) AND c'), '((text LIKE "a" OR text LIKE "b") AND text LIKE "c")');
  assert.is(q('a && b || c'), '((text LIKE "a" AND text LIKE "b") OR text LIKE "c")');
  // Alerta reads an OR before a negated term as AND, folding left: (a AND b) AND NOT c.
  assert.is(q('a && b || !c'), '((text LIKE "a" AND text LIKE "b") AND NOT text LIKE "c")');
  assert.is(q('a b -c d'), '(((text LIKE "a" OR text LIKE "b") AND NOT text LIKE "c") OR text LIKE "d")');
});

lucene('a NOT b and a OR NOT b read as a AND NOT b; -x is NOT x, +x is x', () => {
  assert.is(q('a NOT b'), '(text LIKE "a" AND NOT text LIKE "b")');
  assert.is(q('a OR NOT b'), '(text LIKE "a" AND NOT text LIKE "b")');
  assert.is(q('-a +b'), '(NOT text LIKE "a" OR text LIKE "b")');
  assert.is(q('+a -b'), '(text LIKE "a" AND NOT text LIKE "b")');
});

lucene(
  '+, - and ! on terms with a field, on ranges and on field groups; OR before a negated term is AND',
  () => {
    assert.is(q('-status:closed'), 'NOT status LIKE "closed"');
    assert.is(q('!status:closed'), 'NOT status LIKE "closed"');
    assert.is(q('+status:open'), 'status LIKE "open"');
    assert.is(q('-duplicate_count:[1 TO 5]'), 'NOT duplicateCount [1..5]');
    assert.is(q('-severity:(major minor)'), 'NOT (severity LIKE "major" OR severity LIKE "minor")');
    assert.is(q('down -hard'), '(text LIKE "down" AND NOT text LIKE "hard")');
    assert.is(q('down !hard'), '(text LIKE "down" AND NOT text LIKE "hard")');
    assert.is(q('a OR -status:closed'), '(text LIKE "a" AND NOT status LIKE "closed")');
    assert.is(
      q("'; drop table alerts; --"),
      '((text LIKE "\';" OR text LIKE "drop" OR text LIKE "table" OR text LIKE "alerts;") AND NOT text LIKE "-")',
    );
  },
);

lucene('field terms: substring words, whole-word phrases with literal punctuation, wildcards, regex', () => {
  assert.is(q('resource:web'), 'resource LIKE "web"');
  assert.is(q('resource:"web01.example.com"'), 'resource ~ "\\\\yweb01\\\\.example\\\\.com\\\\y"');
  assert.is(q('event:bro*'), 'event ~ "\\\\ybro.*\\\\y"');
  assert.is(q('event:qu?ck'), 'event ~ "\\\\yqu.?ck\\\\y"');
  assert.is(q('resource:/web[0-9]+/'), 'resource ~ "web[0-9]+"');
  assert.is(q('resource:a\\:b'), 'resource LIKE "a:b"');
});

lucene('field groups apply the field to each term', () => {
  assert.is(q('severity:(critical OR major)'), '(severity LIKE "critical" OR severity LIKE "major")');
  assert.is(
    q('severity:(critical major) AND NOT status:closed'),
    '((severity LIKE "critical" OR severity LIKE "major") AND NOT status LIKE "closed")',
  );
});

lucene('lists match whole elements; attributes by key; _exists_; field:*', () => {
  assert.is(q('tags:maintenance'), 'tags IN ["maintenance"]');
  assert.is(q('service:"Web Site"'), 'service IN ["Web Site"]');
  assert.is(q('tags:main*'), 'tags ~ "\\\\ymain.*\\\\y"');
  assert.is(q('attributes.region:eu'), 'attributes.region LIKE "eu"');
  assert.is(q('_.region:eu'), 'attributes.region LIKE "eu"');
  assert.is(q('_exists_:region'), 'EXISTS region');
  assert.is(q('value:*'), 'PRESENT value');
});

lucene('ranges and comparisons use the field type', () => {
  assert.is(q('duplicate_count:[10 TO *]'), 'duplicateCount [10..*');
  assert.is(q('duplicateCount:{1 TO 5]'), 'duplicateCount {1..5]');
  assert.is(q('timeout:>=60'), 'timeout [60..*');
  assert.is(q('timeout:<60'), 'timeout *..60}');
  const day = Date.parse('2024-05-01T00:00:00Z');
  assert.is(q('last_receive_time:>2024-05-01'), `lastReceiveTime {${day}..*`);
  assert.is(q('lastReceiveTime:<=2024-05-01'), `lastReceiveTime *..${day + 86_400_000}}`);
  assert.is(q('createTime:2024-05-01'), `createTime [${day}..${day + 86_400_000}}`);
  assert.is(q('resource:[a TO m]'), 'resource ["a".."m"]');
  assert.is(q('repeat:true'), 'repeat IN [true]');
});

lucene('errors are 400 with our own words and a position', () => {
  throws400(() => parseLucene('(a', 'text'), /Failed to parse query string\..*position 3/);
  throws400(() => parseLucene('a:b:c', 'text'), /Failed to parse query string\..*':'.*position 4/);
  throws400(() => parseLucene('{"status":"open"}', 'text'), /Mongo-style/);
  throws400(() => parseLucene('foo:bar', 'text'), /Unknown field 'foo'/);
  throws400(() => parseLucene('timeout:xyz', 'text'), /timeout.*not an integer/);
  throws400(() => parseLucene('createTime:yesterday', 'text'), /ISO 8601/);
  throws400(() => parseLucene('tags:[a TO b]', 'text'), /range/);
  throws400(() => parseLucene('text:foo^2', 'text'), /boost/);
  throws400(() => parseLucene('text:foo~2', 'text'), /fuzzy/);
  throws400(() => parseLucene('attributes:x', 'text'), /attributes\.<key>/);
});

lucene('query text only ever reaches SQL as bound values', () => {
  for (const text of [
    "'; drop table alerts; --",
    'resource:"a\\" OR 1=1"',
    // The ) is escaped: unbalanced, it is refused as a regular expression before any SQL (below).
    "resource:/x'\\); DELETE FROM alerts; --/",
    "attributes.region:\"eu' OR '1'='1\"",
    '_exists_:"a\') OR true --"',
  ]) {
    const fragment = conditionSql(parseLucene(text, 'text'));
    assert.not.match(fragment.sql, /drop|delete|OR 1=1|'1'='1|true --/i, text);
    assert.ok(fragment.values.length > 0, text);
  }
  throws400(
    () => parseLucene("resource:/x'); DELETE FROM alerts; --/", 'text'),
    /Invalid regular expression/,
  );
});

const params = suite('alert query parameters');
const parse = (qs: string, now?: number) =>
  parseAlertQuery(new URLSearchParams(qs), { defaultPageSize: 1000, defaultField: 'text', now });

params('filters: equality, repeats, ~, negation, lists, attributes, ids', () => {
  assert.is(show(parse('status=open&status=ack').where), 'status IN ["open","ack"]');
  assert.is(show(parse('environment=~prod').where), 'environment LIKE "prod"');
  assert.is(show(parse('resource=~web&resource=db').where), 'resource ~ "web|db"');
  assert.is(show(parse('group!=Network').where), 'NOT group IN ["Network"]');
  assert.is(show(parse('service=a&service=b').where), 'service IN ["a","b"]');
  assert.is(show(parse('tag=x').where), 'tags IN ["x"]');
  assert.is(show(parse('attributes.region=EU').where), 'attributes.region IN ["EU"]');
  assert.is(show(parse('id=1a2b&id=3c').where), 'ID ["1a2b","3c"]');
  assert.is(show(parse('duplicateCount=3&repeat=yes').where), '(duplicateCount IN [3] AND repeat IN [true])');
  assert.is(show(parse('last_receive_id=abc').where), 'lastReceiveId IN ["abc"]');
  assert.is(show(parse('_=1&callback=x&api-key=k&page=2').where), 'ALL');
});

params('filters: unknown names, wrong types, NUL and bad dates are 400', () => {
  throws400(() => parse('foo=bar'), /Invalid filter parameter: foo/);
  throws400(() => parse('attributes=x'), /Invalid filter parameter: attributes/);
  throws400(() => parse('duplicateCount=abc'), /duplicateCount.*not an integer/);
  throws400(() => parse('duplicateCount=99999999999999999999'), /not an integer/);
  throws400(() => parse('repeat=maybe'), /not a boolean/);
  throws400(() => parse('resource=a%00b'), /NUL/);
  throws400(() => parse('from-date=yesterday'), /ISO 8601/);
  throws400(() => parse('to-date=2024-02-31'), /ISO 8601/);
});

params('dates bound lastReceiveTime; to-date defaults to now only when asked', () => {
  const from = Date.parse('2024-05-01T10:00:00.123Z');
  assert.is(show(parse('from-date=2024-05-01T10:00:00.123Z').where), `lastReceiveTime {${from}..*`);
  assert.is(show(parse('', 42).where), 'lastReceiveTime *..42]');
  assert.is(parseIsoDate('2024-05-01T12:00:00+02:00')?.ms, Date.parse('2024-05-01T10:00:00Z'));
});

params('sort keys: natural directions, - inverts, reverse flips all, unknown is 400', () => {
  const keys = (qs: string) =>
    parse(qs).sort.map((k) => `${k.descending ? '-' : '+'}${k.ref.key ?? k.ref.field.name}`);
  assert.equal(keys(''), ['-lastReceiveTime']);
  assert.equal(keys('sort-by=severity&sort-by=lastReceiveTime'), ['+severity', '-lastReceiveTime']);
  assert.equal(keys('sort-by=-resource&sort-by=-createTime'), ['-resource', '+createTime']);
  assert.equal(keys('sort-by=severity&reverse=true'), ['-severity']);
  assert.equal(keys('sort-by=attributes.region'), ['+region']);
  throws400(() => parse('sort-by=foo'), /Sorting by 'foo' field not supported\./);
  throws400(() => parse('sort-by=tag'), /Sorting by 'tag'/);
});

params('paging: defaults, limit alias, bounds', () => {
  assert.equal([parse('').page, parse('').pageSize], [1, 1000]);
  assert.equal([parse('page=3&page-size=20').page, parse('page=3&page-size=20').pageSize], [3, 20]);
  assert.is(parse('limit=5').pageSize, 5);
  assert.is(parse('page-size=0').pageSize, 1000);
  throws400(() => parse('page=0'), /page must be a whole number/);
  throws400(() => parse('page=abc'), /page must be a whole number/);
  throws400(() => parse('page-size=-1'), /page-size/);
  throws400(() => parse('page-size=100001'), /page-size/);
  throws400(() => parse('show-history=perhaps'), /show-history/);
});

params('every selection carries the caller customer restriction', () => {
  const where = parse('status=open').where;
  const scoped = whereOf({ where, customers: ['acme', 'globex'] });
  assert.match(scoped.sql, /a\.customer = ANY\(/);
  assert.ok(scoped.values.some((v) => Array.isArray(v) && v.join() === 'acme,globex'));
  assert.not.match(whereOf({ where, customers: null }).sql, /customer/);
});

lucene.run();
params.run();
