/**
 * Import from Alerta (issue #39): `npm run import-alerta -- --from <alerta db>` on an Alerta 9.x
 * database of N alerts with H history entries each (scripts/bench/alerta-fill.ts, filled in SQL;
 * its time is printed, not measured), into a fresh database, as a child process whose RSS is read
 * every 200 ms. Target: 1,000,000 alerts × 10 history entries in under 600 s.
 *
 *   ./node_modules/.bin/node scripts/bench/import-alerta.ts --alerts 1000000
 *
 * Usage: node scripts/bench/import-alerta.ts [--alerts 1000000] [--history 10] [--batch 1000]
 *          [--baseline node|copy|both] [--keep] [--sources BIG,SMALL]
 * Read against baselines in the same run (the machine drifts ±30 % between runs), each copying
 * the same alerts and their unnested history into unindexed tables of a fresh database with the
 * source's column types:
 *   node  this process reads keyset batches of `--batch` alerts (every column as text) and their
 *         history, and writes each batch with one `INSERT … SELECT … FROM unnest($1::text[], …)` per
 *         table while it reads the next: a bare copy through Node, no parsing, checking, indexes or
 *         triggers
 *   copy  `psql -c 'COPY (…) TO STDOUT' | psql -c 'COPY … FROM STDIN'`: PostgreSQL alone
 * Memory: the importer also runs on a source of N ÷ 10 alerts (same fill); peak RSS big ÷ small
 * near 1 means its memory does not grow with the database.
 * Then checks the target: N alerts, N × min(H, HISTORY_LIMIT) history rows, and the tally's sum
 * (server/db/alert-tally.ts: alert_tally plus alert_tally_delta, which GET /alerts/count reads) N.
 * `--keep` keeps both sources and prints their names; `--sources BIG,SMALL` reuses them (no fill).
 * Every database it made is dropped at the end, on failure and on SIGINT. Uses TEST_DATABASE_URL /
 * DATABASE_URL / postgres://postgres@127.0.0.1:5432/postgres for the server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { databaseUrl, queryDb, serverUrl } from '../../tests/helpers/db.ts';
import { fillAlertaDatabase } from './alerta-fill.ts';
import { flag, numberArg, textArg } from './args.ts';

const alerts = numberArg('alerts', 1_000_000);
const history = numberArg('history', 10);
const batch = numberArg('batch', 1000);
const baselines = (textArg('baseline') ?? 'both').replace('both', 'node,copy').split(',');
const keep = flag('keep');
const reused = textArg('sources')?.split(',');
const historyLimit = Number(process.env.HISTORY_LIMIT ?? 100);
const root = new URL('../..', import.meta.url).pathname;

// ---- databases, dropped whatever happens ------------------------------------------------------

const made = new Set<string>();
let child: ChildProcess | undefined;

async function admin(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}
async function createDatabase(label: string): Promise<string> {
  const name = `bench_alerta_${label}_${process.pid}`;
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  made.add(name);
  return name;
}
async function dropDatabase(name: string): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  made.delete(name);
}
async function dropAll(): Promise<void> {
  if (child?.exitCode === null) child.kill('SIGKILL');
  for (const name of [...made]) await dropDatabase(name);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`${signal}: dropping the databases`);
    void dropAll().finally(() => process.exit(130));
  });

// ---- measuring -------------------------------------------------------------------------------

const seconds = (t0: number) => (performance.now() - t0) / 1000;
const mb = (kb: number) => Math.round(kb / 102.4) / 10;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** The V8 flags `npm run import-alerta` gives node, so the child runs as the operator's would. */
function importFlags(): string[] {
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> };
  const words = (pkg.scripts['import-alerta'] ?? '').split(/\s+/);
  const node = words.indexOf('node');
  const entry = words.findIndex((w) => w.endsWith('.ts'));
  return node >= 0 && entry > node ? words.slice(node + 1, entry) : [];
}

/** Per table: read, imported, skipped, refused (and whatever else the importer counts). */
type Tally = Record<string, number>;
interface ImportRun {
  seconds: number;
  peakRssMB: number;
  report: { tables: Record<string, Tally>; seconds: number };
}

