/**
 * `npm run import-alerta -- --from postgres://…/monitoring`: copies an Alerta 9.x database into
 * ours (docs/switching.md). Our database is the server's (`DATABASE_URL`, `DATABASE_NAME`,
 * `DATABASE_SCHEMA`; the embedded PostgreSQL under `DATA_DIR` without `DATABASE_URL`), migrated
 * first. Exit status: 0 when the import ran (refused rows are reported, not failures), 1 when it
 * could not, 2 for a wrong command line.
 */
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../config.ts';
import { configuredDatabase } from '../../db/embedded.ts';
import { migrate } from '../../db/migrate.ts';
import { createDb } from '../../db/pool.ts';
import { createLog } from '../../log.ts';
import { importAlerta } from './import.ts';
import { progressPrinter, summaryJson, summaryText } from './report.ts';
import { openSource } from './source.ts';
import { tellScreens } from './screens.ts';

const USAGE = `usage: npm run import-alerta -- --from postgres://user@host/monitoring [options]

  --from URL        the Alerta database (read only; never written)
  --dry-run         read and check everything, write nothing, print what a run would do
  --since TIME      only alerts received since TIME (ISO 8601, e.g. 2026-11-01T00:00:00Z, or 7d, 12h),
                    and of their history and notes only what is that recent
  --status LIST     only alerts with these statuses (comma-separated, e.g. open,ack)
  --batch N         rows per transaction (default 1000)
  --report FILE     write every refused row to FILE (one JSON object a line)
  --json            print the summary as one line of JSON
  --quiet           no progress lines

Our database: DATABASE_URL (and DATABASE_NAME, DATABASE_SCHEMA), as for the server.
Running it again is safe: rows already here are skipped; an interrupted run continues.`;

function usage(message: string): never {
  console.error(`import-alerta: ${message}\n\n${USAGE}`);
  process.exit(2);
}

/** `--since`: an ISO time, or a span back from now (30m, 12h, 7d). */
export function parseSince(text: string, now = Date.now()): number | null {
  const span = /^(\d+)([mhd])$/.exec(text);
  if (span)
    return now - Number(span[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as 'm' | 'h' | 'd'];
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

let args;
try {
  args = parseArgs({
    options: {
      from: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      since: { type: 'string' },
      status: { type: 'string' },
      batch: { type: 'string', default: '1000' },
      report: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  }).values;
} catch (err) {
  usage((err as Error).message);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (!args.from) usage('--from is required');
try {
  if (!/^postgres(ql)?:$/.test(new URL(args.from).protocol)) usage('--from must be a postgres:// URL');
} catch {
  usage('--from must be a postgres:// URL');
}
const batch = Number(args.batch);
if (!Number.isInteger(batch) || batch < 1 || batch > 10_000)
  usage('--batch must be a whole number from 1 to 10000');
const since = args.since === undefined ? null : parseSince(args.since);
if (args.since !== undefined && since === null) usage('--since must be an ISO 8601 time or a span like 7d');
const statuses =
  args.status === undefined
    ? null
    : args.status
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
if (statuses && !statuses.length) usage('--status needs at least one status');

let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`import-alerta: ${err.message}`);
  process.exit(2);
}

const log = createLog(config.LOG_LEVEL);
const report = args.report ? createWriteStream(args.report) : null;
let database: Awaited<ReturnType<typeof configuredDatabase>> | null = null;
let source;
let target;
try {
  database = await configuredDatabase(config, log);
  const url = database.url;
  await migrate(url, config.DATABASE_SCHEMA);
  source = await openSource(args.from);
  // Commits need not wait for the disk: batches lost to a crash of PostgreSQL are written again by
  // the next run, which skips what is already here.
  const writing = new URL(url);
  writing.searchParams.set(
    'options',
    `${writing.searchParams.get('options') ?? ''} -c synchronous_commit=off`.trim(),
  );
  target = await createDb(writing.toString(), {
    size: 2,
    schema: config.DATABASE_SCHEMA,
    applicationName: 'alertwall-import',
    prepared: false,
  });
  const summary = await importAlerta(source, target, {
    batch,
    dryRun: args['dry-run'],
    since,
    statuses,
    settings: { historyLimit: config.HISTORY_LIMIT, heartbeatTimeout: config.HEARTBEAT_TIMEOUT, since },
    onProgress: args.quiet ? undefined : progressPrinter(process.stderr),
    onRefusal: report ? (r) => report.write(`${JSON.stringify(r)}\n`) : undefined,
  });
  if (!args.quiet && process.stderr.isTTY) process.stderr.write('\n');
  summary.screens = summary.dryRun ? null : await tellScreens(config, log);
  process.stdout.write(`${args.json ? summaryJson(summary) : summaryText(summary)}\n`);
} catch (err) {
  console.error(`import-alerta: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await source?.end();
  await target?.end();
  report?.end();
  await database?.stop();
}
