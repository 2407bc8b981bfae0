/**
 * Memory benchmark (issue #20 item 7): server RSS with 100,000 alerts and 500 live sockets.
 *   1. A fresh database is migrated (a server started and stopped) and seeded with `--alerts`
 *      alerts (scripts/bench/seed.ts), then a server process is started on it (default settings,
 *      in-process bus, LOG_LEVEL=error).
 *   2. `--sockets` Socket.IO clients connect from worker threads and subscribe, spread over typical
 *      views (VIEWS below: the wall's default, the console's default, the whole list, a grouped wall
 *      and a few filters; identical subscriptions share one view on the server).
 *   3. RSS is read from /proc/<pid>/status (VmRSS; VmHWM is the peak) after start, after the sockets
 *      subscribed and a 10 s settle (warm-up), and after `--traffic` seconds of `--rate` POST /alert a
 *      second (updates of seeded Production and Development alerts, their severities changing so that
 *      alerts move between views),
 *      then again after 10 s and 30 s of quiet.
 *   Each stage also gives the server's CPU time so far (user + system, /proc/<pid>/stat): what a
 *   memory setting costs in garbage collection shows there.
 * Usage: node scripts/bench/memory.ts [--alerts 100000] [--sockets 500] [--rate 100] [--traffic 60]
 * Target: RSS ≤ 250 MB after traffic.
 */
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, dropTestDatabase } from '../../tests/helpers/db.ts';
import { startFlags } from './start-flags.ts';
import { startServerProcess, type ServerProcess } from '../../tests/helpers/process.ts';
import type { ViewSpec } from './memory-clients.ts';
import { SEED_ENVIRONMENTS, seedAlerts } from './seed.ts';
import { numberArg } from './args.ts';
import { closeWorkers, workersReady } from './socket.ts';

const alerts = numberArg('alerts', 100_000);
const socketCount = numberArg('sockets', 500);
const rate = numberArg('rate', 100);
const traffic = numberArg('traffic', 60);

const WALL =
  'status=open&status=ack&severity!=normal&severity!=ok&severity!=cleared&severity!=debug&severity!=trace';
/** [share of the sockets, view]. */
const VIEWS: [number, ViewSpec][] = [
  [0.3, { name: 'wall default', query: WALL }],
  [
    0.3,
    { name: 'console default', query: 'status=open&status=ack&sort-by=severity&sort-by=lastReceiveTime' },
  ],
  [0.1, { name: 'console, no filter', query: '' }],
  [0.1, { name: 'wall grouped by event', query: WALL, groupBy: 'event' }],
  [0.1, { name: 'environment=Production', query: 'environment=Production&status=open&status=ack' }],
  [0.05, { name: 'service=service7', query: 'service=service7' }],
  [0.05, { name: 'q=severity:critical', query: 'q=severity%3Acritical' }],
];

/** USER_HZ: 100 on Linux everywhere this runs (getconf CLK_TCK). */
const TICKS_PER_SECOND = 100;
const mb = (kb: number) => Math.round(kb / 102.4) / 10;
function memory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  // utime and stime (fields 14 and 15 of /proc/<pid>/stat, after the parenthesised name), in ticks.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  return { rssMB: mb(kb('VmRSS')), peakMB: mb(kb('VmHWM')), cpuSeconds };
}

