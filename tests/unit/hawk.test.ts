import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RequestFacts } from '../../server/request.ts';
import Hawk from 'hawk';
import {
  hawkHeader,
  hawkPayloadHash,
  mediaType,
  parseHawkHeader,
  requestHostPort,
} from '../../server/auth/hawk.ts';

const creds = { id: 'peer', key: 's3cret-peer', algorithm: 'sha256' as const };
const TS = 1_700_000_000;
const NONCE = 'Ab3_-x';

const cases: {
  name: string;
  method: string;
  url: string;
  payload: string;
  contentType?: string;
  ext?: string;
  algorithm?: 'sha1' | 'sha256';
}[] = [
  { name: 'GET without body', method: 'GET', url: 'http://127.0.0.1:8080/api/alerts', payload: '' },
  {
    name: 'GET with a query',
    method: 'GET',
    url: 'http://Alerts.Example.com:8080/api/alerts?status=open&sort-by=severity&q=a%20b',
    payload: '',
  },
  {
    name: 'POST JSON with charset',
    method: 'POST',
    url: 'https://alerts.example.com/api/alert',
    payload: '{"resource":"web01","event":"down","text":"ünïcode"}',
    contentType: 'Application/JSON; charset=utf-8',
  },
  {
    name: 'PUT with ext',
    method: 'put',
    url: 'http://example.com/api/alert/abc/status',
    payload: '{"status":"ack"}',
    contentType: 'application/json',
    ext: 'forwarded-by: alerta-1',
  },
  {
    name: 'sha1, default https port written out',
    method: 'DELETE',
    url: 'https://example.com:443/api/alert/abc',
    payload: '',
    algorithm: 'sha1',
  },
  { name: 'trailing question mark', method: 'GET', url: 'http://example.com:9000/api/alerts?', payload: '' },
];

for (const c of cases) {
  test(`hawkHeader matches Hawk.client.header: ${c.name}`, () => {
    const algorithm = c.algorithm ?? 'sha256';
    const ours = hawkHeader(
      { id: creds.id, key: creds.key, algorithm },
      {
        method: c.method,
        url: c.url,
        contentType: c.contentType,
        payload: c.payload,
        ts: TS,
        nonce: NONCE,
        ext: c.ext,
      },
    );
    const theirs = Hawk.client.header(c.url, c.method, {
      credentials: { ...creds, algorithm },
      payload: c.payload,
      contentType: c.contentType,
      timestamp: TS,
      nonce: NONCE,
      ...(c.ext ? { ext: c.ext } : {}),
    }).header;
    const a = parseHawkHeader(ours);
    const b = Hawk.utils.parseAuthorizationHeader(theirs);
    assert.is(a.mac, b.mac);
    assert.is(a.hash, b.hash);
    assert.is(a.ts, String(TS));
    assert.is(a.nonce, NONCE);
    assert.is(a.ext, c.ext ?? '');
    assert.is(ours, theirs);
    // hawk's own parser accepts what we write
    assert.equal(Hawk.utils.parseAuthorizationHeader(ours), b);
  });
}

test('payload hash: media type lower-cased without parameters, empty body hashed too', () => {
  assert.is(mediaType('Application/JSON ; charset=UTF-8'), 'application/json');
  assert.is(mediaType(undefined), '');
  assert.is(
    hawkPayloadHash('sha256', 'text/plain; x=y', 'hello'),
    Hawk.crypto.calculatePayloadHash('hello', 'sha256', 'text/plain'),
  );
  assert.is(hawkPayloadHash('sha256', '', ''), Hawk.crypto.calculatePayloadHash('', 'sha256', ''));
});

test('hawkHeader makes a fresh nonce and the current time by default', () => {
  const before = Math.floor(Date.now() / 1000);
  const one = parseHawkHeader(hawkHeader(creds, { method: 'GET', url: 'http://h/api/alerts' }));
  const two = parseHawkHeader(hawkHeader(creds, { method: 'GET', url: 'http://h/api/alerts' }));
  assert.ok(Number(one.ts) >= before && Number(one.ts) <= before + 2);
  assert.is.not(one.nonce, two.nonce);
  assert.ok(one.hash.length > 0);
});

test('hawkHeader refuses what it could not sign or send', () => {
  const req = { method: 'GET', url: 'http://h/' };
  assert.throws(() => hawkHeader({ ...creds, algorithm: 'md5' as 'sha1' }, req), /algorithm/);
  assert.throws(() => hawkHeader({ ...creds, key: '' }, req), /id and a key/);
  assert.throws(() => hawkHeader(creds, { ...req, ext: 'say "hi"' }), /ext/);
  assert.throws(() => hawkHeader(creds, { ...req, url: 'ftp://h/' }), /http/);
  assert.throws(() => hawkHeader(creds, { ...req, ts: 1.5 }), /whole seconds/);
});

const valid = 'Hawk id="peer", ts="1700000000", nonce="abc", hash="AAAA", mac="BBBB"';

