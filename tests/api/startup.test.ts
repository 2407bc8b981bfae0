import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';
import { runServerExpectingFailure, startServerProcess } from '../helpers/process.ts';

const apiOf = (url: string) => url.replace(/\/$/, '') + '/api';

const embedded = suite('npm start without DATABASE_URL: embedded PostgreSQL');
const dataDir = mkdtempSync(join(tmpdir(), 'alertwall-embedded-'));
embedded.after(() => rmSync(dataDir, { recursive: true, force: true }));

embedded('starts, serves /api/_, stops on SIGINT, and keeps its data for the next start', async () => {
  const first = await startServerProcess({ DATA_DIR: dataDir });
  assert.match(first.line, /database: embedded PostgreSQL/);
  assert.match(first.line, /bus: in-process/);
  const res = await fetch(`${apiOf(first.url)}/_`);
  assert.is(await res.text(), 'OK');

  const port = Number(/port (\d+)/.exec(first.line)![1]);
  const password = readFileSync(join(dataDir, 'postgres.password'), 'utf8').trim();
  const pgUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  await queryDb(pgUrl, `INSERT INTO instance_info (key, value) VALUES ('test-marker', 'kept')`);
  const [installed] = await queryDb<{ value: string }>(
    pgUrl,
    `SELECT value FROM instance_info WHERE key = 'installed_at'`,
  );
  assert.is(await first.stop('SIGINT'), 0);

  const second = await startServerProcess({ DATA_DIR: dataDir });
  const port2 = Number(/port (\d+)/.exec(second.line)![1]);
  const pgUrl2 = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port2}/postgres`;
  const rows = await queryDb<{ key: string; value: string }>(
    pgUrl2,
    `SELECT key, value FROM instance_info ORDER BY key`,
  );
  assert.equal(
    rows.find((r) => r.key === 'test-marker'),
    { key: 'test-marker', value: 'kept' },
  );
  assert.is(rows.find((r) => r.key === 'installed_at')?.value, installed?.value);
  assert.is(await second.stop('SIGTERM'), 0);
});

embedded('a request in flight when SIGTERM arrives is still answered', async () => {
  const server = await startServerProcess({ DATA_DIR: dataDir });
  const api = new URL(`${apiOf(server.url)}/no-such-route`);
  const answered = new Promise<number>((ok, fail) => {
    const req = request(api, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (r) => {
      r.resume();
      ok(r.statusCode ?? 0);
    });
    req.on('error', fail);
    req.write('{"resource": "half a body');
    setTimeout(() => {
      server.child.kill('SIGTERM');
      setTimeout(() => req.end('"}'), 500);
    }, 300);
  });
  assert.is(await answered, 404);
  assert.is(await server.exited, 0);
});

embedded.run();

const external = suite('npm start with DATABASE_URL');

external('uses the external server and migrates it', async () => {
  const db = await createTestDatabase('external');
  try {
    const server = await startServerProcess({ DATABASE_URL: db.url });
    assert.match(server.line, /database: PostgreSQL at postgres:\/\//);
    assert.is(await (await fetch(`${apiOf(server.url)}/_`)).text(), 'OK');
    const versions = await queryDb<{ version: number }>(db.url, 'SELECT version FROM schema_migrations');
    assert.ok(versions.length >= 1);
    assert.is(await server.stop(), 0);
  } finally {
    await dropTestDatabase(db.name);
  }
});

external('each request is logged as one JSON line with its request id', async () => {
  const db = await createTestDatabase('accesslog');
  try {
    const server = await startServerProcess({ DATABASE_URL: db.url, LOG_LEVEL: 'info' });
    await fetch(`${apiOf(server.url)}/_?api-key=secret-key`, { headers: { 'X-Request-ID': 'log-me-1' } });
    await fetch(`${apiOf(server.url)}/nowhere`, { headers: { 'X-Request-ID': 'log-me-2' } });
    await new Promise((r) => setTimeout(r, 200));
    assert.is(await server.stop(), 0);
    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.includes('"http.request"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const first = lines.find((l) => l.requestId === 'log-me-1');
    const second = lines.find((l) => l.requestId === 'log-me-2');
    assert.equal([first?.method, first?.status, first?.path], ['GET', 200, '/api/_?api-key=[redacted]']);
    assert.is(second?.status, 404);
    assert.is(lines.filter((l) => l.requestId === 'log-me-1').length, 1);
    assert.not.match(server.output(), /secret-key/);
  } finally {
    await dropTestDatabase(db.name);
  }
});

external('two instances started at the same moment on one empty database both serve', async () => {
  const db = await createTestDatabase('twins');
  try {
    const [a, b] = await Promise.all([
      startServerProcess({ DATABASE_URL: db.url }),
      startServerProcess({ DATABASE_URL: db.url }),
    ]);
    for (const s of [a, b]) assert.is(await (await fetch(`${apiOf(s.url)}/_`)).text(), 'OK');
    const rows = await queryDb<{ version: number; n: string }>(
      db.url,
      'SELECT version, count(*) AS n FROM schema_migrations GROUP BY version',
    );
    assert.ok(rows.every((r) => r.n === '1'));
    assert.is(await a.stop(), 0);
    assert.is(await b.stop(), 0);
  } finally {
    await dropTestDatabase(db.name);
  }
});

external('REDIS_URL switches the bus to Redis and says so', async () => {
  const db = await createTestDatabase('redisbus');
  try {
    const server = await startServerProcess({
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    assert.match(server.line, /bus: Redis pub\/sub at redis:\/\//);
    assert.is(await server.stop(), 0);
  } finally {
    await dropTestDatabase(db.name);
  }
});

external(
  'the established defaults start: SECRET_KEY changeme with AUTH_REQUIRED, CUSTOMER_VIEWS without ADMIN_USERS',
  async () => {
    const db = await createTestDatabase('warnings');
    try {
      const server = await startServerProcess({
        DATABASE_URL: db.url,
        AUTH_REQUIRED: 'True',
        CUSTOMER_VIEWS: 'True',
        SECRET_KEY: undefined,
        ADMIN_USERS: undefined,
      });
      assert.is(await (await fetch(`${apiOf(server.url)}/_`)).text(), 'OK');
      assert.is(await server.stop(), 0);
      const warnings = server
        .output()
        .split('\n')
        .filter((l) => l.includes('"settings.warning"'))
        .map((l) => JSON.parse(l) as { level: string; setting: string; warning: string });
      assert.equal(
        warnings.map((w) => [w.level, w.setting]),
        [
          ['warn', 'SECRET_KEY'],
          ['warn', 'CUSTOMER_VIEWS'],
        ],
      );
      assert.match(warnings[0]!.warning, /'changeme'/);
    } finally {
      await dropTestDatabase(db.name);
    }
  },
);

external.run();

const refused = suite('invalid settings stop start-up');

refused('a bad value in the settings file names the setting and its line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'alertwall-conf-'));
  const file = join(dir, 'alertad.conf');
  writeFileSync(file, `# settings\nDEBUG = True\nDEFAULT_PAGE_SIZE = 'x'\n`);
  const { code, output } = await runServerExpectingFailure({ ALERTA_SVR_CONF_FILE: file });
  rmSync(dir, { recursive: true, force: true });
  assert.is(code, 2);
  assert.match(output, /DEFAULT_PAGE_SIZE/);
  assert.match(output, new RegExp(`${file.replace(/[.]/g, '\\.')}:3`));
  assert.match(output, /expected an integer/);
});

refused('a bad environment value names the setting and says it came from the environment', async () => {
  const { code, output } = await runServerExpectingFailure({ AUTH_REQUIRED: 'perhaps' });
  assert.is(code, 2);
  assert.match(output, /AUTH_REQUIRED \(environment\): expected True or False/);
});

refused.run();
