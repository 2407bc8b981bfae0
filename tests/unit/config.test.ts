import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../server/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'alertwall-config-'));
let n = 0;
function confFile(text: string): string {
  const file = join(dir, `alertad-${++n}.conf`);
  writeFileSync(file, text);
  return file;
}
const load = (env: Record<string, string>) => loadConfig(env, { systemFile: null });
function problemsOf(env: Record<string, string>): string[] {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  assert.unreachable('expected a ConfigError');
  return [];
}

test('defaults match the reference (and the spec where they differ)', () => {
  const c = load({});
  assert.is(c.PORT, 8080);
  assert.is(c.API_PREFIX, '/api');
  assert.is(c.DEFAULT_PAGE_SIZE, 1000);
  assert.is(c.HISTORY_LIMIT, 100);
  assert.is(c.ALERT_TIMEOUT, 86400);
  assert.is(c.AUTH_REQUIRED, false);
  assert.equal(c.PLUGINS, ['remote_ip', 'reject', 'heartbeat', 'blackout', 'forwarder']);
  assert.equal(c.ALLOWED_ENVIRONMENTS, ['Production', 'Development']);
  assert.is(c.sources.PORT, 'default');
});

test('a settings file with every literal form is parsed', () => {
  const file = confFile(`# Alerta server settings
DEBUG = True
AUTH_REQUIRED = False
SECRET_KEY = 'not-a-real-secret'   # trailing comment
BASE_URL = "https://alerts.example.com/api"
DEFAULT_PAGE_SIZE = 250
ACK_TIMEOUT = 3_600
AUDIT_URL = None
PLUGINS = [
    'reject',
    "blackout",   # multi-line list
]
ADMIN_USERS = ('admin@example.com', 'ops@example.com')
COLOR_MAP = {
    'severity': {'critical': 'red', 'major': 'orange'},
    'text': 'black',
}
SEVERITY_MAP = {'critical': 1, 'major': 2, 'minor': 3, 'normal': 5}
HMAC_AUTH_CREDENTIALS = [{'key': 'k1', 'secret': 's1', 'algorithm': 'sha256'}]
FWD_DESTINATIONS = [('http://peer:8080/api', {'key': 'k', 'secret': 's'}, ['alerts', 'actions'])]
MY_PLUGIN_THRESHOLD = 0.75
MY_PLUGIN_LABEL = 'two ' 'parts'
`);
  const c = load({ ALERTA_SVR_CONF_FILE: file });
  assert.is(c.DEBUG, true);
  assert.is(c.AUTH_REQUIRED, false);
  assert.is(c.SECRET_KEY, 'not-a-real-secret');
  assert.is(c.BASE_URL, 'https://alerts.example.com/api');
  assert.is(c.DEFAULT_PAGE_SIZE, 250);
  assert.is(c.ACK_TIMEOUT, 3600);
  assert.is(c.AUDIT_URL, null);
  assert.equal(c.PLUGINS, ['reject', 'blackout']);
  assert.equal(c.ADMIN_USERS, ['admin@example.com', 'ops@example.com']);
  assert.equal(c.COLOR_MAP, { severity: { critical: 'red', major: 'orange' }, text: 'black' });
  assert.equal(c.SEVERITY_MAP, { critical: 1, major: 2, minor: 3, normal: 5 });
  assert.equal(c.HMAC_AUTH_CREDENTIALS, [{ key: 'k1', secret: 's1', algorithm: 'sha256' }]);
  assert.equal(c.FWD_DESTINATIONS, [
    ['http://peer:8080/api', { key: 'k', secret: 's' }, ['alerts', 'actions']],
  ]);
  assert.is(c.extra.MY_PLUGIN_THRESHOLD, 0.75);
  assert.is(c.extra.MY_PLUGIN_LABEL, 'two parts');
  assert.is(c.sources.DEFAULT_PAGE_SIZE, `${file}:6`);
});

test('environment variables override the file, container style', () => {
  const file = confFile(`PLUGINS = ['reject']\nAUTH_REQUIRED = False\nDEFAULT_PAGE_SIZE = 10\n`);
  const c = load({
    ALERTA_SVR_CONF_FILE: file,
    PLUGINS: 'remote_ip,reject,normalise',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'a-secret-of-our-own',
    DEFAULT_PAGE_SIZE: '20',
    CORS_ORIGINS: 'http://a.example, http://b.example',
    HMAC_AUTH_CREDENTIALS: '[{"key": "k", "secret": "s"}]',
  });
  assert.equal(c.PLUGINS, ['remote_ip', 'reject', 'normalise']);
  assert.is(c.AUTH_REQUIRED, true);
  assert.is(c.DEFAULT_PAGE_SIZE, 20);
  assert.equal(c.CORS_ORIGINS, ['http://a.example', 'http://b.example']);
  assert.equal(c.HMAC_AUTH_CREDENTIALS, [{ key: 'k', secret: 's', algorithm: 'sha256' }]);
  assert.is(c.sources.PLUGINS, 'env');
});

