import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Alert, AlertInput, StatusChange, Action } from '../../shared/alerts.ts';
import * as alertsDb from '../db/alerts.ts';
import * as notesDb from '../db/notes.ts';
import type { Deps } from '../deps.ts';
import { AppError, badRequest, conflict, notFound } from '../errors.ts';
import { PluginSignal, type AlertChanges, type PluginRequest } from './plugin-hooks.ts';
import { presentAlert, presentLiveAlert } from '../present.ts';
import type { AlertDraft, AlertRecord, HistoryRecord } from './alert-types.ts';
import { InvalidActionError, STANDARD_ACTIONS } from './alarm-model.ts';
import { assignCustomer } from './blackouts.ts';
import { KeyedBatcher } from './keyed-batcher.ts';

const DEFAULT_ORIGIN = `alertwall/${hostname()}`;
const MAX_ATTEMPTS = 8;
/** `flapping`: more than two severity changes within this window (lifecycle §7). */
const FLAP_WINDOW_MS = 1800 * 1000;

export interface Caller extends PluginRequest {
  /** The caller's customers; null = unrestricted. */
  customers: readonly string[] | null;
}

export type ReceiveOutcome =
  | { kind: 'stored'; created: boolean; alert: Alert }
  | { kind: 'signal'; status: number; body: Record<string, unknown> };

/** Applies the established server's defaults to a validated submission (lifecycle §2). */
export function draftFromInput(deps: Deps, input: AlertInput, now: number): AlertDraft {
  const { config, model } = deps;
  const correlate = input.correlate ?? [];
  return {
    id: input.id ?? randomUUID(),
    resource: input.resource,
    event: input.event,
    environment: input.environment ?? '',
    severity: input.severity ?? model.normalSeverity,
    correlate: correlate.length && !correlate.includes(input.event) ? [...correlate, input.event] : correlate,
    status: input.status ?? model.defaultStatus,
    service: input.service ?? [],
    group: input.group ?? 'Misc',
    value: input.value ?? null,
    text: input.text ?? '',
    tags: [...new Set(input.tags ?? [])],
    attributes: input.attributes ?? {},
    origin: input.origin ?? DEFAULT_ORIGIN,
    type: input.type ?? 'exceptionAlert',
    createTime: input.createTime ?? now,
    timeout: input.timeout ?? config.ALERT_TIMEOUT,
    rawData: input.rawData ?? null,
    customer: input.customer ?? null,
  };
}

function assertSeverity(deps: Deps, severity: string) {
  if (!deps.model.isSeverity(severity)) throw badRequest(deps.model.unknownSeverityMessage(severity));
}

/** Merges hook changes into a record the way the established server persists them. */
function mergeChanges(record: AlertRecord, changes: AlertChanges | null | undefined): AlertRecord {
  if (!changes) return record;
  const attributes = { ...record.attributes };
  for (const [k, v] of Object.entries(changes.attributes ?? {})) {
    if (v === null) delete attributes[k];
    else attributes[k] = v;
  }
  return {
    ...record,
    severity: changes.severity ?? record.severity,
    tags: changes.tags ?? record.tags,
    attributes,
  };
}

const hasChanges = (c: AlertChanges | null | undefined): c is AlertChanges =>
  Boolean(c && (c.severity !== undefined || c.tags !== undefined || c.attributes !== undefined));

/**
 * POST /alert: pre-receive plugins, then new / duplicate / correlate (lifecycle §4–§5) in two
 * round trips — read the candidate, then one conditional write with its history — retried if a
 * concurrent receipt changed the alert in between. Publishes after the write.
 */
export async function receiveAlert(deps: Deps, input: AlertInput, caller: Caller): Promise<ReceiveOutcome> {
  const now = deps.clock.now();
  let draft = draftFromInput(deps, input, now);
  draft.customer = assignCustomer(input.customer, caller.customers);
  assertSeverity(deps, draft.severity);
  let pre;
  try {
    pre = await deps.plugins.preReceive(draft, caller);
  } catch (err) {
    if (err instanceof PluginSignal) return { kind: 'signal', status: err.status, body: err.body };
    throw err;
  }
  draft = pre.alert;
  assertSeverity(deps, draft.severity);

  const written = await batcherOf(deps).submit(batchKey(draft), { draft, caller, now });
  let record = written.record;
  if (!pre.suppressed) {
    const changes = await deps.plugins.postReceive(record, caller);
    if (hasChanges(changes)) {
      record = await deps.db.transaction((tx) =>
        alertsDb.applyPatch(
          tx,
          record.id,
          { tags: changes.tags, attributes: changes.attributes },
          [],
          deps.config.HISTORY_LIMIT,
        ),
      );
    }
  }
  const history = written.history.slice(0, deps.config.HISTORY_LIMIT);
  await deps.bus.publish({
    type: written.created ? 'alert.received' : 'alert.updated',
    alert: presentLiveAlert(record, caller.baseUrl),
  });
  return { kind: 'stored', created: written.created, alert: presentAlert(record, history, caller.baseUrl) };
}

