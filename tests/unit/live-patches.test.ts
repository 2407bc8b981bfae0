import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SentStates } from '../../server/realtime/patches.ts';
import type { LiveAlert } from '../../shared/alerts.ts';
import { applyPatch, diffAlert } from '../../shared/live-patch.ts';
import { SENT_LIMIT, SentAlerts } from '../../web/src/lib/live/sent-alerts.ts';

const base: LiveAlert = {
  id: 'a1',
  href: 'http://x/api/alert/a1',
  resource: 'web01',
  event: 'HttpDown',
  environment: 'Production',
  severity: 'major',
  correlate: [],
  status: 'open',
  service: ['web'],
  group: 'Web',
  value: null,
  text: 'down',
  tags: ['t1'],
  attributes: { region: 'eu' },
  origin: 'test',
  type: 'exceptionAlert',
  createTime: '2026-11-27T10:00:00.000Z',
  timeout: 86400,
  customer: null,
  duplicateCount: 0,
  repeat: false,
  previousSeverity: 'indeterminate',
  trendIndication: 'moreSevere',
  receiveTime: '2026-11-27T10:00:00.000Z',
  lastReceiveId: 'a1',
  lastReceiveTime: '2026-11-27T10:00:00.000Z',
  updateTime: '2026-11-27T10:00:00.000Z',
};

test('a patch holds the id and the changed fields, and applies to the exact next state', () => {
  const next: LiveAlert = {
    ...base,
    duplicateCount: 1,
    repeat: true,
    value: '5',
    tags: ['t1', 't2'],
    attributes: { region: 'eu', room: '4' },
    lastReceiveId: 'b2',
  };
  const patch = diffAlert(base, next);
  assert.equal(patch, {
    id: 'a1',
    duplicateCount: 1,
    repeat: true,
    value: '5',
    tags: ['t1', 't2'],
    attributes: { region: 'eu', room: '4' },
    lastReceiveId: 'b2',
  });
  assert.equal(applyPatch(base, patch), next);
  // Equal arrays and objects that are other instances are not changes; null ↔ value is one.
  assert.equal(diffAlert(base, { ...base, tags: ['t1'], attributes: { region: 'eu' } }), { id: 'a1' });
  assert.equal(diffAlert(next, { ...next, value: null }), { id: 'a1', value: null });
  assert.equal(applyPatch(next, { id: 'a1', value: null }).value, null);
});

const at = (alert: LiveAlert, gseq: number) => ({ alert, gseq });
const v = (n: number): LiveAlert => ({ ...base, duplicateCount: n, lastReceiveId: `r${n}` });

test('a state goes in full first, then as a patch against the one sent before', () => {
  const sent = new SentStates();
  assert.equal(sent.split([at(v(0), 1)], 0), { alerts: [v(0)], patches: [] });
  assert.equal(sent.split([at(v(1), 2)], 0), {
    alerts: [],
    patches: [{ id: 'a1', duplicateCount: 1, lastReceiveId: 'r1' }],
  });
});

test('after a join or a catch-up, states sent before it go in full once', () => {
  const sent = new SentStates();
  sent.split([at(v(0), 1)], 0);
  sent.rejoined();
  assert.equal(sent.split([at(v(1), 2)], 0).alerts, [v(1)], 'the joining socket may not hold v0');
  assert.equal(sent.split([at(v(2), 3)], 0).patches.length, 1, 'v1 was sent after the join');
});

test('an alert that left the view, or whose state left the buffer, goes in full', () => {
  const sent = new SentStates();
  sent.split([at(v(0), 1)], 0);
  sent.forget('a1');
  assert.equal(sent.split([at(v(1), 2)], 0).alerts, [v(1)], 'forgotten');
  assert.equal(sent.split([at(v(2), 5)], 3).alerts, [v(2)], 'v1 (gseq 2) is older than the buffer');
  sent.prune(6);
  assert.is(sent.size, 0);
  sent.split([at(v(3), 7)], 0);
  sent.clear();
  assert.equal(sent.split([at(v(4), 8)], 0).alerts, [v(4)], 'cleared (a new sequence)');
});

test("the web store's sent states: snapshot, full states, patches, removals", () => {
  const sent = new SentAlerts();
  const other = { ...base, id: 'a2', lastReceiveId: 'a2' };
  sent.reset([v(0)]);
  assert.equal(sent.patch({ id: 'a1', duplicateCount: 1, lastReceiveId: 'r1' }), v(1));
  assert.is(sent.patch({ id: 'a2', text: 'x' }), null, 'never sent: the store resubscribes');
  // An alert off the page arrives in full first; the store keeps it for the patches that follow.
  sent.full(other);
  assert.equal(sent.patch({ id: 'a2', text: 'x' }), { ...other, text: 'x' });
  assert.equal(sent.patch({ id: 'a1', severity: 'minor' }), { ...v(1), severity: 'minor' });
  sent.remove('a2');
  assert.is(sent.patch({ id: 'a2', text: 'y' }), null, 'left the view');
  sent.reset([other]);
  assert.is(sent.patch({ id: 'a1', text: 'z' }), null, 'a snapshot replaces everything');
  assert.is(sent.size, 1);
});

test("the web store keeps only the most recently sent states, so a wall's memory stays bounded", () => {
  const sent = new SentAlerts(3);
  const alert = (id: string) => ({ ...base, id, lastReceiveId: id });
  sent.reset([alert('a1'), alert('a2'), alert('a3')]);
  // a1 sent again (patched): it is now the most recent, so a2 is the one to go.
  assert.ok(sent.patch({ id: 'a1', text: 'again' }));
  sent.full(alert('a4'));
  assert.is(sent.size, 3);
  assert.is(sent.patch({ id: 'a2', text: 'x' }), null, 'the oldest went: a patch on it resubscribes');
  for (const id of ['a1', 'a3', 'a4']) assert.ok(sent.patch({ id, text: 'y' }), id);
  assert.ok(SENT_LIMIT >= 2 * 10_000, 'above the server buffer’s default of 10,000 changes');
});

test.run();
