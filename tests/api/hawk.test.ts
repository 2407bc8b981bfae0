import * as assert from 'uvu/assert';
import Hawk from 'hawk';
import { hawkHeader } from '../../server/auth/hawk.ts';
import { type AppContext, appSuite } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

const peer = { id: 'peer', key: 's3cret-peer', algorithm: 'sha256' as const };
const JSON_TYPE = 'application/json';

const hawk = appSuite('Hawk authentication', {
  TEST_LABEL: 'hawk',
  AUTH_REQUIRED: 'True',
  SECRET_KEY: 'test-secret-key-123',
  HMAC_AUTH_CREDENTIALS: '[{"key": "peer", "secret": "s3cret-peer", "algorithm": "sha256"}]',
});

interface Send {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  credentials?: { id: string; key: string; algorithm: 'sha1' | 'sha256' };
  localtimeOffsetMsec?: number;
  headers?: Record<string, string>;
}

/** Signs with the independent hawk package; returns the header it made. */
function sign(ctx: AppContext, s: Send): string {
  return Hawk.client.header(`${ctx.api.base}${s.path}`, s.method, {
    credentials: s.credentials ?? peer,
    payload: s.body ?? '',
    contentType: s.contentType ?? '',
    ...(s.localtimeOffsetMsec ? { localtimeOffsetMsec: s.localtimeOffsetMsec } : {}),
  }).header;
}

async function send(ctx: AppContext, s: Send, authorization = sign(ctx, s)) {
  const headers: Record<string, string> = { Authorization: authorization, ...s.headers };
  if (s.contentType) headers['Content-Type'] = s.contentType;
  const res = await fetch(`${ctx.api.base}${s.path}`, { method: s.method, headers, body: s.body });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

const alertBody = (resource: string) =>
  JSON.stringify({ resource, event: 'NodeDown', environment: 'Production', service: ['web'] });

hawk('expired nonces are deleted opportunistically; a signed GET /alerts is 200', async (ctx) => {
  await queryDb(
    ctx.db.url,
    `INSERT INTO hawk_nonces (key_id, nonce, ts, expire_time) VALUES ('peer', 'old', 1, now() - interval '1 hour')`,
  );
  const r = await send(ctx, { method: 'GET', path: '/alerts' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.status, 'ok');
  const rows = await queryDb<{ nonce: string }>(ctx.db.url, 'SELECT nonce FROM hawk_nonces');
  assert.is(rows.length, 1);
  assert.is.not(rows[0]!.nonce, 'old');
});

hawk('without credentials the same request is 401 (auth is really required)', async (ctx) => {
  const res = await fetch(`${ctx.api.base}/alerts`);
  assert.is(res.status, 401);
});

hawk('a signed POST /alert with a JSON body is 201', async (ctx) => {
  const r = await send(ctx, {
    method: 'POST',
    path: '/alert',
    body: alertBody('hawk-01'),
    contentType: 'application/json; charset=utf-8',
  });
  assert.is(r.status, 201, JSON.stringify(r.body));
  assert.is((r.body.alert as { resource: string }).resource, 'hawk-01');
});

hawk('a path with a query string is signed over path and query', async (ctx) => {
  const path = '/alerts?status=open&sort-by=lastReceiveTime&q=resource:hawk-01';
  const r = await send(ctx, { method: 'GET', path });
  assert.is(r.status, 200, JSON.stringify(r.body));
  // signed for another query than the one sent
  const other = sign(ctx, { method: 'GET', path: '/alerts?status=closed' });
  assert.is((await send(ctx, { method: 'GET', path }, other)).status, 401);
});

hawk('wrong secret is 401', async (ctx) => {
  const r = await send(ctx, {
    method: 'GET',
    path: '/alerts',
    credentials: { ...peer, key: 'not-the-secret' },
  });
  assert.is(r.status, 401);
  assert.is(r.body.message, 'Bad mac');
  assert.match(r.headers.get('www-authenticate') ?? '', /^Hawk error="Bad mac"/);
});

hawk('unknown id is 401', async (ctx) => {
  const r = await send(ctx, { method: 'GET', path: '/alerts', credentials: { ...peer, id: 'stranger' } });
  assert.is(r.status, 401);
  assert.is(r.body.message, 'Unknown Hawk credentials');
});

hawk('a timestamp an hour off is 401 Stale timestamp with the server time signed', async (ctx) => {
  for (const offset of [-3600_000, 3600_000]) {
    const before = Math.floor(Date.now() / 1000);
    const r = await send(ctx, { method: 'GET', path: '/alerts', localtimeOffsetMsec: offset });
    assert.is(r.status, 401);
    assert.is(r.body.message, 'Stale timestamp');
    const header = r.headers.get('www-authenticate') ?? '';
    const m = /^Hawk ts="(\d+)", tsm="([^"]+)", error="Stale timestamp"$/.exec(header);
    assert.ok(m, header);
    const ts = Number(m![1]);
    assert.ok(ts >= before && ts <= before + 5);
    assert.is(m![2], Hawk.crypto.calculateTsMac(ts, { key: peer.key, algorithm: peer.algorithm }));
  }
});

