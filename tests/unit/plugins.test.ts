import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionError } from 'slonik';
import { loadConfig } from '../../server/config.ts';
import { isDatabaseUnavailable } from '../../server/db/unavailable.ts';
import type { Base } from '../../server/deps.ts';
import type { AlertDraft, AlertRecord } from '../../server/domain/alert-types.ts';
import { alertDraft } from '../helpers/alert-draft.ts';
import { AppError, appError as catalogueError } from '../../server/errors.ts';
import { createLog, type Log } from '../../server/log.ts';
import { createMetrics } from '../../server/metrics.ts';
import ackedBy from '../../server/plugins/acked-by.ts';
import blackout from '../../server/plugins/blackout.ts';
import enhance from '../../server/plugins/enhance.ts';
import escalate from '../../server/plugins/escalate.ts';
import heartbeat from '../../server/plugins/heartbeat.ts';
import type { BuiltinFactory, BuiltinInit, BuiltinPlugin } from '../../server/plugins/internal.ts';
import normalise from '../../server/plugins/normalise.ts';
import { createPipeline, loadPlugins } from '../../server/plugins/pipeline.ts';
import reject from '../../server/plugins/reject.ts';
import remoteIp from '../../server/plugins/remote-ip.ts';
import timeout from '../../server/plugins/timeout.ts';
import {
  PluginSignal,
  type Plugin,
  type PluginContext,
  type PluginRequest,
} from '../../server/plugins/types.ts';

const silent = createLog('silent');
const SATURDAY = Date.UTC(2026, 10, 21, 12);
const MONDAY = Date.UTC(2026, 10, 23, 3);

interface LogLine {
  level: string;
  data: Record<string, unknown>;
  msg: string;
}
/** The server's logger (debug and up) writing to memory: each JSON line read back as level, fields, message. */
function recordingLog(): Log & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = createLog('debug', false, {
    write(line: string) {
      const { level, time: _time, msg, ...data } = JSON.parse(line) as Record<string, unknown>;
      lines.push({ level: String(level), data, msg: typeof msg === 'string' ? msg : '' });
    },
  });
  return Object.assign(log, { lines });
}

const settings = (env: Record<string, string> = {}) => loadConfig(env, { systemFile: null });

/** What the pipeline is built from. */
const pipelineDeps = (
  env: Record<string, string> = {},
  log: Log = silent,
): Pick<Base, 'config' | 'log' | 'metrics'> => ({
  config: settings(env),
  log,
  metrics: createMetrics(),
});

/**
 * What the built-ins are made from, with services that have nothing to find: no blackouts, and
 * heartbeats and forwards that fail the test if a plugin reaches them (tests/api covers those).
 */
const builtinInit = (config: BuiltinInit['config'], log: Log = silent): BuiltinInit => ({
  config,
  log,
  clock: { now: () => SATURDAY },
  heartbeats: {
    receive: () => Promise.reject(new Error('no heartbeats in unit tests')),
  },
  blackouts: { findActive: async () => null },
  forwards: {
    plan: () => {
      throw new Error('no forwarding in unit tests');
    },
    follow: () => Promise.reject(new Error('no forwarding in unit tests')),
    queue: () => Promise.reject(new Error('no forwarding in unit tests')),
  },
});

const request = (over: Partial<PluginRequest> = {}): PluginRequest => ({
  ip: '192.0.2.7',
  header: () => '',
  user: null,
  baseUrl: 'http://alerts.test/api',
  ...over,
});

const headers =
  (given: Record<string, string>) =>
  (name: string): string =>
    Object.entries(given).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1] ?? '';

const draft = (over: Partial<AlertDraft> = {}): AlertDraft =>
  alertDraft({
    id: '7c0a1b52-3f5e-4a43-9b8d-0d3f6a1e2c11',
    event: 'HttpError',
    severity: 'minor',
    service: ['Web'],
    text: 'HTTP 500 rate high',
    origin: 'nagios/host1',
    createTime: SATURDAY,
    ...over,
  });

const record = (over: Partial<AlertRecord> = {}): AlertRecord => ({
  ...draft(),
  duplicateCount: 0,
  repeat: false,
  previousSeverity: 'indeterminate',
  trendIndication: 'moreSevere',
  receiveTime: SATURDAY,
  lastReceiveId: '7c0a1b52-3f5e-4a43-9b8d-0d3f6a1e2c11',
  lastReceiveTime: SATURDAY,
  updateTime: SATURDAY,
  ...over,
});

/** One plugin, built the way loadPlugins builds it, with the context a hook gets. */
async function build(
  factory: BuiltinFactory,
  env: Record<string, string> = {},
  over: Partial<PluginRequest> = {},
) {
  const init = builtinInit(settings(env));
  const plugin = await factory(init);
  const ctx: PluginContext = { config: init.config, log: init.log, request: request(over) };
  return { plugin, ctx };
}

