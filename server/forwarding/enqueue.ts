import { randomUUID } from 'node:crypto';
import * as queue from '../db/forward-queue.ts';
import type { QueuedRow } from '../db/forward-queue.ts';
import type { Base } from '../deps.ts';
import type { Forwarder } from '../delivery/services.ts';
import { copierOf, FORWARDED_FIELDS } from '../domain/alert-fields.ts';
import type { AlertRecord } from '../domain/alert-types.ts';
import type { Log } from '../log.ts';
import type { AlongWritten, ForwardAlong, PluginRequest } from '../domain/plugin-hooks.ts';
import { wantsEvent, type Destination, type ForwardKind } from './destinations.ts';
import { ALERTA_LOOP_HEADER, LOOP_HEADER, isNamed, loopNames, loopValue } from './loop.ts';

const copyForwarded = copierOf(FORWARDED_FIELDS);

/**
 * The body of a forwarded alert (reference §3): the stored fields, id = lastReceiveId so the remote
 * stores the same id on first receipt, createTime = the time of forwarding, no rawData, and no
 * status or server-set fields (the remote derives its own).
 */
export function forwardedAlert(alert: AlertRecord, now: number): Record<string, unknown> {
  const body: Record<string, unknown> = copyForwarded(alert);
  // Set in place: the keys keep the table's order.
  body.id = alert.lastReceiveId;
  body.createTime = new Date(now).toISOString();
  body.rawData = null;
  return body;
}

export interface ForwardTarget {
  kind: ForwardKind;
  /** The alert's id here (and at the remote, which stored it under the same id). */
  alertId: string;
  body: Record<string, unknown> | null;
  /** For kind 'action'. */
  action?: string;
}

/**
 * Queues an event for every destination whose filter wants it and that the request's loop headers
 * do not already name, then sends it at once to each destination that is taking events inline
 * (FWD_INLINE_TIMEOUT, docs/forwarding.md) and waits for that, at most the inline timeout, so a
 * peer usually has the event when the request that caused it returns; the rest is delivered in the
 * background. Never throws: a queue that cannot be written costs the event (logged, counted as
 * `lost`), not the request that caused it.
 */
export async function queueForwards(
  deps: Base,
  forwarder: Forwarder | null,
  log: Log,
  destinations: readonly Destination[],
  request: PluginRequest,
  target: ForwardTarget,
): Promise<void> {
  const names = loopNames(request.header(LOOP_HEADER), request.header(ALERTA_LOOP_HEADER));
  const chosen = destinations.filter(
    (d) => wantsEvent(d, target.kind, target.action) && !isNamed(names, d.url),
  );
  if (chosen.length === 0) return;
  const loop = loopValue(names, deps.config.BASE_URL);
  // The alert's previous event, delivered inline, may still be waiting to be removed.
  const ready = forwarder?.removedBefore(target.alertId);
  if (ready) await ready;
  const events = chosen.map((d) => ({
    destination: d.url,
    kind: target.kind,
    alertId: target.alertId,
    body: target.body,
    loop,
    requestId: randomUUID(),
    leaseMs: forwarder?.inlineLeaseMs(d.url) ?? 0,
  }));
  const count = (outcome: string) => {
    for (const d of chosen)
      deps.metrics.forwardEvents.inc({ destination: d.url, kind: target.kind, outcome });
  };
  let leased: readonly QueuedRow[];
  try {
    leased = await queue.enqueue(deps.db, events, forwarder?.owner ?? null);
  } catch (err) {
    count('lost');
    log.error({ err, kind: target.kind, alertId: target.alertId }, 'forward.lost: could not queue the event');
    return;
  }
  count('queued');
  if (!forwarder) return;
  for (const d of chosen) if (!leased.some((row) => row.destination === d.url)) forwarder.kick(d.url);
  await forwarder.deliverInline(leased);
}

/**
 * The forward-queue rows a receipt of `alertId` writes in its own statement (the body is built
 * there from the written alert): one per destination that wants alerts and that the request's
 * loop headers do not name, leased for inline delivery where the destination takes events inline;
 * and `ready` when the statement should wait for the removal of the alert's delivered rows first.
 */
export function planForwards(
  deps: Base,
  forwarder: Forwarder | null,
  destinations: readonly Destination[],
  request: PluginRequest,
  alertId: string,
): { forwards: ForwardAlong[]; ready?: Promise<void> | undefined } {
  const names = loopNames(request.header(LOOP_HEADER), request.header(ALERTA_LOOP_HEADER));
  const chosen = destinations.filter((d) => wantsEvent(d, 'alert') && !isNamed(names, d.url));
  if (chosen.length === 0) return { forwards: [] };
  const loop = loopValue(names, deps.config.BASE_URL);
  const forwards = chosen.map((d) => ({
    destination: d.url,
    loop,
    requestId: randomUUID(),
    leaseMs: forwarder?.inlineLeaseMs(d.url) ?? 0,
    owner: forwarder?.owner ?? null,
  }));
  return { forwards, ready: forwarder?.removedBefore(alertId) };
}

/**
 * After a receipt's statement queued its events (committed with the alert): counts them, wakes the
 * destinations' loops, and sends the rows inserted leased now (at most FWD_INLINE_TIMEOUT), as
 * `queueForwards` does for actions and deletions.
 */
export async function followForwards(
  deps: Base,
  forwarder: Forwarder | null,
  written: AlongWritten,
): Promise<void> {
  const { forwards } = written.along;
  if (forwards.length === 0) return;
  for (const f of forwards)
    deps.metrics.forwardEvents.inc({ destination: f.destination, kind: 'alert', outcome: 'queued' });
  if (!forwarder) return;
  for (const f of forwards)
    if (!written.leased.some((row) => row.destination === f.destination)) forwarder.kick(f.destination);
  await forwarder.deliverInline(written.leased);
}
