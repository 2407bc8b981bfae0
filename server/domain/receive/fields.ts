import { attributesOverLimit, tagsOverLimit } from '../../../shared/alerts.ts';
import type * as receiveDb from '../../db/alert-receive.ts';
import { ownAttributes } from '../../db/alerts.ts';
import type { AlertDraft, AlertRecord, HistoryRecord } from '../alert-types.ts';
import type { Caller } from '../caller.ts';

// Pure rules for what a receipt leaves on the alert: merged tags and attributes (the statements
// decide the same in SQL, server/db/alerts.ts), a run of duplicates as one write, history entries.

/**
 * The tags a receipt leaves on an alert holding `stored`: both together, or the receipt's alone
 * when together they would be over the limits. The statement decides the same in SQL
 * (server/db/alerts.ts, receivedTags); tests/api/stored-limits.test.ts.
 */
export function receivedTags(stored: readonly string[], incoming: readonly string[]): string[] {
  const both = [...new Set([...stored, ...incoming])];
  return (tagsOverLimit(both) === null ? both : [...new Set(incoming)]).sort();
}

/** `changes` over `stored`, a null value removing the key (own properties only, even `__proto__`). */
export const mergedAttributes = (stored: Record<string, unknown>, changes: Record<string, unknown>) =>
  Object.fromEntries([
    ...Object.entries(stored).filter(([k]) => !Object.hasOwn(changes, k)),
    ...Object.entries(changes).filter(([, v]) => v !== null),
  ]);

/**
 * The attributes a receipt leaves on an alert holding `stored`: the receipt's over the stored ones
 * (null removes a key), or the receipt's alone when merged they would be over the limits; as
 * receivedAttributes in server/db/alerts.ts.
 */
export function receivedAttributes(
  stored: Record<string, unknown>,
  incoming: Record<string, unknown>,
): Record<string, unknown> {
  const merged = mergedAttributes(stored, incoming);
  return attributesOverLimit(merged) === null ? merged : ownAttributes(incoming);
}

/** Server-added attributes (lifecycle §7): notify, and flapping where severity changed. */
export function serverAttributes(
  quietStatuses: readonly string[],
  status: string,
  flapping: boolean | undefined,
): Record<string, unknown> {
  const quiet = quietStatuses.includes(status);
  return flapping === undefined ? { notify: !quiet } : { notify: !quiet, flapping };
}

/**
 * A run of receipts' tags as one receipt's: each receipt's added to those before it, or in their
 * place when together they would be over the limits, so that the run's set is within them.
 */
export function runTags(run: readonly { draft: AlertDraft }[]): string[] {
  let tags: string[] = [];
  for (const { draft } of run) {
    const both = [...new Set([...tags, ...draft.tags])];
    tags = tagsOverLimit(both) === null ? both : [...new Set(draft.tags)];
  }
  return tags;
}

/** A run of receipts' attribute changes as one (null removes a key), kept within the limits as runTags. */
export function runAttributes(changes: readonly Record<string, unknown>[]): Record<string, unknown> {
  let run: Record<string, unknown> = {};
  for (const change of changes) {
    const both = { ...run, ...change };
    run = attributesOverLimit(ownAttributes(both)) === null ? both : { ...change };
  }
  return run;
}

/**
 * The alert as `update` will store it (the statement merges tags and attributes with the stored
 * ones the same way): what the plugins plan the receipt's other writes on.
 */
export function predictedRecord(
  candidate: receiveDb.Candidate,
  u: receiveDb.ReceiveUpdate,
  duplicate: boolean,
): AlertRecord {
  const { recentStatuses: _s, recentSeverityChanges: _c, ...stored } = candidate;
  return {
    ...stored,
    event: u.event,
    severity: u.severity,
    status: u.status,
    service: u.service,
    value: u.value,
    text: u.text,
    timeout: u.timeout,
    rawData: u.rawData,
    tags: receivedTags(stored.tags, u.tags),
    attributes: receivedAttributes(stored.attributes, u.attributes),
    ...(duplicate
      ? { duplicateCount: stored.duplicateCount + u.duplicate, repeat: true }
      : {
          duplicateCount: 0,
          repeat: false,
          createTime: u.createTime,
          receiveTime: u.now,
          previousSeverity: u.previousSeverity,
          trendIndication: u.trendIndication,
        }),
    lastReceiveId: u.lastReceiveId,
    lastReceiveTime: u.now,
    updateTime: u.statusChanged ? u.now : stored.updateTime,
  };
}

/** A run of plain duplicates of one alert as one write: the last receipt's fields, the run's tags, the count. */
export function runFields(run: readonly { draft: AlertDraft; now: number }[]) {
  const last = run.at(-1)!;
  return {
    service: last.draft.service,
    value: last.draft.value,
    text: last.draft.text,
    timeout: last.draft.timeout,
    rawData: last.draft.rawData,
    tags: runTags(run),
    duplicate: run.length,
    lastReceiveId: last.draft.id,
    now: last.now,
  };
}

/** The alert as it stood after receipt `i` of a run written as one (`record` is after the last). */
export function asOfReceipt(
  record: AlertRecord,
  run: readonly { draft: AlertDraft }[],
  i: number,
): AlertRecord {
  const { draft } = run[i]!;
  return {
    ...record,
    duplicateCount: record.duplicateCount - (run.length - 1 - i),
    lastReceiveId: draft.id,
    value: draft.value,
    text: draft.text,
    service: draft.service,
    timeout: draft.timeout,
    rawData: draft.rawData,
  };
}

/** The history entry a receipt adds (`type`: new, severity, status or value). */
export function historyEntry(
  draft: AlertDraft,
  type: string,
  status: string,
  text: string,
  caller: Caller,
): HistoryRecord {
  return {
    id: draft.id,
    event: draft.event,
    severity: draft.severity,
    status,
    value: draft.value,
    text,
    type,
    updateTime: draft.createTime,
    user: caller.user,
    timeout: draft.timeout,
  };
}
