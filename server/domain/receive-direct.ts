import * as receiveDb from '../db/alert-receive.ts';
import type { WrittenAlert } from '../db/alerts.ts';
import type { Deps } from '../deps.ts';
import type { AlertDraft } from './alert-types.ts';
import type { Caller } from './caller.ts';
import { KeyedBatcher } from './keyed-batcher.ts';
import { alongOf, asOfReceipt, planAlong, quietStatuses, runFields, type Written } from './receive-write.ts';

// Plain duplicates without the read (docs/architecture.md, "The receive path"). A receipt of an
// identity this instance has just written, with the severity the alert was left with, is tried
// first as one guarded update by identity: it takes effect only where the read-then-write path would have written exactly the
// same, and anything else (the alert gone, its severity or status changed, a value that is
// history) comes back empty and is decided the usual way. For a source that repeats its alerts
// this is one statement per receipt instead of two.

/** What this path needs of a receipt. */
export interface DirectReceipt {
  draft: AlertDraft;
  caller: Caller;
  now: number;
  quiet: boolean;
}

/** Identities remembered per instance: enough for the alerts a busy source repeats. */
const HINTS = 20_000;

interface Direct {
  /** Identity key (receive.ts's batch key) → the severity its alert was last written with here. */
  hints: Map<string, string>;
  /** (severity, incoming status) → the stored statuses the alarm model keeps for such a duplicate. */
  kept: Map<string, readonly string[]>;
  writes: KeyedBatcher<receiveDb.DirectDuplicate, WrittenAlert | null>;
}

const WRITTEN = { outcome: 'written' } as const;
const MISSED = { outcome: 'missed' } as const;

const directs = new WeakMap<Deps, Direct>();

function directOf(deps: Deps): Direct {
  let d = directs.get(deps);
  if (!d) {
    d = {
      hints: new Map(),
      kept: new Map(),
      // One statement at a time, the next taking every receipt that waited: two or three in flight
      // made smaller batches and cost 15–35 % more CPU per receipt (docs/benchmarks.md).
      writes: new KeyedBatcher((items) =>
        receiveDb.updateByIdentity(deps.db, items, deps.config.HISTORY_LIMIT),
      ),
    };
    directs.set(deps, d);
  }
  return d;
}

/** Remembers that `key`'s alert was just written here, left with `severity`. */
export function rememberWritten(deps: Deps, key: string, severity: string): void {
  const { hints } = directOf(deps);
  if (hints.get(key) === severity) return;
  hints.delete(key);
  if (hints.size >= HINTS) hints.delete(hints.keys().next().value!);
  hints.set(key, severity);
}

/**
 * The stored statuses in which a duplicate of `severity` arriving with `incoming` keeps the
 * alert's status whatever its previous status was: those of foldableDuplicates / applyToExisting's
 * plain case that do not depend on the history the read would have brought.
 */
export function keptStatuses(deps: Deps, severity: string, incoming: string): readonly string[] {
  const { kept } = directOf(deps);
  const key = `${severity}\u0000${incoming}`;
  let statuses = kept.get(key);
  if (!statuses) {
    const { model } = deps;
    const all = Object.keys(model.status);
    statuses = all.filter((current) =>
      all.every(
        (previous) =>
          model.transition({
            severity,
            incomingStatus: incoming,
            previousSeverity: model.previousSeverity,
            current,
            previous,
          }).status === current,
      ),
    );
    kept.set(key, statuses);
  }
  return statuses;
}

/**
 * Writes the leading run of `items` (one batch key's receipts, in order) directly when this
 * instance has just written the identity with the same severity and no plugin plans writes for
 * plain duplicates; null when it did not try, or the guarded write found no such alert
 * (the hint is then forgotten).
 */
export async function receiveDirect(
  deps: Deps,
  key: string,
  items: readonly DirectReceipt[],
): Promise<(Written & { created: false })[] | null> {
  if (deps.plugins.alongOnPlain) return null;
  const direct = directOf(deps);
  const first = items[0]!.draft;
  if (direct.hints.get(key) !== first.severity) return null;
  const sameValue = deps.config.HISTORY_ON_VALUE_CHANGE;
  let n = 1;
  while (n < items.length) {
    const d = items[n]!.draft;
    if (d.event !== first.event || d.severity !== first.severity || d.status !== first.status) break;
    if (sameValue && d.value !== first.value) break;
    n++;
  }
  const run = items.slice(0, n);
  const attributes = Object.assign({}, ...run.map((r) => r.draft.attributes)) as Record<string, unknown>;
  delete attributes.notify;
  const written = await direct.writes.submit('direct', {
    identity: first,
    severity: first.severity,
    statuses: keptStatuses(deps, first.severity, first.status),
    quiet: quietStatuses(deps),
    sameValue,
    update: { ...runFields(run), attributes },
  });
  if (!written) {
    deps.metrics.receiveDirect.inc(MISSED);
    direct.hints.delete(key);
    return null;
  }
  deps.metrics.receiveDirect.inc(WRITTEN, run.length);
  const { history, ...stored } = written;
  return run.map((r, i) => {
    const record = asOfReceipt(stored, run, i);
    // No plugin plans anything for a plain duplicate (`alongOnPlain`): this gives their follow-up
    // hooks the same (empty) plan the read-then-write path would have.
    const planned = planAlong(deps, record, r.draft, r.caller, r.quiet, true, true);
    return { created: false as const, history, record, along: alongOf(planned, written) };
  });
}
