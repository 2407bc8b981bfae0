import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../scripts/cluster.ts';
import { type AppContext, startApp, stopApp } from '../helpers/app.ts';

// The receiving side of an established server's forwarder plugin, as teams switching run both side
// by side (docs/switching.md): the exact requests it sends — the `requests` library's headers, the
// Hawk header as mohawk writes it (mac first, a 6-character nonce), bodies as Python's json.dumps
// writes them (", " and ": ", non-ASCII escaped) — for a new alert, a duplicate, an ack, a close
// and a delete. Each is accepted, the alert keeps the established server's id, and nothing is
// sent back to the sender, whose BASE_URL the loop header names.

const ALERTA_KEY = 'alerta-to-ours';
const ALERTA_SECRET = 'c2VjcmV0LXNoYXJlZC13aXRoLWFsZXJ0YQ';
const ADMIN_KEY = 'alerta-forwarder-admin-key-0123456789';
const AUTH = { Authorization: `Key ${ADMIN_KEY}` };

interface Captured {
  destination: string;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface FromAlertaContext extends AppContext {
  stub: Server;
  /** The established server: its BASE_URL, and a destination of ours (for a rollback). */
  alertaBase: string;
  /** Another destination of ours, which should get everything. */
  otherBase: string;
  ourBase: string;
  captured: Captured[];
}

const fromAlerta = suite<FromAlertaContext>('requests of the established server’s forwarder', {
  captured: [],
} as unknown as FromAlertaContext);

fromAlerta.before(async (ctx) => {
  ctx.stub = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [, destination = '', path = ''] = /^\/([^/]+)(\/.*)$/.exec(req.url ?? '') ?? [];
      ctx.captured.push({
        destination,
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.end('{"status": "ok"}');
    });
  });
  await new Promise<void>((ok) => ctx.stub.listen(0, '127.0.0.1', ok));
  const stub = `http://127.0.0.1:${(ctx.stub.address() as AddressInfo).port}`;
  ctx.alertaBase = `${stub}/alerta`;
  ctx.otherBase = `${stub}/other`;
  const port = await freePort();
  ctx.ourBase = `http://127.0.0.1:${port}/api`;
  // As an operator configures us (docs/switching.md): the established server's HMAC key, and our
  // forwarder pointed back at it (the rollback) and at one more server.
  await startApp(ctx, {
    TEST_LABEL: 'from_alerta',
    PORT: String(port),
    BASE_URL: ctx.ourBase,
    PLUGINS: 'remote_ip,reject,heartbeat,blackout,forwarder',
    AUTH_REQUIRED: 'True',
    SECRET_KEY: 'alerta-forwarder-secret-key',
    ADMIN_USERS: 'admin@example.com',
    ADMIN_KEY,
    HMAC_AUTH_CREDENTIALS: JSON.stringify([{ key: ALERTA_KEY, secret: ALERTA_SECRET, algorithm: 'sha256' }]),
    FWD_DESTINATIONS: JSON.stringify([
      [ctx.alertaBase, { key: 'ours-to-alerta', secret: 'another-secret' }, ['*']],
      [ctx.otherBase, {}, ['*']],
    ]),
  });
});
fromAlerta.after(async (ctx) => {
  await stopApp(ctx);
  ctx.stub.closeAllConnections();
  await new Promise((ok) => ctx.stub.close(ok));
});

/** Python's json.dumps with its defaults: ", " and ": " separators, non-ASCII as \uXXXX. */
function pythonJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`).join(', ')}}`;
}

/**
 * The Authorization header mohawk's Sender makes (through requests_hawk's HawkAuth, sha256, the
 * payload always hashed with the request's Content-Type): `Hawk mac, hash, id, ts, nonce`.
 */
function mohawkHeader(
  method: string,
  url: string,
  contentType: string,
  body: string,
  secret = ALERTA_SECRET,
): string {
  const u = new URL(url);
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(6).toString('base64url').slice(0, 6);
  const hash = createHash('sha256').update(`hawk.1.payload\n${contentType}\n${body}\n`).digest('base64');
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  const normalized = `hawk.1.header\n${ts}\n${nonce}\n${method}\n${u.pathname}${u.search}\n${u.hostname}\n${port}\n${hash}\n\n`;
  const mac = createHmac('sha256', secret).update(normalized).digest('base64');
  return `Hawk mac="${mac}", hash="${hash}", id="${ALERTA_KEY}", ts="${ts}", nonce="${nonce}"`;
}

/**
 * One request as the established server's forwarder sends it: its HTTP client (a requests
 * session) with the headers it always sets, X-Request-ID and Content-Type (also on DELETE), the
 * loop header and the Hawk signature; no Origin.
 */
function forwarded(
  ctx: FromAlertaContext,
  method: 'POST' | 'PUT' | 'DELETE',
  path: string,
  body: string | null,
  loop = ctx.alertaBase,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = `${ctx.ourBase}${path}`;
  const headers: Record<string, string> = {
    'User-Agent': 'python-requests/2.32.3',
    'Accept-Encoding': 'gzip, deflate',
    Accept: '*/*',
    Connection: 'keep-alive',
    'X-Alerta-Loop': loop,
    'X-Request-ID': randomUUID(),
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body ?? '')),
    Authorization: mohawkHeader(method, url, 'application/json', body ?? ''),
  };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
      });
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** The alert body the forwarder sends: send_alert's fields, from the stored alert, in its order. */
function alertaAlert(id: string, fields: Record<string, unknown> = {}) {
  return {
    id,
    resource: 'switch-07',
    event: 'PortDown',
    environment: 'Production',
    severity: 'major',
    correlate: ['PortDown', 'PortUp'],
    service: ['Network'],
    group: 'Network',
    value: 'ge-0/0/7',
    text: 'Température élevée, port down',
    tags: ['dc=eu-1'],
    attributes: { ip: '10.1.2.3', region: 'EU' },
    origin: 'snmptrapd/nms01',
    type: 'snmptrapAlert',
    createTime: new Date().toISOString(),
    timeout: 86400,
    rawData: null,
    customer: null,
    ...fields,
  };
}

