import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import Koa from 'koa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AppError } from '../../server/errors.ts';
import { body, checkJsonValue } from '../../server/http/middleware/body.ts';

/** A Koa context over a request that is only a stream with a method and headers. */
function requestWith(contentType: string, text: string, method = 'POST') {
  const req = Readable.from([Buffer.from(text)]) as unknown as IncomingMessage;
  Object.assign(req, {
    method,
    url: '/api/alert',
    httpVersion: '1.1',
    headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)) },
  });
  return new Koa().createContext(req, {} as ServerResponse);
}

async function parse(contentType: string, text = '{"resource": "r1", "n": 1}') {
  const ctx = requestWith(contentType, text);
  let reached = false;
  try {
    await body({ limit: 1024 })(ctx, async () => {
      reached = true;
    });
  } catch (err) {
    return { error: err instanceof AppError ? `${err.status} ${err.message}` : String(err) };
  }
  return { reached, body: ctx.request.body, rawBody: ctx.request.rawBody };
}

test('the JSON types taken without parsing are JSON, in utf-8 or no charset, to the general matcher too', () => {
  for (const type of ['application/json', 'application/json; charset=utf-8']) {
    const ctx = requestWith(type, '{}');
    assert.ok(ctx.request.is('application/json', 'application/*+json'), type);
    assert.ok(['', 'utf-8'].includes(ctx.request.charset), type);
  }
});

test('JSON bodies are parsed with and without a charset, in any spelling of the type', async () => {
  for (const type of [
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=utf-8',
    'Application/JSON; Charset=UTF-8',
    'application/json; charset=utf8',
    'application/vnd.api+json',
  ]) {
    assert.equal(
      await parse(type),
      { reached: true, body: { resource: 'r1', n: 1 }, rawBody: '{"resource": "r1", "n": 1}' },
      type,
    );
  }
});

test('other types and charsets are refused as before', async () => {
  assert.equal(await parse('application/json; charset=latin1'), {
    error: "415 unsupported charset 'latin1': use utf-8",
  });
  assert.match((await parse('text/plain')).error ?? '', /^415 /);
  assert.match(
    (await parse('application/json', '{"a": ')).error ?? '',
    /^400 request body is not valid JSON/,
  );
});

test('checkJsonValue looks at each key before its value, and at nesting depth', () => {
  assert.is(checkJsonValue({ ok: 'fine', list: [1, { deep: 'x' }] }), null);
  assert.is(checkJsonValue({ '\ud800': '\u0000' }), 'strings must not contain unpaired UTF-16 surrogates');
  assert.is(checkJsonValue({ '\u0000': '\ud800' }), 'strings must not contain NUL bytes');
  assert.is(checkJsonValue({ a: 'ok', b: ['\u0000'] }), 'strings must not contain NUL bytes');
  assert.is(
    checkJsonValue(JSON.parse('{"__proto__": {"x": "\\u0000"}}')),
    'strings must not contain NUL bytes',
  );
  const nested = (levels: number, leaf: unknown): unknown =>
    levels === 0 ? leaf : levels % 2 ? [nested(levels - 1, leaf)] : { k: nested(levels - 1, leaf) };
  assert.is(checkJsonValue(nested(32, 1)), null);
  assert.is(checkJsonValue(nested(33, 1)), 'JSON is nested more than 32 levels deep');
  assert.is(checkJsonValue(nested(20, '\u0000')), 'strings must not contain NUL bytes');
});

test.run();
