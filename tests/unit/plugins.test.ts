import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../server/config.ts';
import type { Deps } from '../../server/deps.ts';
import type { AlertDraft, AlertRecord } from '../../server/domain/alert-types.ts';
import { AppError } from '../../server/errors.ts';
import { createLog } from '../../server/log.ts';
import { createMetrics } from '../../server/metrics.ts';
import { createPipeline, loadPlugins } from '../../server/plugins/pipeline.ts';
import type { Plugin, PluginRequest } from '../../server/plugins/types.ts';

const log = createLog('silent');
const request = (over: Partial<PluginRequest> = {}): PluginRequest => ({
  ip: '::ffff:192.0.2.7',
  header: () => '',
  user: null,
  baseUrl: 'http://test/api',
  ...over,
});
const draft = (over: Partial<AlertDraft> = {}): AlertDraft => ({
  id: 'a1',
  resource: 'r',
  event: 'e',
  environment: 'Production',
  severity: 'minor',
  correlate: [],
  status: 'open',
  service: ['web'],
  group: 'Misc',
  value: null,
  text: 'text',
  tags: [],
  attributes: {},
  origin: 'o',
  type: 't',
  createTime: Date.UTC(2026, 10, 21, 12), // a Saturday
  timeout: 86400,
  rawData: null,
  customer: null,
  ...over,
});
const record = (over: Partial<AlertRecord> = {}): AlertRecord => ({
  ...draft(),
  duplicateCount: 0,
  repeat: false,
  previousSeverity: 'indeterminate',
  trendIndication: 'moreSevere',
  receiveTime: 0,
  lastReceiveId: 'a1',
  lastReceiveTime: 0,
  updateTime: 0,
  ...over,
});

