import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { AlertInput } from '../../../shared/alerts.ts';
import type { Base } from '../../deps.ts';
import { appError } from '../../errors.ts';
import type { AlertDraft } from '../alert-types.ts';

// Step one of a receipt: the submission as the alert it asks for, and the key it queues under.

const DEFAULT_ORIGIN = `alertwall/${hostname()}`;

/** Applies the established server's defaults to a validated submission (lifecycle §2). */
export function draftFromInput(base: Base, input: AlertInput, now: number): AlertDraft {
  const { config, model } = base;
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

/** A 400 naming the severity when the alarm model does not know it. */
export function assertSeverity(base: Base, severity: string) {
  if (!base.model.isSeverity(severity))
    throw appError('unknown_severity', base.model.unknownSeverityMessage(severity));
}

/**
 * Which receipts this instance combines and orders (the database guarantees the outcome either
 * way: `insertNew`). A receipt with a correlate list may correlate with any alert of its
 * environment, resource and customer (lifecycle §4), so those are keyed by that, whatever the
 * event: NodeDown and NodeUp of one resource then queue behind each other here instead of racing
 * to create two alerts and having one decided again. A receipt without one is keyed by its
 * identity, so different events of one resource are still received in parallel.
 */
export const batchKey = (d: AlertDraft) =>
  JSON.stringify(
    d.correlate.length
      ? [d.environment, d.resource, d.customer ?? '']
      : [d.environment, d.resource, d.customer ?? '', d.event],
  );
