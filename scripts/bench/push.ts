/**
 * Live push benchmark (docs/live.md): a real server process on a throw-away database, N Socket.IO
 * clients in this process, all subscribed to the same view (`query: ''`, every alert), and alerts
 * POSTed over loopback.
 *   (A) 200 clients, alerts POSTed at a steady 500/s for 10 s, each a resource drawn at random from
 *       3,000 (so both new alerts and updates): end-to-end latency per event (measured on 20 clients in this thread; the rest load the server from worker threads) = when a client gets
 *       the `alert.updated` carrying that POST's state − when the POST was sent, and − when its
 *       answer arrived (the issue's "POST accepted"; 0 when the socket was first).
 *   (B) 1,000 clients, alerts POSTed as fast as the server takes them (32 in flight) for 10 s:
 *       alerts delivered per second summed over all clients, and the POST rate achieved.
 * Usage: node scripts/bench/push.ts [--clients N] [--rate 500] [--duration 10] [--redis] [--full]
 *   [--scenario a|b] [--connections 32] [--resources 3000]
 * `--clients` sets the client count of every scenario run (default 200 for A, 1,000 for B).
 * `--redis` runs the server with REDIS_URL=redis://127.0.0.1:6379 and a channel of its own.
 * Clients subscribe with `patches` (changed alerts as only their changed fields, as the web UI
 * does); `--full` subscribes them for full alerts (as the CLI does).
 * Each scenario gets a fresh database and server, so every snapshot taken at subscribe is small.
 *
 * Matching: every POST carries its own `id`. A new alert takes it as its id; a duplicate keeps the
 * alert's id and records it as `lastReceiveId`. Either way the state a POST produced travels on the
 * socket with `lastReceiveId` = that id, so a delivery is matched to its POST (and its send time)
 * even when the socket message overtakes the POST response. Latency is taken once per (client,
 * POST): the first delivery of that state. Bursts are coalesced per alert, so a POST whose state
 * was never delivered is fine when a later state of the same alert (in the server's order: the
 * POST responses' duplicateCount) reached that client: it is counted as superseded; only the rest
 * are missing.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuOf, liveMetrics, machineCpu, Phase, round1, selfCpu, serverPush } from './push-measure.ts';
import { STAT, clock } from './push-shared.ts';
import { createTestDatabase, dropTestDatabase } from '../../tests/helpers/db.ts';
import { startFlags } from './start-flags.ts';
import { startServerProcess, type ServerProcess } from '../../tests/helpers/process.ts';
import { flag, numberArg, textArg } from './args.ts';
import { closeWorkers, workersReady } from './socket.ts';

const clientsArg = textArg('clients');
const rate = numberArg('rate', 500);
const duration = numberArg('duration', 10);
const connections = numberArg('connections', 32);
const resources = numberArg('resources', 3000);
const redis = flag('redis');
/** Clients subscribe with `patches` (as the web UI does) unless `--full` (as the CLI does). */
const patches = !flag('full');
const only = textArg('scenario')?.toLowerCase();

/** The measuring clients, in a worker thread of their own (push-probe.ts). */
async function startProbes(origin: string, count: number) {
  const worker = new Worker(new URL('./push-probe.ts', import.meta.url), {
    workerData: { origin, count, patches },
  });
  const next = (type: string) =>
    new Promise<void>((ok, fail) => {
      const on = (m: { type: string }) => {
        if (m.type !== type) return;
        worker.off('message', on);
        ok();
      };
      worker.on('message', on);
      worker.once('error', fail);
    });
  await next('ready');
  return {
    async setPhase(p: Phase) {
      const set = next('phase-set');
      worker.postMessage({ type: 'phase', buffers: p.buffers });
      await set;
    },
    close: () =>
      new Promise<void>((ok) => {
        worker.once('exit', () => ok());
        worker.postMessage({ type: 'close' });
        setTimeout(() => void worker.terminate(), 3000).unref();
      }),
  };
}

/** Clients measured (in a worker of their own); the others only load the server, from other workers. */
const PROBES = 20;

interface LoadClients {
  reset(): void;
  report(): Promise<{ messages: number; alerts: number; resyncs: number; disconnects: number }>;
  close(): Promise<void>;
}