interface Receipt {
  draft: AlertDraft;
  caller: Caller;
  now: number;
}

/**
 * Which receipts this instance combines and orders (the database guarantees the outcome either
 * way: `insertNew`). A receipt with a correlate list may correlate with any alert of its
 * environment, resource and customer (lifecycle §4), so those are keyed by that, whatever the
 * event: NodeDown and NodeUp of one resource then queue behind each other here instead of racing
 * to create two alerts and having one decided again. A receipt without one is keyed by its
 * identity, so different events of one resource are still received in parallel.
 */
const batchKey = (d: AlertDraft) =>
  JSON.stringify(
    d.correlate.length
      ? [d.environment, d.resource, d.customer ?? '']
      : [d.environment, d.resource, d.customer ?? '', d.event],
  );
const batchers = new WeakMap<Deps, KeyedBatcher<Receipt, Written & { created: boolean }>>();

/**
 * Receipts that may touch the same alerts are combined per instance: while one is written, the
 * next ones wait and are then written in order (a leading run of duplicates of one alert as one
 * write), so a storm of duplicates costs one read and one write per round instead of a row-lock
 * queue in the database.
 */
function batcherOf(deps: Deps) {
  let batcher = batchers.get(deps);
  if (!batcher) {
    batcher = new KeyedBatcher((items) => receiveBatch(deps, items));
    batchers.set(deps, batcher);
  }
  return batcher;
}

async function receiveBatch(deps: Deps, items: Receipt[]): Promise<(Written & { created: boolean })[]> {
  const results: (Written & { created: boolean })[] = [];
  let rest = items;
  while (rest.length) {
    const done = await receiveSome(deps, rest);
    results.push(...done);
    rest = rest.slice(done.length);
  }
  return results;
}

/** Handles a leading run of receipts (at least one) with one read and one write, retrying on a concurrent change. */
async function receiveSome(deps: Deps, items: Receipt[]): Promise<(Written & { created: boolean })[]> {
  const first = items[0]!;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const candidate = await readsOf(deps).submit('read', first.draft);
    if (!candidate) {
      const written = await createNew(deps, first.draft, first.caller, first.now);
      if (written !== 'conflict') return [{ ...written, created: true }];
      continue;
    }
    const run = foldableDuplicates(deps, candidate, items);
    if (run > 1) {
      const folded = await writeDuplicates(deps, candidate, items.slice(0, run));
      if (folded) return folded;
      continue;
    }
    const written = await applyToExisting(deps, first.draft, candidate, first.caller, first.now);
    if (written !== 'conflict') return [{ ...written, created: false }];
  }
  throw new AppError(503, 'the alert is changing too fast to de-duplicate; retry');
}

