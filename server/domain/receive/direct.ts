import * as receiveDb from '../db/alert-receive.ts';
import type { Deps } from '../deps.ts';
import type { AlertDraft } from './alert-types.ts';
import type { Caller } from './caller.ts';
import { KeyedBatcher } from './keyed-batcher.ts';
import {
  alongOf,
  asOfReceipt,
  planPlainAlong,
  quietStatuses,
  runAttributes,
  runFields,
  type Written,
} from './receive-write.ts';

// Plain duplicates without the read (docs/architecture.md, "The receive path"). A receipt of an
// identity this instance has just written, with the severity the alert was left with, is tried
// first as one guarded update by identity: it takes effect only where the read-then-write path would have written exactly the
// same, and anything else (the alert gone, its severity or status changed, a value that is
// history) comes back empty and is decided the usual way. For a source that repeats its alerts
// this is one statement per receipt instead of two. What the plugins write along with a plain
// duplicate (the forwarder's queue rows) is planned from the remembered alert id and written by the
// same statement.

/** What this path needs of a receipt. */
export interface DirectReceipt {
  draft: AlertDraft;
  caller: Caller;
  now: number;
  quiet: boolean;
}

/** Identities remembered per instance: enough for the alerts a busy source repeats. */
const HINTS = 20_000;

/** What this instance last wrote for an identity: its alert, and the severity it was left with. */
interface Hint {
  id: string;
  severity: string;
}

interface Direct {
  /** Identity key (receive.ts's batch key) → what its alert was last written with here. */
  hints: Map<string, Hint>;
  /** (severity, incoming status) → the stored statuses the alarm model keeps for such a duplicate. */
  kept: Map<string, readonly string[]>;
  writes: KeyedBatcher<receiveDb.DirectDuplicate, receiveDb.ReceiptWritten | null>;
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

/** Remembers that `key`'s alert was just written here (`written`: its id and severity). */
export function rememberWritten(deps: Deps, key: string, written: Hint): void {
  const { hints } = directOf(deps);
  const hint = hints.get(key);
  if (hint?.severity === written.severity && hint.id === written.id) return;
  hints.delete(key);
  if (hints.size >= HINTS) hints.delete(hints.keys().next().value!);
  hints.set(key, { id: written.id, severity: written.severity });
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
 * instance has just written the identity with the same severity and no plugin needs the stored
 * alert to plan a plain duplicate; null when it did not try, or the guarded write found no such
 * alert (the hint is then forgotten).
 */
export async function receiveDirect(
  deps: Deps,
  key: string,
  items: readonly DirectReceipt[],
): Promise<(Written & { created: false })[] | null> {
  if (deps.plugins.alongOnPlain) return null;
  const direct = directOf(deps);
  const first = items[0]!.draft;
  const hint = direct.hints.get(key);
  if (hint?.severity !== first.severity) return null;
  const sameValue = deps.config.HISTORY_ON_VALUE_CHANGE;
  let n = 1;
  while (n < items.length) {
    const d = items[n]!.draft;
    if (d.event !== first.event || d.severity !== first.severity || d.status !== first.status) break;
    if (sameValue && d.value !== first.value) break;
    n++;
  }
  const run = items.slice(0, n);
  const attributes = runAttributes(run.map((r) => r.draft.attributes));
  delete attributes.notify;
  // Each receipt plans its own rows (a forward event each), as writeDuplicates does for a run; the
  // first one's wait (the alert's delivered rows being removed) is every receipt's.
  const planned = run.map((r) => planPlainAlong(deps, hint.id, r.draft, r.caller, r.quiet));
  if (planned[0]?.along.ready) await planned[0].along.ready;
  const written = await direct.writes.submit('direct', {
    id: hint.id,
    identity: first,
    severity: first.severity,
    statuses: keptStatuses(deps, first.severity, first.status),
    quiet: quietStatuses(deps),
    sameValue,
    update: { ...runFields(run), attributes },
    withs: planned.flatMap((p) => (p?.with ? [p.with] : [])),
  });
  if (!written) {
    deps.metrics.receiveDirect.inc(MISSED);
    direct.hints.delete(key);
    return null;
  }
  deps.metrics.receiveDirect.inc(WRITTEN, run.length);
  const { history, leased: _leased, ...stored } = written;
  return run.map((_, i) => ({
    created: false as const,
    history,
    record: asOfReceipt(stored, run, i),
    along: alongOf(planned[i], written),
  }));
}
