/**
 * What the import tells its operator: a progress line per table (redrawn on a terminal, every few
 * seconds in a log) with counts, rate and an estimate, then a summary table and the refused rows.
 */
import type { Progress, Summary } from './import.ts';

const n = (x: number) => x.toLocaleString('en-US');

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

const BAR = 24;

/** A progress printer for `out`; redraws one line on a terminal, else prints every `every` ms. */
export function progressPrinter(out: NodeJS.WriteStream, every = 5000): (p: Progress) => void {
  let table: string | null = null;
  let started = 0;
  let printed = 0;
  let last = '';
  return (p) => {
    const now = performance.now();
    if (p.table !== table) {
      if (table !== null && out.isTTY) out.write('\n');
      table = p.table;
      started = now;
      printed = 0;
    }
    const finished = p.done >= p.total;
    if (!finished && now - printed < (out.isTTY ? 200 : every)) return;
    printed = now;
    const elapsed = (now - started) / 1000;
    const rate = elapsed > 0 ? p.done / elapsed : 0;
    const share = p.total ? p.done / p.total : 1;
    const filled = Math.round(share * BAR);
    const eta = finished
      ? `done in ${duration(elapsed)}`
      : `about ${duration((p.total - p.done) / rate)} left`;
    const line =
      `${p.table.padEnd(10)} [${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ` +
      `${n(p.done)} / ${n(p.total)} ${Math.floor(share * 100)}%  ${n(Math.round(rate))}/s  ${eta}`;
    if (out.isTTY) out.write(`\r${line.padEnd(last.length)}`);
    else out.write(`${line}\n`);
    last = line;
  };
}

/** How many refusals the summary lists (all of them go to --report). */
export const REFUSALS_SHOWN = 100;

export function summaryText(s: Summary): string {
  const lines: string[] = [];
  lines.push(s.dryRun ? 'Dry run: nothing was written. A real run would do this:' : 'Import finished:');
  lines.push(
    `${'table'.padEnd(11)}${'read'.padStart(11)}${'imported'.padStart(11)}${'replaced'.padStart(10)}` +
      `${'skipped'.padStart(10)}${'refused'.padStart(9)}`,
  );
  for (const [table, t] of Object.entries(s.tables)) {
    lines.push(
      `${table.padEnd(11)}${n(t.read).padStart(11)}${n(t.imported).padStart(11)}${n(t.replaced).padStart(10)}` +
        `${n(t.skipped).padStart(10)}${n(t.refused).padStart(9)}`,
    );
  }
  const alerts = s.tables.alerts;
  if (alerts?.history !== undefined) {
    lines.push(
      `history entries written: ${n(alerts.history)}` +
        (alerts.historyLeftOut
          ? `; left out (older than --since, or beyond HISTORY_LIMIT): ${n(alerts.historyLeftOut)}`
          : ''),
    );
  }
  if (s.missing.length) lines.push(`not in the source database: ${s.missing.join(', ')}`);
  lines.push('skipped: already here with the same id and nothing newer in the source.');
  if (s.refusals.length) {
    lines.push(`refused rows (${n(s.refusals.length)}):`);
    for (const r of s.refusals.slice(0, REFUSALS_SHOWN)) lines.push(`  ${r.table} ${r.id}: ${r.reason}`);
    if (s.refusals.length > REFUSALS_SHOWN) {
      lines.push(`  … and ${n(s.refusals.length - REFUSALS_SHOWN)} more (--report FILE lists them all)`);
    }
  }
  if (s.screens === true) lines.push('open screens were told to load afresh.');
  if (s.screens === false)
    lines.push('open screens could not be told (Redis unreachable): they show the new rows once reloaded.');
  lines.push(`took ${duration(s.seconds)}`);
  return lines.join('\n');
}

/** The machine-readable summary (`--json`): counts per table, refusals (the first ones), seconds. */
export interface SummaryJson {
  readonly dryRun: boolean;
  readonly tables: Summary['tables'];
  readonly missing: Summary['missing'];
  readonly refusals: Summary['refusals'];
  /** How many rows were refused in all. */
  readonly refused: number;
  readonly screens: boolean | null;
  readonly seconds: number;
}

export function summaryJson(s: Summary): string {
  const json: SummaryJson = {
    dryRun: s.dryRun,
    tables: s.tables,
    missing: s.missing,
    refusals: s.refusals.slice(0, REFUSALS_SHOWN),
    refused: s.refusals.length,
    screens: s.screens ?? null,
    seconds: Math.round(s.seconds * 10) / 10,
  };
  return JSON.stringify(json);
}
