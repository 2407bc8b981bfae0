import * as receiveDb from '../../db/alert-receive.ts';
import * as alertsDb from '../../db/alerts.ts';
import { appError } from '../../errors.ts';
import type { AlertRecord, HistoryRecord } from '../alert-types.ts';
import type { AlertChanges } from '../plugin-hooks.ts';
import {
  asOfReceipt,
  historyEntry,
  predictedRecord,
  receivedAttributes,
  receivedTags,
  runAttributes,
  runFields,
  serverAttributes,
} from './fields.ts';
import { alongOf, planAlong } from './plan.ts';
import type { Receipt, Received, ReceiveState, Written } from './state.ts';

// One receipt decided and written after the read (lifecycle §4–§5): a new alert, or a duplicate,
// correlation or severity change of the stored one, or a run of plain duplicates as one write;
// reads, inserts and plain duplicates of different alerts that arrive together share one
// statement (docs/architecture.md, "The receive path"). 'conflict' / null: a concurrent receipt
// changed the alert since the read, and the caller decides again.

/** A written row without the statement's extras. */
function recordOf(written: receiveDb.ReceiptWritten) {
  const { history, leased: _leased, ...record } = written;
  return { history, record };
}

/** The alert `r` creates if no alert matches it, with its first history entry and what is written along. */
async function newAlertOf(state: ReceiveState, r: Receipt) {
  const { model } = state;
  const { draft, caller, now } = r;
  const { status } = model.transition({
    severity: draft.severity,
    incomingStatus: draft.status,
    previousSeverity: model.previousSeverity,
    current: null,
    previous: null,
  });
  const record: AlertRecord = {
    ...draft,
    status,
    attributes: { ...draft.attributes, ...serverAttributes(state.quietStatuses, status, false) },
    duplicateCount: 0,
    repeat: false,
    previousSeverity: model.previousSeverity,
    trendIndication: model.trend(model.previousSeverity, draft.severity),
    receiveTime: now,
    lastReceiveId: draft.id,
    lastReceiveTime: now,
    updateTime: now,
  };
  // Type `new`, as the established server and its client's `history` command expect (the spec
  // says `severity`; issue #17 chose drop-in compatibility): docs/alerts.md.
  const entry = historyEntry(draft, 'new', status, draft.text, caller);
  const planned = planAlong(state, r.quiet ? 'quiet' : 'change', record, r);
  if (planned?.along.ready) await planned.along.ready;
  return { item: { alert: record, entry, with: planned?.with }, planned };
}

/** A new alert not written: a 409 when another alert has its id, else 'conflict' (decided again). */
async function notCreated(state: ReceiveState, { draft }: Receipt): Promise<'conflict'> {
  const clash = await alertsDb.findById(state.db, draft.id);
  if (
    clash &&
    (clash.environment !== draft.environment ||
      clash.resource !== draft.resource ||
      clash.event !== draft.event)
  ) {
    throw appError('alert_id_exists', draft.id);
  }
  return 'conflict';
}

/** Creates the alert `r` asks for (no matching alert was read). */
export async function createNew(state: ReceiveState, r: Receipt): Promise<Written | 'conflict'> {
  const { item, planned } = await newAlertOf(state, r);
  const stored = await state.inserts.submit('new', item);
  if (!stored) return notCreated(state, r);
  return { record: recordOf(stored).record, history: [item.entry], along: alongOf(planned, stored) };
}

/**
 * Creates the alert `r` asks for without reading first (`r` is most likely new: batch.ts), or
 * gives the stored alert it is to be decided against, as the read would have.
 */
export async function createOrFind(
  state: ReceiveState,
  r: Receipt,
): Promise<{ created: Written } | { found: receiveDb.Candidate } | 'conflict'> {
  const { item, planned } = await newAlertOf(state, r);
  const outcome = await state.creates.submit('new', item);
  if (!outcome) return notCreated(state, r);
  if ('found' in outcome) return outcome;
  const stored = outcome.created;
  return {
    created: { record: recordOf(stored).record, history: [item.entry], along: alongOf(planned, stored) },
  };
}

