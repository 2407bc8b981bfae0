import type { AlertInput } from '../../../shared/alerts.ts';
import { createOrFind } from '../../db/alert-create-or-find.ts';
import * as receiveDb from '../../db/alert-receive.ts';
import * as alertsDb from '../../db/alerts.ts';
import type { Base } from '../../deps.ts';
import { presentAlert, presentLiveAlert } from '../../present.ts';
import { assignCustomer, type Caller } from '../caller.ts';
import { KeyedBatcher } from '../keyed-batcher.ts';
import { hasChanges, PluginSignal, type PluginPipeline } from '../plugin-hooks.ts';
import { receiveBatch } from './batch.ts';
import { assertSeverity, batchKey, draftFromInput } from './draft.ts';
import type { ReceiveOutcome, Receiver } from './receiver.ts';
import type { ReceiveState } from './state.ts';

// POST /alert, one way through (docs/architecture.md, "The receive path"): draft.ts (defaults,
// batch key) → pre-receive plugins → batch.ts (direct.ts or read, then write.ts, with plan.ts
// planning what the statement writes along) → post-receive plugins → live event.

/** `flapping`: more than two severity changes within this window (lifecycle §7). */
const FLAP_WINDOW_MS = 1800 * 1000;

/** Builds an instance's receive path and its state (batchers, hints); boot.ts, once. */
export function createReceiver(base: Base, { plugins }: { plugins: PluginPipeline }): Receiver {
  const { db, config, clock } = base;
  const state: ReceiveState = {
    ...base,
    plugins,
    quietStatuses: [base.model.blackoutStatus, 'shelved', 'SHLVD'],
    receipts: new KeyedBatcher((items) => receiveBatch(state, items)),
    reads: new KeyedBatcher((drafts) => receiveDb.findForReceive(db, drafts, clock.now() - FLAP_WINDOW_MS)),
    inserts: new KeyedBatcher((items) => receiveDb.insertNew(db, items)),
    creates: new KeyedBatcher((items) => createOrFind(db, items, clock.now() - FLAP_WINDOW_MS)),
    newShare: 1,
    updates: new KeyedBatcher((items) => receiveDb.updateDuplicates(db, items, config.HISTORY_LIMIT)),
    // One statement at a time, the next taking every receipt that waited: two or three in flight
    // made smaller batches and cost 15–35 % more CPU per receipt (`ingest.ts --scenarios e`).
    byIdentity: new KeyedBatcher((items) => receiveDb.updateByIdentity(db, items, config.HISTORY_LIMIT)),
    hints: new Map(),
    hintOrder: undefined,
    kept: new Map(),
  };
  return { receiveAlert: (input, caller) => receiveAlert(state, input, caller) };
}

/**
 * Pre-receive plugins, then new / duplicate / correlate (lifecycle §4–§5) in at most two round
 * trips — read the candidate, then one conditional write with its history; one for a plain
 * duplicate (direct.ts) or a new alert (batch.ts, createOrFind) — retried if a concurrent receipt
 * changed the alert in between. Publishes after the write.
 */
async function receiveAlert(state: ReceiveState, input: AlertInput, caller: Caller): Promise<ReceiveOutcome> {
  const now = state.clock.now();
  let draft = draftFromInput(state, input, now);
  draft.customer = assignCustomer(input.customer, caller.customers);
  assertSeverity(state, draft.severity);
  let pre;
  try {
    pre = await state.plugins.preReceive(draft, caller);
  } catch (err) {
    if (err instanceof PluginSignal) return { kind: 'signal', status: err.status, body: err.body };
    throw err;
  }
  draft = pre.alert;
  assertSeverity(state, draft.severity);

  const key = batchKey(draft);
  const written = await state.receipts.submit(key, { key, draft, caller, now, quiet: pre.suppressed });
  let record = written.record;
  if (!pre.suppressed) {
    const changes = await state.plugins.postReceive(record, caller, written.along);
    if (hasChanges(changes)) {
      record = await state.db.transaction((tx) =>
        alertsDb.applyPatch(
          tx,
          record.id,
          { tags: changes.tags, attributes: changes.attributes },
          [],
          state.config.HISTORY_LIMIT,
        ),
      );
    }
  }
  const history = written.history.slice(0, state.config.HISTORY_LIMIT);
  await state.bus.publish({
    type: written.created ? 'alert.received' : 'alert.updated',
    alert: presentLiveAlert(record, caller.baseUrl),
  });
  return { kind: 'stored', created: written.created, alert: presentAlert(record, history, caller.baseUrl) };
}
