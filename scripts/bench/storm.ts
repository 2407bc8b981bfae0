/**
 * An alert storm end to end (issue #42 item 2): 20,000 new alerts from 2,000 resources over 20 s,
 * as Prometheus Alertmanager webhook payloads of 50 alerts (POST /api/webhooks/prometheus), with
 * 50 walls and 10 consoles connected, subscribed as the web UI subscribes them (storm-clients.ts).
 * It prints:
 *   - stored: alerts in the database (must be 20,000 distinct), and how many have a duplicateCount
 *     other than the re-sent payloads give (must be 0);
 *   - convergence: from the last POST's answer until each screen holds exactly the database's final
 *     state of its view (each alert's severity, status, duplicateCount, lastReceiveId and
 *     lastReceiveTime, and the view's counts); the max over screens is the target's figure (≤ 2 s);
 *   - disconnects and resyncs of the screens (must be 0), patches without a base (must be 0);
 *   - the webhook POSTs' p50 / p99, and the CPU of the server, its PostgreSQL backends and the bench.
 * Then, unless --cost-rounds 0, storm-cost.ts: the CPU per alert of 50-alert payloads against the
 * same alerts as single POST /alert requests (target ≤ 0.5×).
 *
 *   node_modules/.bin/node scripts/bench/storm.ts [--walls 50] [--consoles 10] [--resources 2000]
 *     [--size 50] [--duration 20] [--resends 40] [--workers 2] [--cost-rounds 4] [--cost-alerts 5000]
 *     [--cost-rate 1000] [--only storm|cost]
 *
 * --resends N: N of the payloads are sent again later (Alertmanager re-notifies a group), so those
 * alerts end with duplicateCount 1 (or more). BENCH_SERVER_FLAGS adds flags to the server's node
 * (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`); BENCH_POOL sets its pool size (default 10).
 */
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { createTestDatabase, dropTestDatabase, serverUrl } from '../../tests/helpers/db.ts';
import { startServerProcess } from '../../tests/helpers/process.ts';
import { numberArg, textArg } from './args.ts';
import { cpuOf, Histogram, liveMetrics, machineCpu, round1, selfCpu, serverPush } from './push-measure.ts';
import { clock } from './push-shared.ts';
import type { Expected, Queries, ScreenKind, ScreenResult } from './storm-clients.ts';
import { measureCost } from './storm-cost.ts';
import { createPoster, paced, screenQueries, stormPayloads } from './storm-payloads.ts';

const walls = numberArg('walls', 50);
const consoles = numberArg('consoles', 10);
const resources = numberArg('resources', 2000);
const size = numberArg('size', 50);
const duration = numberArg('duration', 20);
const resends = numberArg('resends', 40);
const workerCount = numberArg('workers', 2);
const only = textArg('only');
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);

/** The screens, spread over worker threads (a real screen has a machine of its own). */
async function startScreens(origin: string, queries: Queries) {
  const kinds: ScreenKind[] = [
    ...Array.from({ length: walls }, () => 'wall' as const),
    ...Array.from({ length: consoles }, () => 'console' as const),
  ];
  const shares = Array.from({ length: workerCount }, (_, w) => kinds.filter((_, i) => i % workerCount === w));
  const workers = shares
    .filter((s) => s.length)
    .map(
      (share) =>
        new Worker(new URL('./storm-clients.ts', import.meta.url), {
          workerData: { origin, queries, kinds: share },
        }),
    );
  const next = <T>(w: Worker, type: string) =>
    new Promise<T>((ok, fail) => {
      const on = (m: { type: string } & T) => {
        if (m.type !== type) return;
        w.off('message', on);
        ok(m);
      };
      w.on('message', on);
      w.once('error', fail);
    });
  await Promise.all(workers.map((w) => next(w, 'ready')));
  return {
    async check(expected: Expected): Promise<ScreenResult[]> {
      const replies = await Promise.all(
        workers.map((w) => {
          const reply = next<{ results: ScreenResult[] }>(w, 'checked');
          w.postMessage({ type: 'check', expected });
          return reply;
        }),
      );
      return replies.flatMap((r) => r.results);
    },
    close: () =>
      Promise.all(
        workers.map(
          (w) =>
            new Promise<void>((ok) => {
              w.once('exit', () => ok());
              w.postMessage({ type: 'close' });
              setTimeout(() => void w.terminate(), 3000).unref();
            }),
        ),
      ),
  };
}