/** Starts `count` load clients over up to 4 worker threads. */
async function startLoadClients(origin: string, count: number): Promise<LoadClients> {
  const n = count > 0 ? Math.min(4, Math.ceil(count / 50)) : 0;
  const workers = Array.from({ length: n }, (_, i) => {
    const share = Math.floor(count / n) + (i < count % n ? 1 : 0);
    return new Worker(new URL('./push-worker.ts', import.meta.url), {
      workerData: { origin, count: share, patches },
    });
  });
  await workersReady(workers);
  return {
    reset: () => workers.forEach((w) => w.postMessage('reset')),
    async report() {
      const parts = await Promise.all(
        workers.map(
          (w) =>
            new Promise<{ messages: number; alerts: number; resyncs: number; disconnects: number }>((ok) => {
              const on = (m: {
                type: string;
                messages: number;
                alerts: number;
                resyncs: number;
                disconnects: number;
              }) => {
                if (m.type !== 'report') return;
                w.off('message', on);
                ok(m);
              };
              w.on('message', on);
              w.postMessage('report');
            }),
        ),
      );
      return parts.reduce(
        (a, b) => ({
          messages: a.messages + b.messages,
          alerts: a.alerts + b.alerts,
          resyncs: a.resyncs + b.resyncs,
          disconnects: a.disconnects + b.disconnects,
        }),
        { messages: 0, alerts: 0, resyncs: 0, disconnects: 0 },
      );
    },
    async close() {
      await closeWorkers(workers);
    },
  };
}

