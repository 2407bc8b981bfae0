import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../server/config.ts';
import { originMatcher } from '../../server/config/origins.ts';

test("the default CORS_ORIGINS allow localhost and the established server's local.alerta.io pattern", () => {
  const listed = originMatcher(loadConfig({}, { systemFile: null }).CORS_ORIGINS);
  assert.ok(listed('http://localhost'));
  assert.ok(listed('http://localhost:8000'));
  assert.ok(listed('https://web.local.alerta.io:8443'));
  assert.ok(listed('http://local.alerta.io'));
  assert.not.ok(listed('http://localhost:9000'));
  assert.not.ok(listed('https://evil.example'));
  // Alerta's own pattern ends in `.*` and would admit this one; ours stops at the port.
  assert.not.ok(listed('https://local.alerta.io.evil.example'));
  assert.not.ok(listed('https://web.local.alerta.io:8443.evil.example'));
});

test('entries are exact unless they hold regex characters; patterns match from the start', () => {
  const listed = originMatcher([
    'http://a.example',
    '^https://.*\\.noc\\.example$',
    'https?://wall\\d+\\.example',
  ]);
  assert.ok(listed('http://a.example'));
  assert.not.ok(listed('http://aXexample'), 'a plain entry is not a pattern: its dots are literal');
  assert.ok(listed('https://x.noc.example'));
  assert.not.ok(listed('https://x.noc.example.evil'));
  assert.ok(listed('http://wall12.example'));
  assert.not.ok(listed('https://evil.example/https://wall1.example'));
});

test('`*` allows any origin', () => {
  assert.ok(originMatcher(['*'])('https://anything.example'));
});

test.run();