interface StoredAlert {
  id: string;
  status: string;
  text: string;
  duplicateCount: number;
  lastReceiveId: string;
  attributes: Record<string, unknown>;
  history: { type: string; user: string | null; text: string }[];
}

async function stored(ctx: FromAlertaContext, id: string): Promise<StoredAlert | null> {
  const res = await ctx.api.get(`/alert/${id}`, { headers: AUTH });
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  return ((await res.json()) as { alert: StoredAlert }).alert;
}

const to = (ctx: FromAlertaContext, destination: string) =>
  ctx.captured.filter((c) => c.destination === destination);

fromAlerta(
  'a new alert, a duplicate, an ack, a close and a delete are accepted under its id, never sent back',
  async (ctx) => {
    const id = randomUUID();
    const created = await forwarded(ctx, 'POST', '/alert', pythonJson(alertaAlert(id)));
    assert.is(created.status, 201, JSON.stringify(created.body));
    assert.is(created.body.id, id);
    let alert = (await stored(ctx, id))!;
    assert.equal([alert.id, alert.status, alert.lastReceiveId], [id, 'open', id]);
    assert.is(alert.text, 'Température élevée, port down');
    assert.is(alert.attributes.region, 'EU');

    // A duplicate arrives with the id of that receipt (its lastReceiveId there).
    const again = randomUUID();
    const duplicate = await forwarded(ctx, 'POST', '/alert', pythonJson(alertaAlert(again)));
    assert.is(duplicate.status, 201, JSON.stringify(duplicate.body));
    assert.is(duplicate.body.id, id);
    alert = (await stored(ctx, id))!;
    assert.equal([alert.duplicateCount, alert.lastReceiveId], [1, again]);

    const action = (name: string, text: string) =>
      forwarded(ctx, 'PUT', `/alert/${id}/action`, pythonJson({ action: name, text, timeout: null }));
    const ack = await action('ack', 'acknowledged by ops');
    assert.is(ack.status, 200, JSON.stringify(ack.body));
    const acked = (await stored(ctx, id))!;
    assert.is(acked.status, 'ack');
    // Done by the HMAC key's login, which the history names.
    assert.equal(
      acked.history.filter((h) => h.type === 'ack').map((h) => [h.user, h.text]),
      [[ALERTA_KEY, 'acknowledged by ops']],
    );
    const close = await action('close', '');
    assert.is(close.status, 200, JSON.stringify(close.body));
    assert.is((await stored(ctx, id))!.status, 'closed');

    // DELETE has no body, but the client sends its Content-Type and signs the empty payload with it.
    const deleted = await forwarded(ctx, 'DELETE', `/alert/${id}`, null);
    assert.is(deleted.status, 200, JSON.stringify(deleted.body));
    assert.is(await stored(ctx, id), null);

    // Our other destination got all five, with the loop header extended; the sender got nothing.
    const onward = to(ctx, 'other');
    assert.equal(
      onward.map((c) => `${c.method} ${c.path}`),
      [
        'POST /alert',
        'POST /alert',
        `PUT /alert/${id}/action`,
        `PUT /alert/${id}/action`,
        `DELETE /alert/${id}`,
      ],
    );
    for (const c of onward) assert.is(c.headers['x-alerta-loop'], `${ctx.alertaBase},${ctx.ourBase}`);
    assert.equal(
      onward.map((c) => (c.method === 'POST' ? JSON.parse(c.body).id : null)),
      [id, again, null, null, null],
    );
    assert.equal(to(ctx, 'alerta'), []);
  },
);

fromAlerta(
  'an event of ours that the established server sends back is not processed again (202)',
  async (ctx) => {
    const id = randomUUID();
    const looped = await forwarded(
      ctx,
      'POST',
      '/alert',
      pythonJson(alertaAlert(id, { resource: 'switch-08' })),
      `${ctx.ourBase},${ctx.alertaBase}`,
    );
    assert.is(looped.status, 202);
    assert.is(
      looped.body.message,
      `Alert forwarded by ${ctx.alertaBase} already processed by ${ctx.ourBase}`,
    );
    assert.is(await stored(ctx, id), null);
  },
);

fromAlerta('a request signed with another secret is refused (401)', async (ctx) => {
  const body = pythonJson(alertaAlert(randomUUID(), { resource: 'switch-09' }));
  const url = `${ctx.ourBase}/alert`;
  const res = await fetch(url, {
    method: 'POST',
    body,
    headers: {
      'Content-Type': 'application/json',
      'X-Alerta-Loop': ctx.alertaBase,
      Authorization: mohawkHeader('POST', url, 'application/json', body, 'not-the-secret'),
    },
  });
  assert.is(res.status, 401);
  await res.body?.cancel();
});

fromAlerta.run();
