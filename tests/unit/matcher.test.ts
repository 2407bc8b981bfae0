import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LiveAlert } from '../../shared/alerts.ts';
import { parseAlertQuery } from '../../server/domain/query/params.ts';
import { compileMatcher } from '../../server/realtime/matcher.ts';

const base: LiveAlert = {
  id: '1a2b3c4d-0000-4000-8000-000000000001',
  href: 'http://x/api/alert/1a2b3c4d',
  resource: 'web01.example.com',
  event: 'DiskFull',
  environment: 'Production',
  severity: 'major',
  correlate: [],
  status: 'open',
  service: ['Web', 'Storage'],
  group: 'Infra',
  value: '95%',
  text: 'Disk full on web01',
  tags: ['linux', 'prod'],
  attributes: { region: 'EU-West', pri: 2 },
  origin: 'nagios/mon01',
  type: 'exceptionAlert',
  createTime: '2024-05-01T10:00:00.000Z',
  timeout: 3600,
  customer: null,
  duplicateCount: 3,
  repeat: true,
  previousSeverity: 'minor',
  trendIndication: 'moreSevere',
  receiveTime: '2024-05-01T10:00:00.000Z',
  lastReceiveId: '9f8e7d6c-0000-4000-8000-000000000002',
  lastReceiveTime: '2024-05-02T08:30:00.000Z',
  updateTime: '2024-05-02T08:30:00.000Z',
};

const matches = (qs: string, alert: LiveAlert = base) =>
  compileMatcher(
    parseAlertQuery(new URLSearchParams(qs), { defaultPageSize: 50, defaultField: 'text' }).where,
  )(alert);

test('filters: equality, negation, lists, attributes, ids, numbers, booleans and times', () => {
  assert.ok(matches('severity=major&environment=Production'));
  assert.not.ok(matches('severity=Major'));
  assert.ok(matches('severity=critical&severity=major'));
  assert.ok(matches('severity!=critical'));
  assert.not.ok(matches('severity!=major'));
  assert.ok(matches('environment=~prod'));
  assert.ok(matches('resource=~^web&resource=db'));
  assert.ok(matches('service=Web'));
  assert.not.ok(matches('service=web'));
  assert.ok(matches('tag=prod&tag=none'));
  assert.ok(matches('attributes.region=EU-West'));
  assert.ok(matches('attributes.pri=2'));
  assert.ok(matches('id=1A2B'));
  assert.ok(matches('id=9f8e'));
  assert.not.ok(matches('id=ffff'));
  assert.ok(matches('duplicateCount=3&repeat=true'));
  assert.ok(matches('from-date=2024-05-02T08:00:00.000Z'));
  assert.not.ok(matches('to-date=2024-05-02T08:00:00.000Z'));
  assert.ok(matches('customer!=acme'), 'a null customer is not acme');
});

test('q: words, phrases, wildcards, regexes, ranges, lists, attributes, exists and boolean logic', () => {
  assert.ok(matches('q=disk'));
  assert.ok(matches('q=resource:WEB01'));
  assert.ok(matches('q=' + encodeURIComponent('resource:"web01.example.com"')));
  assert.not.ok(matches('q=' + encodeURIComponent('resource:"web01xexample"')));
  assert.ok(matches('q=' + encodeURIComponent('event:disk*')));
  assert.ok(matches('q=' + encodeURIComponent('resource:/^web[0-9]+/')));
  assert.ok(matches('q=' + encodeURIComponent('duplicate_count:[2 TO 5]')));
  assert.not.ok(matches('q=' + encodeURIComponent('duplicate_count:{3 TO *]')));
  assert.ok(matches('q=' + encodeURIComponent('lastReceiveTime:>2024-05-01')));
  assert.ok(matches('q=' + encodeURIComponent('createTime:2024-05-01')));
  assert.ok(matches('q=tags:linux'));
  assert.not.ok(matches('q=tags:lin'));
  assert.ok(matches('q=' + encodeURIComponent('_exists_:region AND attributes.region:eu')));
  assert.not.ok(matches('q=_exists_:zone'));
  assert.ok(matches('q=' + encodeURIComponent('severity:critical OR status:open')));
  assert.not.ok(matches('q=' + encodeURIComponent('disk NOT web01')));
  assert.not.ok(matches('q=' + encodeURIComponent('NOT value:95')));
  assert.ok(matches('q=' + encodeURIComponent('value:*')));
});

test('an alert changes view when its state changes', () => {
  const acked = { ...base, status: 'ack' };
  assert.ok(matches('status=open', base));
  assert.not.ok(matches('status=open', acked));
  assert.ok(matches('status=open&status=ack', acked));
});

test.run();
