import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  framePolicy,
  inlineScriptHashes,
  uiContentPolicy,
} from '../../server/http/middleware/security-headers.ts';

const sha = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;

test('frames: nobody by default; self alone is SAMEORIGIN; other lists drop X-Frame-Options', () => {
  assert.equal(framePolicy({ FRAME_ANCESTORS: [] }), { ancestors: "'none'", frameOptions: 'DENY' });
  assert.equal(framePolicy({ FRAME_ANCESTORS: ["'none'"] }), { ancestors: "'none'", frameOptions: 'DENY' });
  assert.equal(framePolicy({ FRAME_ANCESTORS: ["'self'"] }), {
    ancestors: "'self'",
    frameOptions: 'SAMEORIGIN',
  });
  assert.equal(framePolicy({ FRAME_ANCESTORS: ["'self'", 'https://grafana.example.com'] }), {
    ancestors: "'self' https://grafana.example.com",
    frameOptions: null,
  });
});

test('inline scripts are hashed as written; scripts with src are not', () => {
  const boot = '\n  { __sveltekit_x = { base: "" }; import("./_app/start.js"); }\n';
  const html = `<head><script type="module" src="/_app/a.js"></script></head><body><div><script>${boot}</script></div>
<SCRIPT>one()</SCRIPT><script>one()</script></body>`;
  assert.equal(inlineScriptHashes(html), [sha(boot), sha('one()')]);
  assert.equal(inlineScriptHashes('<p>no scripts</p>'), []);
});

test('the UI policy allows only our origin, the hashed scripts, and the audio file origin', () => {
  const policy = uiContentPolicy(
    { FRAME_ANCESTORS: [], DEFAULT_AUDIO_FILE: 'https://sounds.example.com/alarm.ogg' },
    [sha('x')],
  );
  const directives = new Map(policy.split('; ').map((d) => [d.split(' ')[0], d]));
  assert.is(directives.get('default-src'), "default-src 'self'");
  assert.is(directives.get('script-src'), `script-src 'self' ${sha('x')}`);
  assert.not.match(directives.get('script-src')!, /unsafe/);
  assert.is(directives.get('media-src'), "media-src 'self' data: blob: https://sounds.example.com");
  assert.is(directives.get('object-src'), "object-src 'none'");
  assert.is(directives.get('frame-ancestors'), "frame-ancestors 'none'");
  assert.match(
    uiContentPolicy({ FRAME_ANCESTORS: ['https://wall.example'], DEFAULT_AUDIO_FILE: null }, []),
    /frame-ancestors https:\/\/wall\.example$/,
  );
});

test.run();