/** What a call throws or rejects with (fails the test if it succeeds); hooks may throw synchronously. */
async function failure(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

async function appError(call: () => unknown): Promise<AppError> {
  const err = await failure(call);
  if (!(err instanceof AppError)) throw err;
  return err;
}

// ---------------------------------------------------------------------------------------------

const remote = suite('remote_ip');

remote('uses the first X-Forwarded-For address, trimmed', async () => {
  const { plugin, ctx } = await build(
    remoteIp,
    {},
    { header: headers({ 'x-forwarded-for': ' 10.1.2.3 , 10.0.0.1' }) },
  );
  const alert = draft();
  await plugin.preReceive!(alert, ctx);
  assert.is(alert.attributes.ip, '10.1.2.3');
});

remote('falls back to the socket peer, without the IPv4-mapped prefix', async () => {
  for (const [ip, expected] of [
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['2001:db8::1', '2001:db8::1'],
  ]) {
    const { plugin, ctx } = await build(remoteIp, {}, { ip });
    const alert = draft();
    await plugin.preReceive!(alert, ctx);
    assert.is(alert.attributes.ip, expected);
  }
});

remote.run();

// ---------------------------------------------------------------------------------------------

const rejecting = suite('reject');

rejecting('refuses a blacklisted origin, matched from its start', async () => {
  const { plugin, ctx } = await build(reject, { ORIGIN_BLACKLIST: 'bad.*,test/\\d+' });
  const err = await appError(() => plugin.preReceive!(draft({ origin: 'bad/host' }), ctx));
  assert.equal([err.status, err.message], [403, "[POLICY] Alert origin 'bad/host' has been blacklisted"]);
  await appError(() => plugin.preReceive!(draft({ origin: 'test/42-x' }), ctx));
  await plugin.preReceive!(draft({ origin: 'not-bad/host' }), ctx); // not at the start
  await plugin.preReceive!(draft({ origin: 'test/x' }), ctx);
});

rejecting('refuses an environment no allowed pattern matches in full', async () => {
  const { plugin, ctx } = await build(reject);
  for (const environment of ['', 'Prod', 'Productionx', 'production', 'xDevelopment']) {
    const err = await appError(() => plugin.preReceive!(draft({ environment }), ctx));
    assert.equal(
      [err.status, err.message],
      [403, '[POLICY] Alert environment does not match one of Production, Development'],
    );
  }
  await plugin.preReceive!(draft({ environment: 'Development' }), ctx);
  const patterns = await build(reject, { ALLOWED_ENVIRONMENTS: 'Prod.*,Dev|QA' });
  await patterns.plugin.preReceive!(draft({ environment: 'Production-EU' }), patterns.ctx);
  await patterns.plugin.preReceive!(draft({ environment: 'QA' }), patterns.ctx);
  const err = await appError(() => patterns.plugin.preReceive!(draft({ environment: 'QA2' }), patterns.ctx));
  assert.is(err.message, '[POLICY] Alert environment does not match one of Prod.*, Dev|QA');
});

rejecting('requires a service; the origin is checked first, then the environment', async () => {
  const { plugin, ctx } = await build(reject, { ORIGIN_BLACKLIST: 'bad' });
  const none = await appError(() => plugin.preReceive!(draft({ service: [] }), ctx));
  assert.equal([none.status, none.message], [403, '[POLICY] Alert must define a service']);
  await plugin.preReceive!(draft({ service: [''] }), ctx); // what the prometheus webhook sends
  const first = await appError(() =>
    plugin.preReceive!(draft({ origin: 'bad', environment: 'x', service: [] }), ctx),
  );
  assert.match(first.message, /origin 'bad'/);
  const second = await appError(() => plugin.preReceive!(draft({ environment: 'x', service: [] }), ctx));
  assert.match(second.message, /environment/);
});

rejecting('an invalid regular expression stops the factory, naming the setting', async () => {
  const invalid: [string, string][] = [
    ['ORIGIN_BLACKLIST', 'bad['],
    ['ALLOWED_ENVIRONMENTS', 'Production,[z-a]'],
  ];
  for (const [name, value] of invalid) {
    const err = await failure(() => build(reject, { [name]: value }));
    assert.instance(err, Error);
    assert.match((err as Error).message, new RegExp(`^${name}: `));
  }
});

rejecting.run();

// ---------------------------------------------------------------------------------------------

const blackouts = suite('blackout');
/** The blackout plugin with a finder that answers `find` (a blackout's id, or null). */
const blackoutWith =
  (findActive: () => Promise<{ id: string } | null>): BuiltinFactory =>
  (init) =>
    blackout({ ...init, blackouts: { findActive } });
const active = blackoutWith(async () => ({ id: 'b1' }));
const inactive = blackoutWith(async () => null);

blackouts('drops a matching alert with 202 and the submission id', async () => {
  const { plugin, ctx } = await build(active);
  const err = await failure(() => plugin.preReceive!(draft(), ctx));
  assert.instance(err, PluginSignal);
  const signal = err as PluginSignal;
  assert.is(signal.status, 202);
  assert.equal(signal.body, {
    status: 'ok',
    message: 'Suppressed alert during blackout period',
    id: '7c0a1b52-3f5e-4a43-9b8d-0d3f6a1e2c11',
  });
});

blackouts('BLACKOUT_ACCEPT severities pass without a lookup', async () => {
  let lookups = 0;
  const counting = blackoutWith(async () => {
    lookups++;
    return { id: 'b1' };
  });
  const { plugin, ctx } = await build(counting, { BLACKOUT_ACCEPT: 'normal,ok,cleared' });
  const alert = draft({ severity: 'ok' });
  await plugin.preReceive!(alert, ctx);
  assert.is(alert.status, 'open');
  assert.is(lookups, 0);
  assert.instance(await failure(() => plugin.preReceive!(draft({ severity: 'major' }), ctx)), PluginSignal);
  assert.is(lookups, 1);
});

blackouts('with NOTIFICATION_BLACKOUT the alert is kept with the suppressed status', async () => {
  const alerta = await build(active, { NOTIFICATION_BLACKOUT: 'True', BLACKOUT_ACCEPT: 'minor' });
  const a = draft();
  await alerta.plugin.preReceive!(a, alerta.ctx);
  assert.is(a.status, 'blackout'); // BLACKOUT_ACCEPT applies only when alerts are dropped
  const isa = await build(active, { NOTIFICATION_BLACKOUT: 'True', ALARM_MODEL: 'ISA_18_2' });
  const b = draft({ severity: 'High', status: 'NORM' });
  await isa.plugin.preReceive!(b, isa.ctx);
  assert.is(b.status, 'OOSRV');
});

blackouts('an alert outside every blackout is untouched', async () => {
  const { plugin, ctx } = await build(inactive, { NOTIFICATION_BLACKOUT: 'True' });
  const a = draft();
  await plugin.preReceive!(a, ctx);
  assert.equal(a, draft());
});

blackouts.run();

// ---------------------------------------------------------------------------------------------

const heartbeats = suite('heartbeat (the database side is in tests/api/heartbeat-plugin.test.ts)');

heartbeats('lets alerts whose event is not in HEARTBEAT_EVENTS through untouched', async () => {
  const { plugin, ctx } = await build(heartbeat, { HEARTBEAT_EVENTS: 'Heartbeat,Ping' });
  const a = draft({ event: 'heartbeat' }); // case-sensitive
  assert.is(await plugin.preReceive!(a, ctx), undefined);
  assert.equal(a, draft({ event: 'heartbeat' }));
});

heartbeats.run();

// ---------------------------------------------------------------------------------------------

const acked = suite('acked_by');

acked('an ack by a known login watches the alert and records who acked', async () => {
  const { plugin, ctx } = await build(ackedBy, {}, { user: 'alice' });
  const r = await plugin.takeAction!(record({ tags: ['db'] }), 'ack', 'mine', null, ctx);
  assert.equal(r, { changes: { tags: ['db', 'watch:alice'], attributes: { 'acked-by': 'alice' } } });
  const again = await plugin.takeAction!(record({ tags: ['watch:alice'] }), 'ack', '', null, ctx);
  assert.equal(again, { changes: { tags: ['watch:alice'], attributes: { 'acked-by': 'alice' } } });
});

acked('an anonymous ack changes nothing', async () => {
  const { plugin, ctx } = await build(ackedBy);
  assert.is(await plugin.takeAction!(record(), 'ack', '', null, ctx), undefined);
});

acked('unack and a change back to open remove the attribute', async () => {
  const { plugin, ctx } = await build(ackedBy, {}, { user: 'bob' });
  const acked = record({ status: 'ack', attributes: { 'acked-by': 'alice' } });
  assert.equal(await plugin.takeAction!(acked, 'unack', '', null, ctx), {
    changes: { attributes: { 'acked-by': null } },
  });
  assert.equal(await plugin.statusChange!(acked, 'open', '', ctx), {
    changes: { attributes: { 'acked-by': null } },
  });
  assert.is(await plugin.statusChange!(acked, 'closed', '', ctx), undefined);
  assert.is(await plugin.statusChange!(record(), 'open', '', ctx), undefined); // nothing to remove
  assert.is(await plugin.takeAction!(acked, 'close', '', null, ctx), undefined);
});

acked.run();

// ---------------------------------------------------------------------------------------------

const escalating = suite('escalate');

escalating('raises the severity one level with its own text; status is left alone', async () => {
  const { plugin, ctx } = await build(escalate, { ACTIONS: 'escalate' });
  for (const [from, to] of [
    ['minor', 'major'],
    ['major', 'critical'],
    ['critical', 'security'],
    ['debug', 'normal'], // first name at code 7 (normal, ok, cleared)
    ['ok', 'informational'],
  ]) {
    const r = await plugin.takeAction!(record({ severity: from }), 'escalate', 'please', null, ctx);
    assert.equal(r, { text: 'alert severity escalated', changes: { severity: to } }, from);
  }
  assert.is(await plugin.takeAction!(record(), 'ack', 'x', null, ctx), undefined);
});

escalating('refuses beyond the most severe level with 409', async () => {
  const { plugin, ctx } = await build(escalate, { ACTIONS: 'escalate' });
  const err = await appError(() =>
    plugin.takeAction!(record({ severity: 'security' }), 'escalate', '', null, ctx),
  );
  assert.equal([err.status, err.message], [409, 'Can not escalate alert severity beyond "security".']);
});

escalating('follows the ISA 18.2 model, where a higher code is more severe', async () => {
  const { plugin, ctx } = await build(escalate, { ACTIONS: 'escalate', ALARM_MODEL: 'ISA_18_2' });
  const r = await plugin.takeAction!(record({ severity: 'Low' }), 'escalate', '', null, ctx);
  assert.equal(r, { text: 'alert severity escalated', changes: { severity: 'Medium' } });
  const err = await appError(() =>
    plugin.takeAction!(record({ severity: 'Critical' }), 'escalate', '', null, ctx),
  );
  assert.is(err.message, 'Can not escalate alert severity beyond "Critical".');
});

escalating('warns at start-up when escalate is not an allowed action', async () => {
  const log = recordingLog();
  await escalate({ config: settings(), log });
  assert.is(log.lines.filter((l) => l.level === 'warn').length, 1);
  const quiet = recordingLog();
  await escalate({ config: settings({ ACTIONS: 'escalate' }), log: quiet });
  assert.equal(quiet.lines, []);
});

escalating.run();

// ---------------------------------------------------------------------------------------------

const timeouts = suite('timeout');

timeouts('ack and shelve use the server timeouts, saying so when that overrides the operator', async () => {
  const { plugin, ctx } = await build(timeout, { ACK_TIMEOUT: '300', SHELVE_TIMEOUT: '600' });
  assert.equal(await plugin.takeAction!(record(), 'ack', 'on it', 60, ctx), {
    text: 'on it (using server timeout value)',
    timeout: 300,
  });
  assert.equal(await plugin.takeAction!(record(), 'ack', 'on it', 300, ctx), { text: 'on it', timeout: 300 });
  assert.equal(await plugin.takeAction!(record(), 'shelve', 'later', null, ctx), {
    text: 'later',
    timeout: 600,
  });
  assert.equal(await plugin.takeAction!(record(), 'shelve', 'later', 0, ctx), {
    text: 'later (using server timeout value)',
    timeout: 600,
  });
});

timeouts('other actions keep their timeout', async () => {
  const { plugin, ctx } = await build(timeout);
  for (const action of ['open', 'close', 'unack', 'unshelve', 'escalate']) {
    assert.is(await plugin.takeAction!(record(), action, 't', 5, ctx), undefined);
  }
});

timeouts.run();

// ---------------------------------------------------------------------------------------------

const contrib = suite('normalise and enhance');

contrib('normalise prefixes the severity and fills empty group and value', async () => {
  const { plugin, ctx } = await build(normalise);
  const a = draft({ value: 'n/a' });
  await plugin.preReceive!(a, ctx);
  assert.equal([a.text, a.group, a.value], ['MINOR: HTTP 500 rate high', 'Unknown', '--']);
  const b = draft({ group: '', value: null, text: '' });
  await plugin.preReceive!(b, ctx);
  assert.equal([b.text, b.group, b.value], ['MINOR: ', 'Unknown', '--']);
  const c = draft({ group: 'Web', value: '500', severity: 'critical' });
  await plugin.preReceive!(c, ctx);
  assert.equal([c.text, c.group, c.value], ['CRITICAL: HTTP 500 rate high', 'Web', '500']);
});

contrib('enhance flags weekends (UTC) as out of hours and links a run book', async () => {
  const { plugin, ctx } = await build(enhance);
  const weekend = draft({ event: 'Disk Space Low', createTime: SATURDAY });
  await plugin.preReceive!(weekend, ctx);
  assert.equal(weekend.attributes, {
    isOutOfHours: true,
    runBookUrl: 'http://www.example.com/wiki/RunBook/Disk-Space-Low',
  });
  const night = draft({ createTime: MONDAY }); // 03:00 on a Monday: the original's hour test never fires
  await plugin.preReceive!(night, ctx);
  assert.is(night.attributes.isOutOfHours, false);
});

contrib.run();

// ---------------------------------------------------------------------------------------------

const mechanics = suite('pipeline');

const pipelineOf = (plugins: BuiltinPlugin[], env: Record<string, string> = {}, log: Log = silent) => {
  const deps = pipelineDeps(env, log);
  return { pipeline: createPipeline(plugins, deps), deps };
};

mechanics('pre-receive runs in list order; a returned draft replaces the current one', async () => {
  const calls: string[] = [];
  const { pipeline } = pipelineOf([
    {
      name: 'one',
      preReceive(a) {
        calls.push('one');
        a.tags.push('one');
      },
    },
    { name: 'no-hooks' },
    {
      name: 'two',
      preReceive(a) {
        calls.push(`two saw ${a.tags.join()}`);
        return { ...a, text: 'replaced' };
      },
    },
  ]);
  const r = await pipeline.preReceive(draft(), request());
  assert.equal(calls, ['one', 'two saw one']);
  assert.equal([r.alert.text, r.alert.tags, r.suppressed], ['replaced', ['one'], false]);
});

mechanics(
  'a plugin sees only the settings, its logger and the request: never the database or the bus',
  async () => {
    const seen: string[][] = [];
    const { pipeline, deps } = pipelineOf([
      {
        name: 'third-party',
        preReceive(_a, ctx) {
          seen.push(Object.keys(ctx).sort());
          assert.is(ctx.config, deps.config);
        },
      },
    ]);
    await pipeline.preReceive(draft(), request());
    assert.equal(seen, [['config', 'log', 'request']]);
  },
);

mechanics('a hook that suppresses the alert ends pre-receive and reports it', async () => {
  const calls: string[] = [];
  const mark = (status: string): Plugin => ({
    name: 'mark',
    preReceive(a) {
      calls.push('mark');
      a.status = status;
    },
  });
  const after: Plugin = { name: 'after', preReceive: () => void calls.push('after') };
  const { pipeline } = pipelineOf([mark('blackout'), after]);
  const r = await pipeline.preReceive(draft(), request());
  assert.equal([r.suppressed, r.alert.status, calls], [true, 'blackout', ['mark']]);

  calls.length = 0;
  const isa = pipelineOf([mark('OOSRV'), after], { ALARM_MODEL: 'ISA_18_2' }).pipeline;
  assert.is((await isa.preReceive(draft({ status: 'NORM' }), request())).suppressed, true);
  assert.equal(calls, ['mark']);

  calls.length = 0; // 'blackout' is no suppression in the ISA model
  const notIsa = pipelineOf([mark('blackout'), after], { ALARM_MODEL: 'ISA_18_2' }).pipeline;
  assert.is((await notIsa.preReceive(draft(), request())).suppressed, false);
  assert.equal(calls, ['mark', 'after']);
});

mechanics('a draft submitted already suppressed still passes every hook (policy first)', async () => {
  const calls: string[] = [];
  const { pipeline } = pipelineOf([
    { name: 'one', preReceive: () => void calls.push('one') },
    { name: 'two', preReceive: () => void calls.push('two') },
  ]);
  const r = await pipeline.preReceive(draft({ status: 'blackout' }), request());
  assert.equal([r.suppressed, calls], [true, ['one', 'two']]);
});

mechanics('status-change results fold: later hooks see earlier changes', async () => {
  const seen: unknown[] = [];
  const { pipeline } = pipelineOf([
    {
      name: 'one',
      statusChange: (_a, status, text) => ({
        text: `${text}+one(${status})`,
        changes: { tags: ['x'], attributes: { keep: 1, drop: null, later: 'a' } },
      }),
    },
    { name: 'quiet', statusChange: () => undefined },
    {
      name: 'two',
      statusChange(a, status, text) {
        seen.push({ tags: a.tags, attributes: a.attributes, status, text });
        return { status: 'ack', changes: { tags: ['y'], attributes: { later: 'b' } } };
      },
    },
  ]);
  const alert = record({ tags: ['orig'], attributes: { drop: true, other: 2 } });
  const r = await pipeline.statusChange(alert, 'open', 't', request());
  assert.equal(r, {
    status: 'ack',
    text: 't+one(open)',
    changes: { tags: ['y'], attributes: { keep: 1, drop: null, later: 'b' } },
  });
  assert.equal(seen, [
    { tags: ['x'], attributes: { other: 2, keep: 1, later: 'a' }, status: 'open', text: 't+one(open)' },
  ]);
  assert.equal(alert.tags, ['orig'], 'the caller’s record is not modified');
  assert.equal(await pipelineOf([]).pipeline.statusChange(alert, 'open', 't', request()), {
    status: 'open',
    text: 't',
  });
});

mechanics('take-action results fold action, text, timeout and changes', async () => {
  const { pipeline } = pipelineOf([
    { name: 'sev', takeAction: () => ({ changes: { severity: 'major' } }) },
    { name: 'timeout', takeAction: (_a, action, text) => ({ text: `${text}!`, timeout: 300, action }) },
    {
      name: 'clear',
      takeAction: (a, action, text, timeout) => ({
        text: `${text}${a.severity}${timeout}`,
        timeout: null,
        action: `${action}2`,
      }),
    },
  ]);
  const r = await pipeline.takeAction(record(), 'ack', 't', 60, request());
  assert.equal(r, { action: 'ack2', text: 't!major300', timeout: null, changes: { severity: 'major' } });
});

mechanics('post hooks and notes fold; no changes gives null', async () => {
  const { pipeline } = pipelineOf([
    { name: 'a', postReceive: () => ({ attributes: { a: 1 } }), postAction: () => undefined },
    { name: 'b', postReceive: (alert) => ({ tags: [...alert.tags, `saw-a-${alert.attributes.a}`] }) },
    { name: 'n1', takeNote: (_a, text) => ({ text: `${text}1` }) },
    { name: 'n2', takeNote: (_a, text) => ({ text: `${text}2` }) },
  ]);
  assert.equal(await pipeline.postReceive(record(), request()), { attributes: { a: 1 }, tags: ['saw-a-1'] });
  assert.is(await pipeline.postAction(record(), 'ack', '', null, request()), null);
  assert.equal(await pipeline.takeNote(record(), 'n', request()), { text: 'n12' });
});

mechanics('delete: a false from any hook vetoes, and later hooks are not asked', async () => {
  const asked: string[] = [];
  const hook = (name: string, answer: boolean | void): Plugin => ({
    name,
    delete: () => {
      asked.push(name);
      return answer;
    },
  });
  const vetoed = pipelineOf([
    hook('yes', true),
    hook('silent', undefined),
    hook('no', false),
    hook('late', true),
  ]);
  assert.is(await vetoed.pipeline.delete(record(), request()), false);
  assert.equal(asked, ['yes', 'silent', 'no']);
  const allowed = pipelineOf([hook('yes', true), hook('silent', undefined)]);
  assert.is(await allowed.pipeline.delete(record(), request()), true);
});

/** A plugin whose listed hooks throw the given errors. */
const throwing = (name: string, errors: Partial<Record<Exclude<keyof Plugin, 'name'>, unknown>>): Plugin => ({
  name,
  ...Object.fromEntries(
    Object.entries(errors).map(([hook, err]) => [
      hook,
      () => {
        throw err;
      },
    ]),
  ),
});

mechanics('signals and API errors pass through unchanged, whatever PLUGINS_RAISE_ON_ERROR says', async () => {
  const signal = new PluginSignal(202, 'Alert converted to Heartbeat', { id: 'h1' });
  const refusal = catalogueError('rate_limited', 'slow down');
  for (const raise of ['True', 'False']) {
    const { pipeline, deps } = pipelineOf(
      [throwing('signals', { preReceive: signal, takeAction: refusal })],
      {
        PLUGINS_RAISE_ON_ERROR: raise,
      },
    );
    assert.is(await failure(() => pipeline.preReceive(draft(), request())), signal);
    assert.is(await failure(() => pipeline.takeAction(record(), 'ack', '', null, request())), refusal);
    const errors = await deps.metrics.pluginErrors.get();
    assert.equal(errors.values, []);
  }
});

mechanics(
  'a database outage passes through, also wrapped by the plugin, whatever PLUGINS_RAISE_ON_ERROR says',
  async () => {
    const outage = new ConnectionError('connect ECONNREFUSED 127.0.0.1:5432');
    const wrapped = new Error(`site lookup failed: ${outage.message}`, { cause: outage });
    for (const raise of ['True', 'False']) {
      const { pipeline, deps } = pipelineOf(
        [throwing('lookup', { preReceive: outage, statusChange: wrapped })],
        {
          PLUGINS_RAISE_ON_ERROR: raise,
        },
      );
      assert.is(await failure(() => pipeline.preReceive(draft(), request())), outage);
      const err = await failure(() => pipeline.statusChange(record(), 'ack', '', request()));
      assert.is(err, wrapped);
      assert.ok(isDatabaseUnavailable(err));
      const errors = await deps.metrics.pluginErrors.get();
      assert.equal(errors.values, []);
    }
  },
);

const broken = (message: string): Plugin => {
  const fail = () => {
    throw new Error(message);
  };
  return {
    name: 'broken',
    preReceive: fail,
    postReceive: fail,
    statusChange: fail,
    takeAction: fail,
    postAction: fail,
    takeNote: fail,
    delete: fail,
  };
};

mechanics('with PLUGINS_RAISE_ON_ERROR a failing hook is a 500 naming the hook and the plugin', async () => {
  const { pipeline, deps } = pipelineOf([broken('kaput')]);
  const cases: [string, () => Promise<unknown>][] = [
    ['pre-receive', () => pipeline.preReceive(draft(), request())],
    ['post-receive', () => pipeline.postReceive(record(), request())],
    ['status', () => pipeline.statusChange(record(), 'ack', '', request())],
    ['action', () => pipeline.takeAction(record(), 'ack', '', null, request())],
    ['action', () => pipeline.postAction(record(), 'ack', '', null, request())],
    ['note', () => pipeline.takeNote(record(), '', request())],
    ['delete', () => pipeline.delete(record(), request())],
  ];
  for (const [label, call] of cases) {
    const err = await appError(call);
    assert.equal([err.status, err.message], [500, `Error while running ${label} plugin 'broken': kaput`]);
  }
  const errors = await deps.metrics.pluginErrors.get();
  assert.is(
    errors.values.reduce((n, v) => n + v.value, 0),
    7,
  );
  assert.ok(errors.values.every((v) => v.labels.plugin === 'broken'));
});

mechanics('without it a failing hook is logged and skipped; later hooks still run', async () => {
  const log = recordingLog();
  const after: Plugin = {
    name: 'after',
    preReceive: (a) => void a.tags.push('after'),
    delete: () => true,
  };
  const { pipeline, deps } = pipelineOf([broken('kaput'), after], { PLUGINS_RAISE_ON_ERROR: 'False' }, log);
  const r = await pipeline.preReceive(draft(), request());
  assert.equal(r.alert.tags, ['after']);
  assert.is(await pipeline.delete(record(), request()), true);
  assert.equal(await pipeline.takeAction(record(), 'ack', 't', 5, request()), {
    action: 'ack',
    text: 't',
    timeout: 5,
  });
  const warned = log.lines.filter((l) => l.level === 'warn');
  assert.is(warned.length, 3);
  assert.equal(warned[0]!.data, { plugin: 'broken', hook: 'preReceive', error: 'kaput' });
  const [pre] = (await deps.metrics.pluginErrors.get()).values;
  assert.equal([pre?.labels, pre?.value], [{ plugin: 'broken', hook: 'preReceive' }, 1]);
});

mechanics('hooks get the settings, their logger and the request: no database, bus or deps', async () => {
  const seen: PluginContext[] = [];
  const { pipeline, deps } = pipelineOf([{ name: 'looks', preReceive: (_a, ctx) => void seen.push(ctx) }]);
  await pipeline.preReceive(draft(), request({ user: 'alice' }));
  assert.equal(Object.keys(seen[0]!).sort(), ['config', 'log', 'request']);
  assert.is(seen[0]!.config, deps.config);
  assert.is(seen[0]!.request.user, 'alice');
});

mechanics('every hook call is timed by plugin and hook', async () => {
  const { pipeline, deps } = pipelineOf([{ name: 'timed', preReceive: () => undefined }]);
  await pipeline.preReceive(draft(), request());
  await pipeline.preReceive(draft(), request());
  const { values } = await deps.metrics.pluginDuration.get();
  const count = values.find((v) => v.metricName === 'plugin_duration_seconds_count');
  assert.equal([count?.labels, count?.value], [{ plugin: 'timed', hook: 'preReceive' }, 2]);
});

mechanics(
  'a plain duplicate is planned from the alert id when no plugin needs the stored alert for it',
  () => {
    const forward = (destination: string) => ({
      destination,
      loop: 'here',
      requestId: 'r',
      leaseMs: 0,
      owner: null,
    });
    const asked: string[] = [];
    const byId: BuiltinPlugin = {
      name: 'by-id',
      receiptAlong: (alert) => ({ forwards: [forward(`full:${alert.id}`)] }),
      plainAlong: (alertId) => ({ forwards: [forward(`plain:${alertId}`)] }),
    };
    const quiet: BuiltinPlugin = {
      name: 'quiet',
      quietOnPlainDuplicates: true,
      receiptAlong: () => {
        asked.push('quiet');
        return { triggers: [] };
      },
    };
    const needsAlert: BuiltinPlugin = { name: 'needs-alert', receiptAlong: () => ({ forwards: [] }) };

    const { pipeline } = pipelineOf([byId, quiet]);
    assert.is(pipeline.alongOnPlain, false);
    assert.equal(
      pipeline.alongPlain!('a1', request()).forwards.map((f) => f.destination),
      ['plain:a1'],
    );
    // Plugins that plan nothing for a plain duplicate are not asked.
    assert.equal(asked, []);
    assert.equal(
      pipeline.along!(record({ id: 'a1' }), request())!.forwards.map((f) => f.destination),
      ['full:a1'],
    );
    assert.equal(asked, ['quiet']);

    // One plugin that must see the stored alert keeps every plain duplicate on the read path.
    assert.is(pipelineOf([byId, quiet, needsAlert]).pipeline.alongOnPlain, true);
    assert.is(pipelineOf([quiet]).pipeline.alongOnPlain, false);
  },
);

mechanics.run();

// ---------------------------------------------------------------------------------------------

const loading = suite('loadPlugins');

/** A scratch directory for plugin modules that must fail in some way. */
const scratch = mkdtempSync(join(tmpdir(), 'plugins-test-'));
const module = (name: string, text: string) => {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
};

loading('built-ins load by name, in PLUGINS order', async () => {
  const plugins = await loadPlugins(
    builtinInit(
      settings({
        PLUGINS: 'enhance,remote_ip,reject,heartbeat,blackout,acked_by,escalate,timeout,normalise,forwarder',
      }),
    ),
  );
  assert.equal(
    plugins.map((p) => p.name),
    [
      'enhance',
      'remote_ip',
      'reject',
      'heartbeat',
      'blackout',
      'acked_by',
      'escalate',
      'timeout',
      'normalise',
      'forwarder',
    ],
  );
});

loading('unknown names are logged and skipped; the forwarder loads quietly', async () => {
  const log = recordingLog();
  const plugins = await loadPlugins(builtinInit(settings({ PLUGINS: 'remote_ip,geoip,forwarder' }), log));
  assert.equal(
    plugins.map((p) => p.name),
    ['remote_ip', 'forwarder'],
  );
  const warned = log.lines.filter((l) => l.level === 'warn');
  assert.equal(
    warned.map((l) => l.data),
    [{ plugin: 'geoip' }],
  );
  assert.is(log.lines.filter((l) => l.level === 'debug' && l.data.plugin === 'forwarder').length, 1);
});

loading('a module path loads a third-party plugin, which reads its settings from config.extra', async () => {
  const plugins = await loadPlugins(
    builtinInit(settings({ PLUGINS: 'remote_ip,./tests/fixtures/plugins/add-tag.ts' }), silent),
  );
  assert.equal(
    plugins.map((p) => p.name),
    ['remote_ip', 'add-tag'],
  );
  const { pipeline } = { pipeline: createPipeline(plugins, pipelineDeps()) };
  assert.equal((await pipeline.preReceive(draft(), request())).alert.tags, ['added-by-fixture']);

  const file = module('alertad.conf', "ADD_TAG = 'team:noc'\n");
  const config = loadConfig({ PLUGINS: './tests/fixtures/plugins/add-tag.ts' }, { systemFile: file });
  const [fromFile] = await loadPlugins(builtinInit(config, silent));
  const alert = draft();
  await fromFile!.preReceive!(alert, { config, log: silent, request: request() });
  assert.equal(alert.tags, ['team:noc']);
});

loading('a module may export a plugin object; absolute paths work', async () => {
  const path = module(
    'object.mjs',
    "export default { name: 'object', preReceive(a) { a.text = 'obj'; } };\n",
  );
  const [plugin] = await loadPlugins(builtinInit(settings({ PLUGINS: path }), silent));
  assert.is(plugin?.name, 'object');
});

loading("a module's plugin keeps the public hooks only, bound to it", async () => {
  const path = module(
    'internal-hooks.mjs',
    `export default new (class {
      name = 'sneaky';
      prefix = 'seen: ';
      quietOnPlainDuplicates = true;
      receiptAlong() { throw new Error('a module must not plan the receipt'); }
      afterReceipt() {}
      preReceive(a) { a.text = this.prefix + a.text; }
    })();\n`,
  );
  const [plugin] = await loadPlugins(builtinInit(settings({ PLUGINS: path })));
  assert.is(plugin?.name, 'sneaky');
  assert.equal(
    Object.entries(plugin!)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k),
    ['name', 'preReceive'],
  );
  const { pipeline } = pipelineOf([plugin!]);
  assert.is((await pipeline.preReceive(draft({ text: 'x' }), request())).alert.text, 'seen: x');
  assert.equal(pipeline.along!(record(), request()), { forwards: [], triggers: [] });
});

