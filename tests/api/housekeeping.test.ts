import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert } from '../../shared/alerts.ts';
import { ErrorBodySchema } from '../../shared/errors.ts';
import type { LiveEvent } from '../../shared/events.ts';
import { takeHousekeepingAction, type StillDue } from '../../server/domain/alerts.ts';
import { createAlert, getAlert, put } from '../helpers/alerts.ts';
import type { Api } from '../helpers/api.ts';
import {
  type AppContext,
  appSuite,
  bootInstance,
  type InstancePair,
  startApp,
  startPair,
  stopApp,
  stopPair,
} from '../helpers/app.ts';
import { queryDb } from '../helpers/db.ts';

/** An instance whose housekeeping scheduler runs every second. */
const ticking = (url: string) => bootInstance(url, { HOUSEKEEPING_INTERVAL: '1' });

let n = 0;
const fresh = (label: string) => `${label}-${++n}`;
/** An alert with event `e` on a resource of its own (`label-N`). */
const alertOn = (api: Api, label: string, severity: string, fields: Record<string, unknown> = {}) =>
  createAlert(api, { resource: fresh(label), event: 'e', severity, ...fields });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface HousekeepingBody {
  status: string;
  expired: string[];
  unshelve: string[];
  unack: string[];
  count: number;
}

async function housekeeping(api: Api, query = '', method: 'GET' | 'POST' = 'GET') {
  const res = await api.request(method, `/management/housekeeping${query}`);
  return { status: res.status, body: (await res.json()) as HousekeepingBody };
}

/** One housekeeping run, with the live events it published. */
async function housekeepingHeard({ api, running }: Pick<AppContext, 'api' | 'running'>) {
  const events: LiveEvent[] = [];
  const off = running.deps.bus.subscribe((e) => events.push(e));
  const { status, body } = await housekeeping(api);
  await sleep(50);
  off();
  return { status, body, events };
}

/** Moves an alert's last receipt (and with it creation) into the past. */
const ageReceipt = (url: string, id: string, seconds: number) =>
  queryDb(
    url,
    `UPDATE alerts SET last_receive_time = now() - $2 * interval '1 second',
       receive_time = now() - $2 * interval '1 second' WHERE id = $1`,
    [id, seconds],
  );
/** Moves an alert's last status change (what ack and shelve timeouts count from) into the past. */
const ageUpdate = (url: string, id: string, seconds: number) =>
  queryDb(url, `UPDATE alerts SET update_time = now() - $2 * interval '1 second' WHERE id = $1`, [
    id,
    seconds,
  ]);

const exists = async (url: string, id: string) =>
  (await queryDb(url, 'SELECT 1 FROM alerts WHERE id = $1', [id])).length === 1;
const newest = (a: Alert) => a.history.at(-1)!;

const hk = appSuite('housekeeping', {
  TEST_LABEL: 'housekeeping',
  PLUGINS: 'remote_ip',
  HOUSEKEEPING_INTERVAL: '0',
});
// Each test sees only its own alerts: a run acts on the whole database.
hk.before.each(async ({ db }) => {
  await queryDb(db.url, 'DELETE FROM alerts');
  await queryDb(db.url, 'DELETE FROM alert_history');
});

hk(
  'an alert whose timeout ran out expires: history `expired`, event published, answer lists it',
  async ({ api, db, running }) => {
    const due = await alertOn(api, 'due', 'major', { timeout: 1 });
    const recent = await alertOn(api, 'recent', 'major', { timeout: 3600 });
    const never = await alertOn(api, 'never', 'major', { timeout: 0 });
    const closed = await alertOn(api, 'closed', 'normal', { timeout: 60 });
    await ageReceipt(db.url, never.id, 100_000);
    await ageReceipt(db.url, closed.id, 120); // closed alerts expire too (lifecycle §9, verified quirk)
    await sleep(1100);

    const { status, body, events } = await housekeepingHeard({ api, running });

    assert.is(status, 200);
    assert.equal(body, {
      status: 'ok',
      expired: [due.id, closed.id].sort(),
      unshelve: [],
      unack: [],
      count: 2,
    });
    const expired = await getAlert(api, due.id);
    assert.is(expired.status, 'expired');
    assert.is(expired.severity, 'major');
    const entry = newest(expired);
    assert.equal([entry.type, entry.status, entry.severity, entry.text], ['expired', 'expired', 'major', '']);
    assert.is((await getAlert(api, closed.id)).status, 'expired');
    assert.is((await getAlert(api, recent.id)).status, 'open');
    assert.is((await getAlert(api, never.id)).status, 'open');

    const updated = events.filter((e) => e.type === 'alert.updated');
    assert.equal(
      updated.map((e) => [e.alert.id, e.alert.status]).sort(),
      [
        [due.id, 'expired'],
        [closed.id, 'expired'],
      ].sort(),
    );

    // Nothing is due any more: a second run changes nothing and writes no history.
    const again = await housekeeping(api, '', 'POST');
    assert.equal([again.status, again.body.count, again.body.expired], [200, 0, []]);
    assert.is((await getAlert(api, due.id)).history.filter((h) => h.type === 'expired').length, 1);
  },
);