/** How many leading receipts are plain duplicates of the stored alert: same severity, no status change, no history. */
function foldableDuplicates(deps: Deps, candidate: alertsDb.Candidate, items: Receipt[]): number {
  const { model, config } = deps;
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
async function writeDuplicates(deps: Deps, candidate: alertsDb.Candidate, run: Receipt[]) {
  const last = run.at(-1)!;
  const attributes = Object.assign(
    {},
    ...run.map((r) => ({ ...r.draft.attributes, ...serverAttributes(deps, candidate.status, undefined) })),
  ) as Record<string, unknown>;
  const written = await alertsDb.updateReceived(
    deps.db,
    candidate,
    {
      event: last.draft.event,
      severity: last.draft.severity,
      status: candidate.status,
      service: last.draft.service,
      value: last.draft.value,
      text: last.draft.text,
      timeout: last.draft.timeout,
      rawData: last.draft.rawData,
      tags: run.flatMap((r) => r.draft.tags),
      attributes,
      duplicate: run.length,
      createTime: last.draft.createTime,
      previousSeverity: candidate.severity,
      trendIndication: candidate.trendIndication,
      lastReceiveId: last.draft.id,
      now: last.now,
      statusChanged: false,
    },
    [],
    deps.config.HISTORY_LIMIT,
  );
  if (!written) return null;
  const { history, ...record } = written;
  return run.map((r, i) => ({
    created: false,
    history,
    record: {
      ...record,
      duplicateCount: record.duplicateCount - (run.length - 1 - i),
      lastReceiveId: r.draft.id,
      value: r.draft.value,
      text: r.draft.text,
      service: r.draft.service,
      timeout: r.draft.timeout,
      rawData: r.draft.rawData,
    },
  }));
}

interface Written {
  record: AlertRecord;
  /** Newest first, including the entries this write added. */
  history: HistoryRecord[];
}

/** Server-added attributes (lifecycle §7): notify, and flapping where severity changed. */
function serverAttributes(
  deps: Deps,
  status: string,
  flapping: boolean | undefined,
): Record<string, unknown> {
  const quiet = status === deps.model.blackoutStatus || status === 'shelved' || status === 'SHLVD';
  return flapping === undefined ? { notify: !quiet } : { notify: !quiet, flapping };
}

const readers = new WeakMap<Deps, KeyedBatcher<AlertDraft, alertsDb.Candidate | null>>();

/** Matching reads of any identity that arrive while one runs are made together in the next one. */
function readsOf(deps: Deps) {
  let batcher = readers.get(deps);
  if (!batcher) {
    batcher = new KeyedBatcher((drafts) =>
      alertsDb.findForReceive(deps.db, drafts, deps.clock.now() - FLAP_WINDOW_MS),
    );
    readers.set(deps, batcher);
  }
  return batcher;
}

const updaters = new WeakMap<Deps, KeyedBatcher<alertsDb.PlainDuplicate, alertsDb.WrittenAlert | null>>();

/** Plain duplicates of any identity that arrive while one such write runs go together in the next. */
function updatesOf(deps: Deps) {
  let batcher = updaters.get(deps);
  if (!batcher) {
    batcher = new KeyedBatcher((items) =>
      alertsDb.updateDuplicates(deps.db, items, deps.config.HISTORY_LIMIT),
    );
    updaters.set(deps, batcher);
  }
  return batcher;
}

const inserters = new WeakMap<Deps, KeyedBatcher<alertsDb.NewAlert, alertsDb.WrittenAlert | null>>();

/** New alerts of any identity that arrive while one insert runs are created together in the next one. */
function insertsOf(deps: Deps) {
  let batcher = inserters.get(deps);
  if (!batcher) {
    batcher = new KeyedBatcher((items) => alertsDb.insertNew(deps.db, items));
    inserters.set(deps, batcher);
  }
  return batcher;
}

async function createNew(
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

async function applyToExisting(
  deps: Deps,
  draft: AlertDraft,
  candidate: alertsDb.Candidate,
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
  const update: alertsDb.ReceiveUpdate = {
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
      : await alertsDb.updateReceived(deps.db, candidate, update, entries, config.HISTORY_LIMIT);
  if (!written) return 'conflict';
  const { history: prior, ...record } = written;
  return { record, history: [...entries, ...prior] };
}

/** GET /alert/:id */
export async function getAlert(deps: Deps, id: string, caller: Caller): Promise<Alert> {
  const record = await alertsDb.findById(deps.db, id, { customers: caller.customers });
  if (!record) throw notFound();
  const history = await alertsDb.historyOf(deps.db, record.id, deps.config.HISTORY_LIMIT);
  return presentAlert(record, history, caller.baseUrl);
}

/** Runs `fn` on the locked alert inside a transaction, then publishes the result after commit. */
async function changeAlert(
  deps: Deps,
  id: string,
  caller: Caller,
  fn: (
    tx: Parameters<Parameters<Deps['db']['transaction']>[0]>[0],
    record: AlertRecord,
  ) => Promise<AlertRecord | null>,
): Promise<AlertRecord | null> {
  const updated = await deps.db.transaction(async (tx) => {
    const record = await alertsDb.findById(tx, id, { forUpdate: true, customers: caller.customers });
    if (!record) throw notFound();
    return fn(tx, record);
  });
  if (updated)
    await deps.bus.publish({ type: 'alert.updated', alert: presentLiveAlert(updated, caller.baseUrl) });
  return updated;
}

/** Statuses PUT /status accepts: the spec's list and every status of the alarm model. */
const SETTABLE_STATUSES = ['open', 'assign', 'ack', 'closed', 'expired', 'shelved', 'blackout', 'unknown'];
/** Actions PUT /action accepts besides the custom ones named in ACTIONS. */
const OPERATOR_ACTIONS = ['open', 'assign', 'ack', 'unack', 'shelve', 'unshelve', 'close'];

/** 400 unless PUT /status (and bulk status) accepts this status. */
export function assertSettableStatus(deps: Deps, status: string): void {
  if (!SETTABLE_STATUSES.includes(status) && !(status in deps.model.status)) {
    throw badRequest(`invalid status '${status}'`, [
      `status must be one of ${[...new Set([...SETTABLE_STATUSES, ...Object.keys(deps.model.status)])].join(', ')}`,
    ]);
  }
}

/** 400 unless the action is an operator action or one of ACTIONS. */
export function assertKnownAction(deps: Deps, action: string): void {
  if (!OPERATOR_ACTIONS.includes(action) && !deps.config.ACTIONS.includes(action)) {
    throw badRequest(`invalid action '${action}'`, [
      `action must be one of ${[...OPERATOR_ACTIONS, ...deps.config.ACTIONS].join(', ')}`,
    ]);
  }
}

/** PUT /alert/:id/status: no state machine; status hooks may change status and text. */
export async function setAlertStatus(
  deps: Deps,
  id: string,
  change: StatusChange,
  caller: Caller,
): Promise<void> {
  assertSettableStatus(deps, change.status);
  await changeAlert(deps, id, caller, async (tx, record) => {
    const hooked = await deps.plugins.statusChange(record, change.status, change.text ?? '', caller);
    const now = deps.clock.now();
    const timeout = change.timeout ?? deps.config.ALERT_TIMEOUT;
    const entry: HistoryRecord = {
      id: record.id,
      event: record.event,
      severity: record.severity,
      status: hooked.status,
      value: record.value,
      text: hooked.text,
      type: 'status',
      updateTime: now,
      user: caller.user,
      timeout,
    };
    const merged = mergeChanges(record, hooked.changes);
    return alertsDb.applyPatch(
      tx,
      record.id,
      { status: hooked.status, timeout, updateTime: now, ...patchOf(record, merged, hooked.changes) },
      [entry],
      deps.config.HISTORY_LIMIT,
    );
  });
}

function patchOf(
  before: AlertRecord,
  after: AlertRecord,
  changes: AlertChanges | undefined,
): alertsDb.AlertPatch {
  if (!changes) return {};
  return {
    tags: changes.tags ? after.tags : undefined,
    attributes: changes.attributes,
    severity: after.severity !== before.severity ? after.severity : undefined,
  };
}

/** The status before the newest entry of `type` (for unack / unshelve / timeout), and that entry's timeout. */
function statusBefore(history: readonly HistoryRecord[], type: string | null, fallback: string) {
  const start = type === null ? 0 : history.findIndex((h) => h.type === type);
  if (start < 0) return { status: fallback, timeout: null };
  const older = history.slice(start + 1).find((h) => h.status !== null);
  return { status: older?.status ?? fallback, timeout: older?.timeout ?? null };
}

/** PUT /alert/:id/action: take_action hooks → state machine (409 when invalid) → status hooks → store → post_action hooks. */
export async function takeAlertAction(deps: Deps, id: string, body: Action, caller: Caller): Promise<void> {
  assertKnownAction(deps, body.action);
  await performAction(deps, id, body, caller, null);
}

/** The locked alert and its history (newest first): is a housekeeping action still due? */
export type StillDue = (record: AlertRecord, history: readonly HistoryRecord[]) => boolean;

/**
 * Housekeeping's `expired` / `timeout` action (lifecycle §9) on one alert, through the same hooks
 * and state machine as PUT /action, but only if `isDue` still holds once the alert is locked (so
 * two instances never act on it twice). False when it was no longer due.
 */
export async function takeHousekeepingAction(
  deps: Deps,
  id: string,
  action: 'expired' | 'timeout',
  caller: Caller,
  isDue: StillDue,
): Promise<boolean> {
  return performAction(deps, id, { action, text: '', timeout: null }, caller, isDue);
}

/** The action path shared by PUT /action and housekeeping; true when the action was stored. */
async function performAction(
  deps: Deps,
  id: string,
  body: Action,
  caller: Caller,
  isDue: StillDue | null,
): Promise<boolean> {
  const { model, config } = deps;
  const after: { done?: { record: AlertRecord; action: string; text: string; timeout: number | null } } = {};
  await changeAlert(deps, id, caller, async (tx, record) => {
    const history = await alertsDb.historyOf(tx, record.id, config.HISTORY_LIMIT);
    if (isDue && !isDue(record, history)) return null;
    const pre = await deps.plugins.takeAction(
      record,
      body.action,
      body.text ?? `${body.action} operator action`,
      body.timeout ?? null,
      caller,
    );
    const action = pre.action;
    let working = mergeChanges(record, pre.changes);
    const prior = statusBefore(history, unwoundEntry(action, working.status), model.defaultStatus);
    let result;
    try {
      result = model.transition({
        severity: working.severity,
        previousSeverity: working.previousSeverity,
        current: working.status,
        previous: prior.status,
        action,
      });
    } catch (err) {
      if (err instanceof InvalidActionError) throw conflict(err.message);
      throw err;
    }
    let status = result.status;
    let text = pre.text;
    if (status !== working.status) {
      const hooked = await deps.plugins.statusChange({ ...working, status }, status, text, caller);
      status = hooked.status;
      text = hooked.text;
      working = mergeChanges(working, hooked.changes);
    }
    const timeout = actionTimeout(deps, action, pre.timeout, prior.timeout, record.timeout);
    const now = deps.clock.now();
    const severityChanged = result.severity !== record.severity;
    const entry: HistoryRecord = {
      id: record.id,
      event: record.event,
      severity: result.severity,
      status,
      value: record.value,
      text,
      type: STANDARD_ACTIONS.has(action) ? action : 'action',
      updateTime: now,
      user: caller.user,
      timeout,
    };
    const stored = await alertsDb.applyPatch(
      tx,
      record.id,
      {
        severity: result.severity,
        status,
        previousSeverity: severityChanged ? record.severity : undefined,
        tags: working.tags !== record.tags ? working.tags : undefined,
        attributes: attributeDelta(record.attributes, working.attributes),
        updateTime: now,
      },
      [entry],
      config.HISTORY_LIMIT,
    );
    after.done = { record: stored, action, text, timeout };
    return stored;
  });
  const done = after.done;
  if (done) {
    const changes = await deps.plugins.postAction(done.record, done.action, done.text, done.timeout, caller);
    if (hasChanges(changes)) {
      await changeAlert(deps, done.record.id, caller, (tx, record) =>
        alertsDb.applyPatch(
          tx,
          record.id,
          { tags: changes.tags, attributes: changes.attributes },
          [],
          config.HISTORY_LIMIT,
        ),
      );
    }
  }
  return Boolean(done);
}

/**
 * The history entry whose older neighbour holds the status to return to: the newest `ack` /
 * `shelve` entry for unack / unshelve and for housekeeping's `timeout` of an acked / shelved
 * alert (a note after the ack must not count as "the status before"); else the newest entry.
 */
function unwoundEntry(action: string, status: string): string | null {
  if (action === 'unack') return 'ack';
  if (action === 'unshelve') return 'shelve';
  if (action === 'timeout') return status === 'shelved' ? 'shelve' : status === 'ack' ? 'ack' : null;
  return null;
}

/** Keys that differ between two attribute sets, with removed keys as null. */
function attributeDelta(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const delta: Record<string, unknown> = {};
  for (const k of Object.keys(before)) if (!(k in after)) delta[k] = null;
  for (const [k, v] of Object.entries(after))
    if (JSON.stringify(before[k]) !== JSON.stringify(v)) delta[k] = v;
  return Object.keys(delta).length ? delta : undefined;
}

/** The timeout an action's history entry records (alarm-model §7); `restored` is that of the entry whose status comes back. */
function actionTimeout(
  deps: Deps,
  action: string,
  requested: number | null,
  restored: number | null,
  own: number | null,
): number {
  const { config } = deps;
  if (requested !== null) return requested;
  if (action === 'ack' || action === 'unack')
    return (action === 'unack' ? restored : null) ?? config.ACK_TIMEOUT;
  if (action === 'shelve' || action === 'unshelve')
    return (action === 'unshelve' ? restored : null) ?? config.SHELVE_TIMEOUT;
  // Housekeeping's unshelve / unack keeps the timeout of the entry it restores, as the established server does.
  if (action === 'timeout' && restored !== null) return restored;
  return own ?? config.ALERT_TIMEOUT;
}

/** PUT /alert/:id/tag and /untag: set semantics, no history, updateTime unchanged. */
export async function tagAlert(
  deps: Deps,
  id: string,
  tags: string[],
  remove: boolean,
  caller: Caller,
): Promise<void> {
  await changeAlert(deps, id, caller, async (tx, record) => {
    const next = remove
      ? record.tags.filter((t) => !tags.includes(t))
      : [...new Set([...record.tags, ...tags])];
    if (next.length === record.tags.length && next.every((t, i) => t === record.tags[i])) return null;
    return alertsDb.applyPatch(tx, record.id, { tags: next }, [], deps.config.HISTORY_LIMIT);
  });
}

/** PUT /alert/:id/attributes: merge; a null value deletes the key; no history. */
export async function updateAttributes(
  deps: Deps,
  id: string,
  attributes: Record<string, unknown>,
  caller: Caller,
): Promise<void> {
  await changeAlert(deps, id, caller, (tx, record) =>
    alertsDb.applyPatch(tx, record.id, { attributes }, [], deps.config.HISTORY_LIMIT),
  );
}

/** DELETE /alert/:id: delete hooks may veto; notes are kept. */
export async function deleteAlert(deps: Deps, id: string, caller: Caller): Promise<void> {
  const record = await alertsDb.findById(deps.db, id, { customers: caller.customers });
  if (!record) throw notFound();
  const allowed = await deps.plugins.delete(record, caller);
  if (!allowed) throw new AppError(500, 'failed to delete alert');
  if (!(await alertsDb.deleteAlert(deps.db, record.id))) throw notFound();
  await deps.bus.publish({ type: 'alert.deleted', id: record.id, customer: record.customer });
}

/** PUT /alert/:id/note: a note record and a `note` history entry. */
export async function addNote(deps: Deps, id: string, text: string, caller: Caller) {
  let noteId = '';
  await changeAlert(deps, id, caller, async (tx, record) => {
    const hooked = await deps.plugins.takeNote(record, text, caller);
    const now = deps.clock.now();
    const note = await notesDb.insertNote(tx, {
      id: randomUUID(),
      text: hooked.text,
      user: caller.user,
      attributes: {
        resource: record.resource,
        event: record.event,
        environment: record.environment,
        severity: record.severity,
        status: record.status,
      },
      createTime: now,
      alert: record.id,
      customer: record.customer,
    });
    noteId = note.id;
    return alertsDb.applyPatch(
      tx,
      record.id,
      {},
      [noteEntry(record, note.id, hooked.text, 'note', caller, now)],
      deps.config.HISTORY_LIMIT,
    );
  });
  const note = await notesDb.findNote(deps.db, noteId);
  if (!note) throw notFound('note');
  return note;
}

function noteEntry(
  record: AlertRecord,
  noteId: string,
  text: string,
  type: string,
  caller: Caller,
  now: number,
): HistoryRecord {
  return {
    id: noteId,
    event: record.event,
    severity: record.severity,
    status: record.status,
    value: record.value,
    text,
    type,
    updateTime: now,
    user: caller.user,
    timeout: null,
  };
}

/** GET /alert/:id/notes, oldest first. */
export async function listNotes(deps: Deps, id: string, caller: Caller) {
  const record = await alertsDb.findById(deps.db, id, { customers: caller.customers });
  if (!record) throw notFound('alert');
  return notesDb.notesOf(deps.db, record.id);
}

/** PUT /alert/:id/note/:note_id */
export async function updateNote(deps: Deps, id: string, noteId: string, text: string, caller: Caller) {
  const record = await alertsDb.findById(deps.db, id, { customers: caller.customers });
  if (!record) throw notFound('alert');
  const hooked = await deps.plugins.takeNote(record, text, caller);
  const note = await notesDb.updateNote(deps.db, record.id, noteId, hooked.text, deps.clock.now());
  if (!note) throw notFound('note');
  return note;
}

/** DELETE /alert/:id/note/:note_id: removes the note and adds a `dismiss` history entry. */
export async function deleteNote(deps: Deps, id: string, noteId: string, caller: Caller): Promise<void> {
  await changeAlert(deps, id, caller, async (tx, record) => {
    if (!(await notesDb.deleteNote(tx, record.id, noteId))) throw notFound('note');
    const entry = noteEntry(record, noteId, 'note dismissed', 'dismiss', caller, deps.clock.now());
    return alertsDb.applyPatch(tx, record.id, {}, [entry], deps.config.HISTORY_LIMIT);
  });
}