loading('a module that cannot be loaded stops start-up, naming the entry', async () => {
  const missing = await failure(() =>
    loadPlugins(builtinInit(settings({ PLUGINS: './nowhere/plugin.ts' }), silent)),
  );
  assert.match((missing as Error).message, /^PLUGINS: cannot load '\.\/nowhere\/plugin\.ts': /);
  const syntax = module('syntax.mjs', 'export default {{;\n');
  const bad = await failure(() => loadPlugins(builtinInit(settings({ PLUGINS: syntax }), silent)));
  assert.match((bad as Error).message, new RegExp(`^PLUGINS: cannot load '${syntax}'`));
  const empty = module('empty.mjs', 'export const x = 1;\n');
  const none = await failure(() => loadPlugins(builtinInit(settings({ PLUGINS: empty }), silent)));
  assert.match((none as Error).message, new RegExp(`^PLUGINS: '${empty}' must export`));
});

loading('a factory that throws stops start-up, naming the entry', async () => {
  const path = module('throws.mjs', "export default () => { throw new Error('needs API_TOKEN'); };\n");
  const err = await failure(() =>
    loadPlugins(builtinInit(settings({ PLUGINS: `remote_ip,${path}` }), silent)),
  );
  assert.is((err as Error).message, `PLUGINS: '${path}' failed to start: needs API_TOKEN`);
  const builtin = await failure(() =>
    loadPlugins(builtinInit(settings({ PLUGINS: 'reject', ORIGIN_BLACKLIST: 'x)' }))),
  );
  assert.match((builtin as Error).message, /^PLUGINS: 'reject' failed to start: ORIGIN_BLACKLIST: /);
});

loading.run();
