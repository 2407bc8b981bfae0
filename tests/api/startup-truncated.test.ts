/**
 * Start-up on a database whose data tables were emptied (an operator clearing a staging system
 * with TRUNCATE of every table but schema_migrations): the server re-creates the rows it needs
 * (server/db/ensure-rows.ts) and the product works; and start-up failures name what is missing
 * and what to do (server/startup-errors.ts).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Api } from '../helpers/api.ts';
import { apiFor, bootInstance } from '../helpers/app.ts';
import { createTestDatabase, databaseUrl, dropTestDatabase, queryDb } from '../helpers/db.ts';
import { runServerExpectingFailure } from '../helpers/process.ts';
import { StubService } from '../helpers/receivers.ts';

const test = suite('start-up after TRUNCATE of every data table');

async function ok(res: Response, status = 200): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== status)
    throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** A webhook receiver `receiver` posting to `url`, and a rule sending it every alert of `rule.event` at once. */
async function routeToWebhook(
  api: Api,
  receiver: string,
  url: string,
  rule: { name: string; event: string },
) {
  const created = (
    await ok(
      await api.post('/notifications/receivers', { name: receiver, type: 'webhook', settings: { url } }),
      201,
    )
  ).receiver as { name: string };
  await ok(await api.post('/notifications/rules', { ...rule, receivers: [created.name], groupWait: 0 }), 201);
}

test('boots again, then alerts are stored and notification rules route them', async () => {
  const db = await createTestDatabase('truncated');
  const stub = await StubService.start();
  try {
    const first = await bootInstance(db.url, { LOG_LEVEL: 'silent' });
    await ok(
      await apiFor(first).post('/alert', {
        resource: 'before',
        event: 'Wiped',
        environment: 'Production',
        service: ['web'],
      }),
      201,
    );
    await first.close();

    const tables = await queryDb<{ name: string }>(
      db.url,
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
       WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`,
    );
    assert.ok(tables.length > 20, `expected the product's tables, got ${tables.length}`);
    await queryDb(db.url, `TRUNCATE ${tables.map((t) => t.name).join(', ')} CASCADE`);

    const second = await bootInstance(db.url, { LOG_LEVEL: 'silent', NOTIFY_SWEEP_INTERVAL: '0.3' });
    try {
      const api = apiFor(second);
      await routeToWebhook(api, 'after-wipe', stub.url('/wiped'), { name: 'wiped', event: 'Wiped' });
      const id = (
        await ok(
          await api.post('/alert', {
            resource: 'after',
            event: 'Wiped',
            environment: 'Production',
            service: ['web'],
            severity: 'major',
          }),
          201,
        )
      ).id;
      const [hook] = await stub.waitFor(1, (r) => r.path === '/wiped');
      assert.is((hook!.json.alerts as { id: string }[])[0]!.id, id);
      const listed = await ok(await api.get('/alerts'));
      assert.is(listed.total, 1);
      // The counts kept by triggers (alert_tally) start again from the emptied tables.
      const counts = await ok(await api.get('/alerts/count'));
      assert.equal([counts.total, counts.severityCounts], [1, { major: 1 }]);
      await ok(await api.post('/heartbeat', { origin: 'after-wipe', timeout: 60 }), 201);
      await ok(await api.get('/management/status'));
      const [installed] = await queryDb<{ n: string }>(
        db.url,
        `SELECT count(*) AS n FROM instance_info WHERE key = 'installed_at'`,
      );
      assert.is(installed!.n, '1');
    } finally {
      await second.close();
    }
  } finally {
    await stub.close();
    await dropTestDatabase(db.name);
  }
});

test('with AUTH_REQUIRED, the admin key and admin user from the settings work again after the wipe', async () => {
  const db = await createTestDatabase('truncated_auth');
  const settings = {
    LOG_LEVEL: 'silent',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'truncated-test-secret-0123456789',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_PASSWORD: 'admin-password-0123',
    ADMIN_KEY: 'truncated-admin-key-0123456789',
  };
  const headers = { Authorization: `Key ${settings.ADMIN_KEY}` };
  try {
    await (await bootInstance(db.url, settings)).close();
    const tables = await queryDb<{ name: string }>(
      db.url,
      `SELECT format('%I', tablename) AS name FROM pg_tables
       WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`,
    );
    await queryDb(db.url, `TRUNCATE ${tables.map((t) => t.name).join(', ')} CASCADE`);
    const running = await bootInstance(db.url, settings);
    try {
      const api = apiFor(running);
      assert.is((await api.get('/alerts')).status, 401);
      await ok(await api.get('/alerts', { headers }));
      await ok(await api.get('/notifications/rules', { headers }));
      const login = await api.post('/auth/login', {
        username: 'admin@example.com',
        password: settings.ADMIN_PASSWORD,
      });
      assert.is(login.status, 200, await login.clone().text());
    } finally {
      await running.close();
    }
  } finally {
    await dropTestDatabase(db.name);
  }
});

test('the notification settings row emptied while running: rules are still created and routed', async () => {
  const db = await createTestDatabase('truncated_live');
  const stub = await StubService.start();
  try {
    const running = await bootInstance(db.url, { LOG_LEVEL: 'silent', NOTIFY_SWEEP_INTERVAL: '0.3' });
    try {
      const api = apiFor(running);
      await queryDb(db.url, 'TRUNCATE notification_config');
      await routeToWebhook(api, 'live-wipe', stub.url('/live'), { name: 'live', event: 'LiveWipe' });
      await ok(
        await api.post('/alert', {
          resource: 'r',
          event: 'LiveWipe',
          environment: 'Production',
          service: ['web'],
          severity: 'major',
        }),
        201,
      );
      await stub.waitFor(1, (r) => r.path === '/live');
      const [row] = await queryDb<{ version: string }>(db.url, 'SELECT version FROM notification_config');
      assert.is(row?.version, '2', 'each change bumps the re-created row');
    } finally {
      await running.close();
    }
  } finally {
    await stub.close();
    await dropTestDatabase(db.name);
  }
});

test.run();

const failures = suite('start-up failures name what is missing and what to do');

failures('a database that does not exist', async () => {
  const { code, output } = await runServerExpectingFailure({
    DATABASE_URL: databaseUrl('alertwall_no_such_database'),
    LOG_LEVEL: 'critical',
  });
  assert.is(code, 1);
  assert.match(output, /cannot start: database "alertwall_no_such_database" does not exist/);
  assert.match(output, /create it \(createdb alertwall_no_such_database\), or fix DATABASE_URL/);
});

failures('a table dropped by hand after its migration', async () => {
  const db = await createTestDatabase('dropped');
  try {
    await (await bootInstance(db.url, { LOG_LEVEL: 'silent' })).close();
    await queryDb(db.url, 'DROP TABLE notification_config');
    const { code, output } = await runServerExpectingFailure({ DATABASE_URL: db.url, LOG_LEVEL: 'critical' });
    assert.is(code, 1);
    assert.match(output, /cannot start: relation "notification_config" does not exist in PostgreSQL at/);
    assert.match(
      output,
      /Restore it from a backup; or, to start with an empty system, DROP SCHEMA public CASCADE/,
    );
    assert.not.match(output, /Query returned no rows/);
  } finally {
    await dropTestDatabase(db.name);
  }
});

failures.run();
