import type { BlackoutCache, Clock } from '../deps.ts';
import type { AlertRecord } from '../domain/alert-types.ts';
import type { HeartbeatInput } from '../domain/heartbeats.ts';
import type { AlongWritten, PluginRequest, ReceiptAlong } from '../domain/plugin-hooks.ts';
import type { Destination } from '../forwarding/destinations.ts';
import type { ForwardTarget } from '../forwarding/enqueue.ts';
import type { Log } from '../log.ts';
import type { Plugin, PluginContext, PluginInit } from './types.ts';

// The built-in plugins' side of the plugin interface: hooks the receive path uses to write along
// with the alert, and the services built-ins are made from. Third-party plugins see only types.ts
// (docs/plugins.md); loadPlugins drops these hooks from a module's plugin.

/** A built-in plugin: the public hooks, plus the receive path's (forwarder, notifications). */
export interface BuiltinPlugin extends Plugin {
  /**
   * Rows the receipt's own statement writes with the alert, planned on the alert as it will be
   * stored. Used instead of postReceive (followed by `afterReceipt`) when every plugin with a
   * postReceive hook has this one too.
   */
  receiptAlong?(alert: AlertRecord, ctx: PluginContext): Partial<ReceiptAlong> | void;
  /**
   * True when `receiptAlong` plans nothing for a plain duplicate (same severity, status kept): such
   * receipts may then be written without reading the alert first (server/domain/receive/direct.ts).
   */
  quietOnPlainDuplicates?: boolean;
  /**
   * What `receiptAlong` plans for a plain duplicate of alert `alertId` (same severity, status
   * kept), known without the stored alert: such receipts may then be written without reading the
   * alert first, with these rows in the same statement (server/domain/receive/direct.ts).
   */
  plainAlong?(alertId: string, ctx: PluginContext): Partial<ReceiptAlong> | void;
  /** After a receipt planned by `receiptAlong` is written: follows up what was written along. */
  afterReceipt?(alert: AlertRecord, written: AlongWritten, ctx: PluginContext): Promise<void> | void;
}

/** Stores an alert the heartbeat plugin converts (domain/heartbeats.ts receiveHeartbeat). */
export interface HeartbeatStore {
  receive(input: HeartbeatInput, baseUrl: string): Promise<{ id: string }>;
}

/** Where the forwarder plugin queues events (forwarding/enqueue.ts, bound to this instance). */
export interface ForwardQueue {
  /** The rows a receipt of `alertId` writes in its own statement. */
  plan(
    destinations: readonly Destination[],
    request: PluginRequest,
    alertId: string,
  ): Pick<ReceiptAlong, 'forwards' | 'ready'>;
  /** After such a receipt: counts its rows and sends the leased ones. */
  follow(written: AlongWritten): Promise<void>;
  /** Queues an action, a deletion or a received alert (when the receipt did not plan it) and sends it. */
  queue(
    log: Log,
    destinations: readonly Destination[],
    request: PluginRequest,
    target: ForwardTarget,
  ): Promise<void>;
}

/** What the built-in plugins are made from (boot.ts): a third party's init plus the services they call. */
export interface BuiltinInit extends PluginInit {
  clock: Clock;
  heartbeats: HeartbeatStore;
  /** The blackout plugin's lookup (this instance's blackout cache). */
  blackouts: Pick<BlackoutCache, 'findActive'>;
  forwards: ForwardQueue;
}

/** A built-in's factory; one that needs nothing of BuiltinInit is a plain PluginFactory. */
export type BuiltinFactory = (init: BuiltinInit) => BuiltinPlugin | Promise<BuiltinPlugin>;