test('env booleans accept the established spellings', () => {
  for (const yes of ['yes', 'on', 'true', 'True', 't', '1']) assert.is(load({ DEBUG: yes }).DEBUG, true, yes);
  for (const no of ['no', 'off', 'false', 'False', 'f', '0']) assert.is(load({ DEBUG: no }).DEBUG, false, no);
});

test('a bad value in the file names the setting, the file and the line', () => {
  const file = confFile(`DEBUG = True\n\nDEFAULT_PAGE_SIZE = 'x'\n`);
  const [problem] = problemsOf({ ALERTA_SVR_CONF_FILE: file });
  assert.match(problem!, /^DEFAULT_PAGE_SIZE/);
  assert.match(problem!, `${file}:3`);
  assert.match(problem!, /expected an integer/);
  assert.match(problem!, /'x'/);
});

test('every bad setting is listed at once, env ones marked as such', () => {
  const problems = problemsOf({
    PORT: 'eighty',
    AUTH_REQUIRED: 'maybe',
    ALARM_MODEL: 'NAGIOS',
    HISTORY_LIMIT: '-1',
  });
  assert.is(problems.length, 4);
  assert.ok(problems.some((p) => p.startsWith('PORT (environment): expected an integer')));
  assert.ok(problems.some((p) => p.startsWith('AUTH_REQUIRED (environment): expected True or False')));
  assert.ok(problems.some((p) => p.startsWith('ALARM_MODEL (environment)')));
  assert.ok(problems.some((p) => p.startsWith('HISTORY_LIMIT (environment)')));
});

test('the established defaults start, with warnings: SECRET_KEY changeme, CUSTOMER_VIEWS without ADMIN_USERS', () => {
  const c = load({ AUTH_REQUIRED: 'True', CUSTOMER_VIEWS: 'True' });
  assert.is(c.SECRET_KEY, 'changeme');
  assert.is(c.warnings.length, 2);
  assert.match(c.warnings[0]!, /^SECRET_KEY: is the published default 'changeme'/);
  assert.match(c.warnings[1]!, /^CUSTOMER_VIEWS: ADMIN_USERS is empty/);
  assert.ok(Object.isFrozen(c.warnings));
  assert.equal(load({ AUTH_REQUIRED: 'True', SECRET_KEY: 'a-secret-of-our-own' }).warnings, []);
  assert.equal(load({}).warnings, [], 'changeme without AUTH_REQUIRED is no warning');
});

test('still refused: an empty SECRET_KEY with AUTH_REQUIRED (nothing can be signed), malformed scopes', () => {
  const problems = problemsOf({
    AUTH_REQUIRED: 'True',
    SECRET_KEY: '',
    CUSTOM_SCOPES: 'read:things,fly',
  });
  assert.ok(problems.some((p) => p.startsWith('SECRET_KEY: must not be empty when AUTH_REQUIRED = True')));
  assert.ok(problems.some((p) => p.startsWith("CUSTOM_SCOPES: 'fly' is not a scope")));
  assert.not.ok(problems.some((p) => p.includes("'read:things'")));
  // Without AUTH_REQUIRED an empty key only breaks logins: a warning.
  assert.match(load({ SECRET_KEY: '' }).warnings[0]!, /^SECRET_KEY: is empty/);
});

test('a secret setting with a bad value is named, its value never repeated', () => {
  const problems = problemsOf({ HMAC_AUTH_CREDENTIALS: '{"key": "k1", "secret": "hunter2-hmac"}' });
  assert.is(problems.length, 1);
  assert.match(problems[0]!, /^HMAC_AUTH_CREDENTIALS \(environment\): expected a list of dicts/);
  assert.match(problems[0]!, /not shown/);
  assert.not.match(problems[0]!, /hunter2-hmac/);
  const [file] = problemsOf({ ALERTA_SVR_CONF_FILE: confFile(`LDAP_BIND_PASSWORD = ['pw-in-a-list']\n`) });
  assert.match(file!, /^LDAP_BIND_PASSWORD/);
  assert.not.match(file!, /pw-in-a-list/);
});

