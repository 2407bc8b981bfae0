/**
 * Ingest benchmark (issue #3): POST /alert over loopback against a real server process and a real
 * PostgreSQL, at 32 connections for 10 s per scenario.
 *   (a) the same alert posted repeatedly (the de-duplication path)
 *   (b) 10,000 distinct resources (new alerts, then duplicates of them)
 *   (c) every request a new resource (the insert path)
 *   (d) ten events on each of 1,000 resources (receipts of one resource with different events)
 *   (e) duplicates of 10,000 alerts posted once first (only with --scenarios naming it, e.g. `e`)
 * Usage: node scripts/bench/ingest.ts [--duration 10] [--connections 32] [--forward [dead|live]] [--inline S]
 *        [--rules N]
 *   --forward, --forward dead: the forwarder plugin with one destination where nothing listens
 *   (issue #10: a dead destination must not slow intake; every receipt is queued for it).
 *   --forward live: one destination that answers 200 at once, a stub in a process of its own, so
 *   receipts are delivered inline (issue #17).
 *   --inline S: FWD_INLINE_TIMEOUT, seconds (the server's default otherwise; 0 queues only).
 *   --rules N: N notification rules (issue #22): N - 1 that match none of the benchmark's alerts
 *   and, last, one that matches every one of them, for a webhook receiver served by this process
 *   (so every new alert is routed, queued and delivered; messages are grouped over 10 s).
 *   --group-wait S: with --rules N, the matching rule's group wait (default 10 s); one longer than the
 *   run and its settle leaves every message queued, so only routing and the receipt's writes count.
 *   --rules-miss: with --rules N, the last rule matches none of them either (environment
 *   `Nowhere`): every receipt is matched against N rules and nothing is notified.
 *   --rate N: at most N requests a second in all (autocannon's overallRate) instead of as many as
 *   the server takes: the CPU per request is then compared at the same pace, which depends less on
 *   what else the machine is doing than throughput at saturation does.
 *   --scenarios LETTERS: run only these scenarios (e.g. `--scenarios bc`); default abcd; `e` on request.
 *   --settle S: after each scenario, wait S seconds and then until the forward and notification
 *   queues are empty (up to 60 s more) before reading the CPU, so the figure includes the delivery
 *   work the scenario caused. Runs being compared should use the same S (longer than the rules'
 *   10 s group wait): the idle seconds count in every mode alike.
 * Each scenario also reports the CPU the server and its PostgreSQL backends used per 1,000 requests,
 * and, apart, what the stub destination, the load generator (this process) and the whole machine
 * used: on a machine of two cores those share the server's cores.
 * Uses TEST_DATABASE_URL / DATABASE_URL / postgres://postgres@127.0.0.1:5432/postgres to make a
 * throw-away database. Results go to stdout; docs/benchmarks.md gives the targets and current figures.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type autocannon from 'autocannon';
import { postJson } from './post-json.ts';
import pg from 'pg';
import { createTestDatabase, dropTestDatabase, serverUrl } from '../../tests/helpers/db.ts';
import { startServerProcess } from '../../tests/helpers/process.ts';
import { flag, numberArg, textArg } from './args.ts';
import { addBenchRules } from './notification-rules.ts';

const duration = numberArg('duration', 10);
const connections = numberArg('connections', 32);
const forward = !flag('forward') ? null : textArg('forward') === 'live' ? 'live' : 'dead';
const inlineTimeout = textArg('inline');
const inline = inlineTimeout === undefined ? {} : { FWD_INLINE_TIMEOUT: inlineTimeout };
const scenarios = textArg('scenarios') ?? 'abcd';
const settle = numberArg('settle', 0);
const rate = numberArg('rate', 0);

/** A destination that takes every request at once, in its own process (not the load generator's). */
async function startStubDestination() {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.end('{}')); });
       s.listen(0, '127.0.0.1', () => console.log(s.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((ok) =>
    child.stdout.once('data', (d: Buffer) => ok(d.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}/api`, pid: child.pid!, stop: () => child.kill() };
}

const same = JSON.stringify({
  environment: 'Production',
  service: ['network'],
  resource: 'router01',
  event: 'node_down',
});

/** CPU seconds a process has used (Linux /proc; clock ticks of 10 ms). */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * CPU the server and its PostgreSQL backends have used so far, in ms. Throughput on a shared,
 * busy machine swings with what else runs; the CPU spent per request does much less.
 */
let cpuNow = async () => ({ total: 0, server: 0, destination: 0, bench: 0, machine: 0 });

/** CPU ms every process of the machine has used so far (/proc/stat: all but idle and iowait). */
function machineMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const all = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  return ((all - fields[3]! - fields[4]!) / 100) * 1000;
}

/** This process's CPU ms (the load generator, autocannon, runs in it). */
const benchMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Rows still to be delivered (forward and notification queues), 0 when neither is in use. */
let backlog = async () => 0;

async function run(title: string, url: string, opts: Partial<autocannon.Options>) {
  const skipped = {
    scenario: title,
    'req/s': 0,
    p50: 0,
    p99: 0,
    errors: 0,
    non2xx: 0,
    total: 0,
    'cpu ms/1k': 0,
    'server ms/1k': 0,
    'destination ms/1k': 0,
    'bench ms/1k': 0,
    'machine ms/1k': 0,
  };
  if (!title.startsWith('warm') && !scenarios.includes(title[1]!)) return skipped;
  const cpuBefore = await cpuNow();
  const result = await postJson({
    url,
    connections,
    duration,
    ...(rate > 0 ? { overallRate: rate } : {}),
    ...opts,
  });
  const row = {
    scenario: title,
    'req/s': Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
    'cpu ms/1k': 0,
    'server ms/1k': 0,
    'destination ms/1k': 0,
    'bench ms/1k': 0,
    'machine ms/1k': 0,
  };
  // What the run queued is delivered (forwarded, notified) before the CPU is read again, so each
  // scenario's figure holds the delivery work it caused and none spills into the next one.
  if (settle > 0) {
    await new Promise((ok) => setTimeout(ok, settle * 1000));
    const until = Date.now() + 60_000;
    while ((await backlog()) > 0 && Date.now() < until) await new Promise((ok) => setTimeout(ok, 250));
  }
  const cpuAfter = await cpuNow();
  row['cpu ms/1k'] = Math.round((cpuAfter.total - cpuBefore.total) / (result.requests.total / 1000));
  row['server ms/1k'] = Math.round((cpuAfter.server - cpuBefore.server) / (result.requests.total / 1000));
  // Beside the server and PostgreSQL, the machine also runs the stub destination (--forward live)
  // and the load generator: on a small machine they take what the server would otherwise get.
  for (const part of ['destination', 'bench', 'machine'] as const)
    row[`${part} ms/1k`] = Math.round((cpuAfter[part] - cpuBefore[part]) / (result.requests.total / 1000));
  console.log(JSON.stringify(row));
  return row;
}

const db = await createTestDatabase('bench');
const stub = forward === 'live' ? await startStubDestination() : null;
const destination = stub?.url ?? 'http://127.0.0.1:9/api';
const server = await startServerProcess(
  {
    DATABASE_URL: process.env.BENCH_ASYNC ? db.url + '?options=-c%20synchronous_commit%3Doff' : db.url,
    LOG_LEVEL: 'error',
    DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '10',
    ...(forward
      ? {
          BASE_URL: 'http://127.0.0.1:1/api',
          FWD_DESTINATIONS: JSON.stringify([[destination, { key: 'bench-key' }, ['*']]]),
          ...inline,
        }
      : {}),
  },
  60_000,
  // V8 or profiling flags after npm start's, e.g. BENCH_SERVER_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof'.
  (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean),
);
const url = `${server.url.replace(/\/$/, '')}/api/alert`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
cpuNow = async () => {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
    db.name,
  ]);
  const own = 1000 * cpuOf(server.child.pid!);
  const backends = rows.filter((r) => r.pid !== watcherPid);
  return {
    server: own,
    total: own + 1000 * backends.reduce((sum, r) => sum + cpuOf(r.pid), 0),
    destination: stub ? 1000 * cpuOf(stub.pid) : 0,
    bench: benchMs(),
    machine: machineMs(),
  };
};
// The bench's own connection to the server's database (left out of the CPU figures).
const watcher = new pg.Client({ connectionString: db.url });
await watcher.connect();
const watcherPid = Number(
  (await watcher.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid,
);
backlog = async () => {
  const { rows } = await watcher.query<{ n: string }>(
    'SELECT (SELECT count(*) FROM forward_queue) + (SELECT count(*) FROM notification_queue) AS n',
  );
  return Number(rows[0]!.n);
};
const rules = numberArg('rules', 0);
// The receiver: answers at once and counts what it got.
let delivered = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    delivered++;
    res.end('{}');
  });
});
if (rules > 0) {
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', () => ok()));
  const port = (receiver.address() as AddressInfo).port;
  await addBenchRules(url.replace(/\/alert$/, ''), rules, `http://127.0.0.1:${port}/hook`, {
    environment: flag('rules-miss') ? 'Nowhere' : 'Prod.*',
    groupWait: numberArg('group-wait', 10),
  });
}
try {
  await run('warm-up', url, { body: same, duration: 2 });
  const a = await run('(a) same alert repeatedly', url, { body: same });
  // Bodies are made up front so the load generator, which shares the two cores, spends little per request.
  const bodies = Array.from({ length: 10_000 }, (_, k) =>
    JSON.stringify({
      environment: 'Production',
      service: ['network'],
      resource: `router${k}`,
      event: 'node_down',
      severity: 'major',
    }),
  );
  let i = 0;
  const b = await run('(b) 10,000 distinct resources', url, {
    requests: [{ setupRequest: (req) => ({ ...req, body: bodies[i++ % bodies.length] }) }],
  });
  // (c): every request a new resource (autocannon's cheap [<id>] replacement): the pure insert path.
  const c = await run('(c) every request a new resource', url, {
    idReplacement: true,
    body: JSON.stringify({
      environment: 'Production',
      service: ['network'],
      resource: 'host-[<id>]',
      event: 'node_down',
      severity: 'major',
    }),
  });
  // (d): ten events on each of 1,000 resources, a resource's ten sent one after the other so they
  // are in flight together: receipts of one resource with different events, which the receive
  // path orders per resource since they might correlate.
  const events = Array.from({ length: 10_000 }, (_, k) =>
    JSON.stringify({
      environment: 'Production',
      service: ['network'],
      resource: `switch${Math.floor(k / 10)}`,
      event: `port${k % 10}_down`,
      severity: 'minor',
    }),
  );
  let j = 0;
  const d = await run('(d) 10 events on each of 1,000 resources', url, {
    requests: [{ setupRequest: (req) => ({ ...req, body: events[j++ % events.length] }) }],
  });
  // (e): duplicates of 10,000 alerts that all exist (posted once first, uncounted): the plain
  // duplicate path of many different alerts, which (b) reaches only after its first 10,000.
  let e: typeof a | null = null;
  if (scenarios.includes('e')) {
    let k = 0;
    const seedBodies = {
      requests: [{ setupRequest: (req: object) => ({ ...req, body: bodies[k++ % bodies.length] }) }],
    };
    await postJson({
      url,
      connections,
      amount: bodies.length,
      ...seedBodies,
    });
    e = await run('(e) duplicates of 10,000 existing alerts', url, seedBodies);
  }
  console.log(
    '\n| scenario | req/s | p50 ms | p99 ms | errors | non-2xx | requests | CPU ms / 1k requests | of which server | destination | load generator | whole machine |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of [a, b, c, d, e].filter((x): x is typeof a => x !== null && x.total > 0))
    console.log(
      `| ${r.scenario} | ${r['req/s']} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${r.total} | ${r['cpu ms/1k']} | ${r['server ms/1k']} | ${r['destination ms/1k']} | ${r['bench ms/1k']} | ${r['machine ms/1k']} |`,
    );
  if (forward) {
    const status = (await (await fetch(`${server.url.replace(/\/$/, '')}/api/management/status`)).json()) as {
      forwarding: { destinations: Record<string, unknown>[] };
    };
    const d = status.forwarding.destinations[0] ?? {};
    console.log(
      `\nforwarding to a ${forward} destination: delivered ${String(d.delivered)}, failed ${String(d.failed)}, ` +
        `still queued ${String(d.queued)}`,
    );
  }
  if (rules > 0) {
    // The last groups come due 10 s after their first alert: give delivery a moment.
    await new Promise((r) => setTimeout(r, 12_000));
    console.log(`\n${rules} rules; webhook requests received: ${delivered}`);
  }
} finally {
  stub?.stop();
  await admin.end();
  await watcher.end();
  receiver.close();
  await server.stop();
  await dropTestDatabase(db.name);
}
