import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { createLog } from '../../server/log.ts';
import { loadWebhooks } from '../../server/webhooks/index.ts';
import { appSuite, bootInstance } from '../helpers/app.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';

const GOOD = './tests/fixtures/webhooks/uptimerobot.ts';
const NO_EXPORT = './tests/fixtures/webhooks/no-export.ts';
const BAD_RESULT = './tests/fixtures/webhooks/bad-result.ts';
const silent = createLog('silent');
const configWith = (env: Record<string, string>) => loadConfig(env, { systemFile: null });

async function loadError(entries: string): Promise<string> {
  try {
    await loadWebhooks(configWith({ CUSTOM_WEBHOOKS: entries }), silent);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected loading to fail');
}

const loading = suite('CUSTOM_WEBHOOKS loading');

loading('built-ins are always there; a custom module adds its own name', async () => {
  const builtins = await loadWebhooks(configWith({}), silent);
  assert.equal([...builtins.keys()].sort(), [
    'cloudwatch',
    'grafana',
    'graylog',
    'msteams',
    'newrelic',
    'pagerduty',
    'pingdom',
    'prometheus',
    'riemann',
    'serverdensity',
    'slack',
    'stackdriver',
    'telegram',
  ]);
  const withCustom = await loadWebhooks(configWith({ CUSTOM_WEBHOOKS: `${GOOD}, ${BAD_RESULT}` }), silent);
  assert.ok(withCustom.has('uptimerobot'));
  assert.ok(withCustom.has('bad-result'));
  assert.is(withCustom.size, builtins.size + 2);
});

loading('a bad path, a module without a default export or a name claimed twice stops start-up', async () => {
  assert.match(
    await loadError('./tests/fixtures/webhooks/missing.ts'),
    /^CUSTOM_WEBHOOKS: cannot load '\.\/tests\/fixtures\/webhooks\/missing\.ts': /,
  );
  assert.is(
    await loadError(NO_EXPORT),
    `CUSTOM_WEBHOOKS: '${NO_EXPORT}' must export a webhook ({ name, incoming(request, ctx) }) or a factory returning one as default`,
  );
  assert.is(
    await loadError(`${GOOD},${GOOD}`),
    `CUSTOM_WEBHOOKS: '${GOOD}' and '${GOOD}' both define the webhook 'uptimerobot'`,
  );
});

loading('DEFAULT_ENVIRONMENT must be one of ALLOWED_ENVIRONMENTS (a regex may match it)', () => {
  assert.throws(
    () => configWith({ DEFAULT_ENVIRONMENT: 'Staging' }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.problems.includes(
        "DEFAULT_ENVIRONMENT: 'Staging' is not one of ALLOWED_ENVIRONMENTS (Production, Development)",
      ),
  );
  assert.is(
    configWith({ DEFAULT_ENVIRONMENT: 'Prod-EU', ALLOWED_ENVIRONMENTS: 'Prod-.*,Dev' }).DEFAULT_ENVIRONMENT,
    'Prod-EU',
  );
});

loading('the server does not start with a broken CUSTOM_WEBHOOKS entry', async () => {
  const db = await createTestDatabase('webhooks_boot');
  try {
    let message = '';
    await bootInstance(db.url, { CUSTOM_WEBHOOKS: NO_EXPORT }).then(
      async (running) => {
        await running.close();
      },
      (err: Error) => (message = err.message),
    );
    assert.match(message, /^CUSTOM_WEBHOOKS: '\.\/tests\/fixtures\/webhooks\/no-export\.ts' must export/);
  } finally {
    await dropTestDatabase(db.name);
  }
});

loading.run();

// ---------------------------------------------------------------------------------------------

const custom = appSuite('a custom webhook module', {
  TEST_LABEL: 'webhooks_custom',
  PLUGINS: 'remote_ip,reject',
  CUSTOM_WEBHOOKS: `${GOOD},${BAD_RESULT}`,
});

custom('GET with query parameters makes alerts that go through the receive path', async ({ api }) => {
  const monitor = `shop-${Date.now()}`;
  const query = (type: string) =>
    new URLSearchParams({
      monitorFriendlyName: monitor,
      monitorURL: 'https://shop.example.com',
      alertType: type,
      alertDetails: type === '1' ? 'Connection Timeout' : 'OK',
    });
  const down = await api.get(`/webhooks/uptimerobot?${query('1')}`);
  assert.is(down.status, 201);
  const body = (await down.json()) as { id: string; alert: Alert };
  assert.equal(
    [body.alert.resource, body.alert.event, body.alert.severity, body.alert.environment, body.alert.group],
    [monitor, 'MonitorDown', 'major', 'Production', 'Uptime'],
  );
  assert.is(body.alert.attributes.monitorUrl, 'https://shop.example.com');
  assert.is(body.alert.attributes.ip, '127.0.0.1'); // the remote_ip plugin ran

  const up = await api.get(`/webhooks/uptimerobot?${query('2')}`);
  const upBody = (await up.json()) as { id: string; alert: Alert };
  assert.equal([upBody.id, upBody.alert.status], [body.id, 'closed']);
});

custom('a reply is sent as given; a thrown Error is 400 with its message', async ({ api }) => {
  const pong = await api.post('/webhooks/uptimerobot/ping', undefined, {
    raw: 'x',
    headers: { 'Content-Type': 'text/plain' },
  });
  assert.is(pong.status, 200);
  assert.equal(await pong.json(), { status: 'ok', message: 'pong' });
  const bad = await api.get('/webhooks/uptimerobot');
  assert.is(bad.status, 400);
  const err = (await bad.json()) as { status: string; message: string; code: number };
  assert.equal([err.status, err.code, err.message], ['error', 400, 'monitorFriendlyName is required']);
});

custom(
  'alerts a module makes are validated like POST /alert; a malformed result is a 500 without internals',
  async ({ api }) => {
    const invalid = await api.post('/webhooks/bad-result/no-resource', {});
    assert.is(invalid.status, 400);
    const body = (await invalid.json()) as { message: string; errors: string[] };
    assert.is(
      body.message,
      `webhook 'bad-result' made an invalid alert: Missing mandatory value for "resource"`,
    );
    const broken = await api.post('/webhooks/bad-result', {});
    assert.is(broken.status, 500);
    assert.is(
      ((await broken.json()) as { message: string }).message,
      "webhook 'bad-result' returned neither alerts nor a reply",
    );
  },
);

custom.run();