/** Runs the importer from `from` into `to`, sampling its RSS (VmRSS and VmHWM) every 200 ms. */
async function runImporter(from: string, to: string): Promise<ImportRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: to };
  delete env.DATABASE_NAME;
  const args = [
    'server/import/alerta/main.ts',
    '--from',
    from,
    '--json',
    '--quiet',
    '--batch',
    String(batch),
  ];
  const t0 = performance.now();
  const proc = spawn(process.execPath, [...importFlags(), ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  let peakKB = 0;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
      for (const key of ['VmRSS', 'VmHWM'])
        peakKB = Math.max(peakKB, Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0));
    } catch {
      // exited between two samples
    }
  };
  const timer = setInterval(sample, 200);
  const code = await new Promise<number | null>((ok) => proc.on('close', ok));
  const elapsed = seconds(t0);
  clearInterval(timer);
  child = undefined;
  if (code !== 0) throw new Error(`importer exited with ${code}:\n${err.slice(-4000)}\n${out.slice(-2000)}`);
  const last = out.trim().split('\n').at(-1) ?? '';
  return { seconds: elapsed, peakRssMB: mb(peakKB), report: JSON.parse(last) as ImportRun['report'] };
}

// ---- baselines -------------------------------------------------------------------------------

interface Column {
  name: string;
  type: string;
}
/** The columns of a table, or of the composite type `history`, with their types, in order. */
async function columnsOf(url: string, relation: string): Promise<Column[]> {
  return queryDb<Column>(
    url,
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = (SELECT typrelid FROM pg_type WHERE typname = $1 AND typtype = 'c'
                       AND typnamespace = 'public'::regnamespace)
       AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    [relation],
  );
}
const q = (name: string) => `"${name}"`;

/** Unindexed copies of the source's `alerts` (without its history array) and of its history, unnested. */
async function scratchTables(src: string, dst: string) {
  const alertColumns = (await columnsOf(src, 'alerts')).filter((c) => c.name !== 'history');
  const historyColumns = [{ name: 'alert_id', type: 'text' }, ...(await columnsOf(src, 'history'))];
  const ddl = (table: string, cols: Column[]) =>
    `DROP TABLE IF EXISTS ${table}; CREATE TABLE ${table} (${cols.map((c) => `${q(c.name)} ${c.type}`).join(', ')});`;
  await queryDb(dst, ddl('scratch_alerts', alertColumns) + ddl('scratch_history', historyColumns));
  return { alertColumns, historyColumns };
}

const HISTORY_SELECT = (historyColumns: Column[], cast: string) =>
  `SELECT ${['a.id', ...historyColumns.slice(1).map((c) => `h.${q(c.name)}`)].map((c) => c + cast).join(', ')}
   FROM alerts a, unnest(a.history) h`;

/** The node baseline: keyset batches read as text, one `INSERT … FROM unnest(…)` per table and batch. */
async function nodeCopy(src: string, dst: string): Promise<number> {
  const { alertColumns, historyColumns } = await scratchTables(src, dst);
  const insert = (table: string, cols: Column[]) =>
    `INSERT INTO ${table} SELECT ${cols.map((c, k) => `c${k}::${c.type}`).join(', ')}
     FROM unnest(${cols.map((_, k) => `$${k + 1}::text[]`).join(', ')}) AS u(${cols.map((_, k) => `c${k}`).join(', ')})`;
  const insertAlerts = insert('scratch_alerts', alertColumns);
  const insertHistory = insert('scratch_history', historyColumns);
  const readAlerts = `SELECT ${alertColumns.map((c) => `${q(c.name)}::text`).join(', ')} FROM alerts
    WHERE id > $1 ORDER BY id LIMIT ${batch}`;
  const readHistory = `${HISTORY_SELECT(historyColumns, '::text')} WHERE a.id > $1 AND a.id <= $2`;
  const idAt = alertColumns.findIndex((c) => c.name === 'id');
  const columnsOfRows = (rows: unknown[][], width: number) => {
    const columns: unknown[][] = Array.from({ length: width }, () => new Array<unknown>(rows.length));
    for (let r = 0; r < rows.length; r++) for (let k = 0; k < width; k++) columns[k]![r] = rows[r]![k];
    return columns;
  };
  const [from, to] = [new pg.Client({ connectionString: src }), new pg.Client({ connectionString: dst })];
  await Promise.all([from.connect(), to.connect()]);
  /** The batch after `last`: its alerts and their history, or null past the end. */
  const read = async (last: string) => {
    const { rows } = await from.query<unknown[]>({ text: readAlerts, values: [last], rowMode: 'array' });
    if (rows.length === 0) return null;
    const next = String(rows.at(-1)![idAt]);
    const h = await from.query<unknown[]>({ text: readHistory, values: [last, next], rowMode: 'array' });
    return { rows, history: h.rows, next };
  };
  const t0 = performance.now();
  try {
    // The next batch is read while this one is written, as any importer would.
    for (let pending = read(''), got = await pending; got; got = await pending) {
      pending = read(got.next);
      await to.query(insertAlerts, columnsOfRows(got.rows, alertColumns.length));
      await to.query(insertHistory, columnsOfRows(got.history, historyColumns.length));
    }
    return seconds(t0);
  } finally {
    await Promise.all([from.end(), to.end()]);
  }
}

