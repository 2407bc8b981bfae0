/**
 * The CLI against a minimal stand-in for an older Alerta-compatible server (no /_bulk, no live
 * socket): filter actions fall back to one request per alert, watch falls back to polling and
 * stops when auto-refresh is switched off, and broken answers give one-line errors.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { alerta, tempHome, type RunOptions } from './helpers.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Ctx {
  server: Server;
  base: string;
  seen: Seen[];
  /** How the stub answers GET /config: 'json', 'html' or 'slow'. */
  config: 'json' | 'html';
  polls: number;
  run: RunOptions;
  cleanup: () => void;
}

const test = suite<Ctx>('alerta: older servers', {} as Ctx);

const alert = (id: string, status = 'open') => ({
  id,
  resource: `res-${id.slice(0, 4)}`,
  event: 'Down',
  environment: 'Production',
  severity: 'major',
  correlate: [],
  status,
  service: ['Web'],
  group: 'Misc',
  value: null,
  text: '',
  tags: [],
  attributes: {},
  origin: 'stub',
  type: 'exceptionAlert',
  createTime: '2024-01-01T00:00:00.000Z',
  timeout: 86400,
  rawData: null,
  customer: null,
  duplicateCount: 0,
  repeat: false,
  previousSeverity: 'indeterminate',
  trendIndication: 'moreSevere',
  receiveTime: '2024-01-01T00:00:00.000Z',
  lastReceiveId: id,
  lastReceiveTime: '2024-01-01T00:00:00.000Z',
  updateTime: '2024-01-01T00:00:00.000Z',
  history: [],
});
const IDS = [
  'aaaa1111-0000-4000-8000-000000000001',
  'bbbb2222-0000-4000-8000-000000000002',
  'cccc3333-0000-4000-8000-000000000003',
];

function answer(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

test.before(async (ctx) => {
  ctx.seen = [];
  ctx.config = 'json';
  ctx.polls = 0;
  ctx.server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      ctx.seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const url = new URL(req.url!, 'http://stub');
      const route = `${req.method} ${url.pathname}`;
      if (route === 'GET /api/config') {
        if (ctx.config === 'html') {
          res.writeHead(200, { 'Content-Type': 'text/html' });
          return res.end('<html>proxy login</html>');
        }
        return answer(res, 200, { provider: 'basic', alarm_model: { severity: { major: 2, normal: 7 } } });
      }
      if (route === 'GET /api/alerts/count') return answer(res, 200, { status: 'ok', total: IDS.length });
      if (route === 'GET /api/alerts') {
        ctx.polls++;
        // The second poll says auto-refresh is off: the established client's watch stops there.
        return answer(res, 200, {
          status: 'ok',
          alerts: IDS.map((id) => alert(id)),
          total: IDS.length,
          more: false,
          lastTime: '2024-01-01T00:00:00.000Z',
          autoRefresh: ctx.polls < 2,
        });
      }
      const action = /^PUT \/api\/alert\/([^/]+)\/action$/.exec(route);
      if (action) {
        if (action[1] === IDS[2])
          return answer(res, 409, { status: 'error', message: 'invalid action for alert', code: 409 });
        return answer(res, 200, { status: 'ok' });
      }
      answer(res, 404, {
        status: 'error',
        message: 'The requested URL was not found on the server.',
        code: 404,
      });
    });
  });
  await new Promise<void>((ok) => ctx.server.listen(0, '127.0.0.1', ok));
  ctx.base = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}/api`;
  const { home, cleanup } = tempHome('compat');
  ctx.cleanup = cleanup;
  ctx.run = { home, env: { ALERTA_ENDPOINT: ctx.base, ALERTA_API_KEY: 'stub-key-1234' } };
});
test.after((ctx) => {
  ctx.cleanup?.();
  ctx.server.close();
});
test.before.each((ctx) => {
  ctx.seen.length = 0;
  ctx.polls = 0;
  ctx.config = 'json';
});

test('without /_bulk, a filter action is one request per matching alert; a refused one fails the run', async (ctx) => {
  const r = await alerta(['--json', 'ack', '-f', 'group=Misc', '--text', 'on it'], ctx.run);
  assert.is(r.code, 1);
  const out = JSON.parse(r.stdout) as { count: number; updated: string[]; errors: string[] };
  assert.is(out.count, 2);
  assert.equal(out.updated.sort(), IDS.slice(0, 2));
  assert.equal(out.errors, [`${IDS[2]}: invalid action for alert (HTTP 409)`]);
  assert.match(r.stderr, /^ERROR: cccc3333-.*invalid action for alert/m);

  const puts = ctx.seen.filter((s) => s.method === 'PUT');
  assert.is(puts[0]!.url, '/api/_bulk/alerts/action?group=Misc', 'the bulk endpoint was tried first');
  const single = puts.slice(1);
  assert.is(single.length, 3);
  for (const s of single) {
    assert.equal(JSON.parse(s.body), { action: 'ack', text: 'on it', timeout: null });
  }
  const config = ctx.seen.find((s) => s.url === '/api/config')!;
  assert.is(config.headers.authorization, undefined, 'GET /config goes without credentials');
  for (const s of ctx.seen.filter((x) => x.url !== '/api/config')) {
    assert.is(s.headers.authorization, 'Key stub-key-1234');
    assert.is(s.headers['content-type'], 'application/json');
    assert.match(String(s.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  }
});

test('watch without a live socket polls, and stops when the server turns auto-refresh off', async (ctx) => {
  const r = await alerta(['watch', '-n', '1'], { ...ctx.run, timeoutMs: 20_000 });
  assert.is(r.code, 0);
  assert.match(r.stderr, /live socket unavailable .*polling every 1 s/);
  assert.match(r.stderr, /auto-refresh is switched off/);
  assert.is(ctx.polls, 2);
  const polls = ctx.seen.filter((s) => s.url.startsWith('/api/alerts?'));
  assert.not.match(polls[0]!.url, /from-date/);
  assert.match(polls[1]!.url, /from-date=2024-01-01T00%3A00%3A00.000Z/);
  assert.is(r.stdout.split('\n').filter((l) => /^[0-9a-f]{8}\|/.test(l)).length, 3, 'each alert once');
});

test('a /config that is not JSON, an answer that never comes: one line each, exit 3', async (ctx) => {
  ctx.config = 'html';
  const html = await alerta(['query'], ctx.run);
  assert.is(html.code, 3);
  assert.match(
    html.stderr,
    /^ERROR: Failed to get config from http:\/\/127\.0\.0\.1:\d+\/api\/config: not a JSON object\n$/,
  );

  const slow = createServer(() => {}); // accepts and never answers
  await new Promise<void>((ok) => slow.listen(0, '127.0.0.1', ok));
  const conf = join(ctx.run.home, 'slow.conf');
  writeFileSync(
    conf,
    `[DEFAULT]\nendpoint = http://127.0.0.1:${(slow.address() as AddressInfo).port}/api\ntimeout = 0.5\n`,
  );
  const r = await alerta(['--config-file', conf, 'query'], { home: ctx.run.home });
  slow.closeAllConnections();
  slow.close();
  assert.is(r.code, 3);
  assert.match(
    r.stderr,
    /^ERROR: Failed to get config from .*: no answer from http:\/\/127\.0\.0\.1:\d+ within 0\.5 s/,
  );
});

test.run();
