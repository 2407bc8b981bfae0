import { AlertInputSchema, type AlertInput } from '../../shared/alerts.ts';
import type { Deps } from '../deps.ts';
import type { Caller } from '../domain/caller.ts';
import type { PluginPipeline, PluginRequest } from '../domain/plugin-hooks.ts';
import { createReceiver } from '../domain/receive/index.ts';
import type { ReceiveOutcome, Receiver } from '../domain/receive/receiver.ts';
import { appError } from '../errors.ts';
import { zodIssues } from '../http/middleware/errors.ts';

export interface WebhookReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * Validates what a receiver built exactly as POST /alert validates a body. Every alert is checked
 * before any is stored, so a bad one in a batch leaves nothing half-done. Alerts that name no
 * environment get DEFAULT_ENVIRONMENT, as webhooks do in the established server.
 */
export function webhookAlertInputs(deps: Deps, webhook: string, alerts: unknown[]): AlertInput[] {
  return alerts.map((alert, i) => {
    const parsed = AlertInputSchema.safeParse(alert);
    if (!parsed.success) {
      const issues = zodIssues(parsed.error);
      const where = alerts.length > 1 ? ` (alert ${i + 1} of ${alerts.length})` : '';
      throw appError('webhook_invalid_alert', webhook, where, parsed.error.issues[0]!.message).with({
        errors: issues,
      });
    }
    return { ...parsed.data, environment: parsed.data.environment || deps.config.DEFAULT_ENVIRONMENT };
  });
}

/** Receives a payload's alerts (docs/webhooks.md, "Alerts"; createWebhookReceiver). */
export interface WebhookReceiver {
  receive(inputs: AlertInput[], caller: Caller): Promise<WebhookReply>;
}

type Turn = 'go' | 'stop';

/**
 * Whether the next alert of a payload may start its pre-receive plugins: 'go' once this one's
 * plugins let it through, 'stop' once it was stopped (signal, reject, rate limit), failed before
 * being written, or was itself skipped. The first word counts.
 */
class Gate {
  readonly turn: Promise<Turn>;
  /** An alert naming its own id waits until it is written: a clash with another alert's id is a 409. */
  readonly untilWritten: boolean;
  readonly next: Promise<Turn>;
  settle!: (turn: Turn) => void;
  constructor(turn: Promise<Turn>, untilWritten: boolean) {
    this.turn = turn;
    this.untilWritten = untilWritten;
    this.next = new Promise((ok) => (this.settle = ok));
  }
}

/** Thrown for an alert after one that ended the request: never answered, never stored. */
class Skipped extends Error {}

/**
 * The pipeline with each webhook alert's pre-receive hooks run in the payload's order, each only
 * after the one before passed them (`Gate`); POST /alert's callers have no gate and pass straight.
 */
function gatedPlugins(deps: Deps, gates: WeakMap<PluginRequest, Gate>): PluginPipeline {
  const { plugins, model } = deps;
  return {
    ...plugins,
    async preReceive(draft, request) {
      const gate = gates.get(request);
      if (!gate) return plugins.preReceive(draft, request);
      if ((await gate.turn) === 'stop') {
        gate.settle('stop');
        throw new Skipped();
      }
      let pre;
      try {
        pre = await plugins.preReceive(draft, request);
      } catch (err) {
        gate.settle('stop');
        throw err;
      }
      // receiveAlert checks the severity the plugins left next; an unknown one ends the request (400).
      if (!model.isSeverity(pre.alert.severity)) gate.settle('stop');
      else if (!gate.untilWritten) {
        // Two microtasks on: receiveAlert, resumed by this return, has by then handed the receipt
        // to its batch key's queue, so a later alert of the same identity queues behind it, as in
        // a receipt one after another (tests/api/webhooks-batch.test.ts, "duplicates").
        queueMicrotask(() => queueMicrotask(() => gate.settle('go')));
      }
      return pre;
    },
  };
}

/** One answer for the outcomes in payload order, as receiving them one after another gives. */
function replyOf(outcomes: PromiseSettledResult<ReceiveOutcome>[]): WebhookReply {
  const stored = [];
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') throw outcome.reason;
    const value = outcome.value;
    if (value.kind === 'signal') return { status: value.status, body: value.body };
    stored.push(value.alert);
  }
  if (stored.length === 1)
    return { status: 201, body: { status: 'ok', id: stored[0]!.id, alert: stored[0] } };
  return { status: 201, body: { status: 'ok', ids: stored.map((a) => a.id) } };
}

/**
 * Receives webhook alerts through POST /alert's path (customer, plugins, de-duplication,
 * blackouts, live events). The alerts of one payload are written together — the receive path
 * combines the reads and writes of receipts in flight at once (docs/architecture.md, "The receive
 * path") — so a payload of 50 costs a few round trips instead of 50 × 2. The answer and what is
 * stored stay those of receiving them one after another: the pre-receive plugins run in the
 * payload's order, each alert's only once the one before passed them, so a plugin that stops one
 * (heartbeat, blackout, forwarding loop: 202), rejects it (403) or rate-limits it (429) ends the
 * request with its answer, with the alerts before it stored and none after it tried; alerts of
 * one identity are written in payload order. One alert answers `{status, id, alert}`; none or
 * several `{status, ids}`. tests/api/webhooks-batch.test.ts compares every case with receipt one
 * after another.
 *
 * The one difference: an alert that fails after its plugins let it through (the database down,
 * 503; a plugin failing with PLUGINS_RAISE_ON_ERROR, 500) still gives the answer, the first
 * failure in payload order, but the alerts after it were being written meanwhile and may be stored.
 */
export function createWebhookReceiver(deps: Deps): WebhookReceiver {
  const gates = new WeakMap<PluginRequest, Gate>();
  // A receive path of its own whose pipeline knows the gates; POST /alert keeps deps.receiver.
  const gated: Receiver = createReceiver(deps, { plugins: gatedPlugins(deps, gates) });
  return {
    async receive(inputs, caller) {
      if (inputs.length <= 1) {
        const outcomes = await Promise.allSettled(inputs.map((i) => deps.receiver.receiveAlert(i, caller)));
        return replyOf(outcomes);
      }
      let turn: Promise<Turn> = Promise.resolve('go');
      const receipts = inputs.map((input) => {
        const gate = new Gate(turn, input.id != null);
        turn = gate.next;
        // Its own caller object, by which the pipeline finds this alert's gate.
        const own: Caller = { ...caller };
        gates.set(own, gate);
        const receipt = gated.receiveAlert(input, own);
        // Settles the gate when the plugins never did: a failure before them (customer, severity),
        // or the alert written (untilWritten).
        receipt.then(
          (outcome) => gate.settle(outcome.kind === 'stored' ? 'go' : 'stop'),
          () => gate.settle('stop'),
        );
        return receipt;
      });
      // Every receipt has settled before the answer; a skipped one only ever follows the one answered.
      return replyOf(await Promise.allSettled(receipts));
    },
  };
}