hk(
  'an acked alert whose ack timeout ran out returns to its status before the ack (history `timeout`)',
  async ({ api, db, running }) => {
    const acked = await alertOn(api, 'acked', 'minor');
    assert.is((await put(api, `/alert/${acked.id}/action`, { action: 'ack', timeout: 1 })).status, 200);
    const forever = await alertOn(api, 'ack-forever', 'minor');
    // No timeout given: ACK_TIMEOUT (0) is recorded, which means never.
    assert.is((await put(api, `/alert/${forever.id}/action`, { action: 'ack' })).status, 200);
    const fresher = await alertOn(api, 'ack-fresh', 'minor');
    assert.is((await put(api, `/alert/${fresher.id}/action`, { action: 'ack', timeout: 3600 })).status, 200);
    await ageUpdate(db.url, forever.id, 100_000);
    await ageUpdate(db.url, fresher.id, 600);
    await sleep(1100);

    const { status, body, events } = await housekeepingHeard({ api, running });

    assert.is(status, 200);
    assert.equal(body, { status: 'ok', expired: [], unshelve: [], unack: [acked.id], count: 1 });
    const after = await getAlert(api, acked.id);
    assert.is(after.status, 'open');
    const entry = newest(after);
    assert.equal([entry.type, entry.status, entry.text], ['timeout', 'open', '']);
    assert.is((await getAlert(api, forever.id)).status, 'ack');
    assert.is((await getAlert(api, fresher.id)).status, 'ack');
    assert.equal(
      events.map((e) => (e.type === 'alert.updated' ? [e.alert.id, e.alert.status] : e.type)),
      [[acked.id, 'open']],
    );
  },
);

hk(
  'a shelved alert whose shelve timeout ran out is unshelved; shelve after ack returns to ack',
  async ({ api, db }) => {
    const shelved = await alertOn(api, 'shelved', 'minor');
    assert.is((await put(api, `/alert/${shelved.id}/action`, { action: 'shelve', timeout: 1 })).status, 200);
    const ackedFirst = await alertOn(api, 'ack-shelve', 'minor');
    assert.is((await put(api, `/alert/${ackedFirst.id}/action`, { action: 'ack', timeout: 0 })).status, 200);
    assert.is(
      (await put(api, `/alert/${ackedFirst.id}/action`, { action: 'shelve', timeout: 1 })).status,
      200,
    );
    const keep = await alertOn(api, 'shelve-default', 'minor');
    // No timeout given: SHELVE_TIMEOUT (7200 s) applies and has not run out after an hour.
    assert.is((await put(api, `/alert/${keep.id}/action`, { action: 'shelve' })).status, 200);
    await ageUpdate(db.url, keep.id, 3600);
    await sleep(1100);

    const { status, body } = await housekeeping(api);
    assert.is(status, 200);
    assert.equal(body, {
      status: 'ok',
      expired: [],
      unshelve: [shelved.id, ackedFirst.id].sort(),
      unack: [],
      count: 2,
    });
    const open = await getAlert(api, shelved.id);
    assert.equal([open.status, newest(open).type, newest(open).status], ['open', 'timeout', 'open']);
    const back = await getAlert(api, ackedFirst.id);
    assert.equal([back.status, newest(back).type, newest(back).status], ['ack', 'timeout', 'ack']);
    assert.is((await getAlert(api, keep.id)).status, 'shelved');

    // The restored ack has no timeout (0), so later runs leave it acked.
    await sleep(1100);
    assert.equal((await housekeeping(api)).body.count, 0);
    assert.is((await getAlert(api, ackedFirst.id)).status, 'ack');

    // Past SHELVE_TIMEOUT the default-timeout shelve goes too.
    await ageUpdate(db.url, keep.id, 7300);
    assert.equal((await housekeeping(api)).body.unshelve, [keep.id]);
  },
);

