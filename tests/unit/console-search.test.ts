import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLucene } from '../../server/domain/query/lucene.ts';
import { plainWords, searchQuery } from '../../web/src/routes/alerts/search.ts';

const search = suite('console search box: plain words to the API q');

search('a plain word is looked for in resource, event, service, group and description', () => {
  assert.is(
    searchQuery(' KafkaConsumerLag '),
    '(resource:KafkaConsumerLag OR event:KafkaConsumerLag OR service:*KafkaConsumerLag* OR group:KafkaConsumerLag OR text:KafkaConsumerLag)',
  );
});

search('several plain words must all be found; syntax characters in them are escaped', () => {
  const q = searchQuery('db-01 a<b');
  assert.is(q.split(' AND ').length, 2);
  assert.ok(q.includes('resource:db\\-01') && q.includes('resource:a\\<b'), q);
  // Every expansion is valid query syntax that means what was typed, case-insensitive substrings.
  for (const typed of ['db-01 a<b', 'web01.example.com', 'x&y', 'a|b', "o'brien", 'café']) {
    const cond = JSON.stringify(parseLucene(searchQuery(typed), 'text'));
    for (const w of typed.split(' '))
      assert.ok(cond.includes(`"value":${JSON.stringify(w)}`), `${typed}: ${cond}`);
  }
});

search('text using the query syntax is sent as typed', () => {
  for (const typed of [
    'status:open',
    'foo*',
    '"a phrase"',
    'a AND b',
    'NOT x',
    '-x',
    '/re/',
    'a && b',
    '(a)',
  ]) {
    assert.is(plainWords(typed), null, typed);
    assert.is(searchQuery(typed), typed);
  }
  assert.is(searchQuery('   '), '');
});

search.run();
