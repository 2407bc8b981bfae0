import { asOfReceipt, runAttributes, runFields } from './fields.ts';
import { alongOf, planAlongById } from './plan.ts';
import type { Hint, Receipt, Received, ReceiveState } from './state.ts';

// Plain duplicates without the read (docs/architecture.md, "The receive path"). A receipt of an
// identity this instance has just written, with the severity the alert was left with, is tried
// first as one guarded update by identity: it takes effect only where the read-then-write path would have written exactly the
// same, and anything else (the alert gone, its severity or status changed, a value that is
// history) comes back empty and is decided the usual way. For a source that repeats its alerts
// this is one statement per receipt instead of two. What the plugins write along with a plain
// duplicate (the forwarder's queue rows) is planned from the remembered alert id and written by the
// same statement.

/** Identities remembered per instance: enough for the alerts a busy source repeats. */
const HINTS = 20_000;

const WRITTEN = { outcome: 'written' } as const;
const MISSED = { outcome: 'missed' } as const;

/** Remembers that `key`'s alert was just written here (`written`: its id and severity). */
export function rememberWritten(state: ReceiveState, key: string, written: Hint): void {
  const { hints } = state;
  const hint = hints.get(key);
  if (hint?.severity === written.severity && hint.id === written.id) return;
  hints.delete(key);
  if (hints.size >= HINTS) forgetOldest(state);
  hints.set(key, { id: written.id, severity: written.severity });
}

/**
 * Forgets the hint set longest ago. One iterator walks the map for every eviction (a Map iterator
 * sees later deletions and additions, in insertion order): `hints.keys().next()` started from the
 * beginning each time and stepped over every entry deleted since the table was last rebuilt, 2–4 %
 * of the server's CPU when every receipt is a new alert (`side-by-side.ts --only new`).
 */
function forgetOldest(state: ReceiveState): void {
  let next = state.hintOrder?.next();
  if (!next || next.done) {
    state.hintOrder = state.hints.keys();
    next = state.hintOrder.next();
  }
  if (!next.done) state.hints.delete(next.value);
}

/**
 * The stored statuses in which a duplicate of `severity` arriving with `incoming` keeps the
 * alert's status whatever its previous status was: those of foldableDuplicates / applyToExisting's
 * plain case (write.ts) that do not depend on the history the read would have brought.
 */
export function keptStatuses(state: ReceiveState, severity: string, incoming: string): readonly string[] {
  const { kept } = state;
  const key = `${severity}\u0000${incoming}`;
  let statuses = kept.get(key);
  if (!statuses) {
    const { model } = state;
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
  state: ReceiveState,
  key: string,
  items: readonly Receipt[],
): Promise<(Received & { created: false })[] | null> {
  if (state.plugins.alongOnPlain) return null;
  const first = items[0]!.draft;
  const hint = state.hints.get(key);
  if (hint?.severity !== first.severity) return null;
  const sameValue = state.config.HISTORY_ON_VALUE_CHANGE;
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
  const planned = run.map((r) => planAlongById(state, r.quiet ? 'quiet' : 'run', hint.id, r));
  if (planned[0]?.along.ready) await planned[0].along.ready;
  const written = await state.byIdentity.submit('direct', {
    id: hint.id,
    identity: first,
    severity: first.severity,
    statuses: keptStatuses(state, first.severity, first.status),
    quiet: state.quietStatuses,
    sameValue,
    update: { ...runFields(run), attributes },
    withs: planned.flatMap((p) => (p?.with ? [p.with] : [])),
  });
  if (!written) {
    state.metrics.receiveDirect.inc(MISSED);
    state.hints.delete(key);
    return null;
  }
  state.metrics.receiveDirect.inc(WRITTEN, run.length);
  const { history, leased: _leased, ...stored } = written;
  return run.map((_, i) => ({
    created: false as const,
    history,
    record: asOfReceipt(stored, run, i),
    along: alongOf(planned[i], written),
  }));
}
