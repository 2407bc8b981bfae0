import type * as receiveDb from '../../db/alert-receive.ts';
import { leasedOf } from '../../db/receipt-along.ts';
import type { AlertRecord } from '../alert-types.ts';
import type { AlongWritten } from '../plugin-hooks.ts';
import type { Receipt, ReceiveState } from './state.ts';

// What a receipt's own statement writes besides the alert (forward-queue rows, notification
// triggers: server/db/receipt-along.ts), planned by the plugins in memory before the write.

/** How a receipt's rows are planned; the write step picks the kind when it knows how it writes. */
export type PlanKind =
  /** Suppressed (blacked out): its post-receive hooks never run, so nothing is planned. */
  | 'quiet'
  /** A new alert, or a change people are told about (severity, status, history): forwards and triggers. */
  | 'change'
  /** A plain duplicate written on its own: forwards only (it changes nothing people are told about). */
  | 'plain'
  /** One of a run of plain duplicates written as one statement: as plain, each forward with its own fields. */
  | 'run';

/** What the plugins want written along with a receipt: undefined when they follow it up as before. */
export interface Planned {
  along: AlongWritten['along'];
  /** For the statement: only when there is something to write. */
  with: receiveDb.Along | undefined;
}

/**
 * Asks the plugins (`along`) what the receipt's own statement should write besides the alert,
 * given the alert as it will be stored (`predicted`).
 */
export function planAlong(
  state: ReceiveState,
  kind: PlanKind,
  predicted: AlertRecord,
  receipt: Receipt,
): Planned | undefined {
  if (kind === 'quiet' || !state.plugins.along) return undefined;
  return plannedWith(state, kind, state.plugins.along(predicted, receipt.caller), receipt);
}

/**
 * planAlong for one of a run of plain duplicates, from the alert's id alone (`alongPlain`: only
 * when `alongOnPlain` is false, i.e. no plugin needs the stored alert for it).
 */
export function planAlongById(
  state: ReceiveState,
  kind: 'quiet' | 'run',
  alertId: string,
  receipt: Receipt,
): Planned | undefined {
  if (kind === 'quiet' || !state.plugins.alongPlain) return undefined;
  return plannedWith(state, kind, state.plugins.alongPlain(alertId, receipt.caller), receipt);
}

const NO_PATCH: Record<string, unknown> = Object.freeze({});

function plannedWith(
  state: ReceiveState,
  kind: Exclude<PlanKind, 'quiet'>,
  along: AlongWritten['along'] | undefined,
  { draft }: Receipt,
): Planned | undefined {
  if (!along) return undefined;
  // A plain duplicate changes nothing people are told about (and several of one alert may share a
  // statement, where a rule's state row can be written only once).
  if (kind !== 'change') along.triggers = [];
  if (!along.forwards.length && !along.triggers.length) return { along, with: undefined };
  // The statement builds the body from the written row; a receipt of a combined run of duplicates
  // also gives its own fields, since the row holds the last one's. Only forwarded bodies use it: a
  // receipt that only notifies builds none.
  if (!along.forwards.length) return { along, with: { along, patch: NO_PATCH } };
  const createTime = new Date(state.clock.now()).toISOString();
  const patch =
    kind === 'run'
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
