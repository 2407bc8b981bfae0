/**
 * Delivery across an instance's death (docs/notifications.md, "Delivery"): a message in flight when
 * its instance is killed goes out again within about one lease (LEASE_MS, renewed while a send is
 * in flight) with the same delivery id; and a slow receiver, answering after more than a lease, is
 * not sent the message twice while its instance lives.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiFor, bootInstance } from '../helpers/app.ts';
import type { Api } from '../helpers/api.ts';
import { createApi } from '../helpers/api.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';
import { sleep, until } from '../helpers/live.ts';
import { startServerProcess } from '../helpers/process.ts';
import { LEASE_MS } from '../../server/delivery/queue.ts';

/** A webhook receiver that answers each request after `delayMs(n)` (n counts from 0; null: never). */
class SlowHook {
  readonly received: { at: number; headers: IncomingHttpHeaders; json: Record<string, unknown> }[] = [];
  private readonly server: Server;
  port = 0;

  constructor(delayMs: (n: number) => number | null) {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const n = this.received.length;
        this.received.push({
          at: Date.now(),
          headers: req.headers,
          json: JSON.parse(body) as Record<string, unknown>,
        });
        const delay = delayMs(n);
        if (delay === null) return;
        setTimeout(
          () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}'),
          delay,
        );
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', () => ok()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}

async function routeTo(api: Api, hook: SlowHook, event: string): Promise<void> {
  const receiver = await api.post('/notifications/receivers', {
    name: 'slow-hook',
    type: 'webhook',
    settings: { url: `http://127.0.0.1:${hook.port}/hook` },
  });
  assert.is(receiver.status, 201, await receiver.clone().text());
  const rule = await api.post('/notifications/rules', {
    name: 'all',
    event,
    receivers: ['slow-hook'],
    groupWait: 0,
  });
  assert.is(rule.status, 201, await rule.clone().text());
}

async function sendAlert(api: Api, event: string): Promise<string> {
  const res = await api.post('/alert', {
    resource: 'web01',
    event,
    environment: 'Production',
    service: ['web'],
    severity: 'major',
  });
  assert.is(res.status, 201, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

const queued = async (url: string) =>
  Number((await queryDb<{ n: string }>(url, 'SELECT count(*) AS n FROM notification_queue'))[0]!.n);

const test = suite('notifications: redelivery');

test('a message in flight when its instance is killed is sent again within a lease, with the same delivery id', async () => {
  const db = await createTestDatabase('redeliver_kill');
  // The first request is never answered: the instance dies while sending it.
  const hook = await new SlowHook((n) => (n === 0 ? null : 0)).start();
  let second: Awaited<ReturnType<typeof bootInstance>> | null = null;
  try {
    const first = await startServerProcess({ DATABASE_URL: db.url, NOTIFY_TIMEOUT: '60' });
    const api = createApi(`${first.url.replace(/\/$/, '')}/api`);
    await routeTo(api, hook, 'Killed');
    const id = await sendAlert(api, 'Killed');
    await until(
      () => hook.received.length === 1 || undefined,
      20_000,
      () => 'the first instance never sent',
    );
    // Kill it mid-send and start another instance on the database: it takes the row once the lease lapses.
    first.child.kill('SIGKILL');
    await first.exited;
    const killedAt = Date.now();
    second = await bootInstance(db.url, { LOG_LEVEL: 'silent' });
    await until(
      () => hook.received.length >= 2 || undefined,
      30_000,
      () => 'never sent again',
    );
    const after = hook.received[1]!.at - killedAt;
    assert.ok(after < LEASE_MS + 5_000, `sent again ${after} ms after the kill (lease ${LEASE_MS} ms)`);
    const [a, b] = hook.received;
    assert.is(b!.headers['x-alertwall-delivery'], a!.headers['x-alertwall-delivery']);
    assert.is(b!.json.deliveryId, a!.json.deliveryId);
    assert.ok(typeof a!.json.deliveryId === 'string' && a!.json.deliveryId.length > 0);
    assert.is((b!.json.alerts as { id: string }[])[0]!.id, id);
    await until(async () => (await queued(db.url)) === 0 || undefined, 10_000, 'the row stayed queued', 200);
    await sleep(LEASE_MS);
    assert.is(hook.received.length, 2, 'sent twice, not three times');
  } finally {
    await second?.close();
    await hook.close();
    await dropTestDatabase(db.name);
  }
});

test('a receiver slower than the lease gets the message once while its instance lives', async () => {
  const db = await createTestDatabase('redeliver_slow');
  const slowMs = Math.round(LEASE_MS * 1.7);
  const hook = await new SlowHook(() => slowMs).start();
  const settings = { LOG_LEVEL: 'silent', NOTIFY_TIMEOUT: String((slowMs * 2) / 1000) };
  const a = await bootInstance(db.url, settings);
  const b = await bootInstance(db.url, settings);
  try {
    const api = apiFor(a);
    await routeTo(api, hook, 'Slow');
    // Instance b reads the new receiver within its reload interval (2 s), so both could deliver.
    await sleep(2500);
    await sendAlert(api, 'Slow');
    await until(
      () => hook.received.length >= 1 || undefined,
      20_000,
      () => 'never sent',
    );
    await until(async () => (await queued(db.url)) === 0 || undefined, slowMs + 10_000, 'never settled', 200);
    await sleep(LEASE_MS);
    assert.is(hook.received.length, 1, 'one request, although the answer took longer than a lease');
  } finally {
    await b.close();
    await a.close();
    await hook.close();
    await dropTestDatabase(db.name);
  }
});

test.run();