test('FRAME_ANCESTORS takes origins, self and *; anything else stops start-up', () => {
  assert.equal(load({}).FRAME_ANCESTORS, []);
  assert.equal(load({ FRAME_ANCESTORS: "self,https://grafana.example.com,'none'" }).FRAME_ANCESTORS, [
    "'self'",
    'https://grafana.example.com',
    "'none'",
  ]);
  assert.equal(load({ FRAME_ANCESTORS: 'https://*.example.com:8443, *' }).FRAME_ANCESTORS, [
    'https://*.example.com:8443',
    '*',
  ]);
  assert.ok(
    problemsOf({ FRAME_ANCESTORS: "https://a.example; script-src 'unsafe-inline'" }).some((p) =>
      p.startsWith('FRAME_ANCESTORS (environment)'),
    ),
  );
});

test('a syntax error in the file names the file, line and column', () => {
  const file = confFile(`DEBUG = True\nPLUGINS = os.environ.get('X')\n`);
  const [problem] = problemsOf({ ALERTA_SVR_CONF_FILE: file });
  assert.match(problem!, `${file}:2:`);
});

test('a missing settings file is reported', () => {
  const [problem] = problemsOf({ ALERTA_SVR_CONF_FILE: join(dir, 'nope.conf') });
  assert.match(problem!, /cannot read/);
});

test('cross-setting rules: CUSTOMER_VIEWS needs AUTH_REQUIRED; URLs must look like URLs', () => {
  assert.ok(problemsOf({ CUSTOMER_VIEWS: 'True' }).some((p) => p.includes('CUSTOMER_VIEWS')));
  assert.ok(
    problemsOf({ DATABASE_URL: 'mongodb://localhost/monitoring' }).some((p) => p.startsWith('DATABASE_URL')),
  );
  assert.ok(problemsOf({ BASE_URL: 'alerts.example.com' }).some((p) => p.startsWith('BASE_URL')));
});

test('azure, google and cognito start as the established server configures them (settings file)', () => {
  const file = (provider: string, extra = '') =>
    confFile(
      `AUTH_PROVIDER = '${provider}'\nOAUTH2_CLIENT_ID = 'web-ui'\nOAUTH2_CLIENT_SECRET = 's3cret'\n${extra}`,
    );
  const azure = load({ ALERTA_SVR_CONF_FILE: file('azure') });
  assert.equal([azure.AUTH_PROVIDER, azure.AZURE_TENANT], ['azure', 'common']);
  assert.is(
    load({ ALERTA_SVR_CONF_FILE: file('azure', "AZURE_TENANT = 'contoso.onmicrosoft.com'\n") }).AZURE_TENANT,
    'contoso.onmicrosoft.com',
  );
  assert.is(load({ ALERTA_SVR_CONF_FILE: file('google') }).AUTH_PROVIDER, 'google');
  const cognito = load({
    ALERTA_SVR_CONF_FILE: file(
      'cognito',
      "AWS_REGION = 'eu-west-1'\nCOGNITO_USER_POOL_ID = 'eu-west-1_AbC123'\nCOGNITO_DOMAIN = 'alerta'\n",
    ),
  });
  assert.equal(
    [cognito.AWS_REGION, cognito.COGNITO_USER_POOL_ID, cognito.COGNITO_DOMAIN],
    ['eu-west-1', 'eu-west-1_AbC123', 'alerta'],
  );
  assert.is(
    load({ AUTH_PROVIDER: 'cognito', OAUTH2_CLIENT_ID: 'x', COGNITO_USER_POOL_ID: 'us-east-1_Zz9' })
      .AWS_REGION,
    'us-east-1',
  );
  // An explicit issuer stands in for the provider's own settings.
  const explicit = { OAUTH2_CLIENT_ID: 'x', OIDC_ISSUER_URL: 'https://idp.example.com/pool' };
  assert.is(load({ AUTH_PROVIDER: 'cognito', ...explicit }).COGNITO_USER_POOL_ID, null);
  assert.is(
    load({ AUTH_PROVIDER: 'azure', ...explicit, AZURE_TENANT: 'not a tenant' }).AZURE_TENANT,
    'not a tenant',
  );
});

