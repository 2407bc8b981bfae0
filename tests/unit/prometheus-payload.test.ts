import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AppError } from '../../server/errors.ts';
import { prometheus } from '../../server/webhooks/prometheus.ts';
import type { WebhookContext, WebhookRequest } from '../../server/webhooks/types.ts';

// The Prometheus receiver reads a well-formed notification without the schema's copy and leaves
// anything else to the schema (server/webhooks/prometheus.ts, isWellFormed): both ways must map a
// payload to the same alerts, and refuse the same payloads with the same message.

const ctx = {
  config: { DEFAULT_ENVIRONMENT: 'Production' },
  deps: { model: { normalSeverity: 'normal' } },
} as unknown as WebhookContext;

type Mapped = { alerts: Record<string, unknown>[] };
/** The alerts `text` (JSON, so `__proto__` is an own key as a client would send it) maps to. */
const map = (text: string) =>
  prometheus.incoming({ payload: JSON.parse(text) } as WebhookRequest, ctx) as Mapped;
const refusal = (text: string) => {
  try {
    map(text);
  } catch (err) {
    assert.instance(err, AppError);
    return (err as AppError).message;
  }
  throw new Error('expected a 400');
};

const mapping = suite('prometheus payloads');

mapping('a `__proto__` label or annotation is dropped, as the schema drops it', () => {
  const [a] = map(
    '{"alerts":[{"labels":{"alertname":"A","__proto__":"x","instance":"h","team":"t"},' +
      '"annotations":{"__proto__":"z","value":"1"},"extra":1}],"externalURL":null}',
  ).alerts;
  assert.equal(a!.tags, ['team=t']);
  assert.is(a!.value, '1');
  assert.not.ok(Object.hasOwn(a!.attributes as object, '__proto__'));
});

mapping('labels named like Object.prototype members are plain tags; placeholders fill as before', () => {
  const [a] = map(
    '{"alerts":[{"labels":{"alertname":"A","constructor":"c","toString":"t","n":"{x}","x":"y"},' +
      '"annotations":{"summary":"{n} {{a}} {alertname} {nope}","description":"{n} {{a}}"}}]}',
  ).alerts;
  assert.equal(a!.tags, ['constructor=c', 'toString=t', 'n=y', 'x=y']);
  assert.is(a!.text, 'y {a}');
  assert.is((a!.attributes as Record<string, unknown>).summary, undefined);
});

mapping('anything the schema refuses is refused with its message', () => {
  assert.is(
    refusal('{"alerts":[{"labels":{"alertname":"A","v":7}}]}'),
    'invalid Prometheus payload: alerts[0].labels.v must be a string, not a number',
  );
  assert.match(
    refusal('{"alerts":[{"labels":{"alertname":"A"},"status":5}]}'),
    /alerts\[0\]\.status must be a string/,
  );
  assert.match(refusal('{"alerts":[[1]]}'), /alerts\[0\] must be an object, not a list/);
  assert.match(refusal('{"alerts":[{"labels":[]}]}'), /alerts\[0\]\.labels must be an object, not a list/);
  assert.match(refusal('{"alerts":[],"externalURL":3}'), /externalURL must be a string, not a number/);
});

mapping.run();
