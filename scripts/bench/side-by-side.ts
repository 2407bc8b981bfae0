/**
 * Ingest against a plain PostgreSQL upsert, side by side in one run (issue #20 item 6), so the
 * ratio does not depend on the day's machine. Each pair runs back to back, same client count:
 *   hot       pgbench: INSERT … ON CONFLICT DO UPDATE on one row, vs POST /alert of one alert repeatedly
 *   distinct  pgbench: the same on 10,000 rows chosen at random, vs POST /alert over 10,000 resources
 *   new       pgbench: every transaction a new row, vs POST /alert with every request a new resource
 *   floor     pgbench: distinct again, vs GET /api/_ (an answer with no database work at all): the
 *             most any POST /alert could reach in this stack on this machine, as a share of distinct's
 *   bare      pgbench: distinct again, vs POST /alert of distinct's bodies to scripts/bench/bare-server.ts
 *             (node:http and a batched upsert into pgbench's own table, nothing else): the ceiling of a
 *             Node server on this machine for distinct's load, which the product's distinct is read against
 *   bare-new  pgbench: new again, vs POST /alert of new's bodies (every request a new resource) to
 *             bare-server.ts: the same ceiling for new's load, which the product's new is read against
 * The pgbench table is shaped like `alerts` (text identity columns, arrays, jsonb, the unique
 * identity index), with the same statement per transaction a receipt needs at least: one upsert.
 * Goals: hot ≥ 1.0× (de-duplication at least as fast as the database's own hot-row upsert),
 * distinct ≥ 0.5×.
 * Usage: node scripts/bench/side-by-side.ts [--duration 10] [--connections 32] [--rounds 2]
 *        [--forward] [--rules 20] [--only hot,distinct,new,floor,bare,bare-new]
 * Before the rounds both sides hold the 10,000 rows / alerts `distinct` picks from (pgbench's
 * distinct rows are all updates after its first second; ours are then too).
 *   --forward: the forwarder with one destination where nothing listens (every receipt queued);
 *   --rules N: N notification rules, the last matching every alert of `distinct` and `new`.
 * Needs `pgbench` on PATH (or PGBENCH=/path). Uses TEST_DATABASE_URL / DATABASE_URL /
 * postgres://postgres@127.0.0.1:5432/postgres for two throw-away databases.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { postJson } from './post-json.ts';
import pg from 'pg';
import { createTestDatabase, dropTestDatabase, serverUrl } from '../../tests/helpers/db.ts';
import { startServerProcess } from '../../tests/helpers/process.ts';
import { flag, numberArg, textArg } from './args.ts';
import { addBenchRules } from './notification-rules.ts';

const duration = numberArg('duration', 10);
const connections = numberArg('connections', 32);
const rounds = numberArg('rounds', 2);
const rules = numberArg('rules', 0);
const forward = flag('forward');
const run = promisify(execFile);

// ---- pgbench -----------------------------------------------------------------------------------

const TABLE = `
CREATE TABLE upserts (
  id text PRIMARY KEY, environment text NOT NULL, resource text NOT NULL, event text NOT NULL,
  customer text, severity text NOT NULL, status text NOT NULL, service text[] NOT NULL, tags text[] NOT NULL,
  attributes jsonb NOT NULL, text text NOT NULL, value text, duplicate_count integer NOT NULL DEFAULT 0,
  repeat boolean NOT NULL DEFAULT false, last_receive_id text NOT NULL,
  create_time timestamptz NOT NULL, receive_time timestamptz NOT NULL, last_receive_time timestamptz NOT NULL
);
CREATE UNIQUE INDEX upserts_identity ON upserts (environment, resource, event, COALESCE(customer, ''));
CREATE INDEX upserts_time ON upserts (last_receive_time DESC);`;

/** One receipt as one upsert; `:k` picks the resource. */
const upsert = (pick: string) => `${pick}
INSERT INTO upserts AS u (id, environment, resource, event, severity, status, service, tags, attributes, text,
  last_receive_id, create_time, receive_time, last_receive_time)
VALUES (gen_random_uuid()::text, 'Production', 'router' || :k, 'node_down', 'major', 'open', '{network}', '{}',
  '{"notify": true}', '', gen_random_uuid()::text, now(), now(), now())
ON CONFLICT (environment, resource, event, COALESCE(customer, '')) DO UPDATE SET
  duplicate_count = u.duplicate_count + 1, repeat = true, last_receive_id = EXCLUDED.last_receive_id,
  last_receive_time = EXCLUDED.last_receive_time, attributes = u.attributes || EXCLUDED.attributes
RETURNING id, duplicate_count;
`;
const SCRIPTS = {
  hot: upsert('\\set k 1'),
  distinct: upsert('\\set k random(1, 10000)'),
  // A new row every time: the client id and a counter per client would need state; a random key
  // over 2^40 repeats with negligible probability.
  new: upsert('\\set k random(1, 1099511627776)'),
  floor: upsert('\\set k random(1, 10000)'),
  bare: upsert('\\set k random(1, 10000)'),
  'bare-new': upsert('\\set k random(1, 1099511627776)'),
};
type Shape = keyof typeof SCRIPTS;