test('azure, google and cognito: still refused what cannot work, naming the setting', () => {
  for (const provider of ['azure', 'google', 'cognito']) {
    const env = { AUTH_PROVIDER: provider, COGNITO_USER_POOL_ID: 'us-east-1_Pool1' };
    assert.equal(problemsOf(env), [`OAUTH2_CLIENT_ID: needed with AUTH_PROVIDER = '${provider}'`]);
    assert.equal(problemsOf({ ...env, OAUTH2_CLIENT_ID: 'x', OIDC_ISSUER_URL: 'accounts.google.com' }), [
      "OIDC_ISSUER_URL: expected the issuer's http(s) URL, got 'accounts.google.com'",
    ]);
  }
  const cognito = { AUTH_PROVIDER: 'cognito', OAUTH2_CLIENT_ID: 'x' };
  assert.equal(problemsOf(cognito), [
    "COGNITO_USER_POOL_ID: needed with AUTH_PROVIDER = 'cognito' (or set OIDC_ISSUER_URL)",
  ]);
  assert.equal(problemsOf({ ...cognito, COGNITO_USER_POOL_ID: 'my pool' }), [
    "COGNITO_USER_POOL_ID: expected a user pool id such as us-east-1_AbC123, got 'my pool'",
  ]);
  assert.equal(problemsOf({ ...cognito, COGNITO_USER_POOL_ID: 'eu-west-1_AbC123' }), [
    "COGNITO_USER_POOL_ID: 'eu-west-1_AbC123' is a user pool of eu-west-1, but AWS_REGION is 'us-east-1'",
  ]);
  assert.equal(problemsOf({ ...cognito, COGNITO_USER_POOL_ID: 'us-east-1_AbC123', AWS_REGION: 'Ireland' }), [
    "AWS_REGION: expected a region such as us-east-1, got 'Ireland'",
  ]);
  assert.equal(problemsOf({ AUTH_PROVIDER: 'azure', OAUTH2_CLIENT_ID: 'x', AZURE_TENANT: 'contoso/../x' }), [
    "AZURE_TENANT: expected a tenant id, a domain or common, organizations, consumers, got 'contoso/../x'",
  ]);
});

test('google, or azure with a multi-tenant AZURE_TENANT, open to everyone: start, and warn', () => {
  const base = { AUTH_REQUIRED: 'True', SECRET_KEY: 'a-secret-of-our-own', OAUTH2_CLIENT_ID: 'x' };
  const [google] = load({ ...base, AUTH_PROVIDER: 'google' }).warnings;
  assert.match(
    google!,
    /^ALLOWED_EMAIL_DOMAINS: is '\*' with AUTH_PROVIDER = 'google', so anyone with a Google account/,
  );
  const [azure] = load({ ...base, AUTH_PROVIDER: 'azure' }).warnings;
  assert.match(
    azure!,
    /^AZURE_TENANT: is 'common' and ALLOWED_EMAIL_DOMAINS '\*', so people of any Microsoft tenant/,
  );
  const quietOnes: Record<string, string>[] = [
    { AUTH_PROVIDER: 'google', ALLOWED_EMAIL_DOMAINS: 'example.com' },
    { AUTH_PROVIDER: 'google', ALLOWED_OIDC_ROLES: 'ops' },
    { AUTH_PROVIDER: 'azure', AZURE_TENANT: '72f988bf-86f1-41af-91ab-2d7cd011db47' },
    { AUTH_PROVIDER: 'azure', OIDC_ISSUER_URL: 'https://login.microsoftonline.com/contoso.com/v2.0' },
    { AUTH_PROVIDER: 'cognito', COGNITO_USER_POOL_ID: 'us-east-1_AbC123' },
  ];
  for (const quiet of quietOnes) {
    assert.equal(load({ ...base, ...quiet }).warnings, [], JSON.stringify(quiet));
  }
  assert.equal(
    load({ AUTH_PROVIDER: 'google', OAUTH2_CLIENT_ID: 'x' }).warnings,
    [],
    'without AUTH_REQUIRED',
  );
});

test('API_PREFIX "/" means the API at the root; trailing slashes are dropped', () => {
  assert.is(load({ API_PREFIX: '/' }).API_PREFIX, '');
  assert.is(load({ API_PREFIX: '/alerta/api/' }).API_PREFIX, '/alerta/api');
  assert.ok(problemsOf({ API_PREFIX: 'api' }).some((p) => p.startsWith('API_PREFIX')));
});

test('legacy hour-based housekeeping variables set the second-based settings', () => {
  const c = load({ HK_EXPIRED_DELETE_HRS: '2', HK_INFO_DELETE_HRS: '12' });
  assert.is(c.DELETE_EXPIRED_AFTER, 7200);
  assert.is(c.DELETE_INFO_AFTER, 43200);
});

test('MAX_BODY_SIZE takes sizes with units', () => {
  assert.is(load({ MAX_BODY_SIZE: '2M' }).MAX_BODY_SIZE, 2 * 1024 * 1024);
  assert.is(load({ MAX_BODY_SIZE: '512k' }).MAX_BODY_SIZE, 512 * 1024);
});

test('the result is frozen, deeply', () => {
  const c = load({});
  assert.ok(Object.isFrozen(c));
  assert.ok(Object.isFrozen(c.PLUGINS));
  assert.throws(() => {
    (c as unknown as { PORT: number }).PORT = 1;
  });
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
