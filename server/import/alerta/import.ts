/**
 * The import of an Alerta database, table by table and batch by batch: read (source.ts), checked
 * and mapped (rows.ts), written in one transaction per batch (write.ts, write-alerts.ts). A dry run
 * does the same and rolls every batch back, so its counts are exactly what a real run would do.
 */
import { IntegrityConstraintViolationError, type DatabasePool } from 'slonik';
import * as access from './access-rows.ts';
import * as rows from './rows.ts';
import type { MapSettings, Mapped, Source } from './rows.ts';
import { batchesOf, countRows, presentTables, TABLES, type Filters, type Table } from './source.ts';
import * as write from './write.ts';
import { writeAlerts } from './write-alerts.ts';
import type { Outcome } from './write.ts';

export interface TableSummary {
  /** Rows read from the source (after --since and --status). */
  read: number;
  imported: number;
  /** Alerts here that the source's copy replaced (it held more of them). */
  replaced: number;
  /** Rows already here. */
  skipped: number;
  refused: number;
  /** History entries written (alerts), and left out by --since or HISTORY_LIMIT. */
  history?: number;
  historyLeftOut?: number;
}

export interface Refusal {
  readonly table: Table;
  readonly id: string;
  readonly reason: string;
}

export interface Summary {
  readonly tables: Partial<Record<Table, TableSummary>>;
  /** Tables the source does not have. */
  readonly missing: Table[];
  readonly refusals: Refusal[];
  readonly dryRun: boolean;
  seconds: number;
  /** Whether open screens were told to reload (Redis), false if Redis was unreachable, null without it. */
  screens?: boolean | null;
}

export interface Progress {
  readonly table: Table;
  readonly done: number;
  readonly total: number;
}

export interface ImportOptions extends Filters {
  readonly batch: number;
  readonly dryRun: boolean;
  readonly settings: MapSettings;
  readonly onProgress?: (p: Progress) => void;
  /** Called with each refusal as it happens (the report file). */
  readonly onRefusal?: (r: Refusal) => void;
}

type Writer = (db: Parameters<typeof write.writePerms>[0], mapped: never[]) => Promise<Outcome>;

/** Each table's mapping and writer. */
function stepsOf(
  settings: MapSettings,
): Record<Table, { map: (r: Source) => Mapped<unknown>; write: Writer }> {
  return {
    customers: { map: access.mapCustomer, write: write.writeCustomers as Writer },
    perms: { map: access.mapPerm, write: write.writePerms as Writer },
    users: { map: access.mapUser, write: write.writeUsers as Writer },
    groups: { map: access.mapGroup, write: write.writeGroups as Writer },
    keys: { map: access.mapKey, write: write.writeKeys as Writer },
    blackouts: { map: rows.mapBlackout, write: write.writeBlackouts as Writer },
    heartbeats: { map: (r) => rows.mapHeartbeat(r, settings), write: write.writeHeartbeats as Writer },
    alerts: { map: (r) => rows.mapAlert(r, settings), write: writeAlerts as Writer },
    notes: { map: rows.mapNote, write: write.writeNotes as Writer },
  };
}

/** Thrown inside a dry run's transaction to roll it back once its outcome is known. */
class DryRun extends Error {
  readonly outcome: Outcome;
  constructor(outcome: Outcome) {
    super('dry run');
    this.outcome = outcome;
  }
}