const dir = mkdtempSync(join(tmpdir(), 'side-by-side-'));
for (const [name, text] of Object.entries(SCRIPTS)) writeFileSync(join(dir, `${name}.sql`), text);

async function pgbench(url: string, shape: Shape): Promise<number> {
  const { stdout } = await run(
    process.env.PGBENCH ?? 'pgbench',
    [
      '-n',
      '-M',
      'prepared',
      '-c',
      String(connections),
      '-j',
      '2',
      '-T',
      String(duration),
      '-f',
      join(dir, `${shape}.sql`),
      url,
    ],
    { maxBuffer: 1 << 24 },
  );
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
  if (!tps) throw new Error(`pgbench said:\n${stdout}`);
  return Number(tps[1]);
}

// ---- the product -------------------------------------------------------------------------------

const alert = (resource: string) =>
  JSON.stringify({
    environment: 'Production',
    service: ['network'],
    resource,
    event: 'node_down',
    severity: 'major',
  });
const bodies = Array.from({ length: 10_000 }, (_, k) => alert(`router${k}`));

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
 * CPU ms a server process (`node`) and the PostgreSQL backends connected to its database (`pg`)
 * use from `start()` to `stop()`. Backends are listed every 250 ms and each one's last reading kept:
 * a pool closing idle connections ends backends during a run, and their CPU would otherwise vanish
 * from the sum (bare-server.ts's pool did so after pgbench's pause).
 */