async function scenario(opts: {
  key: 'A' | 'B';
  title: string;
  clients: number;
  /** POSTs per second (open loop), or null: as fast as `connections` requests in flight allow. */
  rate: number | null;
}) {
  const db = await createTestDatabase('bench_push');
  const env: Record<string, string> = { DATABASE_URL: db.url, LOG_LEVEL: 'error' };
  // e.g. BENCH_SERVER_NODE_OPTIONS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the server.
  if (process.env.BENCH_SERVER_NODE_OPTIONS) env.NODE_OPTIONS = process.env.BENCH_SERVER_NODE_OPTIONS;
  if (redis) {
    env.REDIS_URL = 'redis://127.0.0.1:6379';
    env.BUS_CHANNEL = `bench.push.${randomBytes(4).toString('hex')}`;
  }
  let server: ServerProcess | undefined;
  let probeWorker: Awaited<ReturnType<typeof startProbes>> | null = null;
  let load: LoadClients | null = null;
  try {
    // V8 flags after npm start's (NODE_OPTIONS refuses most), e.g. BENCH_SERVER_FLAGS='--heap-growing-percent=0'.
    const flags = [...startFlags(), ...(process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean)];
    server = await startServerProcess(env, 60_000, flags);
    const origin = new URL(server.url).origin;
    const postUrl = `${origin}/api/alert`;
    let phase: Phase | null = null;

    const post = async (p: Phase, k: number) => {
      const index = p.sentAt.length;
      const tracked = p === phase; // the warm-up phase is not looked up by the clients
      const id = tracked ? `${p.buffers.tag}${index}` : randomUUID();
      const measured = tracked && index < p.capacity;
      p.resource.push(k);
      p.order.push(-1);
      const body = JSON.stringify({
        id,
        environment: 'Production',
        service: ['bench'],
        resource: `${tracked ? 'push' : 'warm'}-${k}`,
        event: 'node_down',
        severity: 'major',
        origin: 'bench/push',
        text: 'push benchmark',
      });
      const t = performance.now();
      p.sentAt.push(t);
      if (measured) p.sentAbs[index] = clock();
      try {
        const res = await fetch(postUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const answer = (await res.json()) as { alert?: { lastReceiveId: string; duplicateCount: number } };
        if (measured) p.acceptedAbs[index] = clock();
        p.postLatency.add(performance.now() - t);
        if (res.status === 201 && answer.alert) {
          p.ok++;
          p.order[index] = answer.alert.duplicateCount;
          if (answer.alert.lastReceiveId !== id) p.idMismatch++;
        } else p.non2xx++;
      } catch {
        p.errors++;
      }
    };

    /** Open loop at `perSecond` for `seconds`, at most 1,000 in flight (over that, a POST is skipped). */
    const paced = async (p: Phase, perSecond: number, seconds: number, pool: number) => {
      const interval = 1000 / perSecond;
      const total = Math.round(perSecond * seconds);
      const inflight = new Set<Promise<void>>();
      const start = performance.now();
      let sent = 0;
      while (sent < total) {
        const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
        for (; sent < due; sent++) {
          if (inflight.size >= 1000) {
            p.skipped++;
            continue;
          }
          const req = post(p, Math.floor(Math.random() * pool)).finally(() => inflight.delete(req));
          inflight.add(req);
        }
        await sleep(1);
      }
      await Promise.all(inflight);
    };

    /** Closed loop: `connections` requests in flight for `seconds`. */
    const flat = async (p: Phase, seconds: number, pool: number) => {
      const end = performance.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < end) await post(p, Math.floor(Math.random() * pool));
        }),
      );
    };

    // The measuring clients share this event loop; the rest run in worker threads (push-worker.ts).
    const probes = Math.min(opts.clients, PROBES);
    probeWorker = await startProbes(origin, probes);
    load = await startLoadClients(origin, opts.clients - probes);

    // Warm-up: 2 s on 50 other resources (a small view for the clients), not measured.
    const warm = new Phase(0, 0);
    if (opts.rate) await paced(warm, Math.min(opts.rate, 200), 2, 50);
    else await flat(warm, 2, 50);
    await sleep(1000);

    const capacity = opts.rate ? Math.ceil(opts.rate * duration * 1.2) + 1024 : 1 << 18;
    const p = new Phase(probes, capacity);
    load.reset();
    await probeWorker.setPhase(p);
    phase = p;
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const metrics0 = await liveMetrics(origin).catch(() => null);
    const cpu0 = { server: cpuOf(server.child.pid!), self: selfCpu(), machine: machineCpu() };
    const t0 = performance.now();
    const t0Abs = clock();
    if (opts.rate) await paced(p, opts.rate, duration, resources);
    else await flat(p, duration, resources);
    const postEnd = performance.now();
    // Drain: until no alert has arrived for 2 s (at most 60 s).
    const postEndAbs = clock();
    while (
      clock() - Math.max(p.stats[STAT.lastDelivery]!, postEndAbs) < 2000 &&
      clock() - postEndAbs < 60_000
    )
      await sleep(100);
    p.absorb();
    const wall = (performance.now() - t0) / 1000;
    loop.disable();
    const cpu1 = { server: cpuOf(server.child.pid!), self: selfCpu(), machine: machineCpu() };
    const metrics1 = await liveMetrics(origin).catch(() => null);

    // Classify every (client, successful POST): delivered, superseded by a later delivered state of
    // the same alert (coalesced), or missing.
    const byResource = new Map<number, number[]>();
    const posts = Math.min(p.sentAt.length, p.capacity);
    for (let k = 0; k < posts; k++) {
      if (p.order[k]! < 0) continue;
      const list = byResource.get(p.resource[k]!) ?? [];
      list.push(k);
      byResource.set(p.resource[k]!, list);
    }
    for (const list of byResource.values()) list.sort((a, b) => p.order[a]! - p.order[b]! || a - b);
    let delivered = 0;
    let superseded = 0;
    let missing = 0;
    for (const bits of p.bits) {
      for (const list of byResource.values()) {
        let later = false;
        for (let j = list.length - 1; j >= 0; j--) {
          const k = list[j]!;
          if (bits[k >> 3]! & (1 << (k & 7))) {
            delivered++;
            later = true;
          } else if (later) superseded++;
          else missing++;
        }
      }
    }
    const expected = p.ok * probes;
    const loadTotals = await load.report();
    const deliverySpan = p.lastDelivery && p.firstDelivery ? (p.lastDelivery - t0Abs) / 1000 : wall;
    const row = {
      scenario: opts.title,
      key: opts.key,
      bus: redis ? 'redis' : 'in-process',
      clients: opts.clients,
      targetRate: opts.rate,
      posts: p.sentAt.length,
      postsOk: p.ok,
      sendRate: Math.round(p.sentAt.length / ((p.sentAt.at(-1)! - t0) / 1000)),
      postRate: Math.round(p.ok / ((postEnd - t0) / 1000)),
      postP50: round1(p.postLatency.quantile(0.5)),
      postP99: round1(p.postLatency.quantile(0.99)),
      non2xx: p.non2xx,
      errors: p.errors,
      skipped: p.skipped,
      idMismatch: p.idMismatch,
      newAlerts: byResource.size,
      expected,
      delivered,
      superseded,
      missing,
      repeats: p.repeats,
      unmatched: p.unmatched,
      untracked: p.untracked,
      acceptedP50: round1(p.acceptedLatency.quantile(0.5)),
      acceptedP99: round1(p.acceptedLatency.quantile(0.99)),
      latencyP50: round1(p.latency.quantile(0.5)),
      latencyP99: round1(p.latency.quantile(0.99)),
      latencyMax: round1(p.latency.max),
      messages: p.messages,
      alertsDelivered: p.alerts,
      alertsPerMessage: p.messages ? round1(p.alerts / p.messages) : null,
      patches,
      patchedShare: p.alerts ? round1((100 * p.patched) / p.alerts) : null,
      kbPerClient: Math.round(p.bytes / probes / 1024),
      probes,
      // Load clients should each get what a measuring client got (all alerts, coalesced alike).
      loadAlertsPerClient:
        opts.clients > probes ? Math.round(loadTotals.alerts / (opts.clients - probes)) : null,
      probeAlertsPerClient: Math.round(p.alerts / probes),
      deliveredPerSec: Math.round((p.alerts + loadTotals.alerts) / deliverySpan),
      messagesPerSec: Math.round(p.messages / deliverySpan),
      deliverySeconds: round1(deliverySpan),
      countsMessages: p.countsMessages,
      removed: p.removed,
      resyncs: p.resyncs + loadTotals.resyncs,
      disconnects: p.disconnects + loadTotals.disconnects,
      serverCpu: round1((cpu1.server - cpu0.server) / wall),
      benchCpu: round1((cpu1.self - cpu0.self) / wall),
      machineBusy: round1(
        (cpu1.machine.busy - cpu0.machine.busy) /
          (cpu1.machine.busy - cpu0.machine.busy + cpu1.machine.idle - cpu0.machine.idle),
      ),
      benchLoopP99: round1(loop.percentile(99) / 1e6),
      ...(metrics0 && metrics1 ? serverPush(metrics0, metrics1) : {}),
    };
    console.log(JSON.stringify(row));
    return row;
  } finally {
    await probeWorker?.close();
    await load?.close();
    if (server) await server.stop();
    await dropTestDatabase(db.name);
  }
}

