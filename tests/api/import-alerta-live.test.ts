/**
 * Open screens after `npm run import-alerta`: with Redis, every server's open views are told to
 * resync, and subscribing again shows the imported alerts; with Redis unreachable the import still
 * succeeds and says that screens could not be told.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { dropTestDatabase } from '../helpers/db.ts';
import { createAlertaDatabase, historyArray, insertRow, runImport } from '../helpers/alerta-db.ts';
import { LiveClient, until } from '../helpers/live.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis.ts';
import { freePort } from '../../scripts/cluster.ts';

interface Ctx extends AppContext {
  redis: PrivateRedis;
  channel: string;
  source: { name: string; url: string };
  client: LiveClient;
}

const test = suite<Ctx>('import-alerta-live', {} as Ctx);
const ID = '0c6b1d8e-2f4a-4b7c-9e1d-5a3f2b1c0d9e';

test.before(async (ctx) => {
  ctx.redis = await startPrivateRedis();
  ctx.channel = `import-${randomUUID().slice(0, 8)}`;
  await startApp(ctx, { TEST_LABEL: 'import_live', REDIS_URL: ctx.redis.url, BUS_CHANNEL: ctx.channel });
  ctx.source = await createAlertaDatabase('alerta_live_src');
  const now = new Date().toISOString().replace('Z', '');
  await insertRow(ctx.source.url, 'alerts', {
    id: ID,
    resource: 'imported-host',
    event: 'Down',
    environment: 'Production',
    severity: 'major',
    status: 'open',
    service: ['Web'],
    create_time: now,
    receive_time: now,
    last_receive_time: now,
    update_time: now,
    last_receive_id: ID,
    duplicate_count: 0,
    previous_severity: 'indeterminate',
    trend_indication: 'moreSevere',
    history: historyArray([
      {
        id: ID,
        event: 'Down',
        severity: 'major',
        status: 'open',
        value: null,
        text: null,
        type: 'new',
        update_time: now,
      },
    ]),
  });
  ctx.client = await LiveClient.connect(ctx.origin, {});
});

test.after(async (ctx) => {
  ctx.client?.close();
  await stopApp(ctx);
  await ctx.redis?.remove();
  if (ctx.source) await dropTestDatabase(ctx.source.name);
});

test('open views are told to resync, and show the imported alerts when they subscribe again', async (ctx) => {
  const before = await ctx.client.view('');
  assert.is(before.alerts.size, 0);
  const r = runImport(ctx.source.url, ctx.db.url, [], { REDIS_URL: ctx.redis.url, BUS_CHANNEL: ctx.channel });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.summary.screens, true);
  await until(
    () =>
      ctx.client.received.some(
        (m) => m.event === 'resync' && (m.data as { view: string }).view === before.name,
      )
        ? true
        : undefined,
    10_000,
    () => `a resync of ${before.name}; got ${JSON.stringify(ctx.client.received.map((m) => m.event))}`,
  );
  const after = await ctx.client.view('');
  assert.equal([...after.alerts.keys()], [ID]);
});

test('with Redis unreachable the import still succeeds, and says screens were not told', async (ctx) => {
  const dead = `redis://127.0.0.1:${await freePort()}`;
  const r = runImport(ctx.source.url, ctx.db.url, [], { REDIS_URL: dead, BUS_CHANNEL: ctx.channel });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.summary.screens, false);
  const text = runImport(ctx.source.url, ctx.db.url, ['--dry-run'], { REDIS_URL: dead });
  assert.is(text.status, 0, text.stderr);
  assert.is(text.summary.screens, null);
});

test.run();
