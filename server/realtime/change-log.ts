import type { LiveAlert } from '../../shared/alerts.ts';
import type { Logged, View } from './view.ts';

// Reading the hub's change buffer (the last LIVE_BUFFER_SIZE changes, oldest first, hub.ts).

/**
 * The changes after `seq` that concern `view`, the latest state of each alert (null when the
 * buffer no longer reaches back that far; `lastSeq` is the newest position heard).
 */
export function missedChanges(log: readonly Logged[], lastSeq: number, view: View, seq: number) {
  if (log.length > 0 && log[0]!.gseq > seq + 1) return null;
  if (log.length === 0 && seq < lastSeq) return null;
  const updated = new Map<string, LiveAlert>();
  const removed = new Set<string>();
  for (const { gseq, event } of log) {
    if (gseq <= seq) continue;
    const c = view.classify(event);
    if (!c) continue;
    if ('in' in c) {
      removed.delete(c.in.id);
      updated.set(c.in.id, c.in);
    } else {
      updated.delete(c.out);
      removed.add(c.out);
    }
  }
  return { updated: [...updated.values()], removed: [...removed] };
}

/** How many positions back a view's pending deltas reach (so a slow socket is caught up from before them). */
export function deltaSpan(log: readonly Logged[], view: View): number {
  let oldest = view.seq;
  for (const entry of log) {
    if (entry.gseq > view.seq) break;
    if (view.updated.has(entryId(entry)) || view.removed.has(entryId(entry)))
      oldest = Math.min(oldest, entry.gseq);
  }
  return view.seq - oldest + 1;
}

const entryId = (e: Logged) =>
  e.event.type === 'alert.deleted' || e.event.type === 'heartbeat.deleted'
    ? e.event.id
    : e.event.type === 'heartbeat.updated'
      ? e.event.heartbeat.id
      : e.event.alert.id;
