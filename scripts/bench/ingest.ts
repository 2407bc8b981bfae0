/**
 * Ingest benchmark (issue #3): POST /alert over loopback against a real server process and a real
 * PostgreSQL, at 32 connections for 10 s per scenario.
 *   (a) the same alert posted repeatedly (the de-duplication path)
 *   (b) 10,000 distinct resources (new alerts, then duplicates of them)
 *   (c) every request a new resource (the insert path)
 *   (d) ten events on each of 1,000 resources (receipts of one resource with different events)
 * Usage: node scripts/bench/ingest.ts [--duration 10] [--connections 32] [--forward [dead|live]] [--inline S]
 *   --forward, --forward dead: the forwarder plugin with one destination where nothing listens
 *   (issue #10: a dead destination must not slow intake; every receipt is queued for it).
 *   --forward live: one destination that answers 200 at once, a stub in a process of its own, so
 *   receipts are delivered inline (issue #17).
 *   --inline S: FWD_INLINE_TIMEOUT, seconds (the server's default otherwise; 0 queues only).
 * Uses TEST_DATABASE_URL / DATABASE_URL / postgres://postgres@127.0.0.1:5432/postgres to make a
 * throw-away database. Results go to stdout; docs/benchmarks.md records them.
 */
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { createTestDatabase, dropTestDatabase } from '../../tests/helpers/db.ts';
import { startServerProcess } from '../../tests/helpers/process.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const duration = arg('duration', 10);
const connections = arg('connections', 32);
const forwardAt = process.argv.indexOf('--forward');
const forward = forwardAt < 0 ? null : process.argv[forwardAt + 1] === 'live' ? 'live' : 'dead';
const inlineAt = process.argv.indexOf('--inline');
const inline = inlineAt < 0 ? {} : { FWD_INLINE_TIMEOUT: process.argv[inlineAt + 1] };

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
  return { url: `http://127.0.0.1:${port}/api`, stop: () => child.kill() };
}

const same = JSON.stringify({
  environment: 'Production',
  service: ['network'],
  resource: 'router01',
  event: 'node_down',
});

async function run(title: string, url: string, opts: Partial<autocannon.Options>) {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections,
    duration,
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
  };
  console.log(JSON.stringify(row));
  return row;
}

const db = await createTestDatabase('bench');
const stub = forward === 'live' ? await startStubDestination() : null;
const destination = stub?.url ?? 'http://127.0.0.1:9/api';
const server = await startServerProcess({
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
});
const url = `${server.url.replace(/\/$/, '')}/api/alert`;
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
  console.log('\n| scenario | req/s | p50 ms | p99 ms | errors | non-2xx | requests |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of [a, b, c, d])
    console.log(
      `| ${r.scenario} | ${r['req/s']} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${r.total} |`,
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
} finally {
  stub?.stop();
  await server.stop();
  await dropTestDatabase(db.name);
}
