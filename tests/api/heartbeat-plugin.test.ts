import { sql } from 'slonik';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import type { LiveEvent } from '../../shared/events.ts';
import { HeartbeatSchema } from '../../shared/heartbeats.ts';
import type { Deps } from '../../server/deps.ts';
import type { AlertDraft } from '../../server/domain/alert-types.ts';
import { alertDraft } from '../helpers/alert-draft.ts';
import { receiveHeartbeat } from '../../server/domain/heartbeats.ts';
import heartbeat from '../../server/plugins/heartbeat.ts';
import { PluginSignal, type Plugin, type PluginContext } from '../../server/plugins/types.ts';
import { appSuite } from '../helpers/app.ts';
import { nextEvent } from '../helpers/bus.ts';

const BASE_URL = 'http://alerts.test/api';
let n = 0;
/** An origin no other test uses, so each test owns its heartbeat. */
const fresh = (label: string) => `${label}-${++n}-${Date.now()}`;

const draft = (over: Partial<AlertDraft> = {}): AlertDraft =>
  alertDraft({
    resource: 'host1',
    event: 'Heartbeat',
    service: ['Core', 'Web'],
    group: 'System',
    tags: ['dc1'],
    attributes: { ignored: true },
    origin: fresh('cron/host1'),
    createTime: Date.now() - 1500,
    timeout: 120,
    ...over,
  });

const StoredSchema = z.object({
  id: z.string(),
  origin: z.string(),
  tags: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  type: z.string(),
  createTime: z.number(),
  receiveTime: z.number(),
  timeout: z.number(),
  customer: z.string().nullable(),
});
const stored = (deps: Deps, origin: string) =>
  deps.db.any(sql.type(StoredSchema)`
    SELECT id, origin, tags, attributes, type, create_time AS "createTime", receive_time AS "receiveTime",
      timeout, customer
    FROM heartbeats WHERE origin = ${origin}`);

function contextOf(deps: Deps): PluginContext {
  return {
    config: deps.config,
    log: deps.log,
    request: { ip: '127.0.0.1', header: () => '', user: null, baseUrl: BASE_URL },
  };
}

/** The plugin as boot.ts makes it: converted alerts are stored through this instance's heartbeats. */
const heartbeatOf = (deps: Deps) =>
  heartbeat({
    config: deps.config,
    heartbeats: { receive: (input, baseUrl) => receiveHeartbeat(deps, input, baseUrl) },
  });

/** Runs the hook; it must stop with a PluginSignal. */
async function signalOf(plugin: Plugin, alert: AlertDraft, ctx: PluginContext): Promise<PluginSignal> {
  try {
    await plugin.preReceive!(alert, ctx);
  } catch (err) {
    if (err instanceof PluginSignal) return err;
    throw err;
  }
  throw new Error('expected the heartbeat plugin to stop with a PluginSignal');
}

/** The next heartbeat.updated event for this origin on the bus. */
const nextHeartbeat = (deps: Deps, origin: string): Promise<LiveEvent> =>
  nextEvent(deps.bus, (e) => e.type === 'heartbeat.updated' && e.heartbeat.origin === origin);

const plugin = appSuite('heartbeat plugin', { TEST_LABEL: 'heartbeat_plugin' });

plugin('a heartbeat event becomes a stored heartbeat and a 202 signal', async ({ running }) => {
  const deps = running.deps;
  const hb = heartbeatOf(deps);
  const alert = draft();
  const seen = nextHeartbeat(deps, alert.origin);
  const signal = await signalOf(hb, alert, contextOf(deps));
  assert.is(signal.status, 202);
  assert.equal(Object.keys(signal.body).sort(), ['id', 'message', 'status']);
  assert.equal([signal.body.status, signal.body.message], ['ok', 'Alert converted to Heartbeat']);

  const rows = await stored(deps, alert.origin);
  assert.is(rows.length, 1);
  const row = rows[0]!;
  assert.is(row.id, signal.body.id);
  assert.equal(row.tags, ['dc1']);
  assert.equal(row.attributes, {
    environment: 'Production',
    severity: 'major',
    service: ['Core', 'Web'],
    group: 'System',
  });
  assert.equal(
    [row.type, row.timeout, row.customer, row.createTime],
    ['Heartbeat', 120, null, alert.createTime],
  );
  assert.ok(Math.abs(row.receiveTime - Date.now()) < 60_000);

  const event = await seen;
  assert.is(event.type, 'heartbeat.updated');
  if (event.type !== 'heartbeat.updated') return;
  const live = HeartbeatSchema.parse(event.heartbeat);
  assert.is(live.id, row.id);
  assert.is(live.href, `${BASE_URL}/heartbeat/${row.id}`);
  assert.is(live.latency, row.receiveTime - row.createTime);
  assert.ok(live.latency >= 1500);
  assert.is(live.maxLatency, deps.config.HEARTBEAT_MAX_LATENCY);
  assert.is(live.since, 0);
  assert.is(live.status, 'ok');
  assert.is(live.createTime, new Date(alert.createTime).toISOString());
});

plugin('a second heartbeat from the same origin and customer keeps the id', async ({ running }) => {
  const deps = running.deps;
  const hb = heartbeatOf(deps);
  const origin = fresh('agent/db1');
  const first = await signalOf(hb, draft({ origin }), contextOf(deps));
  const later = Date.now();
  const second = await signalOf(
    hb,
    draft({ origin, tags: ['dc2'], timeout: 600, severity: 'minor', createTime: later }),
    contextOf(deps),
  );
  assert.is(second.body.id, first.body.id);
  const rows = await stored(deps, origin);
  assert.is(rows.length, 1);
  assert.equal([rows[0]!.tags, rows[0]!.timeout, rows[0]!.createTime], [['dc2'], 600, later]);
  assert.is(rows[0]!.attributes.severity, 'minor');

  const other = await signalOf(hb, draft({ origin, customer: 'acme' }), contextOf(deps));
  assert.is.not(other.body.id, first.body.id);
  assert.is((await stored(deps, origin)).length, 2);
});

plugin('only events in HEARTBEAT_EVENTS are converted', async ({ running }) => {
  const deps = running.deps;
  const hb = heartbeatOf(deps);
  const alert = draft({ event: 'HeartbeatFail' });
  assert.is(await hb.preReceive!(alert, contextOf(deps)), undefined);
  assert.equal(await stored(deps, alert.origin), []);
});

plugin('through POST /alert: 202 with the heartbeat id, and no alert stored', async ({ api, running }) => {
  const origin = fresh('http/host');
  const res = await api.post('/alert', {
    resource: 'host1',
    event: 'Heartbeat',
    environment: 'Production',
    service: ['Core'],
    origin,
    timeout: 300,
  });
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(res.status, 202);
  assert.equal([body.status, body.message], ['ok', 'Alert converted to Heartbeat']);
  const rows = await stored(running.deps, origin);
  assert.equal([rows.length, rows[0]?.id, rows[0]?.timeout], [1, body.id, 300]);
  const alerts = await running.deps.db.any(sql.unsafe`SELECT id FROM alerts WHERE origin = ${origin}`);
  assert.is(alerts.length, 0);
});

plugin.run();