hk(
  'a `timeout` entry carries the timeout of the entry it restores, not the alert’s own timeout',
  async ({ api }) => {
    // Shelved after an ack: the ack (timeout 1234) is restored.
    const shelved = await alertOn(api, 'restore-ack', 'minor', { timeout: 7777 });
    assert.is((await put(api, `/alert/${shelved.id}/action`, { action: 'ack', timeout: 1234 })).status, 200);
    assert.is((await put(api, `/alert/${shelved.id}/action`, { action: 'shelve', timeout: 1 })).status, 200);
    // Acked after a repeat changed the alert's timeout: the creation entry (timeout 5000) is restored.
    const acked = await alertOn(api, 'restore-new', 'minor', { timeout: 5000 });
    const repeat = await createAlert(api, {
      resource: acked.resource,
      event: 'e',
      severity: 'minor',
      timeout: 6000,
    });
    assert.equal([repeat.id, repeat.timeout], [acked.id, 6000]);
    assert.is((await put(api, `/alert/${acked.id}/action`, { action: 'ack', timeout: 1 })).status, 200);
    await sleep(1100);

    const { body } = await housekeeping(api);
    assert.equal([body.unshelve, body.unack], [[shelved.id], [acked.id]]);
    const back = await getAlert(api, shelved.id);
    assert.equal(
      [back.status, back.timeout, newest(back).type, newest(back).status, newest(back).timeout],
      ['ack', 7777, 'timeout', 'ack', 1234],
    );
    const open = await getAlert(api, acked.id);
    assert.equal(
      [open.status, open.timeout, newest(open).type, newest(open).status, newest(open).timeout],
      ['open', 6000, 'timeout', 'open', 5000],
    );
  },
);

hk(
  'old closed, expired and informational alerts are deleted (alert.deleted each); recent ones stay',
  async ({ api, db, running }) => {
    const oldClosed = await alertOn(api, 'old-closed', 'normal');
    const oldExpired = await alertOn(api, 'old-expired', 'major');
    assert.is((await put(api, `/alert/${oldExpired.id}/status`, { status: 'expired' })).status, 200);
    const newClosed = await alertOn(api, 'new-closed', 'normal');
    const oldInfo = await alertOn(api, 'old-info', 'informational');
    const newInfo = await alertOn(api, 'new-info', 'informational');
    const oldOpen = await alertOn(api, 'old-open', 'major');
    await ageReceipt(db.url, oldClosed.id, 7300); // DELETE_EXPIRED_AFTER 7200 s
    await ageReceipt(db.url, oldExpired.id, 7300);
    await ageReceipt(db.url, newClosed.id, 7000);
    await ageReceipt(db.url, oldInfo.id, 43_300); // DELETE_INFO_AFTER 43200 s
    await ageReceipt(db.url, newInfo.id, 43_000);
    await ageReceipt(db.url, oldOpen.id, 43_300); // neither closed nor informational, timeout 86400 s

    const { status, body, events } = await housekeepingHeard({ api, running });

    assert.is(status, 200);
    assert.equal(body, { status: 'ok', expired: [], unshelve: [], unack: [], count: 0 });
    for (const gone of [oldClosed, oldExpired, oldInfo]) {
      assert.not.ok(await exists(db.url, gone.id), `${gone.resource} deleted`);
      assert.is(
        (await queryDb(db.url, 'SELECT 1 FROM alert_history WHERE alert_id = $1', [gone.id])).length,
        0,
      );
    }
    for (const kept of [newClosed, newInfo, oldOpen])
      assert.ok(await exists(db.url, kept.id), `${kept.resource} kept`);
    assert.equal(
      events.map((e) => (e.type === 'alert.deleted' ? e.id : e.type)).sort(),
      [oldClosed.id, oldExpired.id, oldInfo.id].sort(),
    );
  },
);