const rows = [];
if (!only || only === 'a')
  rows.push(
    await scenario({
      key: 'A',
      title: `(A) ${rate}/s steady`,
      clients: clientsArg ? Number(clientsArg) : 200,
      rate,
    }),
  );
if (!only || only === 'b')
  rows.push(
    await scenario({
      key: 'B',
      title: `(B) as fast as taken, ${connections} in flight`,
      clients: clientsArg ? Number(clientsArg) : 1000,
      rate: null,
    }),
  );

console.log(
  `\n${redis ? 'Redis bus' : 'in-process bus'}, ${duration} s per scenario, ${resources} resources\n` +
    '\n| scenario | clients | POST/s | POST p99 ms | expected | delivered | superseded | missing |' +
    ' from accepted p50 ms | p99 ms | from sent p50 ms | p99 ms | max ms | alerts/msg | delivered alerts/s |' +
    ' server CPU | bench CPU | machine busy | KB/client | patches % |',
);
console.log(`|${' --- |'.repeat(20)}`);
for (const r of rows)
  console.log(
    `| ${r.scenario} | ${r.clients} | ${r.postRate} | ${r.postP99} | ${r.expected} | ${r.delivered} |` +
      ` ${r.superseded} | ${r.missing} | ${r.acceptedP50} | ${r.acceptedP99} |` +
      ` ${r.latencyP50} | ${r.latencyP99} | ${r.latencyMax} |` +
      ` ${r.alertsPerMessage} | ${r.deliveredPerSec} | ${r.serverCpu} | ${r.benchCpu} | ${r.machineBusy} |` +
      ` ${r.kbPerClient} | ${r.patches ? r.patchedShare : 'off'} |`,
  );
