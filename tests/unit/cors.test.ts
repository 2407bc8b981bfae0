import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allowedRequestHeaders } from '../../server/http/middleware/cors.ts';

test('CORS preflight: the requested headers that are allowed, in the request spelling, sorted', () => {
  const allowed = ['Content-Type', 'Authorization', 'Access-Control-Allow-Origin', 'X-Request-ID'];
  assert.equal(allowedRequestHeaders('x-request-id, content-type, X-Evil', allowed), [
    'content-type',
    'x-request-id',
  ]);
  assert.equal(allowedRequestHeaders('', allowed), []);
  assert.equal(allowedRequestHeaders('X-Anything', ['*']), ['X-Anything']);
});

test.run();
