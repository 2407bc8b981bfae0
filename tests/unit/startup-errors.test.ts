import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../server/config.ts';
import { explainStartupError } from '../../server/startup-errors.ts';

const config = loadConfig(
  {
    DATABASE_URL: 'postgres://app:secret@db.internal:5433/alertwall',
    REDIS_URL: 'redis://cache.internal:6379',
    PORT: '8080',
    HOST: '0.0.0.0',
  },
  { systemFile: null },
);

/** An error as Node's net module or pg gives it, optionally wrapped as a library would. */
function failure(message: string, fields: Record<string, unknown>, wrap?: string): Error {
  const inner = Object.assign(new Error(message), fields);
  return wrap ? new Error(wrap, { cause: inner }) : inner;
}

test('connection failures name the server they could not reach, without its password', () => {
  const pg = failure('connect ECONNREFUSED 10.0.0.5:5433', {
    code: 'ECONNREFUSED',
    address: '10.0.0.5',
    port: 5433,
  });
  assert.match(
    explainStartupError(pg, config),
    /^cannot reach PostgreSQL at postgres:\/\/app:\*\*\*@db\.internal:5433\/alertwall/,
  );
  assert.match(explainStartupError(pg, config), /start PostgreSQL, or fix DATABASE_URL/);
  assert.not.match(explainStartupError(pg, config), /secret/);
  const dns = failure('getaddrinfo ENOTFOUND db.internal', { code: 'ENOTFOUND', hostname: 'db.internal' });
  assert.match(explainStartupError(dns, config), /^cannot reach PostgreSQL at/);
  const redis = failure('connect ECONNREFUSED 10.0.0.6:6379', {
    code: 'ECONNREFUSED',
    address: '10.0.0.6',
    port: 6379,
  });
  assert.match(
    explainStartupError(redis, config),
    /^cannot reach Redis at redis:\/\/cache\.internal:6379 .*start Redis, or fix REDIS_URL/,
  );
  const other = failure(
    'connect ECONNREFUSED 10.0.0.7:443',
    { code: 'ECONNREFUSED', address: '10.0.0.7', port: 443 },
    'fetch failed',
  );
  assert.is(
    explainStartupError(other, config),
    'fetch failed (connect ECONNREFUSED 10.0.0.7:443): nothing answers at 10.0.0.7:443; start it, or fix the setting that names it',
  );
});

test('PostgreSQL refusals say what to do', () => {
  const cases: [string, string, RegExp][] = [
    ['3D000', 'database "alertwall" does not exist', /create it \(createdb alertwall\), or fix DATABASE_URL/],
    ['28P01', 'password authentication failed for user "app"', /fix the user and password in DATABASE_URL/],
    [
      '42501',
      'permission denied for schema public',
      /must own schema public and its tables, or be granted them/,
    ],
    [
      '42P01',
      'relation "switches" does not exist',
      /dropped by hand\. Restore it from a backup; or, .*DROP SCHEMA public CASCADE/,
    ],
    ['42P07', 'relation "alerts" already exists', /schema_migrations does not record them/],
    ['53300', 'sorry, too many clients already', /lower DATABASE_POOL_SIZE/],
  ];
  for (const [code, message, expected] of cases) {
    const text = explainStartupError(failure(message, { code }, 'wrapped by slonik'), config);
    assert.ok(text.startsWith(message), text);
    assert.match(text, expected);
  }
});

test('a port in use names the port and the setting', () => {
  const err = failure('listen EADDRINUSE: address already in use 0.0.0.0:8080', {
    code: 'EADDRINUSE',
    syscall: 'listen',
  });
  assert.is(
    explainStartupError(err, config),
    'port 8080 on 0.0.0.0 is already in use: stop the other process, or set PORT',
  );
});

test('errors that already say what to do pass unchanged', () => {
  const err = new Error('migration 22_notifications was changed after it was applied; add a new one instead');
  assert.is(explainStartupError(err, config), err.message);
});

test.run();