test('parse: well-formed headers, scheme case-insensitive, spacing and optional ext', () => {
  assert.equal(parseHawkHeader(valid), {
    id: 'peer',
    ts: '1700000000',
    nonce: 'abc',
    hash: 'AAAA',
    mac: 'BBBB',
    ext: '',
  });
  assert.is(parseHawkHeader('hawk id="p",ts="1",nonce="n",hash="A=",mac="B==",ext="x y"').ext, 'x y');
  assert.is(parseHawkHeader(`  HAWK   ${valid.slice(5)}  `).id, 'peer');
});

const malformed: [string, string, RegExp][] = [
  ['other scheme', 'Bearer abc', /not the Hawk scheme/],
  ['glued scheme', 'Hawkid="x"', /not the Hawk scheme/],
  ['no attributes', 'Hawk', /no attributes/],
  ['missing quotes', 'Hawk id=peer, ts="1", nonce="n", hash="A", mac="B"', /bad syntax/],
  ['unterminated', 'Hawk id="peer, ts="1"', /bad syntax|bad value/],
  ['quote inside', 'Hawk id="pe\\"er", ts="1", nonce="n", hash="A", mac="B"', /bad syntax/],
  ['garbage between', 'Hawk id="peer" ; ts="1", nonce="n", hash="A", mac="B"', /bad syntax/],
  ['unknown attribute', `${valid}, app="x"`, /unknown attribute app/],
  ['duplicate', `${valid}, id="other"`, /duplicate attribute id/],
  ['missing id', 'Hawk ts="1", nonce="n", hash="A", mac="B"', /missing id/],
  ['empty mac', 'Hawk id="p", ts="1", nonce="n", hash="A", mac=""', /missing mac/],
  ['missing hash', 'Hawk id="p", ts="1", nonce="n", mac="B"', /missing payload hash/],
  ['ts not a number', 'Hawk id="p", ts="12a", nonce="n", hash="A", mac="B"', /ts must be/],
  ['ts fractional', 'Hawk id="p", ts="1.5", nonce="n", hash="A", mac="B"', /ts must be/],
  ['mac not base64', 'Hawk id="p", ts="1", nonce="n", hash="A", mac="B!"', /mac must be base64/],
  ['hash not base64', 'Hawk id="p", ts="1", nonce="n", hash="A B", mac="B"', /hash must be base64/],
  ['control character', 'Hawk id="p\u0001", ts="1", nonce="n", hash="A", mac="B"', /bad value for id/],
  ['too long', `Hawk id="${'x'.repeat(5000)}", ts="1", nonce="n", hash="A", mac="B"`, /too long/],
  ['long nonce', `Hawk id="p", ts="1", nonce="${'n'.repeat(300)}", hash="A", mac="B"`, /nonce too long/],
];
for (const [name, header, message] of malformed) {
  test(`parse refuses ${name} with a 401`, () => {
    try {
      parseHawkHeader(header);
      assert.unreachable('should have thrown');
    } catch (err) {
      const e = err as { status?: number; message: string; headers?: Record<string, string> };
      assert.is(e.status, 401);
      assert.match(e.message, message);
      assert.match(e.headers?.['WWW-Authenticate'] ?? '', /^Hawk error="/);
    }
  });
}

function fakeRequest(
  headers: Record<string, string>,
  encrypted = false,
): Pick<RequestFacts, 'header' | 'encrypted'> {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { header: (name: string) => lower[name.toLowerCase()] ?? '', encrypted };
}

test('host and port come from Host, defaulting by scheme', () => {
  const off = { USE_PROXYFIX: false };
  assert.equal(requestHostPort(fakeRequest({ Host: 'Example.COM:8080' }), off), {
    host: 'example.com',
    port: 8080,
  });
  assert.equal(requestHostPort(fakeRequest({ Host: 'example.com' }), off), { host: 'example.com', port: 80 });
  assert.equal(requestHostPort(fakeRequest({ Host: 'example.com' }, true), off), {
    host: 'example.com',
    port: 443,
  });
  assert.equal(requestHostPort(fakeRequest({ Host: '[::1]:9000' }), off), { host: '::1', port: 9000 });
  for (const bad of ['', 'a/b', 'host:port', 'a b', 'h:123456']) {
    assert.throws(() => requestHostPort(fakeRequest({ Host: bad }), off), /Invalid Host header/);
  }
});

test('X-Forwarded-Host/Port/Proto count only with USE_PROXYFIX', () => {
  const headers = {
    Host: '10.0.0.5:8080',
    'X-Forwarded-Host': 'alerts.example.com, proxy.internal',
    'X-Forwarded-Proto': 'https',
  };
  assert.equal(requestHostPort(fakeRequest(headers), { USE_PROXYFIX: false }), {
    host: '10.0.0.5',
    port: 8080,
  });
  assert.equal(requestHostPort(fakeRequest(headers), { USE_PROXYFIX: true }), {
    host: 'alerts.example.com',
    port: 443,
  });
  assert.equal(
    requestHostPort(fakeRequest({ ...headers, 'X-Forwarded-Port': '8443' }), { USE_PROXYFIX: true }),
    {
      host: 'alerts.example.com',
      port: 8443,
    },
  );
  assert.equal(
    requestHostPort(fakeRequest({ Host: 'h:81', 'X-Forwarded-Proto': 'https' }), { USE_PROXYFIX: true }),
    {
      host: 'h',
      port: 81,
    },
  );
});

test.run();