export async function importAlerta(
  source: DatabasePool,
  target: DatabasePool,
  options: ImportOptions,
): Promise<Summary> {
  const started = performance.now();
  const present = await presentTables(source);
  const summary: Summary = {
    tables: {},
    missing: TABLES.filter((t) => !present.has(t)),
    refusals: [],
    dryRun: options.dryRun,
    seconds: 0,
  };
  const steps = stepsOf(options.settings);
  const refuse = (r: Refusal) => {
    summary.refusals.push(r);
    options.onRefusal?.(r);
  };
  for (const table of TABLES) {
    if (!present.has(table)) continue;
    const step = steps[table];
    const total = await countRows(source, table, options);
    const s: TableSummary = { read: 0, imported: 0, replaced: 0, skipped: 0, refused: 0 };
    if (table === 'alerts') Object.assign(s, { history: 0, historyLeftOut: 0 });
    summary.tables[table] = s;
    options.onProgress?.({ table, done: 0, total });
    const writes = new Writes();
    for await (const batch of readingAhead(batchesOf(source, table, options, options.batch))) {
      const mapped: unknown[] = [];
      for (const row of batch) {
        const m = step.map(row);
        if ('refused' in m) {
          s.refused++;
          refuse({ table, id: String(row.id), reason: m.refused });
        } else mapped.push(m.row);
      }
      const read = batch.length;
      await writes.add(async () => {
        if (mapped.length) {
          const outcome = await writeIsolating(target, step.write, mapped, options.dryRun);
          s.imported += outcome.imported;
          s.replaced += outcome.replaced ?? 0;
          s.skipped += outcome.skipped;
          s.refused += outcome.refused.length;
          for (const r of outcome.refused) refuse({ table, ...r });
          if (table === 'alerts') {
            s.history! += outcome.history ?? 0;
            s.historyLeftOut! += (mapped as rows.ImportedAlert[]).reduce((n, a) => n + a.historyLeftOut, 0);
          }
        }
        s.read += read;
        options.onProgress?.({ table, done: s.read, total: Math.max(total, s.read) });
      });
    }
    await writes.drain();
  }
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/** Batches written at once, each in its own transaction on its own connection (the pool's size). */
const WRITERS = 2;

/**
 * Writes of batches, up to WRITERS at a time: one connection's statements use one core of
 * PostgreSQL, and batches are independent (distinct ids and identities; each its own transaction).
 * The first failure is thrown by the next `add` or by `drain`, once the writes under way are done.
 */
class Writes {
  private readonly running = new Set<Promise<void>>();
  private failure: unknown = null;

  async add(write: () => Promise<void>): Promise<void> {
    if (this.failure === null) {
      const p: Promise<void> = write()
        .catch((err: unknown) => {
          this.failure ??= err;
        })
        .finally(() => this.running.delete(p));
      this.running.add(p);
    }
    if (this.running.size >= WRITERS) await Promise.race(this.running);
    if (this.failure !== null) {
      await this.drain();
    }
  }

  async drain(): Promise<void> {
    await Promise.all(this.running);
    if (this.failure !== null) throw this.failure;
  }
}

/**
 * The batches of `batches`, each next one read while the caller writes the one it was given: the
 * source and our database are different connections (usually different servers), so reading and
 * writing overlap rather than take turns. One batch ahead at most, so memory stays flat.
 */
async function* readingAhead<T>(batches: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = batches.next();
  for (;;) {
    const current = await next;
    if (current.done) return;
    next = batches.next();
    // A failed read ahead is reported when it is awaited, not as an unhandled rejection meanwhile.
    next.catch(() => {});
    yield current.value;
  }
}

/** The id of a mapped row (an alert's is inside it). */
const idOf = (m: unknown) => {
  const r = m as { id?: string; alert?: { id: string } };
  return r.alert?.id ?? r.id ?? '?';
};

/**
 * A batch a constraint refuses (rows of the source in conflict with each other or with ours in a
 * way the statement does not foresee) is written again row by row, so that only the rows at fault
 * are refused, each with the constraint that refused it, and the others are imported.
 */
type Refused = Outcome['refused'];

async function writeIsolating(
  target: DatabasePool,
  writer: Writer,
  mapped: unknown[],
  dryRun: boolean,
): Promise<Outcome> {
  try {
    return await writeBatch(target, writer, mapped, dryRun);
  } catch (err) {
    if (!(err instanceof IntegrityConstraintViolationError)) throw err;
    if (mapped.length === 1) {
      const refused = [
        { id: idOf(mapped[0]), reason: `refused by the constraint ${err.constraint ?? 'of a table'}` },
      ];
      return { imported: 0, skipped: 0, refused };
    }
    const total = { imported: 0, skipped: 0, refused: [] as Refused, history: 0, replaced: 0 };
    for (const one of mapped) {
      const o = await writeIsolating(target, writer, [one], dryRun);
      total.imported += o.imported;
      total.skipped += o.skipped;
      total.refused.push(...o.refused);
      total.history += o.history ?? 0;
      total.replaced += o.replaced ?? 0;
    }
    return total;
  }
}

async function writeBatch(target: DatabasePool, writer: Writer, mapped: unknown[], dryRun: boolean) {
  try {
    return await target.transaction(async (tx) => {
      const outcome = await writer(tx, mapped as never[]);
      if (dryRun) throw new DryRun(outcome);
      return outcome;
    });
  } catch (err) {
    if (err instanceof DryRun) return err.outcome;
    throw err;
  }
}
