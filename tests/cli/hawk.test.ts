/**
 * The CLI signing with Hawk (`key` as the id, `secret` as the key, as the established client does)
 * against a real server with HMAC_AUTH_CREDENTIALS: GET, POST and PUT requests pass, a wrong
 * secret is refused with exit 4, `secret` without `key` is a configuration error, and `watch`
 * falls back to polling since the live socket takes no Hawk credentials.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';
import { securedSettings } from '../helpers/secured.ts';
import { alerta, alertaJson, start, tempHome, type RunOptions } from './helpers.ts';

const HAWK_ID = 'cli-peer';
const HAWK_SECRET = 'cli-peer-s3cret-0123456789';

interface Ctx extends AppContext {
  homes: (() => void)[];
}

const test = suite<Ctx>('alerta: Hawk signing', {} as Ctx);

test.before(async (ctx) => {
  await startApp(
    ctx,
    securedSettings('cli_hawk', 'cli-hawk-secret-key-0123456789', {
      HMAC_AUTH_CREDENTIALS: JSON.stringify([{ key: HAWK_ID, secret: HAWK_SECRET, algorithm: 'sha256' }]),
    }),
  );
  ctx.homes = [];
});
test.after(async (ctx) => {
  for (const cleanup of ctx.homes ?? []) cleanup();
  await stopApp(ctx);
});

/** A HOME whose ~/.alerta.conf holds these settings for the test server. */
function configured(ctx: Ctx, settings: string): RunOptions {
  const h = tempHome('hawk');
  ctx.homes.push(h.cleanup);
  writeFileSync(join(h.home, '.alerta.conf'), `[DEFAULT]\nendpoint = ${ctx.api.base}\n${settings}`);
  return { home: h.home };
}

const nonceCount = async (ctx: Ctx) =>
  Number(
    (
      await queryDb<{ n: string }>(ctx.db.url, 'SELECT count(*) AS n FROM hawk_nonces WHERE key_id = $1', [
        HAWK_ID,
      ])
    )[0]!.n,
  );

test('key and secret sign every request with Hawk: send, query and ack pass', async (ctx) => {
  const run = configured(ctx, `key = ${HAWK_ID}\nsecret = ${HAWK_SECRET}\n`);
  const before = await nonceCount(ctx);
  const sent = await alertaJson<{ id: string }>(
    ['send', '-r', 'hawk-web01', '-e', 'HawkSigned', '-E', 'Production', '-s', 'major', '-S', 'web'],
    run,
  );
  const found = await alertaJson<Alert[]>(['query', '-f', 'resource=hawk-web01'], run);
  assert.equal(
    found.map((a) => a.id),
    [sent.id],
  );
  const acked = await alertaJson<{ count: number }>(['ack', '-i', sent.id, '--text', 'signed'], run);
  assert.is(acked.count, 1);
  const after = await alertaJson<Alert[]>(['query', '-i', sent.id], run);
  assert.is(after[0]!.status, 'ack');
  // The id is no API key, so only a Hawk signature could have passed; each left its nonce.
  assert.ok((await nonceCount(ctx)) - before >= 5, 'a nonce per signed request');
});

test('--debug shows the Hawk header without the secret', async (ctx) => {
  const run = configured(ctx, `key = ${HAWK_ID}\nsecret = ${HAWK_SECRET}\n`);
  const r = await alerta(['--debug', 'query', '-f', 'resource=nothing-here'], run);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, /> Authorization: Hawk \*+.{4}\n/);
  assert.not.ok(r.stderr.includes(HAWK_SECRET), 'the secret');
});

test('a wrong secret is refused: one ERROR line, exit 4', async (ctx) => {
  const run = configured(ctx, `key = ${HAWK_ID}\nsecret = not-the-secret\n`);
  const r = await alerta(['query'], run);
  assert.is(r.code, 4);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^ERROR: authentication failed: Bad mac\n$/);
});

test('a secret without a key (the Hawk id) is a configuration error, exit 2', async (ctx) => {
  const run = configured(ctx, `secret = ${HAWK_SECRET}\n`);
  const r = await alerta(['query'], run);
  assert.is(r.code, 2);
  assert.match(r.stderr, /^ERROR: bad configuration: "secret" \(Hawk\) needs "key" as its id\n$/);
});

test('watch polls with signed requests, since the live socket takes no Hawk credentials', async (ctx) => {
  const run = configured(ctx, `key = ${HAWK_ID}\nsecret = ${HAWK_SECRET}\n`);
  const sent = await alertaJson<{ id: string }>(
    ['send', '-r', 'hawk-db01', '-e', 'HawkWatched', '-E', 'Production', '-s', 'minor', '-S', 'db'],
    run,
  );
  const watch = start(['watch', '-n', '1', '-f', 'resource=hawk-db01'], run);
  try {
    await watch.waitFor((l) => l.startsWith(sent.id.slice(0, 8)), 'the polled alert');
    assert.match(watch.stderr(), /live socket unavailable \(the live socket takes no Hawk credentials\)/);
  } finally {
    await watch.stop();
  }
});

test.run();
