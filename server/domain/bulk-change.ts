import type { Action, StatusChange } from '../../shared/alerts.ts';
import * as manyDb from '../db/alerts-many.ts';
import type { Deps } from '../deps.ts';
import { appError, AppError } from '../errors.ts';
import { presentLiveAlert } from '../present.ts';
import type { AlertRecord } from './alert-types.ts';
import { followAction, planAction, planStatus, type ActionDone, type AlertWrite } from './alerts.ts';
import type { Caller } from './caller.ts';

/** A bulk status change or action, as bulk.ts validated it. */
export type SetChange = { type: 'status'; change: StatusChange } | { type: 'action'; action: Action };

/** What a chunk's change did: alerts changed (in the chunk's order) and those refused, with why. */
export interface ChunkResult {
  changed: string[];
  errors: string[];
}

/** Entries whose types move the history counts (db/alerts.ts historyCounts): never written here. */
const COUNTED_TYPES = new Set(['new', 'severity']);

/**
 * Alerts post-action hooks run for at once: the forwarder queues a row per alert (one statement
 * each), so a few at a time leave pool connections for requests.
 */
const FOLLOW_CONCURRENCY = 4;

/**
 * A bulk status change or action on a chunk of alerts, set-based: the chunk's rows are locked and
 * read in one statement (with their history for actions), each alert is decided in memory by the
 * same code as PUT /alert/:id/status and /action (planStatus / planAction: plugin hooks, state
 * machine, history entry), then every alert and entry is written in one statement and each change
 * published after commit; post-action hooks follow as for a single action. An alert a hook or the
 * state machine refuses is left as it is and listed in `errors`, as the per-alert path lists it
 * (tests/api/bulk-set-based.test.ts compares the two alert by alert).
 *
 * Null when the chunk could not be written together (a database error): the caller then changes
 * its alerts one by one, which reports each alert's own outcome as before.
 */
export async function changeChunk(
  deps: Deps,
  body: SetChange,
  ids: readonly string[],
  caller: Caller,
): Promise<ChunkResult | null> {
  const errors = new Map<string, string>();
  const follow: ActionDone[] = [];
  let written: readonly AlertRecord[];
  try {
    written = await deps.db.transaction(async (tx) => {
      const rows = await manyDb.lockMany(tx, ids, caller.customers);
      const histories =
        body.type === 'action'
          ? await manyDb.historiesOf(
              tx,
              rows.map((r) => r.id),
              deps.config.HISTORY_LIMIT,
            )
          : null;
      const writes: manyDb.ManyWrite[] = [];
      const told = new Map<string, { action: string; text: string; timeout: number }>();
      const clock = () => deps.clock.now();
      for (const record of rows) {
        try {
          let plan: AlertWrite;
          if (body.type === 'status') {
            plan = await planStatus(deps, record, body.change, caller, clock);
          } else {
            const p = await planAction(
              deps,
              record,
              histories!.get(record.id) ?? [],
              body.action,
              caller,
              clock,
            );
            told.set(record.id, { action: p.action, text: p.text, timeout: p.timeout });
            plan = p;
          }
          if (COUNTED_TYPES.has(plan.entry.type))
            throw new Error(`entry type ${plan.entry.type} in a bulk write`);
          writes.push({ id: record.id, ...plan });
        } catch (err) {
          if (!(err instanceof AppError)) deps.log.error({ err, id: record.id }, 'bulk.alert_failed');
          errors.set(record.id, err instanceof AppError ? err.message : 'internal error');
        }
      }
      const stored = await manyDb.writeMany(tx, writes, deps.config.HISTORY_LIMIT);
      for (const row of stored) {
        const t = told.get(row.id);
        if (t) follow.push({ record: row, ...t });
      }
      return stored;
    });
  } catch (err) {
    deps.log.error({ err, count: ids.length }, 'bulk.chunk_failed');
    return null;
  }
  // Published after commit only, in id order, as the rows were locked.
  for (const row of written)
    await deps.bus.publish({ type: 'alert.updated', alert: presentLiveAlert(row, caller.baseUrl) });
  // A post-action hook failing after the commit leaves the action stored but reports the alert
  // refused, as takeAlertAction's error does on the per-alert path.
  await eachLimited(follow, FOLLOW_CONCURRENCY, async (done) => {
    try {
      await followAction(deps, done, caller);
    } catch (err) {
      if (!(err instanceof AppError)) deps.log.error({ err, id: done.record.id }, 'bulk.alert_failed');
      errors.set(done.record.id, err instanceof AppError ? err.message : 'internal error');
    }
  });
  const stored = new Set(written.map((r) => r.id));
  const missing = appError('not_found').message;
  const changed: string[] = [];
  const refused: string[] = [];
  for (const id of ids) {
    const why = errors.get(id);
    if (why !== undefined) refused.push(`${id}: ${why}`);
    else if (stored.has(id)) changed.push(id);
    else refused.push(`${id}: ${missing}`);
  }
  return { changed, errors: refused };
}

/** Runs `fn` on every item, at most `limit` at a time. */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