async function pipelineFor(settings: Record<string, string>, extra: Plugin[] = []) {
  const config = loadConfig(settings, { systemFile: null });
  const plugins = [...(await loadPlugins(config, log)), ...extra];
  const deps = { config, log, metrics: createMetrics() } as unknown as Deps;
  return createPipeline(plugins, deps);
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

const builtins = suite('built-in plugins');

builtins('remote_ip takes the first X-Forwarded-For address, else the peer', async () => {
  const p = await pipelineFor({ PLUGINS: 'remote_ip' });
  const fwd = await p.preReceive(
    draft(),
    request({ header: (n) => (n === 'X-Forwarded-For' ? ' 10.0.0.9 , 10.0.0.1' : '') }),
  );
  assert.is(fwd.alert.attributes.ip, '10.0.0.9');
  const peer = await p.preReceive(draft(), request());
  assert.is(peer.alert.attributes.ip, '192.0.2.7');
});

builtins(
  'reject: blacklisted origins (from the start), environments (full match), missing services',
  async () => {
    const p = await pipelineFor({
      PLUGINS: 'reject',
      ORIGIN_BLACKLIST: 'bad.*',
      ALLOWED_ENVIRONMENTS: 'Prod.*,Dev',
    });
    const origin = await rejection(p.preReceive(draft({ origin: 'bad/host' }), request()));
    assert.equal(
      [origin.status, origin.message],
      [403, "[POLICY] Alert origin 'bad/host' has been blacklisted"],
    );
    await p.preReceive(draft({ origin: 'not-bad/host' }), request());
    const env = await rejection(p.preReceive(draft({ environment: 'Development' }), request()));
    assert.is(env.message, '[POLICY] Alert environment does not match one of Prod.*, Dev');
    await p.preReceive(draft({ environment: 'Dev' }), request());
    const svc = await rejection(p.preReceive(draft({ service: [] }), request()));
    assert.is(svc.message, '[POLICY] Alert must define a service');
  },
);

builtins('reject: an invalid regular expression stops start-up naming the setting', async () => {
  let message = '';
  try {
    await pipelineFor({ PLUGINS: 'reject', ORIGIN_BLACKLIST: '(' });
  } catch (err) {
    message = (err as Error).message;
  }
  assert.match(message, /ORIGIN_BLACKLIST/);
});

builtins('acked_by records who acked and clears it on unack and re-open', async () => {
  const p = await pipelineFor({ PLUGINS: 'acked_by' });
  const ack = await p.takeAction(record(), 'ack', 'x', null, request({ user: 'alice' }));
  assert.equal(ack.changes, {
    severity: undefined,
    tags: ['watch:alice'],
    attributes: { 'acked-by': 'alice' },
  });
  const unack = await p.takeAction(
    record({ attributes: { 'acked-by': 'alice' } }),
    'unack',
    'x',
    null,
    request(),
  );
  assert.equal(unack.changes?.attributes, { 'acked-by': null });
  const reopen = await p.statusChange(
    record({ attributes: { 'acked-by': 'alice' } }),
    'open',
    't',
    request(),
  );
  assert.equal(reopen.changes?.attributes, { 'acked-by': null });
});

builtins('escalate raises the severity one level, and refuses beyond the top', async () => {
  const p = await pipelineFor({ PLUGINS: 'escalate', ACTIONS: 'escalate' });
  const r = await p.takeAction(
    record({ severity: 'minor' }),
    'escalate',
    'escalate operator action',
    null,
    request(),
  );
  assert.equal([r.changes?.severity, r.text], ['major', 'alert severity escalated']);
  const top = await rejection(
    p.takeAction(record({ severity: 'security' }), 'escalate', 'x', null, request()),
  );
  assert.equal([top.status, top.message], [409, 'Can not escalate alert severity beyond "security".']);
});

builtins('timeout forces the server values for ack and shelve', async () => {
  const p = await pipelineFor({ PLUGINS: 'timeout', ACK_TIMEOUT: '300', SHELVE_TIMEOUT: '600' });
  const ack = await p.takeAction(record(), 'ack', 'looking', 60, request());
  assert.equal([ack.timeout, ack.text], [300, 'looking (using server timeout value)']);
  const shelve = await p.takeAction(record(), 'shelve', 'later', null, request());
  assert.equal([shelve.timeout, shelve.text], [600, 'later']);
  const close = await p.takeAction(record(), 'close', 'done', 5, request());
  assert.is(close.timeout, 5);
});

builtins('normalise and enhance (contrib behaviour)', async () => {
  const p = await pipelineFor({ PLUGINS: 'normalise,enhance' });
  const { alert } = await p.preReceive(draft({ event: 'Disk Full', value: 'n/a' }), request());
  assert.equal([alert.text, alert.group, alert.value], ['MINOR: text', 'Unknown', '--']);
  assert.is(alert.attributes.isOutOfHours, true);
  assert.is(alert.attributes.runBookUrl, 'http://www.example.com/wiki/RunBook/Disk-Full');
});

builtins('blackout suppression marks the alert and stops the remaining pre-receive hooks', async () => {
  const marker: Plugin = {
    name: 'marker',
    preReceive(a) {
      a.status = 'blackout';
    },
  };
  const after: Plugin = {
    name: 'after',
    preReceive(a) {
      a.tags.push('after');
    },
  };
  const p = await pipelineFor({ PLUGINS: '' }, [marker, after]);
  const r = await p.preReceive(draft(), request());
  assert.is(r.suppressed, true);
  assert.equal(r.alert.tags, []);
});

builtins.run();

const mechanics = suite('pipeline mechanics');

mechanics('hooks run in order and see earlier changes', async () => {
  const seen: string[] = [];
  const one: Plugin = {
    name: 'one',
    statusChange: (_a, _s, text) => ({ text: `${text}+one`, changes: { tags: ['x'] } }),
  };
  const two: Plugin = {
    name: 'two',
    statusChange(a, status, text) {
      seen.push(a.tags.join());
      return { status: 'ack', text: `${text}+two`, changes: { attributes: { k: 1 } } };
    },
  };
  const p = await pipelineFor({ PLUGINS: '' }, [one, two]);
  const r = await p.statusChange(record(), 'open', 't', request());
  assert.equal([r.status, r.text], ['ack', 't+one+two']);
  assert.equal(r.changes, { severity: undefined, tags: ['x'], attributes: { k: 1 } });
  assert.equal(seen, ['x']);
});

mechanics(
  'a failing plugin is a 500 naming it, or only a log line without PLUGINS_RAISE_ON_ERROR',
  async () => {
    const broken: Plugin = {
      name: 'broken',
      preReceive() {
        throw new Error('kaput');
      },
    };
    const strict = await pipelineFor({ PLUGINS: '' }, [broken]);
    const err = await rejection(strict.preReceive(draft(), request()));
    assert.equal([err.status, err.message], [500, "Error while running pre-receive plugin 'broken': kaput"]);
    const lenient = await pipelineFor({ PLUGINS: '', PLUGINS_RAISE_ON_ERROR: 'False' }, [broken]);
    const r = await lenient.preReceive(draft(), request());
    assert.is(r.alert.id, 'a1');
  },
);

mechanics('any delete hook returning false vetoes the deletion', async () => {
  const p = await pipelineFor({ PLUGINS: '' }, [
    { name: 'yes', delete: () => true },
    { name: 'no', delete: () => false },
  ]);
  assert.is(await p.delete(record(), request()), false);
  const q = await pipelineFor({ PLUGINS: '' }, [{ name: 'yes', delete: () => true }]);
  assert.is(await q.delete(record(), request()), true);
});

mechanics('third-party plugins load from module paths; unknown names are skipped', async () => {
  const config = loadConfig(
    { PLUGINS: 'no_such_plugin,./tests/fixtures/plugins/add-tag.ts' },
    { systemFile: null },
  );
  const plugins = await loadPlugins(config, log);
  assert.equal(
    plugins.map((p) => p.name),
    ['add-tag'],
  );
  const p = createPipeline(plugins, { config, log, metrics: createMetrics() } as unknown as Deps);
  assert.equal((await p.preReceive(draft(), request())).alert.tags, ['fixture']);
});

mechanics('a module path that cannot be loaded stops start-up', async () => {
  let message = '';
  try {
    await loadPlugins(loadConfig({ PLUGINS: './nowhere/plugin.ts' }, { systemFile: null }), log);
  } catch (err) {
    message = (err as Error).message;
  }
  assert.match(message, /PLUGINS: cannot load '\.\/nowhere\/plugin\.ts'/);
});

mechanics.run();
