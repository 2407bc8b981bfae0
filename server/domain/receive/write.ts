import { attributesOverLimit, tagsOverLimit } from '../../shared/alerts.ts';
import * as receiveDb from '../db/alert-receive.ts';
import * as alertsDb from '../db/alerts.ts';
import type { Deps } from '../deps.ts';
import { conflict } from '../errors.ts';
import type { AlertDraft, AlertRecord, HistoryRecord } from './alert-types.ts';
import type { Caller } from './caller.ts';
import { KeyedBatcher } from './keyed-batcher.ts';
import type { AlertChanges, AlongWritten } from './plugin-hooks.ts';
import { leasedOf } from '../db/receipt-along.ts';

// One receipt decided and written (lifecycle §4–§5): a new alert, or a duplicate, correlation or
// severity change of the stored one; reads, inserts and plain duplicates of different alerts that
// arrive together share one statement (docs/architecture.md, "The receive path").

/** `flapping`: more than two severity changes within this window (lifecycle §7). */
const FLAP_WINDOW_MS = 1800 * 1000;

export interface Written {
  record: AlertRecord;
  /** Newest first, including the entries this write added. */
  history: HistoryRecord[];
  /** What the statement wrote along for this receipt, when the plugins planned it (`along`). */
  along?: AlongWritten | undefined;
}

/** What the plugins want written along with a receipt: undefined when they follow it up as before. */
export interface Planned {
  along: AlongWritten['along'];
  /** For the statement: only when there is something to write. */
  with: receiveDb.Along | undefined;
}

/**
 * Asks the plugins (`along`) what the receipt's own statement should write besides the alert,
 * given the alert as it will be stored; nothing for a suppressed (blacked-out) receipt, whose
 * post-receive hooks never run. `plain`: a plain duplicate (no triggers); `own`: one of a combined
 * run, whose forwarded fields (`draft`'s) differ from the written row's.
 */
export function planAlong(
  deps: Deps,
  predicted: AlertRecord,
  draft: AlertDraft,
  caller: Caller,
  quiet: boolean,
  plain = false,
  own = false,
): Planned | undefined {
  if (quiet || !deps.plugins.along) return undefined;
  return plannedWith(deps, deps.plugins.along(predicted, caller), draft, plain, own);
}

/**
 * planAlong for a plain duplicate, one of a run written as one, from the alert's id alone
 * (`alongPlain`: only when `alongOnPlain` is false, i.e. no plugin needs the stored alert for it).
 */
export function planPlainAlong(
  deps: Deps,
  alertId: string,
  draft: AlertDraft,
  caller: Caller,
  quiet: boolean,
): Planned | undefined {
  if (quiet || !deps.plugins.alongPlain) return undefined;
  return plannedWith(deps, deps.plugins.alongPlain(alertId, caller), draft, true, true);
}

const NO_PATCH: Record<string, unknown> = Object.freeze({});

function plannedWith(
  deps: Deps,
  along: AlongWritten['along'] | undefined,
  draft: AlertDraft,
  plain: boolean,
  own: boolean,
): Planned | undefined {
  if (!along) return undefined;
  // A plain duplicate changes nothing people are told about (and several of one alert may share a
  // statement, where a rule's state row can be written only once).
  if (plain) along.triggers = [];
  if (!along.forwards.length && !along.triggers.length) return { along, with: undefined };
  // The statement builds the body from the written row; a receipt of a combined run of duplicates
  // (`own`) also gives its own fields, since the row holds the last one's. Only forwarded bodies
  // use it: a receipt that only notifies builds none.
  if (!along.forwards.length) return { along, with: { along, patch: NO_PATCH } };
  const createTime = new Date(deps.clock.now()).toISOString();
  const patch = own
    ? {
        id: draft.id,
        value: draft.value,
        text: draft.text,
        service: draft.service,
        timeout: draft.timeout,
        createTime,
      }
    : { createTime };
  return { along, with: { along, patch } };
}

/** The receipt's share of what its statement wrote along. */
export function alongOf(
  planned: Planned | undefined,
  written: receiveDb.ReceiptWritten,
): AlongWritten | undefined {
  return planned && { along: planned.along, leased: leasedOf(planned.along, written.leased) };
}

/** A written row without the statement's extras. */
function recordOf(written: receiveDb.ReceiptWritten) {
  const { history, leased: _leased, ...record } = written;
  return { history, record };
}

/** Statuses in which an alert is not notified (`notify: false`). */
export function quietStatuses(deps: Deps): readonly string[] {
  const { blackoutStatus } = deps.model;
  let quiet = quietByBlackout.get(blackoutStatus);
  if (!quiet) quietByBlackout.set(blackoutStatus, (quiet = [blackoutStatus, 'shelved', 'SHLVD']));
  return quiet;
}
const quietByBlackout = new Map<string, readonly string[]>();

/** Server-added attributes (lifecycle §7): notify, and flapping where severity changed. */
export function serverAttributes(
  deps: Deps,
  status: string,
  flapping: boolean | undefined,
): Record<string, unknown> {
  const quiet = quietStatuses(deps).includes(status);
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

const updaters = new WeakMap<Deps, KeyedBatcher<receiveDb.PlainDuplicate, receiveDb.ReceiptWritten | null>>();

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

const inserters = new WeakMap<Deps, KeyedBatcher<receiveDb.NewAlert, receiveDb.ReceiptWritten | null>>();

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
  quiet: boolean,
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
  const planned = planAlong(deps, record, draft, caller, quiet);
  if (planned?.along.ready) await planned.along.ready;
  const stored = await insertsOf(deps).submit('new', { alert: record, entry, with: planned?.with });
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
  return { record: recordOf(stored).record, history: [entry], along: alongOf(planned, stored) };
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
  quiet: boolean,
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
      tags: receivedTags(candidate.tags, draft.tags),
      attributes: receivedAttributes(candidate.attributes, draft.attributes),
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
  const plain = entries.length === 0 && !changes;
  const planned = planAlong(deps, predictedRecord(candidate, update, duplicate), draft, caller, quiet, plain);
  if (planned?.along.ready) await planned.along.ready;
  // A plain duplicate (no status change, nothing for history) joins the other identities' plain
  // duplicates of this moment in one statement; anything else is written on its own.
  const written = plain
    ? await updatesOf(deps).submit('update', { expected: candidate, update, with: planned?.with })
    : await receiveDb.updateReceived(deps.db, candidate, update, entries, config.HISTORY_LIMIT, [
        ...(planned?.with ? [planned.with] : []),
      ]);
  if (!written) return 'conflict';
  const { history: prior, record } = recordOf(written);
  return { record, history: [...entries, ...prior], along: alongOf(planned, written) };
}

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
  return attributesOverLimit(merged) === null ? merged : alertsDb.ownAttributes(incoming);
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
    run = attributesOverLimit(alertsDb.ownAttributes(both)) === null ? both : { ...change };
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
