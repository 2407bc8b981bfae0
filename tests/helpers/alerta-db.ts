/**
 * An Alerta 9.x database built by a test (tests/fixtures/alerta/schema.sql) and rows for it, and
 * `npm run import-alerta` run against it, for tests/api/import-alerta*.test.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { SummaryJson } from '../../server/import/alerta/report.ts';
import { createTestDatabase, withClient } from './db.ts';

const root = new URL('../..', import.meta.url).pathname;
const SCHEMA = readFileSync(`${root}tests/fixtures/alerta/schema.sql`, 'utf8');

/** A new database holding Alerta's tables, empty. */
export async function createAlertaDatabase(label: string): Promise<{ name: string; url: string }> {
  const db = await createTestDatabase(label);
  await onAlerta(db.url, (c) => c.query(SCHEMA));
  return db;
}

/** Runs `fn` on a connection to the Alerta database at `url`. */
export const onAlerta = withClient;

/** A history entry as Alerta's composite type `history` takes it (a row literal's fields). */
export interface AlertaEntry {
  id: string;
  event: string;
  severity: string | null;
  status: string | null;
  value: string | null;
  text: string | null;
  type: string | null;
  update_time: string | null;
  user?: string | null;
  timeout?: number | null;
}

/** A history[] value for a parameter: entries newest first, as Alerta stores them. */
export function historyArray(entries: readonly AlertaEntry[]): string {
  const field = (v: string | number | null | undefined) =>
    v === null || v === undefined ? '' : `"${String(v).replace(/["\\]/g, (c) => `\\${c}`)}"`;
  const row = (e: AlertaEntry) =>
    `(${[e.id, e.event, e.severity, e.status, e.value, e.text, e.type, e.update_time, e.user, e.timeout].map(field).join(',')})`;
  return `{${entries.map((e) => `"${row(e).replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

/** Inserts one row; `values` by column name (arrays and json as pg serialises them). */
export async function insertRow(url: string, table: string, values: Record<string, unknown>): Promise<void> {
  const cols = Object.keys(values);
  const params = cols.map((c, i) => (c === 'history' ? `$${i + 1}::history[]` : `$${i + 1}`));
  await onAlerta(url, (c) =>
    c.query(
      `INSERT INTO ${table} (${cols.map((x) => `"${x}"`).join(', ')}) VALUES (${params.join(', ')})`,
      cols.map((k) => {
        const v = values[k];
        return v !== null && typeof v === 'object' && !Array.isArray(v) ? JSON.stringify(v) : v;
      }),
    ),
  );
}

export interface ImportRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The --json summary (the last line of stdout). */
  summary: ImportSummary;
}

/** The --json summary. */
export type ImportSummary = SummaryJson;

const env = (target: string, extra: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  LOG_LEVEL: 'silent',
  DATABASE_URL: target,
  ...extra,
});

/** Runs the import from `source` into `target` with `args`, and reads its --json summary. */
export function runImport(
  source: string,
  target: string,
  args: string[] = [],
  extraEnv: Record<string, string> = {},
): ImportRun {
  const r = spawnSync(
    process.execPath,
    ['server/import/alerta/main.ts', '--from', source, '--json', '--quiet', ...args],
    { cwd: root, env: env(target, extraEnv), encoding: 'utf8' },
  );
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  let summary = {} as ImportSummary;
  try {
    summary = JSON.parse(last) as ImportSummary;
  } catch {
    // left empty: the caller's status assertion shows stderr
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, summary };
}

/** Runs the import as an operator would, with its progress lines and human summary. */
export function runImportPlain(source: string, target: string, args: string[] = []) {
  return spawnSync(process.execPath, ['server/import/alerta/main.ts', '--from', source, ...args], {
    cwd: root,
    env: env(target, {}),
    encoding: 'utf8',
  });
}

/** Starts the import without waiting (to interrupt it). */
export function startImport(source: string, target: string, args: string[] = []): ChildProcess {
  return spawn(process.execPath, ['server/import/alerta/main.ts', '--from', source, '--quiet', ...args], {
    cwd: root,
    env: env(target, {}),
    stdio: 'ignore',
  });
}
