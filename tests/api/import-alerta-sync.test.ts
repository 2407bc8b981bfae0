/**
 * `npm run import-alerta` beside a running Alerta (docs/switching.md): alerts the source holds more
 * of replace ours — same id, or the id a forwarded duplicate created here — and a second run after
 * that changes nothing; an interrupted run continues; --status and --since take part of the source.
 */
import * as assert from 'uvu/assert';
import { appSuite, type AppContext } from '../helpers/app.ts';
import { createTestDatabase, dropTestDatabase, queryDb } from '../helpers/db.ts';
import {
  createAlertaDatabase,
  historyArray,
  insertRow,
  onAlerta,
  runImport,
  startImport,
  type AlertaEntry,
} from '../helpers/alerta-db.ts';

interface Ctx extends AppContext {
  source: { name: string; url: string };
}

const test = appSuite<Ctx>('import-alerta-sync', { TEST_LABEL: 'import_sync' });

const MIN = 60_000;
const utcAgo = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().replace('Z', '');
const X = 'f0000000-aaaa-4b4b-9c9c-000000000001';
const RECEIPT = 'f0000000-aaaa-4b4b-9c9c-0000000000ff';

const entry = (id: string, type: string, severity: string, status: string, ago: number): AlertaEntry => ({
  id,
  event: 'Lag',
  severity,
  status,
  value: null,
  text: type,
  type,
  update_time: utcAgo(ago),
});
const HISTORY = [
  entry('e4', 'severity', 'critical', 'open', 2 * MIN),
  entry('e3', 'severity', 'major', 'open', 20 * MIN),
  entry('e2', 'severity', 'critical', 'open', 40 * MIN),
  entry(X, 'new', 'major', 'open', 60 * MIN),
];

test.before(async (ctx) => {
  ctx.source = await createAlertaDatabase('alerta_sync_src');
  await insertRow(ctx.source.url, 'alerts', {
    id: X,
    resource: 'replica1',
    event: 'Lag',
    environment: 'Production',
    severity: 'critical',
    status: 'open',
    service: ['Db'],
    group: 'Misc',
    tags: [],
    attributes: {},
    origin: 'mon',
    type: 'exceptionAlert',
    create_time: utcAgo(60 * MIN),
    timeout: 86400,
    duplicate_count: 5,
    repeat: true,
    previous_severity: 'major',
    trend_indication: 'moreSevere',
    receive_time: utcAgo(60 * MIN),
    last_receive_id: 'e4',
    last_receive_time: utcAgo(2 * MIN),
    update_time: utcAgo(2 * MIN),
    history: historyArray(HISTORY),
  });
});

test.after(async (ctx) => {
  if (ctx.source) await dropTestDatabase(ctx.source.name);
});

