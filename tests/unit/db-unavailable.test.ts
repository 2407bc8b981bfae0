import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  StatementTimeoutError,
  UniqueIntegrityConstraintViolationError,
} from 'slonik';
import {
  connectionLossInterceptor,
  isDatabaseUnavailable,
  isUnreachable,
} from '../../server/db/unavailable.ts';

/** An error as the pg driver or Node's net module makes it: a message and a code. */
const coded = (message: string, code: string) => Object.assign(new Error(message), { code });

test('slonik connection errors are an outage', () => {
  const refused = coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED');
  for (const err of [
    new ConnectionError(refused.message, { cause: refused }),
    new BackendTerminatedError(coded('terminating connection due to administrator command', '57P01')),
    new BackendTerminatedUnexpectedlyError(new Error('Connection terminated unexpectedly')),
  ]) {
    assert.ok(isDatabaseUnavailable(err), err.constructor.name);
    assert.ok(isUnreachable(err), err.constructor.name);
  }
});

test('SQLSTATEs of a server that takes no work: class 08, 57P01–57P03, 53300', () => {
  for (const code of ['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03', '53300']) {
    assert.ok(isDatabaseUnavailable(coded('no', code)), code);
  }
  for (const code of ['57014', '23505', '42601', '22P02', '40001', '53100']) {
    assert.not.ok(isDatabaseUnavailable(coded('no', code)), code);
  }
});

test("the driver's own messages for a failed or lost connection", () => {
  for (const message of [
    'timeout exceeded when trying to connect',
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
  ]) {
    assert.ok(isDatabaseUnavailable(new Error(message)), message);
  }
});

test('found through causes and inside an AggregateError, as plugins and net wrap them', () => {
  const refused = coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED');
  const inner = new ConnectionError(refused.message, { cause: refused });
  const plugin = new Error(`site lookup failed: ${inner.message}`, { cause: inner });
  assert.ok(isDatabaseUnavailable(new Error('outer', { cause: plugin })));
  const both = new AggregateError([coded('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], 'all failed');
  assert.not.ok(isDatabaseUnavailable(both));
  assert.ok(isUnreachable(both));
  assert.ok(isDatabaseUnavailable(new AggregateError([new Error('x'), coded('starting up', '57P03')])));
});

test('a bare network error counts only at the edge (isUnreachable), not where a plugin could have made it', () => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']) {
    const err = coded(`${code} somewhere`, code);
    assert.not.ok(isDatabaseUnavailable(err), code);
    assert.ok(isUnreachable(err), code);
  }
});

test('other failures are not an outage', () => {
  const dup = new UniqueIntegrityConstraintViolationError(coded('duplicate key', '23505') as never);
  const timeout = new StatementTimeoutError(coded('canceling statement due to statement timeout', '57014'));
  for (const err of [new Error('boom'), 'text', null, undefined, 42, { code: 42 }, dup, timeout]) {
    assert.not.ok(isDatabaseUnavailable(err), String(err));
    assert.not.ok(isUnreachable(err), String(err));
  }
});

test('a cycle of causes ends', () => {
  const a = new Error('a') as Error & { cause?: unknown };
  const b = new Error('b', { cause: a });
  a.cause = b;
  assert.not.ok(isUnreachable(a));
});

test('the pool interceptor turns a bare socket error of a statement into a slonik outage', () => {
  const reset = coded('read ECONNRESET', 'ECONNRESET');
  const call = (err: unknown) =>
    connectionLossInterceptor.queryExecutionError!({} as never, {} as never, err as never, []);
  let thrown: unknown;
  try {
    call(reset);
  } catch (err) {
    thrown = err;
  }
  assert.instance(thrown, BackendTerminatedUnexpectedlyError);
  assert.is((thrown as Error).cause, reset);
  assert.ok(isDatabaseUnavailable(thrown));
  // Anything else is left as it is.
  assert.is(call(coded('syntax error', '42601')), null);
  assert.is(call(new ConnectionError('x')), null);
});

test.run();