function cpuMeter(pid: number, database: string) {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let node0 = 0;
  const sample = async (initial: boolean) => {
    const { rows } = await admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1',
      [database],
    );
    for (const r of rows) {
      const ms = 1000 * cpuOf(r.pid);
      if (ms === 0) continue;
      if (!first.has(r.pid)) first.set(r.pid, initial ? ms : 0);
      last.set(r.pid, ms);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  return {
    async start() {
      node0 = 1000 * cpuOf(pid);
      await sample(true);
      timer = setInterval(() => void sample(false), 250);
    },
    async stop(): Promise<{ node: number; pg: number }> {
      clearInterval(timer);
      await sample(false);
      let pgMs = 0;
      for (const [p, ms] of last) pgMs += ms - first.get(p)!;
      return { node: 1000 * cpuOf(pid) - node0, pg: pgMs };
    },
  };
}

interface Http {
  rps: number;
  non2xx: number;
  errors: number;
  /** CPU ms per receipt of the server and its PostgreSQL backends (0 for floor). */
  cpu: number;
  /** Of which the server process's. */
  node: number;
}

async function http(api: string, shape: Shape): Promise<Http> {
  if (shape === 'floor') {
    const result = await autocannon({ url: `${api}/_`, connections, duration });
    return {
      rps: result.requests.average,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      cpu: 0,
      node: 0,
    };
  }
  const isBare = shape === 'bare' || shape === 'bare-new';
  const [pid, database] = isBare ? [bare.pid!, plain.name] : [server.child.pid!, db.name];
  const url = shape === 'bare' || shape === 'bare-new' ? `${bareUrl}/alert` : `${api}/alert`;
  let i = 0;
  const shapeOpts: Partial<autocannon.Options> =
    shape === 'hot'
      ? { body: alert('router01') }
      : shape === 'distinct' || shape === 'bare'
        ? { requests: [{ setupRequest: (req) => ({ ...req, body: bodies[i++ % bodies.length] }) }] }
        : { idReplacement: true, body: alert('host-[<id>]') };
  const meter = cpuMeter(pid, database);
  await meter.start();
  const result = await postJson({
    url,
    connections,
    duration,
    ...shapeOpts,
  });
  const used = await meter.stop();
  const per = (ms: number) => (result.requests.total ? ms / result.requests.total : 0);
  return {
    rps: result.requests.average,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpu: per(used.node + used.pg),
    node: per(used.node),
  };
}

/** The 10,000 rows of `distinct` on both sides: a generated insert, and every body posted once. */
async function seed(plainUrl: string, url: string) {
  const client = new pg.Client({ connectionString: plainUrl });
  await client.connect();
  await client.query(`INSERT INTO upserts (id, environment, resource, event, severity, status, service, tags,
      attributes, text, last_receive_id, create_time, receive_time, last_receive_time)
    SELECT gen_random_uuid()::text, 'Production', 'router' || k, 'node_down', 'major', 'open', '{network}', '{}',
      '{"notify": true}', '', gen_random_uuid()::text, now(), now(), now()
    FROM generate_series(1, 10000) k ON CONFLICT DO NOTHING`);
  await client.end();
  let i = 0;
  const result = await postJson({
    url,
    connections,
    amount: bodies.length,
    requests: [{ setupRequest: (req) => ({ ...req, body: bodies[i++ % bodies.length] }) }],
  });
  if (result.non2xx || result.errors)
    throw new Error(`seeding: ${result.non2xx} non-2xx, ${result.errors} errors`);
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

// ---- the run -----------------------------------------------------------------------------------

const plain = await createTestDatabase('bench_upsert');
const db = await createTestDatabase('bench_side');
const server = await startServerProcess(
  {
    DATABASE_URL: db.url,
    LOG_LEVEL: 'error',
    DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '10',
    ...(forward
      ? {
          BASE_URL: 'http://127.0.0.1:1/api',
          FWD_DESTINATIONS: JSON.stringify([['http://127.0.0.1:9/api', { key: 'bench-key' }, ['*']]]),
        }
      : {}),
  },
  60_000,
  // V8 or profiling flags after npm start's, e.g. BENCH_SERVER_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof'.
  (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean),
);
const api = `${server.url.replace(/\/$/, '')}/api`;
// BENCH_BARE_FLAGS: V8 or profiling flags for bare-server.ts, as BENCH_SERVER_FLAGS for the product.
const bareFlags = (process.env.BENCH_BARE_FLAGS ?? '').split(' ').filter(Boolean);
const bare = spawn(process.execPath, [...bareFlags, new URL('./bare-server.ts', import.meta.url).pathname], {
  env: { ...process.env, DATABASE_URL: plain.url },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let bareUrl = '';
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
const results: {
  round: number;
  shape: Shape;
  pgbench: number;
  ingest: number;
  bad: number;
  cpu: number;
  node: number;
}[] = [];
try {
  bareUrl = await new Promise<string>((ok, fail) => {
    bare.stdout!.on('data', (d: Buffer) => {
      const port = /listening on (\d+)/.exec(d.toString())?.[1];
      if (port) ok(`http://127.0.0.1:${port}`);
    });
    bare.on('exit', (code) => fail(new Error(`bare-server.ts exited with ${code}`)));
  });
  const client = new pg.Client({ connectionString: plain.url });
  await client.connect();
  await client.query(TABLE);
  await client.end();
  if (rules > 0) {
    // Nothing listens on port 9: deliveries fail and back off, as with a dead forward destination.
    await addBenchRules(api, rules, 'http://127.0.0.1:9/hook', { environment: 'Prod.*', groupWait: 10 });
  }
  await http(api, 'hot'); // warm-up (connections, prepared statements)
  await pgbench(plain.url, 'hot');
  // `distinct` compares upserts of rows that exist: both sides hold its 10,000 rows / alerts first
  // (otherwise the first round's POSTs would mostly create alerts while pgbench mostly updates).
  await seed(plain.url, `${api}/alert`);
  const only = textArg('only')?.split(',') ?? null;
  for (let round = 1; round <= rounds; round++) {
    for (const shape of ['hot', 'distinct', 'new', 'floor', 'bare', 'bare-new'] as const) {
      if (only && !only.includes(shape)) continue;
      const base = await pgbench(plain.url, shape);
      const ours = await http(api, shape);
      const row = {
        round,
        shape,
        pgbench: Math.round(base),
        ingest: Math.round(ours.rps),
        bad: ours.non2xx + ours.errors,
        cpu: +ours.cpu.toFixed(3),
        node: +ours.node.toFixed(3),
      };
      results.push(row);
      console.log(JSON.stringify({ ...row, ratio: +(ours.rps / base).toFixed(2) }));
    }
  }
  const goals: Record<Shape, number | null> = {
    hot: 1.0,
    distinct: 0.5,
    new: null,
    floor: null,
    bare: null,
    'bare-new': null,
  };
  console.log(
    `\n${connections} connections, ${duration} s each, ${rounds} round(s)${forward ? ', forwarding to a dead destination' : ''}${rules ? `, ${rules} rules` : ''}`,
  );
  console.log(
    '| pair | pgbench tps | POST /alert (floor: GET /_) req/s | ratio | goal | non-2xx + errors | CPU ms / receipt (server + PostgreSQL) | of which server |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    const goal = goals[r.shape];
    console.log(
      `| ${r.shape} (round ${r.round}) | ${r.pgbench} | ${r.ingest} | ${(r.ingest / r.pgbench).toFixed(2)}× | ${goal ? `≥ ${goal.toFixed(1)}×` : '—'} | ${r.bad} | ${r.cpu.toFixed(3)} | ${r.node.toFixed(3)} |`,
    );
  }
  // The product's shape read against the bare server given the same bodies in the same round.
  for (const [ours, ceilingShape] of [
    ['distinct', 'bare'],
    ['new', 'bare-new'],
  ] as const) {
    const ratios: number[] = [];
    const cpus: number[] = [];
    for (const r of results.filter((x) => x.shape === ours)) {
      const ceiling = results.find((x) => x.shape === ceilingShape && x.round === r.round);
      if (!ceiling) continue;
      ratios.push(r.ingest / ceiling.ingest);
      cpus.push(r.cpu / ceiling.cpu);
      const goal =
        ours === 'distinct'
          ? ` (the goal, 0.5× pgbench, is ${((0.5 * r.pgbench) / ceiling.ingest).toFixed(2)} of bare)`
          : '';
      console.log(
        `\nround ${r.round}: ${ours} ÷ ${ceilingShape} = ${(r.ingest / ceiling.ingest).toFixed(2)}, CPU per receipt ${(r.cpu / ceiling.cpu).toFixed(2)}×${goal}`,
      );
    }
    if (ratios.length)
      console.log(
        `\n${ours} ÷ ${ceilingShape}, median of ${ratios.length} round(s): ${median(ratios).toFixed(2)} (CPU per receipt ${median(cpus).toFixed(2)}×)`,
      );
  }
} finally {
  await admin.end();
  bare.kill();
  await server.stop();
  await dropTestDatabase(db.name);
  await dropTestDatabase(plain.name);
}