/** Runs `psql -c from` into `psql -c to`, piped; resolves when both have exited cleanly. */
async function psqlPipe(src: string, dst: string, read: string, write: string): Promise<void> {
  const psql = (url: string, command: string) =>
    spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', command], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
  const reader = psql(src, `COPY (${read}) TO STDOUT`);
  const writer = psql(dst, `COPY ${write} FROM STDIN`);
  reader.stdout.pipe(writer.stdin);
  const done = (p: ChildProcess) => new Promise<number | null>((ok) => p.on('close', ok));
  const codes = await Promise.all([done(reader), done(writer)]);
  if (codes.some((c) => c !== 0)) throw new Error(`psql COPY pipe failed: exit codes ${codes.join(', ')}`);
}

/** The copy baseline: PostgreSQL's COPY out of the source into COPY of the scratch tables. */
async function pgCopy(src: string, dst: string): Promise<number> {
  const { alertColumns, historyColumns } = await scratchTables(src, dst);
  const t0 = performance.now();
  await psqlPipe(
    src,
    dst,
    `SELECT ${alertColumns.map((c) => q(c.name)).join(', ')} FROM alerts`,
    'scratch_alerts',
  );
  await psqlPipe(src, dst, HISTORY_SELECT(historyColumns, ''), 'scratch_history');
  return seconds(t0);
}

// ---- the run ---------------------------------------------------------------------------------

/** What the target should hold after importing `src`: its alerts, and history up to the limit. */
async function expected(src: string) {
  const [row] = await queryDb<{ alerts: string; history: string; entries: string }>(
    src,
    `SELECT count(*) AS alerts, coalesce(sum(least(cardinality(history), $1)), 0) AS history,
       coalesce(sum(cardinality(history)), 0) AS entries FROM alerts`,
    [historyLimit],
  );
  return { alerts: Number(row!.alerts), history: Number(row!.history), entries: Number(row!.entries) };
}

/** Counts on the target, as GET /alerts/count reads them (the tally) and by scanning. */
async function found(dst: string) {
  const [row] = await queryDb<Record<string, string>>(
    dst,
    `SELECT (SELECT count(*) FROM alerts) AS alerts, (SELECT count(*) FROM alert_history) AS history,
       (SELECT coalesce(sum(n), 0) FROM alert_tally) + (SELECT coalesce(sum(n), 0) FROM alert_tally_delta) AS tally,
       (SELECT coalesce(sum(n), 0) FROM alert_event_tally) + (SELECT coalesce(sum(n), 0) FROM alert_event_tally_delta)
         AS event_tally`,
  );
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));
}

