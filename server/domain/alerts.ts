import {
  attributesOverLimit,
  tagsOverLimit,
  type Action,
  type Alert,
  type StatusChange,
} from '../../shared/alerts.ts';
import * as alertsDb from '../db/alerts.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { presentAlert, presentLiveAlert } from '../present.ts';
import type { AlertRecord, HistoryRecord } from './alert-types.ts';
import { InvalidActionError, STANDARD_ACTIONS } from './alarm-model.ts';
import type { Caller } from './caller.ts';
import { hasChanges, mergeChanges, type AlertChanges } from './plugin-hooks.ts';
import { mergedAttributes } from './receive/fields.ts';

// Operations on one stored alert (GET, status, action, tags, attributes, delete); receiving is in
// receive.ts, notes in notes.ts.

/** GET /alert/:id */
export async function getAlert(deps: Deps, id: string, caller: Caller): Promise<Alert> {
  const record = await alertsDb.findById(deps.db, id, { customers: caller.customers });
  if (!record) throw appError('not_found');
  const history = await alertsDb.historyOf(deps.db, record.id, deps.config.HISTORY_LIMIT);
  return presentAlert(record, history, caller.baseUrl);
}

/** Runs `fn` on the locked alert inside a transaction, then publishes the result after commit. */
export async function changeAlert(
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
    if (!record) throw appError('not_found');
    return fn(tx, record);
  });
  if (updated)
    await deps.bus.publish({ type: 'alert.updated', alert: presentLiveAlert(updated, caller.baseUrl) });
  return updated;
}

/** Statuses PUT /status accepts: the spec's list and every status of the alarm model. */
const SETTABLE_STATUSES = ['open', 'assign', 'ack', 'closed', 'expired', 'shelved', 'blackout', 'unknown'];
/**
 * Housekeeping's own actions (docs/housekeeping.md): PUT /action refuses them, so a client cannot
 * expire an alert early or end an ack by naming them (docs/forwarding.md relies on it too).
 */
const HOUSEKEEPING_ACTIONS = ['expired', 'timeout'];

/** 400 unless PUT /status (and bulk status) accepts this status. */
export function assertSettableStatus(deps: Deps, status: string): void {
  if (!SETTABLE_STATUSES.includes(status) && !(status in deps.model.status)) {
    throw appError('invalid_status', status).with({
      errors: [
        `status must be one of ${[...new Set([...SETTABLE_STATUSES, ...Object.keys(deps.model.status)])].join(', ')}`,
      ],
    });
  }
}

/**
 * 400 for housekeeping's actions; every other name is accepted: the operator actions and any custom
 * action (ACT-1: plugins act on it, status unchanged), whether or not ACTIONS lists it — ACTIONS
 * only decides what the UI offers (tests/api/custom-actions.test.ts).
 */
export function assertTakeableAction(action: string): void {
  if (HOUSEKEEPING_ACTIONS.includes(action)) {
    throw appError('invalid_action', action).with({
      errors: [`${HOUSEKEEPING_ACTIONS.join(' and ')} are taken by housekeeping only`],
    });
  }
}

/** What a status change or action writes on one locked alert, decided in memory. */
export interface AlertWrite {
  patch: alertsDb.AlertPatch;
  entry: HistoryRecord;
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
    const { patch, entry } = await planStatus(deps, record, change, caller, () => deps.clock.now());
    return alertsDb.applyPatch(tx, record.id, patch, [entry], deps.config.HISTORY_LIMIT);
  });
}

/**
 * The status change of one locked alert: the status hooks, then its patch and history entry. Shared
 * by PUT /alert/:id/status and the set-based bulk path (domain/bulk-change.ts), so both decide alike
 * (tests/api/bulk-set-based.test.ts).
 */