/** Applies `r` to the alert read for it: a duplicate, or a correlation or severity change. */
export async function applyToExisting(
  state: ReceiveState,
  r: Receipt,
  candidate: receiveDb.Candidate,
): Promise<Written | 'conflict'> {
  const { model, config } = state;
  const { draft, caller, now } = r;
  const duplicate = candidate.event === draft.event && candidate.severity === draft.severity;
  const current = candidate.status;
  const previous = candidate.recentStatuses[1] ?? model.defaultStatus;
  let { status } = model.transition({
    severity: draft.severity,
    incomingStatus: draft.status,
    previousSeverity: duplicate ? model.previousSeverity : candidate.severity,
    current,
    previous,
  });
  let text = draft.text;
  let changes: AlertChanges | undefined;
  if (status !== current) {
    // Hooks see the alert as it will be stored: incoming fields over the stored ones, tags and
    // attributes merged (Alerta passes the stored alert), so acked_by can find a stored `acked-by`.
    const seen: AlertRecord = {
      ...candidate,
      ...draft,
      status,
      tags: receivedTags(candidate.tags, draft.tags),
      attributes: receivedAttributes(candidate.attributes, draft.attributes),
    };
    const hooked = await state.plugins.statusChange(seen, status, text, caller);
    status = hooked.status;
    text = hooked.text;
    changes = hooked.changes;
  }
  const statusChanged = status !== current;
  const entries: HistoryRecord[] = [];
  if (!duplicate) entries.push(historyEntry(draft, 'severity', status, text, caller));
  else if (statusChanged) entries.push(historyEntry(draft, 'status', status, text, caller));
  else if (config.HISTORY_ON_VALUE_CHANGE && draft.value !== candidate.value) {
    entries.push(historyEntry(draft, 'value', status, draft.text, caller));
  }
  const flapping = duplicate ? undefined : candidate.recentSeverityChanges + 1 > 2;
  const attributes = {
    ...draft.attributes,
    ...serverAttributes(state.quietStatuses, status, flapping),
    ...changes?.attributes,
  };
  const update: receiveDb.ReceiveUpdate = {
    event: draft.event,
    severity: changes?.severity ?? draft.severity,
    status,
    service: draft.service,
    value: draft.value,
    text: draft.text,
    timeout: draft.timeout,
    rawData: draft.rawData,
    tags: [...draft.tags, ...(changes?.tags ?? [])],
    attributes,
    duplicate: duplicate ? 1 : 0,
    createTime: draft.createTime,
    previousSeverity: candidate.severity,
    trendIndication: model.trend(candidate.severity, draft.severity),
    lastReceiveId: draft.id,
    now,
    statusChanged,
  };
  const plain = entries.length === 0 && !changes;
  const kind = r.quiet ? 'quiet' : plain ? 'plain' : 'change';
  const planned = planAlong(state, kind, predictedRecord(candidate, update, duplicate), r);
  if (planned?.along.ready) await planned.along.ready;
  // A plain duplicate (no status change, nothing for history) joins the other identities' plain
  // duplicates of this moment in one statement; anything else is written on its own.
  const written = plain
    ? await state.updates.submit('update', { expected: candidate, update, with: planned?.with })
    : await receiveDb.updateReceived(state.db, candidate, update, entries, config.HISTORY_LIMIT, [
        ...(planned?.with ? [planned.with] : []),
      ]);
  if (!written) return 'conflict';
  const { history: prior, record } = recordOf(written);
  return { record, history: [...entries, ...prior], along: alongOf(planned, written) };
}

/** How many leading receipts are plain duplicates of the stored alert: same severity, no status change, no history. */
export function foldableDuplicates(
  state: ReceiveState,
  candidate: receiveDb.Candidate,
  items: readonly Receipt[],
): number {
  const { model, config } = state;
  let value = candidate.value;
  let n = 0;
  for (const { draft } of items) {
    if (draft.event !== candidate.event || draft.severity !== candidate.severity) break;
    const { status } = model.transition({
      severity: draft.severity,
      incomingStatus: draft.status,
      previousSeverity: model.previousSeverity,
      current: candidate.status,
      previous: candidate.recentStatuses[1] ?? model.defaultStatus,
    });
    if (status !== candidate.status) break;
    if (config.HISTORY_ON_VALUE_CHANGE && draft.value !== value) break;
    value = draft.value;
    n++;
  }
  return n;
}

/** Writes a run of plain duplicates as one update; each receipt gets the alert as it stood after it. */
export async function writeDuplicates(
  state: ReceiveState,
  candidate: receiveDb.Candidate,
  run: readonly Receipt[],
): Promise<Received[] | null> {
  const last = run.at(-1)!;
  const attributes = runAttributes(
    run.map((r) => ({
      ...r.draft.attributes,
      ...serverAttributes(state.quietStatuses, candidate.status, undefined),
    })),
  );
  const update: receiveDb.ReceiveUpdate = {
    event: last.draft.event,
    severity: last.draft.severity,
    status: candidate.status,
    ...runFields(run),
    attributes,
    createTime: last.draft.createTime,
    previousSeverity: candidate.severity,
    trendIndication: candidate.trendIndication,
    statusChanged: false,
  };
  // Each receipt of the run plans its own rows (a forward event each), on the alert as it stood after it.
  const predicted = predictedRecord(candidate, update, true);
  const planned = run.map((r, i) =>
    planAlong(
      state,
      r.quiet ? 'quiet' : 'run',
      {
        ...predicted,
        duplicateCount: predicted.duplicateCount - (run.length - 1 - i),
        lastReceiveId: r.draft.id,
      },
      r,
    ),
  );
  const withs = planned.flatMap((p) => (p?.with ? [p.with] : []));
  // The first receipt's wait (the alert's delivered rows being removed) is every receipt's.
  if (planned[0]?.along.ready) await planned[0].along.ready;
  const written = await receiveDb.updateReceived(
    state.db,
    candidate,
    update,
    [],
    state.config.HISTORY_LIMIT,
    withs,
  );
  if (!written) return null;
  const { history, leased: _leased, ...record } = written;
  return run.map((r, i) => ({
    created: false,
    history,
    along: alongOf(planned[i], written),
    record: asOfReceipt(record, run, i),
  }));
}
