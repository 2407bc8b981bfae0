import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Alert, AlertInput } from '../../shared/alerts.ts';
import * as receiveDb from '../db/alert-receive.ts';
import * as alertsDb from '../db/alerts.ts';
import type { Deps } from '../deps.ts';
import { AppError, badRequest } from '../errors.ts';
import { presentAlert, presentLiveAlert } from '../present.ts';
import type { AlertDraft } from './alert-types.ts';
import { assignCustomer, type Caller } from './caller.ts';
import { KeyedBatcher } from './keyed-batcher.ts';
import { receiveDirect, rememberWritten } from './receive-direct.ts';
import { hasChanges, PluginSignal } from './plugin-hooks.ts';
import {
  alongOf,
  applyToExisting,
  createNew,
  planAlong,
  predictedRecord,
  readsOf,
  asOfReceipt,
  runAttributes,
  runFields,
  serverAttributes,
  type Written,
} from './receive-write.ts';

const DEFAULT_ORIGIN = `alertwall/${hostname()}`;
const MAX_ATTEMPTS = 8;

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

  const key = batchKey(draft);
  const written = await batcherOf(deps).submit(key, { key, draft, caller, now, quiet: pre.suppressed });
  let record = written.record;
  if (!pre.suppressed) {
    const changes = await deps.plugins.postReceive(record, caller, written.along);
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
  /** batchKey(draft) */
  key: string;
  draft: AlertDraft;
  caller: Caller;
  now: number;
  /** Suppressed (blacked out): no post-receive hooks, nothing written along. */
  quiet: boolean;
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
    // The identity's next receipt of this severity is most likely a plain duplicate: it may skip the read.
    rememberWritten(deps, rest[0]!.key, done.at(-1)!.record);
    results.push(...done);
    rest = rest.slice(done.length);
  }
  return results;
}

/** Handles a leading run of receipts (at least one) with one read and one write, retrying on a concurrent change. */
async function receiveSome(deps: Deps, items: Receipt[]): Promise<(Written & { created: boolean })[]> {
  const first = items[0]!;
  const direct = await receiveDirect(deps, first.key, items);
  if (direct) return direct;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const candidate = await readsOf(deps).submit('read', first.draft);
    if (!candidate) {
      const written = await createNew(deps, first.draft, first.caller, first.now, first.quiet);
      if (written !== 'conflict') return [{ ...written, created: true }];
      continue;
    }
    const run = foldableDuplicates(deps, candidate, items);
    if (run > 1) {
      const folded = await writeDuplicates(deps, candidate, items.slice(0, run));
      if (folded) return folded;
      continue;
    }
    const written = await applyToExisting(deps, first.draft, candidate, first.caller, first.now, first.quiet);
    if (written !== 'conflict') return [{ ...written, created: false }];
  }
  throw new AppError(503, 'the alert is changing too fast to de-duplicate; retry');
}

/** How many leading receipts are plain duplicates of the stored alert: same severity, no status change, no history. */
function foldableDuplicates(deps: Deps, candidate: receiveDb.Candidate, items: Receipt[]): number {
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
async function writeDuplicates(deps: Deps, candidate: receiveDb.Candidate, run: Receipt[]) {
  const last = run.at(-1)!;
  const attributes = runAttributes(
    run.map((r) => ({ ...r.draft.attributes, ...serverAttributes(deps, candidate.status, undefined) })),
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
      deps,
      {
        ...predicted,
        duplicateCount: predicted.duplicateCount - (run.length - 1 - i),
        lastReceiveId: r.draft.id,
      },
      r.draft,
      r.caller,
      r.quiet,
      true,
      true,
    ),
  );
  const withs = planned.flatMap((p) => (p?.with ? [p.with] : []));
  // The first receipt's wait (the alert's delivered rows being removed) is every receipt's.
  if (planned[0]?.along.ready) await planned[0].along.ready;
  const written = await receiveDb.updateReceived(
    deps.db,
    candidate,
    update,
    [],
    deps.config.HISTORY_LIMIT,
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