export async function planStatus(
  deps: Deps,
  record: AlertRecord,
  change: StatusChange,
  caller: Caller,
  clock: () => number,
): Promise<AlertWrite> {
  const hooked = await deps.plugins.statusChange(record, change.status, change.text ?? '', caller);
  const now = clock();
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
  return {
    patch: { status: hooked.status, timeout, updateTime: now, ...patchOf(record, merged, hooked.changes) },
    entry,
  };
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
  assertTakeableAction(body.action);
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

/** An action as stored on one alert: what its post-action hooks are told. */
export interface ActionDone {
  record: AlertRecord;
  action: string;
  text: string;
  timeout: number | null;
}

/** The action path shared by PUT /action and housekeeping; true when the action was stored. */
async function performAction(
  deps: Deps,
  id: string,
  body: Action,
  caller: Caller,
  isDue: StillDue | null,
): Promise<boolean> {
  const { config } = deps;
  const after: { done?: ActionDone } = {};
  await changeAlert(deps, id, caller, async (tx, record) => {
    const history = await alertsDb.historyOf(tx, record.id, config.HISTORY_LIMIT);
    if (isDue && !isDue(record, history)) return null;
    const plan = await planAction(deps, record, history, body, caller, () => deps.clock.now());
    const stored = await alertsDb.applyPatch(tx, record.id, plan.patch, [plan.entry], config.HISTORY_LIMIT);
    after.done = { record: stored, action: plan.action, text: plan.text, timeout: plan.timeout };
    return stored;
  });
  if (after.done) await followAction(deps, after.done, caller);
  return Boolean(after.done);
}

/**
 * The action on one locked alert with its history (newest first): take_action hooks → state
 * machine (409 when invalid) → status hooks, then its patch and history entry. Shared by PUT
 * /action, housekeeping and the set-based bulk path (tests/api/bulk-set-based.test.ts).
 */
export async function planAction(
  deps: Deps,
  record: AlertRecord,
  history: readonly HistoryRecord[],
  body: Action,
  caller: Caller,
  clock: () => number,
): Promise<AlertWrite & { action: string; text: string; timeout: number }> {
  const { model } = deps;
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
    if (err instanceof InvalidActionError) throw appError('invalid_transition', err.message);
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
  const now = clock();
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
  const patch: alertsDb.AlertPatch = {
    severity: result.severity,
    status,
    previousSeverity: severityChanged ? record.severity : undefined,
    tags: working.tags !== record.tags ? working.tags : undefined,
    attributes: attributeDelta(record.attributes, working.attributes),
    updateTime: now,
  };
  return { patch, entry, action, text, timeout };
}

/** After an action is stored and published: its post-action hooks, and any changes they ask for. */
export async function followAction(deps: Deps, done: ActionDone, caller: Caller): Promise<void> {
  const changes = await deps.plugins.postAction(done.record, done.action, done.text, done.timeout, caller);
  if (!hasChanges(changes)) return;
  await changeAlert(deps, done.record.id, caller, (tx, record) =>
    alertsDb.applyPatch(
      tx,
      record.id,
      { tags: changes.tags, attributes: changes.attributes },
      [],
      deps.config.HISTORY_LIMIT,
    ),
  );
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

/**
 * PUT /alert/:id/tag and /untag: set semantics, no history, updateTime unchanged. Tags that would
 * leave the alert over its limits are refused (400, nothing stored); removing is always allowed.
 */
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
    const over = remove ? null : tagsOverLimit(next);
    if (over) throw appError('alert_over_limit', over);
    return alertsDb.applyPatch(tx, record.id, { tags: next }, [], deps.config.HISTORY_LIMIT);
  });
}

/**
 * PUT /alert/:id/attributes: merge; a null value deletes the key; no history. A change that sets a
 * key and would leave the alert over its limits is refused (400, nothing stored).
 */
export async function updateAttributes(
  deps: Deps,
  id: string,
  attributes: Record<string, unknown>,
  caller: Caller,
): Promise<void> {
  await changeAlert(deps, id, caller, (tx, record) => {
    if (Object.values(attributes).some((v) => v !== null)) {
      const over = attributesOverLimit(mergedAttributes(record.attributes, attributes));
      if (over) throw appError('alert_over_limit', over);
    }
    return alertsDb.applyPatch(tx, record.id, { attributes }, [], deps.config.HISTORY_LIMIT);
  });
}

/** DELETE /alert/:id: delete hooks may veto; notes are kept. */
export async function deleteAlert(deps: Deps, id: string, caller: Caller): Promise<void> {
  const record = await alertsDb.findById(deps.db, id, { customers: caller.customers });
  if (!record) throw appError('not_found');
  const allowed = await deps.plugins.delete(record, caller);
  if (!allowed) throw appError('alert_delete_failed');
  if (!(await alertsDb.deleteAlert(deps.db, record.id))) throw appError('not_found');
  await deps.bus.publish({ type: 'alert.deleted', id: record.id, customer: record.customer });
}
