import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rememberWritten } from '../../server/domain/receive/direct.ts';
import type { ReceiveState } from '../../server/domain/receive/state.ts';

// direct.ts keeps at most 20,000 hints and forgets the one set longest ago (a changed hint counts
// as set anew); forgetOldest walks one iterator instead of restarting at the map's first slot.
const HINTS = 20_000;

const stateOf = () => ({ hints: new Map(), hintOrder: undefined }) as unknown as ReceiveState;
const hint = (id: string, severity = 'major') => ({ id, severity });

test('the oldest hint is forgotten first; a changed hint counts as set anew', () => {
  const state = stateOf();
  for (let k = 0; k < HINTS; k++) rememberWritten(state, `k${k}`, hint(`a${k}`));
  assert.is(state.hints.size, HINTS);
  rememberWritten(state, 'k0', hint('a0', 'minor')); // changed: now the newest
  rememberWritten(state, 'k1', hint('a1')); // unchanged: keeps its place
  rememberWritten(state, 'new1', hint('n1'));
  assert.is(state.hints.size, HINTS);
  assert.not.ok(state.hints.has('k1'));
  assert.ok(state.hints.has('k0'));
  state.hints.delete('k3'); // a missed hint is forgotten at once
  rememberWritten(state, 'new2', hint('n2'));
  assert.is(state.hints.size, HINTS);
  assert.ok(state.hints.has('k2'));
  rememberWritten(state, 'new3', hint('n3'));
  rememberWritten(state, 'new4', hint('n4'));
  assert.not.ok(state.hints.has('k2'));
  assert.not.ok(state.hints.has('k4'));
  assert.ok(state.hints.has('k5'));
  assert.equal(state.hints.get('k0'), hint('a0', 'minor'));
});

test('many rounds of eviction keep the order and the size', () => {
  const state = stateOf();
  for (let k = 0; k < 3 * HINTS; k++) rememberWritten(state, `k${k}`, hint(`a${k}`));
  assert.is(state.hints.size, HINTS);
  assert.equal([...state.hints.keys()][0], `k${2 * HINTS}`);
  assert.ok(state.hints.has(`k${3 * HINTS - 1}`));
});

test.run();