let failed = false;
try {
  const small = Math.max(1, Math.round(alerts / 10));
  const [bigSource, smallSource] = reused ?? [await createDatabase('src'), await createDatabase('srcsmall')];
  if (!reused) {
    for (const [name, n] of [
      [bigSource!, alerts],
      [smallSource!, small],
    ] as const) {
      const t0 = performance.now();
      await fillAlertaDatabase(databaseUrl(name), n, history);
      console.log(JSON.stringify({ fill: name, alerts: n, history, seconds: +seconds(t0).toFixed(1) }));
    }
    if (keep) {
      for (const name of [bigSource!, smallSource!]) made.delete(name);
      console.log(`keeping the sources: --sources ${bigSource},${smallSource}`);
    }
  }
  const src = databaseUrl(bigSource!);
  const want = await expected(src);
  console.log(JSON.stringify({ source: bigSource, ...want }));

  const base: Record<string, number> = {};
  for (const kind of baselines) {
    const name = await createDatabase('base');
    base[kind] =
      kind === 'copy' ? await pgCopy(src, databaseUrl(name)) : await nodeCopy(src, databaseUrl(name));
    const [copied] = await queryDb<{ a: string; h: string }>(
      databaseUrl(name),
      'SELECT (SELECT count(*) FROM scratch_alerts) AS a, (SELECT count(*) FROM scratch_history) AS h',
    );
    if (Number(copied!.a) !== want.alerts || Number(copied!.h) !== want.entries)
      throw new Error(`baseline ${kind} copied ${copied!.a} alerts and ${copied!.h} history rows`);
    console.log(JSON.stringify({ baseline: kind, seconds: +base[kind].toFixed(1) }));
    await dropDatabase(name);
  }

  const target = await createDatabase('dst');
  const big = await runImporter(src, databaseUrl(target));
  console.log(
    JSON.stringify({
      importer: alerts,
      seconds: +big.seconds.toFixed(1),
      peakRssMB: big.peakRssMB,
      report: big.report,
    }),
  );
  const got = await found(databaseUrl(target));
  await dropDatabase(target);

  const smallTarget = await createDatabase('dstsmall');
  const little = await runImporter(databaseUrl(smallSource!), databaseUrl(smallTarget));
  console.log(
    JSON.stringify({ importer: small, seconds: +little.seconds.toFixed(1), peakRssMB: little.peakRssMB }),
  );
  await dropDatabase(smallTarget);

  console.log(
    `\n| run | seconds | alerts/s | history rows/s | peak RSS MB |\n| --- | --- | --- | --- | --- |`,
  );
  const line = (title: string, s: number, rss = '') =>
    console.log(
      `| ${title} | ${s.toFixed(1)} | ${fmt(want.alerts / s)} | ${fmt(want.history / s)} | ${rss} |`,
    );
  line(`importer, ${fmt(want.alerts)} alerts × ${history}`, big.seconds, String(big.peakRssMB));
  for (const [kind, s] of Object.entries(base)) line(`baseline ${kind}`, s);
  console.log(
    `| importer, ${fmt(small)} alerts × ${history} | ${little.seconds.toFixed(1)} | | | ${little.peakRssMB} |`,
  );

  const tables = Object.entries(big.report.tables);
  const keys = [...new Set(tables.flatMap(([, t]) => Object.keys(t)))];
  console.log(`\n| table | ${keys.join(' | ')} |\n| --- |${' --- |'.repeat(keys.length)}`);
  for (const [table, t] of tables) console.log(`| ${table} | ${keys.map((k) => t[k] ?? '').join(' | ')} |`);

  console.log(
    `\nimporter's own figure ${big.report.seconds} s of ${big.seconds.toFixed(1)} s ` +
      '(the rest: start-up and migrating the target)',
  );
  for (const [kind, s] of Object.entries(base))
    console.log(`importer ÷ baseline ${kind}: ${(big.seconds / s).toFixed(2)}`);
  console.log(
    `peak RSS ${fmt(want.alerts)} ÷ ${fmt(small)} alerts: ${(big.peakRssMB / little.peakRssMB).toFixed(2)}`,
  );
  if (want.alerts === 1_000_000 && history === 10)
    console.log(
      `target 1,000,000 × 10 in under 600 s: ${big.seconds < 600 ? 'met' : 'not met'} (${big.seconds.toFixed(0)} s)`,
    );

  const checks: [string, number, number][] = [
    ['alerts', got.alerts!, want.alerts],
    [`alert_history (limit ${historyLimit})`, got.history!, want.history],
    ['alert_tally + alert_tally_delta', got.tally!, want.alerts],
    ['alert_event_tally + delta', got.event_tally!, want.alerts],
  ];
  for (const [what, is, should] of checks) {
    const ok = is === should;
    failed ||= !ok;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}: ${is}${ok ? '' : `, expected ${should}`}`);
  }
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await dropAll();
}
process.exit(failed ? 1 : 0);