hawk('a timestamp within the 300 s window is accepted', async (ctx) => {
  const r = await send(ctx, { method: 'GET', path: '/alerts', localtimeOffsetMsec: -240_000 });
  assert.is(r.status, 200, JSON.stringify(r.body));
});

hawk('replaying the exact same header is 401 the second time', async (ctx) => {
  const s = { method: 'POST', path: '/alert', body: alertBody('hawk-replay'), contentType: JSON_TYPE };
  const header = sign(ctx, s);
  assert.is((await send(ctx, s, header)).status, 201);
  const again = await send(ctx, s, header);
  assert.is(again.status, 401);
  assert.is(again.body.message, 'Replayed nonce');
});

hawk('a tampered payload is 401', async (ctx) => {
  const s = { method: 'POST', path: '/alert', body: alertBody('hawk-02'), contentType: JSON_TYPE };
  const header = sign(ctx, s);
  const r = await send(ctx, { ...s, body: alertBody('hawk-evil') }, header);
  assert.is(r.status, 401);
  assert.is(r.body.message, 'Bad payload hash');
  // and the alert was not created
  const q = await send(ctx, { method: 'GET', path: '/alerts?resource=hawk-evil' });
  assert.is((q.body.alerts as unknown[]).length, 0);
});

hawk('a changed content type or method is 401', async (ctx) => {
  const s = { method: 'POST', path: '/alert', body: alertBody('hawk-03'), contentType: JSON_TYPE };
  const r1 = await send(ctx, { ...s, contentType: 'application/vnd.other+json' }, sign(ctx, s));
  assert.is(r1.status, 401);
  // signed for DELETE, sent as GET
  const r2 = await send(
    ctx,
    { method: 'GET', path: '/alerts' },
    sign(ctx, { method: 'DELETE', path: '/alerts' }),
  );
  assert.is(r2.status, 401);
  assert.is(r2.body.message, 'Bad mac');
});

hawk('a malformed or hash-less header is 401 with our message', async (ctx) => {
  const noHash = Hawk.client.header(`${ctx.api.base}/alerts`, 'GET', { credentials: peer }).header;
  const r1 = await send(ctx, { method: 'GET', path: '/alerts' }, noHash);
  assert.is(r1.status, 401);
  assert.is(r1.body.message, 'Invalid Hawk header: missing payload hash');
  const r2 = await send(ctx, { method: 'GET', path: '/alerts' }, 'Hawk id=peer');
  assert.is(r2.status, 401);
  assert.match(String(r2.body.message), /^Invalid Hawk header/);
});

hawk('X-Forwarded-* are ignored without USE_PROXYFIX', async (ctx) => {
  const header = Hawk.client.header('https://alerts.example.com/api/alerts', 'GET', {
    credentials: peer,
    payload: '',
  }).header;
  const r = await send(
    ctx,
    {
      method: 'GET',
      path: '/alerts',
      headers: { 'X-Forwarded-Host': 'alerts.example.com', 'X-Forwarded-Proto': 'https' },
    },
    header,
  );
  assert.is(r.status, 401);
  assert.is(r.body.message, 'Bad mac');
});

hawk('our own hawkHeader is accepted for GET and POST', async (ctx) => {
  const get = hawkHeader(peer, { method: 'GET', url: `${ctx.api.base}/alerts?status=open` });
  assert.is((await send(ctx, { method: 'GET', path: '/alerts?status=open' }, get)).status, 200);
  const body = alertBody('hawk-ours');
  const post = hawkHeader(peer, {
    method: 'POST',
    url: `${ctx.api.base}/alert`,
    contentType: JSON_TYPE,
    payload: body,
    ext: 'forwarded',
  });
  const r = await send(ctx, { method: 'POST', path: '/alert', body, contentType: JSON_TYPE }, post);
  assert.is(r.status, 201, JSON.stringify(r.body));
});

hawk.run();
