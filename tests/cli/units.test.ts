/** The CLI's pure parts: the INI reader, option parsing, table styles, the progress bar, redaction. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseArgs, UsageError, type OptionSpec } from '../../cli/args.ts';
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

test.run();
