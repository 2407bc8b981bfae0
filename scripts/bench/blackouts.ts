/**
 * Receipts with 1,000 recurring blackouts against receipts with none (issue #41 item 3):
 * two server processes on two throw-away databases, identical but for the blackouts, measured in
 * turns with each side first in half of the rounds; prints each run and the median ratio.
 *
 *   node_modules/.bin/node scripts/bench/blackouts.ts [--blackouts 1000] [--rounds 4]
 *        [--duration 10] [--connections 32]
 *
 * The blackouts are in the alerts' environment (so every receipt looks at each of them) but name
 * other resources, so receipts are stored (201) rather than suppressed: the figure is the cost of
 * asking, not of answering yes. Rules vary (weekday evenings, nightly, monthly, hourly) in several
 * zones, and some are in an occurrence while the bench runs.
 */
import { readFileSync } from 'node:fs';
import { createTestDatabase, dropTestDatabase } from '../../tests/helpers/db.ts';
import { startServerProcess, type ServerProcess } from '../../tests/helpers/process.ts';
import { numberArg } from './args.ts';
import { postJson } from './post-json.ts';

const count = numberArg('blackouts', 1000);
const rounds = numberArg('rounds', 4);
const duration = numberArg('duration', 10);
const connections = numberArg('connections', 32);

const RULES = [
  ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18;BYMINUTE=0', 14 * 3600],
  ['FREQ=DAILY;BYHOUR=1;BYMINUTE=0', 3600],
  ['FREQ=MONTHLY;BYDAY=1TU;BYHOUR=22;BYMINUTE=0', 4 * 3600],
  ['FREQ=HOURLY;BYMINUTE=15', 600],
  ['FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=0;BYMINUTE=0', 86_399],
] as const;
const ZONES = ['Europe/Berlin', 'Australia/Sydney', 'America/New_York', 'UTC', 'Asia/Tokyo'];

/** CPU ms a process has used (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function start(label: string, blackouts: number) {
  const db = await createTestDatabase(label);
  const server = await startServerProcess({
    DATABASE_URL: db.url,
    LOG_LEVEL: 'error',
    DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '10',
  });
  const api = `${server.url.replace(/\/$/, '')}/api`;
  for (let k = 0; k < blackouts; k++) {
    const [rrule, length] = RULES[k % RULES.length]!;
    const res = await fetch(`${api}/blackout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        environment: 'Production',
        resource: `maintained-${k}`,
        rrule,
        timezone: ZONES[k % ZONES.length],
        duration: length,
        text: 'bench',
      }),
    });
    if (res.status !== 201) throw new Error(`blackout ${k}: ${res.status} ${await res.text()}`);
  }
  return { db, server, url: `${api}/alert` };
}

const same = JSON.stringify({
  environment: 'Production',
  service: ['network'],
  resource: 'router01',
  event: 'node_down',
  severity: 'major',
});

async function measure(side: string, server: ServerProcess, url: string) {
  const before = cpuMs(server.child.pid!);
  const r = await postJson({ url, connections, duration, body: same });
  const cpu = (cpuMs(server.child.pid!) - before) / (r.requests.total / 1000);
  const row = {
    side,
    'req/s': Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    'server cpu ms/1k': Math.round(cpu),
  };
  console.log(JSON.stringify(row));
  return row;
}

const plain = await start('bench_blackouts_none', 0);
const loaded = await start('bench_blackouts_many', count);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  await postJson({ url: plain.url, connections, duration: 2, body: same });
  await postJson({ url: loaded.url, connections, duration: 2, body: same });
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let k = 0; k < rounds; k++) {
    const order = k % 2 === 0 ? ['none', 'many'] : ['many', 'none'];
    const rows: Record<string, Awaited<ReturnType<typeof measure>>> = {};
    for (const side of order) {
      const s = side === 'none' ? plain : loaded;
      rows[side] = await measure(side === 'none' ? '0 blackouts' : `${count} recurring`, s.server, s.url);
    }
    ratios.push(rows.many!['req/s'] / rows.none!['req/s']);
    cpuRatios.push(rows.many!['server cpu ms/1k'] / rows.none!['server cpu ms/1k']);
  }
  console.log(
    `\n${count} recurring blackouts ÷ none, ${rounds} rounds: req/s median ${median(ratios).toFixed(2)} ` +
      `(${ratios.map((r) => r.toFixed(2)).join(', ')}); server CPU per request median ${median(cpuRatios).toFixed(2)}`,
  );
} finally {
  for (const s of [plain, loaded]) {
    await s.server.stop();
    await dropTestDatabase(s.db.name);
  }
}
