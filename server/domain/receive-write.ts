import * as receiveDb from '../db/alert-receive.ts';
import * as alertsDb from '../db/alerts.ts';
import type { Deps } from '../deps.ts';
import { conflict } from '../errors.ts';
import type { AlertDraft, AlertRecord, HistoryRecord } from './alert-types.ts';
import type { Caller } from './caller.ts';
import { KeyedBatcher } from './keyed-batcher.ts';
import type { AlertChanges } from './plugin-hooks.ts';

// One receipt decided and written (lifecycle §4–§5): a new alert, or a duplicate, correlation or
// severity change of the stored one; reads, inserts and plain duplicates of different alerts that
// arrive together share one statement (docs/architecture.md, "The receive path").

/** `flapping`: more than two severity changes within this window (lifecycle §7). */
const FLAP_WINDOW_MS = 1800 * 1000;

export interface Written {
  record: AlertRecord;
  /** Newest first, including the entries this write added. */
  history: HistoryRecord[];
}

/** Server-added attributes (lifecycle §7): notify, and flapping where severity changed. */
export function serverAttributes(
  deps: Deps,
  status: string,
  flapping: boolean | undefined,
): Record<string, unknown> {
  const quiet = status === deps.model.blackoutStatus || status === 'shelved' || status === 'SHLVD';
  return flapping === undefined ? { notify: !quiet } : { notify: !quiet, flapping };
}

const readers = new WeakMap<Deps, KeyedBatcher<AlertDraft, receiveDb.Candidate | null>>();

/** Matching reads of any identity that arrive while one runs are made together in the next one. */
export function readsOf(deps: Deps) {
  let batcher = readers.get(deps);
  if (!batcher) {
    batcher = new KeyedBatcher((drafts) =>
      receiveDb.findForReceive(deps.db, drafts, deps.clock.now() - FLAP_WINDOW_MS),
    );
    readers.set(deps, batcher);
  }
  return batcher;
}

const updaters = new WeakMap<Deps, KeyedBatcher<receiveDb.PlainDuplicate, alertsDb.WrittenAlert | null>>();

/** Plain duplicates of any identity that arrive while one such write runs go together in the next. */
function updatesOf(deps: Deps) {
  let batcher = updaters.get(deps);
  if (!batcher) {
    batcher = new KeyedBatcher((items) =>
      receiveDb.updateDuplicates(deps.db, items, deps.config.HISTORY_LIMIT),
    );
    updaters.set(deps, batcher);
  }
  return batcher;
}

const inserters = new WeakMap<Deps, KeyedBatcher<receiveDb.NewAlert, alertsDb.WrittenAlert | null>>();

/** New alerts of any identity that arrive while one insert runs are created together in the next one. */
function insertsOf(deps: Deps) {
  let batcher = inserters.get(deps);
  if (!batcher) {
    batcher = new KeyedBatcher((items) => receiveDb.insertNew(deps.db, items));
    inserters.set(deps, batcher);
  }
  return batcher;
}

export async function createNew(
  deps: Deps,
  draft: AlertDraft,
  caller: Caller,
  now: number,
): Promise<Written | 'conflict'> {
  const { model } = deps;
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
    attributes: { ...draft.attributes, ...serverAttributes(deps, status, false) },
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
  const stored = await insertsOf(deps).submit('new', { alert: record, entry });
  if (!stored) {
    const clash = await alertsDb.findById(deps.db, draft.id);
    if (
      clash &&
      (clash.environment !== draft.environment ||
        clash.resource !== draft.resource ||
        clash.event !== draft.event)
    ) {
      throw conflict(`an alert with id '${draft.id}' already exists`);
    }
    return 'conflict';
  }
  return { record: stored, history: [entry] };
}

function historyEntry(
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

export async function applyToExisting(
  deps: Deps,
  draft: AlertDraft,
  candidate: receiveDb.Candidate,
  caller: Caller,
  now: number,
): Promise<Written | 'conflict'> {
  const { model, config } = deps;
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
      tags: [...new Set([...candidate.tags, ...draft.tags])],
      attributes: { ...candidate.attributes, ...draft.attributes },
    };
    const hooked = await deps.plugins.statusChange(seen, status, text, caller);
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
    ...serverAttributes(deps, status, flapping),
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
  // A plain duplicate (no status change, nothing for history) joins the other identities' plain
  // duplicates of this moment in one statement; anything else is written on its own.
  const written =
    entries.length === 0 && !changes
      ? await updatesOf(deps).submit('update', { expected: candidate, update })
      : await receiveDb.updateReceived(deps.db, candidate, update, entries, config.HISTORY_LIMIT);
  if (!written) return 'conflict';
  const { history: prior, ...record } = written;
  return { record, history: [...entries, ...prior] };
}
