import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ShownOnce, createLog } from '../../server/log.ts';
import { MASK, isSecretName, maskedValue, withoutUrlPasswords } from '../../server/secrets.ts';

test('names that suggest a secret are secret, in any spelling', () => {
  for (const name of [
    'SECRET_KEY',
    'ADMIN_KEY',
    'ADMIN_PASSWORD',
    'LDAP_BIND_PASSWORD',
    'OAUTH2_CLIENT_SECRET',
    'TELEGRAM_TOKEN',
    'HMAC_AUTH_CREDENTIALS',
    'FWD_DESTINATIONS',
    'GITHUB_PAT',
    'GPG_PASSPHRASE',
    'GPGPASSPHRASE',
    'NPM_AUTH',
    'BASIC_AUTH',
    'DB_CREDS',
    'SENTRY_DSN',
    'MYSQL_PWD_PASSWORD',
    'DBPASSWORD',
    'AWS_SECRET_ACCESS_KEY',
    'authorization',
    'proxy-authorization',
    'cookie',
    'x-api-key',
    'X-Upstream-Token',
    'apiKey',
    'clientSecret',
    'accessToken',
  ])
    assert.ok(isSecretName(name), name);
});

test('flags, limits and names about a secret stay readable', () => {
  for (const name of [
    'AUTH_REQUIRED',
    'AUTH_PROVIDER',
    'AUTH_PROXY_USER_HEADER',
    'AUTH_PROXY_ROLES_SEPARATOR',
    'BASIC_AUTH_REALM',
    'TOKEN_EXPIRE_DAYS',
    'API_KEY_EXPIRE_DAYS',
    'ADMIN_KEY_MAXAGE',
    'OIDC_TOKEN_AUTH_METHODS',
    'KEYCLOAK_URL',
    'KEYCLOAK_REALM',
    'OAUTH2_CLIENT_ID',
    'AUTHOR',
    'PATH',
    'PWD',
    'DEFAULT_PAGE_SIZE',
  ])
    assert.not.ok(isSecretName(name), name);
});

test('values: secrets masked, empty ones and True/False flags shown', () => {
  assert.is(maskedValue('GITHUB_PAT', 'ghp_abcdef'), MASK);
  assert.is(maskedValue('HMAC_AUTH_CREDENTIALS', [{ key: 'k', secret: 's' }]), MASK);
  assert.is(maskedValue('TELEGRAM_TOKEN', null), null);
  assert.is(maskedValue('SECRET_KEY', ''), '');
  assert.is(maskedValue('OIDC_VERIFY_TOKEN', false), false);
  assert.is(maskedValue('AUTH_PROXY', 'True'), 'True');
  assert.is(maskedValue('DEFAULT_PAGE_SIZE', 1000), 1000);
  assert.is(
    withoutUrlPasswords('db at postgres://app:s3cret@db:5432/alerts, cache redis://cache:6379'),
    'db at postgres://app:***@db:5432/alerts, cache redis://cache:6379',
  );
});

test('the log masks secret fields at any depth and URL passwords, but prints a ShownOnce', () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const log = createLog('info', false, sink);
  log.info(
    {
      user: 'ops',
      password: 'pw-1',
      settings: { GITHUB_PAT: 'ghp_123', DEPLOY_PASSPHRASE: 'words', AUTH_REQUIRED: true, limit: 5 },
      headers: { authorization: 'Bearer abc.def', 'x-request-id': 'r1' },
      destinations: [{ url: 'https://fwd:pw-2@peer.example/api', credentials: { token: 't-3' } }],
      keys: 3,
    },
    'something happened',
  );
  log.info({ user: 'admin', apiKey: new ShownOnce('the-admin-key') }, 'admin API key created');
  const [first, second] = lines;
  assert.equal(first, {
    level: 'info',
    time: first!.time,
    user: 'ops',
    password: MASK,
    settings: { GITHUB_PAT: MASK, DEPLOY_PASSPHRASE: MASK, AUTH_REQUIRED: true, limit: 5 },
    headers: { authorization: MASK, 'x-request-id': 'r1' },
    destinations: [{ url: 'https://fwd:***@peer.example/api', credentials: MASK }],
    keys: 3,
    msg: 'something happened',
  });
  assert.is(second!.apiKey, 'the-admin-key');
});

test.run();