hk(
  '`expired` and `info` parameters (hours) override the delete ages for that run; 0 keeps',
  async ({ api, db }) => {
    const closed = await alertOn(api, 'closed-90m', 'normal');
    const info = await alertOn(api, 'info-90m', 'informational');
    const oldClosed = await alertOn(api, 'closed-3h', 'normal');
    const oldInfo = await alertOn(api, 'info-13h', 'informational');
    await ageReceipt(db.url, closed.id, 5400);
    await ageReceipt(db.url, info.id, 5400);
    await ageReceipt(db.url, oldClosed.id, 3 * 3600);
    await ageReceipt(db.url, oldInfo.id, 13 * 3600);

    // 0 hours: neither kind is deleted, even past the configured ages.
    assert.is((await housekeeping(api, '?expired=0&info=0')).status, 200);
    for (const a of [closed, info, oldClosed, oldInfo]) assert.ok(await exists(db.url, a.id));

    // Defaults (2 h, 12 h) would keep the 90-minute-old ones; 1 hour does not.
    assert.is((await housekeeping(api, '?expired=1')).status, 200);
    assert.not.ok(await exists(db.url, closed.id));
    assert.not.ok(await exists(db.url, oldClosed.id));
    assert.ok(await exists(db.url, info.id));
    assert.not.ok(await exists(db.url, oldInfo.id)); // DELETE_INFO_AFTER still applies

    assert.is((await housekeeping(api, '?info=1.6', 'POST')).status, 200);
    assert.ok(await exists(db.url, info.id), '90 minutes is not older than 1.6 hours');
    assert.is((await housekeeping(api, '?info=1.4')).status, 200);
    assert.not.ok(await exists(db.url, info.id));

    for (const bad of ['?expired=abc', '?info=-1', '?expired=1h']) {
      const res = await api.get(`/management/housekeeping${bad}`);
      const err = ErrorBodySchema.parse(await res.json());
      assert.is(res.status, 400, bad);
      assert.match(err.message, /invalid '(expired|info)' parameter/);
    }
  },
);

hk.run();

/** A take_action hook that refuses to expire alerts whose resource starts with "keep". */
const pluginDir = mkdtempSync(join(tmpdir(), 'hk-plugin-'));
const pluginPath = join(pluginDir, 'refuse-expiry.mjs');
writeFileSync(
  pluginPath,
  `export default {
  name: 'refuse_expiry',
  takeAction(alert, action) {
    if (action === 'expired' && alert.resource.startsWith('keep')) throw new Error('this alert must stay');
  },
};
`,
);

const refused = suite<AppContext>('housekeeping with a plugin that refuses', {} as AppContext);
refused.before((ctx) =>
  startApp(ctx, {
    TEST_LABEL: 'housekeeping_refused',
    PLUGINS: `remote_ip,${pluginPath}`,
    HOUSEKEEPING_INTERVAL: '0',
  }),
);
refused.after(async (ctx) => {
  await stopApp(ctx);
  rmSync(pluginDir, { recursive: true, force: true });
});

refused(
  'a refused expiry answers 500 `housekeeping failed` naming the alert; the others still expire',
  async ({ api }) => {
    const kept = await createAlert(api, { resource: 'keep-me', event: 'e', severity: 'major', timeout: 1 });
    const gone = await createAlert(api, { resource: 'let-go', event: 'e', severity: 'major', timeout: 1 });
    await sleep(1100);
    const res = await api.get('/management/housekeeping');
    const err = ErrorBodySchema.parse(await res.json());
    assert.is(res.status, 500);
    assert.is(err.message, 'housekeeping failed');
    assert.equal(err.errors, [
      `could not expire alert ${kept.id}: Error while running action plugin 'refuse_expiry': this alert must stay`,
    ]);
    assert.is((await getAlert(api, kept.id)).status, 'open');
    assert.is((await getAlert(api, gone.id)).status, 'expired');
  },
);

refused.run();

const scheduled = appSuite('housekeeping scheduler', {
  TEST_LABEL: 'housekeeping_sched',
  PLUGINS: 'remote_ip',
  HOUSEKEEPING_INTERVAL: '1',
});

async function waitFor<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

scheduled(
  'runs on its own every HOUSEKEEPING_INTERVAL seconds: expiry, unack and deletion',
  async ({ api, db }) => {
    const due = await alertOn(api, 'sched-due', 'major', { timeout: 1 });
    const acked = await alertOn(api, 'sched-ack', 'minor');
    assert.is((await put(api, `/alert/${acked.id}/action`, { action: 'ack', timeout: 1 })).status, 200);
    const old = await alertOn(api, 'sched-old', 'normal');
    await ageReceipt(db.url, old.id, 7300);
    await waitFor('expiry', async () => (await getAlert(api, due.id)).status === 'expired');
    await waitFor('unack', async () => (await getAlert(api, acked.id)).status === 'open');
    await waitFor('deletion', async () => !(await exists(db.url, old.id)));
    assert.equal(
      (await getAlert(api, due.id)).history.map((h) => h.type),
      ['new', 'expired'],
    );
  },
);