/** The database's final state of a view, as GET /alerts gives it (every alert, not one page). */
async function finalView(api: string, query: string): Promise<Expected['views'][string]> {
  const params = new URLSearchParams(query);
  params.set('page-size', '100000');
  params.delete('page');
  const res = await fetch(`${api}/alerts?${params}`);
  const body = (await res.json()) as {
    alerts: {
      id: string;
      severity: string;
      status: string;
      duplicateCount: number;
      lastReceiveId: string;
      lastReceiveTime: string;
    }[];
    total: number;
    severityCounts: Record<string, number>;
    statusCounts: Record<string, number>;
  };
  return {
    alerts: body.alerts.map((a) => [
      a.id,
      [a.severity, a.status, a.duplicateCount, a.lastReceiveId, a.lastReceiveTime].join('|'),
    ]),
    counts: { total: body.total, severityCounts: body.severityCounts, statusCounts: body.statusCounts },
  };
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : null;
};

async function storm() {
  const db = await createTestDatabase('storm');
  const server = await startServerProcess(
    { DATABASE_URL: db.url, LOG_LEVEL: 'error', DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '10' },
    60_000,
    serverFlags,
  );
  const origin = server.url.replace(/\/$/, '');
  const api = `${origin}/api`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const watcher = new pg.Client({ connectionString: db.url });
  await watcher.connect();
  const watcherPid = (await watcher.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  /** CPU seconds of the server and of its PostgreSQL backends (the bench's own connection left out). */
  const cpu = async () => {
    const { rows } = await admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1',
      [db.name],
    );
    const pgCpu = rows.filter((r) => r.pid !== watcherPid).reduce((sum, r) => sum + (cpuOf(r.pid) || 0), 0);
    return {
      server: cpuOf(server.child.pid!),
      pg: pgCpu,
      bench: selfCpu(),
      machine: machineCpu().busy / 100,
    };
  };
  const poster = createPoster(origin);
  let screens: Awaited<ReturnType<typeof startScreens>> | null = null;
  try {
    const queries = await screenQueries(api);
    screens = await startScreens(origin, queries);
    const { payloads, expected, alerts } = stormPayloads('storm-host', resources, size, resends);
    console.log(
      `storm: ${alerts} alerts in ${payloads.length} payloads of ${size} (${resends} re-sent) over ${duration} s; ` +
        `${walls} walls (2 sockets each), ${consoles} consoles`,
    );
    const liveBefore = await liveMetrics(origin);
    const cpuBefore = await cpu();
    const answers = await paced(poster.post, '/api/webhooks/prometheus', payloads, duration);
    const lastAnswer = Math.max(...answers.map((a) => a.answeredAt));
    const firstSent = Math.min(...answers.map((a) => a.sentAt));
    const cpuStorm = await cpu();

    const views: Expected['views'] = {};
    for (const q of [queries.wall, queries.wallAcked, queries.console]) views[q] = await finalView(api, q);
    const results = await screens.check({ views, until: clock() + 30_000 });
    const cpuAfter = await cpu();
    const liveAfter = await liveMetrics(origin);

    // Stored exactly once, with the duplicateCount the re-sends give.
    const { rows } = await watcher.query<{ resource: string; event: string; duplicate_count: number }>(
      'SELECT resource, event, duplicate_count FROM alerts',
    );
    const seen = new Set<string>();
    let wrongCount = 0;
    let unexpected = 0;
    for (const r of rows) {
      const key = `${r.resource}|${r.event}`;
      seen.add(key);
      const want = expected.get(key);
      if (want === undefined) unexpected++;
      else if (want !== r.duplicate_count) wrongCount++;
    }
    const latencies = answers.map((a) => a.answeredAt - a.sentAt);
    const postHist = new Histogram();
    for (const l of latencies) postHist.add(l);
    const converge = results.map((r) => (r.converged ? Math.max(0, r.lastChange - lastAnswer) : Infinity));
    const sum = (f: (r: ScreenResult) => number) => results.reduce((s, r) => s + f(r), 0);
    const span = (lastAnswer - firstSent) / 1000;
    const used = (k: 'server' | 'pg' | 'bench' | 'machine', to = cpuStorm) => round1(to[k] - cpuBefore[k]);
    const summary = {
      alertsSent: alerts + resends * size,
      payloads: payloads.length,
      non201: answers.filter((a) => a.status !== 201).length,
      stored: rows.length,
      distinct: seen.size,
      missing: alerts - [...expected.keys()].filter((k) => seen.has(k)).length,
      unexpected,
      wrongDuplicateCount: wrongCount,
      postP50ms: round1(postHist.quantile(0.5)),
      postP99ms: round1(postHist.quantile(0.99)),
      postMaxMs: round1(postHist.max),
      sendSeconds: round1(span),
      screens: results.length,
      converged: results.filter((r) => r.converged).length,
      convergeMaxMs: round1(Math.max(...converge)),
      convergeP50Ms: round1(quantile(converge, 0.5)),
      wallsMaxMs: round1(Math.max(...converge.filter((_, i) => results[i]!.kind === 'wall'))),
      consolesMaxMs: round1(Math.max(...converge.filter((_, i) => results[i]!.kind === 'console'))),
      disconnects: sum((r) => r.disconnects),
      resyncs: sum((r) => r.resyncs),
      patchMisses: sum((r) => r.patchMisses),
      messages: sum((r) => r.messages),
      fullAlerts: sum((r) => r.fulls),
      patches: sum((r) => r.patches),
      socketMB: round1(sum((r) => r.bytes) / 1e6),
      cpuServerS: used('server'),
      cpuPgS: used('pg'),
      cpuBenchS: used('bench'),
      cpuMachineS: used('machine'),
      cpuServerPerAlertMs: round1(((cpuStorm.server - cpuBefore.server) * 1000) / alerts),
      cpuPgPerAlertMs: round1(((cpuStorm.pg - cpuBefore.pg) * 1000) / alerts),
      cpuServerAfterLastS: round1(cpuAfter.server - cpuStorm.server),
      ...serverPush(liveBefore, liveAfter),
    };
    console.log(JSON.stringify(summary));
    for (const r of results.filter((x) => !x.converged).slice(0, 5))
      console.log(`not converged: ${JSON.stringify(r)}`);
    console.log(
      `\nstored ${summary.stored} (${summary.distinct} distinct of ${alerts}; missing ${summary.missing}, ` +
        `wrong duplicateCount ${summary.wrongDuplicateCount}); webhook POST p50 ${summary.postP50ms} ms, ` +
        `p99 ${summary.postP99ms} ms, non-201 ${summary.non201}\n` +
        `screens converged ${summary.converged}/${summary.screens}, max ${summary.convergeMaxMs} ms after the last ` +
        `answer (walls ${summary.wallsMaxMs}, consoles ${summary.consolesMaxMs}); disconnects ${summary.disconnects}, ` +
        `resyncs ${summary.resyncs}, patches without a base ${summary.patchMisses}\n` +
        `CPU over ${summary.sendSeconds} s: server ${summary.cpuServerS} s, PostgreSQL ${summary.cpuPgS} s, ` +
        `bench ${summary.cpuBenchS} s, machine ${summary.cpuMachineS} s (of ${round1(span * 2)} on 2 cores)`,
    );
  } finally {
    await screens?.close();
    poster.close();
    await admin.end();
    await watcher.end();
    await server.stop();
    await dropTestDatabase(db.name);
  }
}

if (only !== 'cost') await storm();
if (only !== 'storm' && numberArg('cost-rounds', 4) > 0)
  await measureCost({
    rounds: numberArg('cost-rounds', 4),
    alerts: numberArg('cost-alerts', 5000),
    rate: numberArg('cost-rate', 1000),
    size,
    serverFlags,
  });