const db = await createTestDatabase('bench_memory');
const env: Record<string, string> = { DATABASE_URL: db.url, LOG_LEVEL: 'error' };
// e.g. BENCH_SERVER_NODE_OPTIONS='--heapsnapshot-signal=SIGUSR2' to look inside the server.
if (process.env.BENCH_SERVER_NODE_OPTIONS) env.NODE_OPTIONS = process.env.BENCH_SERVER_NODE_OPTIONS;
// V8 flags after npm start's (NODE_OPTIONS refuses most), e.g. BENCH_SERVER_FLAGS='--optimize-for-size'.
const flags = [...startFlags(), ...(process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean)];
let server: ServerProcess | undefined;
const workers: Worker[] = [];
try {
  server = await startServerProcess(env); // migrates
  await server.stop();
  const t = Date.now();
  // Received in the last 20 minutes, so housekeeping neither expires nor deletes any during the run.
  await seedAlerts(db.url, alerts, { spanSeconds: 1200 });
  console.error(`seeded ${alerts} alerts in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  server = await startServerProcess(env, 60_000, flags);
  const pid = server.child.pid!;
  const origin = new URL(server.url).origin;
  await sleep(2000);
  const rows: Record<string, unknown>[] = [];
  const record = (stage: string, extra: Record<string, unknown> = {}) => {
    const row = { stage, ...memory(pid), ...extra };
    rows.push(row);
    console.error(JSON.stringify(row));
  };
  record('started, idle');

  // The sockets, spread over the views by their shares, from 4 worker threads.
  const specs: ViewSpec[] = [];
  for (const [share, spec] of VIEWS)
    for (let i = 0; i < Math.round(share * socketCount); i++) specs.push(spec);
  while (specs.length < socketCount) specs.push(VIEWS[0]![1]);
  specs.length = socketCount;
  const parts = 4;
  const t1 = Date.now();
  for (let w = 0; w < parts; w++) {
    const worker = new Worker(new URL('./memory-clients.ts', import.meta.url), {
      workerData: { origin, views: specs.filter((_, i) => i % parts === w) },
    });
    workers.push(worker);
  }
  await workersReady(workers);
  const subscribeSeconds = (Date.now() - t1) / 1000;
  await sleep(10_000);
  record('sockets subscribed + 10 s', { sockets: socketCount, subscribeSeconds });

  // Traffic: updates of seeded alerts (resource host<k>, event event<k % 97> of alert k).
  const severities = ['critical', 'major', 'minor', 'warning', 'informational', 'normal'];
  const started = Date.now();
  let sent = 0;
  let failed = 0;
  /** POSTs not sent because 64 were still waiting for their answers (the server is behind). */
  let skipped = 0;
  const statuses: Record<string, number> = {};
  const inflight = new Set<Promise<void>>();
  let n = 0;
  while (Date.now() - started < traffic * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    for (; sent < due; sent++) {
      if (inflight.size >= 64) {
        skipped++;
        continue;
      }
      // Seeded alert k is in environment SEED_ENVIRONMENTS[k % 5]; the default policy takes only
      // Production and Development, so only alerts with k % 5 of 0 or 1 are updated.
      const m = (n++ * 7919) % Math.floor(alerts / 5);
      const k = 5 * m + (m % 2);
      const req = fetch(`${origin}/api/alert`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          resource: `host${k % 20000}`,
          event: `event${k % 97}`,
          environment: SEED_ENVIRONMENTS[k % 5],
          severity: severities[n % severities.length],
          service: [`service${k % 50}`],
          origin: 'bench/memory',
          text: `memory benchmark ${n}`,
        }),
      })
        .then(async (res) => {
          const text = await res.text();
          if (res.status !== 201) {
            failed++;
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            if (failed === 1) console.error(`POST answered ${res.status}: ${text.slice(0, 300)}`);
          }
        })
        .catch((err: Error) => {
          failed++;
          statuses.error = (statuses.error ?? 0) + 1;
          if (failed === 1) console.error(`POST failed: ${err.message} ${String(err.cause ?? '')}`);
        })
        .finally(() => inflight.delete(req));
      inflight.add(req);
    }
    await sleep(5);
  }
  await Promise.all(inflight);
  const totals = await Promise.all(
    workers.map(
      (w) =>
        new Promise<Record<string, number>>((ok) => {
          const on = (m: { type: string } & Record<string, number>) => {
            if (m.type !== 'report') return;
            w.off('message', on);
            ok(m);
          };
          w.on('message', on);
          w.postMessage('report');
        }),
    ),
  );
  const sum = (k: string) => totals.reduce((a, t) => a + (t[k] ?? 0), 0);
  record(`after ${traffic} s of ${rate} POST/s`, {
    posts: sent - skipped,
    skipped,
    failed,
    statuses,
    messages: sum('messages'),
    alertsDelivered: sum('alerts'),
    removed: sum('removed'),
    resyncs: sum('resyncs'),
    disconnects: sum('disconnects'),
  });
  await sleep(10_000);
  record('then 10 s quiet');
  // V8's memory reducer shrinks the heap some seconds after allocation slows down.
  await sleep(20_000);
  record('then 30 s quiet');

  console.log(JSON.stringify({ alerts, sockets: socketCount, rate, traffic, rows }));
  console.log(
    `\n${alerts} alerts, ${socketCount} sockets (${VIEWS.length} distinct views), ${rate} POST/s for ${traffic} s\n`,
  );
  console.log('| stage | RSS MB | peak RSS MB | server CPU s |');
  console.log('| --- | --- | --- | --- |');
  for (const r of rows)
    console.log(
      `| ${String(r.stage)} | ${String(r.rssMB)} | ${String(r.peakMB)} | ${String(r.cpuSeconds)} |`,
    );
} finally {
  await closeWorkers(workers);
  await server?.stop();
  await dropTestDatabase(db.name);
}