scheduled.run();

/** Two instances with schedulers on one database. */
const pair = suite<InstancePair>('housekeeping across instances', {} as InstancePair);
pair.before((ctx) => startPair(ctx, 'housekeeping_pair', ticking));
pair.after(stopPair);

pair('two instances never both expire the same alert: one `expired` entry each', async (ctx) => {
  const alerts = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      createAlert(i % 2 ? ctx.apiA : ctx.apiB, {
        resource: `pair-${i}`,
        event: 'e',
        severity: 'major',
        timeout: 1,
      }),
    ),
  );
  await sleep(1000);
  // Endpoint runs on both instances at once, racing each other and both schedulers.
  const [fromA, fromB] = await Promise.all([housekeeping(ctx.apiA), housekeeping(ctx.apiB)]);
  assert.equal([fromA.status, fromB.status], [200, 200]);
  const listed = [...fromA.body.expired, ...fromB.body.expired];
  assert.is(new Set(listed).size, listed.length, 'no alert listed by both runs');

  const ids = alerts.map((a) => a.id);
  await waitFor('every alert expired', async () => {
    const rows = await queryDb<{ n: number }>(
      ctx.db.url,
      `SELECT count(*)::int AS n FROM alerts WHERE id = ANY($1) AND status = 'expired'`,
      [ids],
    );
    return rows[0]!.n === ids.length;
  });
  await sleep(1500); // further scheduler ticks on both instances must not add entries
  const counts = await queryDb<{ alert_id: string; n: number }>(
    ctx.db.url,
    `SELECT alert_id, count(*)::int AS n FROM alert_history WHERE type = 'expired' AND alert_id = ANY($1)
     GROUP BY alert_id`,
    [ids],
  );
  assert.is(counts.length, ids.length);
  assert.ok(
    counts.every((c) => c.n === 1),
    JSON.stringify(counts.filter((c) => c.n !== 1)),
  );
});

pair(
  'the same alert expired from both instances at once, bypassing the run lock, gets one entry',
  async (ctx) => {
    const alerts = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        createAlert(ctx.apiA, { resource: `race-${i}`, event: 'e', severity: 'major', timeout: 1 }),
      ),
    );
    await sleep(1000);
    const now = Date.now();
    const isDue: StillDue = (r) =>
      r.status !== 'expired' && r.lastReceiveTime + (r.timeout ?? 0) * 1000 < now;
    const caller = { ip: '', header: () => '', user: null, baseUrl: '', customers: null };
    const results = await Promise.all(
      alerts.flatMap((a) =>
        [ctx.a, ctx.b].map((r) => takeHousekeepingAction(r.deps, a.id, 'expired', caller, isDue)),
      ),
    );
    assert.ok(results.filter(Boolean).length <= alerts.length);
    for (const a of alerts) {
      const rows = await queryDb(
        ctx.db.url,
        `SELECT 1 FROM alert_history WHERE alert_id = $1 AND type = 'expired'`,
        [a.id],
      );
      assert.is(rows.length, 1, a.resource);
    }
  },
);

pair('a run in progress on one instance makes the other instance skip its scheduled run', async (ctx) => {
  // Hold the run lock from outside, as a long run elsewhere would: neither scheduler acts.
  const { default: pg } = await import('pg');
  const holder = new pg.Client({ connectionString: ctx.db.url });
  await holder.connect();
  try {
    await holder.query(`SELECT pg_advisory_lock(72643510, hashtext(current_schema()))`);
    const a = await createAlert(ctx.apiA, {
      resource: fresh('locked'),
      event: 'e',
      severity: 'major',
      timeout: 1,
    });
    await sleep(2500);
    assert.is((await getAlert(ctx.apiA, a.id)).status, 'open');
    await holder.query(`SELECT pg_advisory_unlock(72643510, hashtext(current_schema()))`);
    await waitFor(
      'expiry once the lock is free',
      async () => (await getAlert(ctx.apiA, a.id)).status === 'expired',
    );
  } finally {
    await holder.end();
  }
});

pair.run();
