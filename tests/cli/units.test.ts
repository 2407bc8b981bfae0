/** The CLI's pure parts: the INI reader, option parsing, table styles, the progress bar, redaction. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseArgs, UsageError, type OptionSpec } from '../../cli/args.ts';
import { authorizeUrl, browserCommand, browserFlow } from '../../cli/browser-login.ts';
import { parseIni, redact, redactSecrets } from '../../cli/config.ts';
import { localTime, renderTable, timedelta, uptimeText } from '../../cli/format.ts';
import { machineFor } from '../../cli/netrc.ts';
import { renderBar } from '../../cli/progress.ts';

const test = suite('alerta: pure parts');

test('INI: sections, both separators, comments, continuation lines, case-insensitive keys', () => {
  const ini = parseIni(
    [
      '; a comment',
      '[DEFAULT]',
      'Endpoint = http://a:8080/api',
      'key: abc',
      '',
      '# another',
      '[profile prod]',
      'endpoint=http://b/api',
      'text = first',
      '  second',
    ].join('\n'),
  );
  assert.equal(Object.fromEntries(ini.get('DEFAULT')!), { endpoint: 'http://a:8080/api', key: 'abc' });
  assert.equal(Object.fromEntries(ini.get('profile prod')!), {
    endpoint: 'http://b/api',
    text: 'first\nsecond',
  });
  assert.throws(() => parseIni('key = before any section'), /line 1: a setting before any \[section\]/);
  assert.throws(() => parseIni('[DEFAULT]\njust words'), /line 2: expected "key = value"/);
});

test('options: repeats, =values, attached short values, nargs, flag groups, env fallback', () => {
  const specs: OptionSpec[] = [
    { name: 'ids', flags: ['-i', '--ids'], multiple: true, help: '' },
    { name: 'timeout', flags: ['--timeout'], type: 'int', default: 7200, help: '' },
    { name: 'delete', flags: ['-D'], nargs: 2, help: '' },
    { name: 'display', flags: ['--oneline'], type: 'flag', value: 'oneline', default: 'oneline', help: '' },
    { name: 'display', flags: ['--full'], type: 'flag', value: 'full', help: '' },
    { name: 'filters', flags: ['-f'], multiple: true, help: '' },
    { name: 'verified', flags: ['--yes-v'], off: ['--no-v'], type: 'bool', help: '' },
  ];
  const opts = { env: { ALERTA_Q_FILTERS: 'a=1 b=2' }, envPrefix: 'ALERTA_q', command: 'q' };
  const p = parseArgs(['-i', 'a', '--ids=b', '-ic', '-D', 'x', 'y', '--full', '--no-v'], specs, [], opts);
  assert.equal(p.opts, {
    ids: ['a', 'b', 'c'],
    delete: ['x', 'y'],
    display: 'full',
    verified: false,
    timeout: 7200,
    filters: ['a=1', 'b=2'],
  });
  assert.is(parseArgs(['--timeout', '5'], specs, [], opts).opts.timeout, 5);
  assert.is(parseArgs([], specs, [], opts).opts.display, 'oneline');
  assert.throws(
    () => parseArgs(['--timeout', 'x'], specs, [], opts),
    (e: unknown) => e instanceof UsageError && /not a valid integer/.test(e.message),
  );
  assert.throws(() => parseArgs(['-D', 'only-one'], specs, [], opts), /requires 2 arguments/);
  assert.throws(() => parseArgs(['--what'], specs, [], opts), /No such option: --what/);
  assert.throws(() => parseArgs(['extra'], specs, [], opts), /unexpected extra argument/);
});

test('tables: simple, plain, grid, psql, pipe, github, tsv; numbers right-aligned', () => {
  const rows = [
    { n: 'web', c: 5 },
    { n: 'database', c: 12 },
  ];
  const cols = [
    { header: 'NAME', value: (r: (typeof rows)[0]) => r.n },
    { header: 'N', value: (r: (typeof rows)[0]) => r.c },
  ];
  const t = (style: string) => renderTable(rows, cols, style);
  assert.is(t('simple'), 'NAME       N\n--------  --\nweb        5\ndatabase  12');
  assert.is(t('plain'), 'NAME       N\nweb        5\ndatabase  12');
  assert.is(
    t('grid'),
    '+----------+----+\n| NAME     |  N |\n+==========+====+\n| web      |  5 |\n+----------+----+\n| database | 12 |\n+----------+----+',
  );
  assert.is(
    t('psql'),
    '+----------+----+\n| NAME     |  N |\n|----------+----|\n| web      |  5 |\n| database | 12 |\n+----------+----+',
  );
  assert.is(t('pipe'), '| NAME     |  N |\n|:---------|---:|\n| web      |  5 |\n| database | 12 |');
  assert.is(t('github'), '| NAME     |  N |\n|----------|----|\n| web      |  5 |\n| database | 12 |');
  assert.is(t('tsv'), 'NAME\tN\nweb\t5\ndatabase\t12');
  assert.is(t('no-such-style'), t('simple'));
  assert.match(renderTable([{ n: '<b>', c: 1 }], cols, 'html'), /<td>&lt;b&gt;<\/td>/);
});

test('progress bar, times, machines, redaction', () => {
  assert.is(
    renderBar('Acking 10 alerts', 5, 10, 2000),
    `Acking 10 alerts  [${'#'.repeat(18)}${'-'.repeat(18)}]   50%  5/10  eta 00:00:02`,
  );
  assert.match(renderBar('x', 10, 10, 1000), /\[#{36}\] {2}100% {2}10\/10$/);
  assert.is(localTime('2024-07-01T12:00:00.000Z', 'Europe/London'), '2024/07/01 13:00:00');
  assert.is(localTime(null, 'UTC'), '');
  assert.is(machineFor('https://alerta.example.com/api'), 'alerta.example.com:80');
  assert.is(machineFor('http://[::1]:8080/api'), '::1:8080');
  assert.is(redact('abcdefghijkl'), '********ijkl');
  assert.is(redact('short'), '*****');
  assert.equal(
    redactSecrets({
      key: 'k-0123456789',
      password: 'p',
      sslkey: '/etc/k.pem',
      nested: { api_key: 'zzzzzzzzzz1234' },
    }),
    {
      key: '********6789',
      password: '*',
      sslkey: '/etc/k.pem',
      nested: { api_key: '********1234' },
    },
  );
});

test('durations: Python timedelta text (heartbeat age) and uptime', () => {
  assert.is(timedelta(3), '0:00:03');
  assert.is(timedelta(3725.9), '1:02:05');
  assert.is(timedelta(86_400), '1 day, 0:00:00');
  assert.is(timedelta(2 * 86_400 + 3723), '2 days, 1:02:03');
  assert.is(timedelta(-1), '-1 day, 23:59:59');
  assert.is(uptimeText(0), '0 days 00:00');
  assert.is(uptimeText((86_400 + 3600 + 61) * 1000), '1 days 01:01');
});

test('login in the browser: where each provider starts, as the established client sends people', () => {
  const defaults = {
    azure_tenant: 'common',
    aws_region: 'us-east-1',
    cognito_domain: null,
    github_url: 'https://github.com',
    gitlab_url: 'https://gitlab.com',
    keycloak_url: null,
    keycloak_realm: null,
    oidc_auth_url: null,
  };
  const flow = (provider: string, remote: Record<string, unknown> = {}, user?: string) =>
    browserFlow(provider, { ...defaults, ...remote }, user);
  const start = (provider: string, remote?: Record<string, unknown>) => {
    const f = flow(provider, remote);
    return f && [f.authorize, f.redirectUri, f.scope, f.pkce];
  };
  const loopback = 'http://127.0.0.1:9004';
  const oidc = 'openid profile email';
  assert.equal(start('azure', { azure_tenant: 'contoso.com' }), [
    'https://login.microsoftonline.com/contoso.com/oauth2/v2.0/authorize',
    'http://localhost:9004',
    oidc,
    true,
  ]);
  assert.equal(start('google'), ['https://accounts.google.com/o/oauth2/v2/auth', loopback, oidc, true]);
  assert.equal(flow('google', {}, 'ann@example.com')!.extra, { login_hint: 'ann@example.com' });
  assert.equal(start('github', { github_url: 'https://ghe.example.com/' }), [
    'https://ghe.example.com/login/oauth/authorize',
    loopback,
    'user:email read:org',
    false,
  ]);
  assert.equal(start('gitlab'), ['https://gitlab.com/oauth/authorize', loopback, oidc, true]);
  assert.equal(start('cognito', { cognito_domain: 'alerta', aws_region: 'eu-west-1' }), [
    'https://alerta.auth.eu-west-1.amazoncognito.com/login',
    loopback,
    oidc,
    true,
  ]);
  assert.equal(start('keycloak', { keycloak_url: 'https://kc.example.com', keycloak_realm: 'ops' }), [
    'https://kc.example.com/auth/realms/ops/protocol/openid-connect/auth',
    loopback,
    oidc,
    true,
  ]);
  // The discovered endpoint wins for OpenID Connect; without one, openid and cognito cannot start.
  const discovered = { oidc_auth_url: 'https://idp.example.com/authorize' };
  for (const p of ['openid', 'azure', 'google', 'gitlab', 'keycloak', 'cognito']) {
    assert.is(flow(p, discovered)!.authorize, 'https://idp.example.com/authorize', p);
  }
  assert.is(flow('openid'), null);
  assert.is(flow('cognito'), null);
  assert.is(flow('saml2'), null);
  assert.is(flow('basic'), null);

  const url = new URL(authorizeUrl(flow('google', {}, 'ann@example.com')!, 'cli-id', 'st4te', 'ch4llenge'));
  assert.equal(Object.fromEntries(url.searchParams), {
    response_type: 'code',
    client_id: 'cli-id',
    redirect_uri: loopback,
    scope: oidc,
    state: 'st4te',
    code_challenge: 'ch4llenge',
    code_challenge_method: 'S256',
    login_hint: 'ann@example.com',
  });
});

test('login in the browser: BROWSER as Python reads it, else the platform opener', () => {
  const url = 'https://idp.example.com/authorize?a=1&b=2';
  assert.equal(browserCommand(url, { BROWSER: 'firefox' }), ['firefox', url]);
  assert.equal(browserCommand(url, { BROWSER: 'chromium --new-window %s' }), [
    'chromium',
    '--new-window',
    url,
  ]);
  assert.equal(browserCommand(url, { BROWSER: ':lynx:w3m' }), ['lynx', url]);
  assert.equal(browserCommand(url, {}, 'linux'), ['xdg-open', url]);
  assert.equal(browserCommand(url, {}, 'darwin'), ['open', url]);
  assert.equal(browserCommand(url, {}, 'win32'), ['rundll32', 'url.dll,FileProtocolHandler', url]);
});

test.run();
