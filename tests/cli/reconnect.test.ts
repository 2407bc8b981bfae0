/**
 * `alerta watch` across a server restart: the socket drops, the client reconnects to the new
 * instance on the same address, subscribes again and prints what changed meanwhile.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import type { Running as Instance } from '../../server/boot.ts';
import { apiFor, bootInstance } from '../helpers/app.ts';
import { createTestDatabase, dropTestDatabase } from '../helpers/db.ts';
import { start, tempHome } from './helpers.ts';
import { freePort } from '../../scripts/cluster.ts';

interface Ctx {
  db: { name: string; url: string };
  port: number;
  instance: Instance | null;
  cleanup: () => void;
  home: string;
}

const test = suite<Ctx>('alerta watch: reconnects', {} as Ctx);

const boot = (ctx: Ctx) =>
  bootInstance(ctx.db.url, { PORT: String(ctx.port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' });

test.before(async (ctx) => {
  ctx.db = await createTestDatabase('cli_reconnect');
  ctx.port = await freePort();
  ctx.instance = await boot(ctx);
  const h = tempHome('reconnect');
  ctx.home = h.home;
  ctx.cleanup = h.cleanup;
});
test.after(async (ctx) => {
  await ctx.instance?.close();
  ctx.cleanup?.();
  await dropTestDatabase(ctx.db.name);
});

test('an ack made while the server was down shows up after the reconnect', async (ctx) => {
  const api = apiFor(ctx.instance!);
  const res = await api.post('/alert', {
    resource: 'rc1',
    event: 'Down',
    environment: 'Production',
    service: ['Web'],
    severity: 'major',
  });
  const { id } = (await res.json()) as { id: string };
  const watch = start(['--output', 'json_lines', 'watch', '-f', 'resource=rc1'], {
    home: ctx.home,
    env: { ALERTA_ENDPOINT: api.base },
  });
  try {
    await watch.waitFor((l) => l.includes(id), 'the snapshot');
    await ctx.instance!.close();
    ctx.instance = null;
    await watch.waitFor(() => /connection lost/.test(watch.stderr()), 'the drop noticed');
    ctx.instance = await boot(ctx);
    // The test's own fetch may hand out a keep-alive socket to the stopped instance ("fetch
    // failed"): a request refused that way is sent once more, to the new instance.
    const ack = () => apiFor(ctx.instance!).put(`/alert/${id}/action`, { action: 'ack' });
    const acked = await ack().catch(ack);
    assert.is(acked.status, 200);
    const line = await watch.waitFor(
      (l) => l.includes('"status":"ack"'),
      'the ack after the reconnect',
      20_000,
    );
    const ev = JSON.parse(line) as { alert: Alert };
    assert.is(ev.alert.id, id);
    assert.match(watch.stderr(), /reconnected/);
  } finally {
    assert.is(await watch.stop(), 0);
  }
  assert.is(
    watch.lines().filter((l) => l.includes('"status":"open"')).length,
    1,
    'the unchanged state is not repeated',
  );
});

test.run();