const historyOf = async (ctx: Ctx, id: string) => {
  const r = await ctx.api.call('GET', `/alert/${id}`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.alert as { history: { id: string }[]; status: string; duplicateCount: number };
};

test('an alert a forwarded duplicate created here under its receipt id takes the source id and history', async (ctx) => {
  // The established forwarder sends a duplicate under the receipt's own id.
  const fwd = await ctx.api.call('POST', '/alert', {
    id: RECEIPT,
    resource: 'replica1',
    event: 'Lag',
    environment: 'Production',
    severity: 'critical',
    service: ['Db'],
  });
  assert.is(fwd.status, 201, JSON.stringify(fwd.body));
  const r = runImport(ctx.source.url, ctx.db.url);
  assert.is(r.status, 0, r.stderr);
  assert.equal(r.summary.tables.alerts, {
    read: 1,
    imported: 0,
    replaced: 1,
    skipped: 0,
    refused: 0,
    history: 4,
    historyLeftOut: 0,
  });
  const a = await historyOf(ctx, X);
  assert.equal(
    a.history.map((h) => h.id),
    [X, 'e2', 'e3', 'e4'],
  );
  assert.is(a.duplicateCount, 5);
  assert.is((await ctx.api.call('GET', `/alert/${RECEIPT}`)).status, 404);
  const counts = await ctx.api.call('GET', '/alerts/count');
  assert.is(counts.body.total, 1);
});

test('a later change in the source replaces our copy once; the run after it changes nothing', async (ctx) => {
  await onAlerta(ctx.source.url, (c) =>
    c.query(`UPDATE alerts SET status = 'ack', update_time = $2, history = $3::history[] WHERE id = $1`, [
      X,
      utcAgo(MIN),
      historyArray([entry('e5', 'ack', 'critical', 'ack', MIN), ...HISTORY]),
    ]),
  );
  const r = runImport(ctx.source.url, ctx.db.url);
  assert.is(r.status, 0, r.stderr);
  assert.is(r.summary.tables.alerts!.replaced, 1);
  const a = await historyOf(ctx, X);
  assert.is(a.status, 'ack');
  assert.equal(
    a.history.map((h) => h.id),
    [X, 'e2', 'e3', 'e4', 'e5'],
  );
  // Report counts follow the new history: severity entries e2, e3, e4, each a change.
  const rows = await queryDb<{ n: number; e: number; f: number }>(
    ctx.db.url,
    `SELECT (SELECT count(*)::int FROM alert_history WHERE alert_id = $1) AS n, severity_entries AS e, flaps AS f
     FROM alerts WHERE id = $1`,
    [X],
  );
  assert.equal(rows[0], { n: 5, e: 3, f: 3 });
  const again = runImport(ctx.source.url, ctx.db.url);
  assert.equal(again.summary.tables.alerts, {
    read: 1,
    imported: 0,
    replaced: 0,
    skipped: 1,
    refused: 0,
    history: 0,
    historyLeftOut: 0,
  });
});

/** Fills a source with `n` alerts of two history entries each, every third one closed. */
async function fill(url: string, n: number): Promise<void> {
  await onAlerta(url, (c) =>
    c.query(
      `INSERT INTO alerts (id, resource, event, environment, severity, status, service, create_time, receive_time,
         last_receive_time, update_time, last_receive_id, duplicate_count, previous_severity, trend_indication, history)
       SELECT md5(i::text)::uuid::text, 'host' || i, 'Ping', 'Production', 'major',
         CASE WHEN i % 3 = 0 THEN 'closed' ELSE 'open' END, ARRAY['Net'],
         now() AT TIME ZONE 'UTC' - make_interval(mins => i), now() AT TIME ZONE 'UTC' - make_interval(mins => i),
         now() AT TIME ZONE 'UTC' - make_interval(mins => i), now() AT TIME ZONE 'UTC' - make_interval(mins => i),
         md5(i::text)::uuid::text, 0, 'indeterminate', 'noChange',
         ARRAY[
           ROW('b' || i, 'Ping', 'major', 'open', NULL, 'worse', 'severity', now() AT TIME ZONE 'UTC' - make_interval(mins => i), NULL, NULL)::history,
           ROW(md5(i::text)::uuid::text, 'Ping', 'minor', 'open', NULL, 'new', 'new', now() AT TIME ZONE 'UTC' - make_interval(mins => i + 1000), NULL, NULL)::history]
       FROM generate_series(1, $1::int) i`,
      [n],
    ),
  );
}

test('an interrupted run continues where it stopped, with every alert whole', async () => {
  const source = await createAlertaDatabase('alerta_resume_src');
  const target = await createTestDatabase('import_resume');
  try {
    await fill(source.url, 400);
    const child = startImport(source.url, target.url, ['--batch', '1']);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let seen = 0;
    for (let i = 0; i < 600 && seen === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        seen = (await queryDb<{ n: number }>(target.url, 'SELECT count(*)::int AS n FROM alerts'))[0]!.n;
      } catch {
        // not migrated yet
      }
    }
    child.kill('SIGKILL');
    await exited;
    const part = (await queryDb<{ n: number }>(target.url, 'SELECT count(*)::int AS n FROM alerts'))[0]!.n;
    assert.ok(part > 0 && part < 400, `killed after ${part} alerts`);
    const r = runImport(source.url, target.url);
    assert.is(r.status, 0, r.stderr);
    assert.is(r.summary.tables.alerts!.imported + r.summary.tables.alerts!.skipped, 400);
    assert.is(r.summary.tables.alerts!.imported, 400 - part);
    const counts = await queryDb<{ alerts: number; entries: number; odd: number }>(
      target.url,
      `SELECT (SELECT count(*)::int FROM alerts) AS alerts, (SELECT count(*)::int FROM alert_history) AS entries,
         (SELECT count(*)::int FROM alerts a WHERE (SELECT count(*) FROM alert_history h WHERE h.alert_id = a.id) <> 2) AS odd`,
    );
    assert.equal(counts[0], { alerts: 400, entries: 800, odd: 0 });
  } finally {
    await dropTestDatabase(source.name);
    await dropTestDatabase(target.name);
  }
});

test('--status and --since take only open or recent alerts, and of those only recent history', async () => {
  const source = await createAlertaDatabase('alerta_filter_src');
  const target = await createTestDatabase('import_filter');
  try {
    await fill(source.url, 90);
    const open = runImport(source.url, target.url, ['--dry-run', '--status', 'open,ack']);
    assert.is(open.status, 0, open.stderr);
    assert.equal([open.summary.tables.alerts!.read, open.summary.tables.alerts!.imported], [60, 60]);
    // Alerts 1..30 were received within the last 30 minutes (and a bit); their 'new' entries are older.
    const recent = runImport(source.url, target.url, [
      '--since',
      new Date(Date.now() - 30.5 * MIN).toISOString(),
    ]);
    assert.is(recent.status, 0, recent.stderr);
    assert.equal(recent.summary.tables.alerts, {
      read: 30,
      imported: 30,
      replaced: 0,
      skipped: 0,
      refused: 0,
      history: 30,
      historyLeftOut: 30,
    });
    const bad = runImport(source.url, target.url, ['--since', 'yesterday-ish']);
    assert.is(bad.status, 2);
    assert.match(bad.stderr, /--since must be/);
  } finally {
    await dropTestDatabase(source.name);
    await dropTestDatabase(target.name);
  }
});

test.run();
