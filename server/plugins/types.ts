import type { Config } from '../config.ts';
import type { Base } from '../deps.ts';
import type { AlertDraft, AlertRecord } from '../domain/alert-types.ts';
import type { Log } from '../log.ts';
import type { AlertChanges, AlongWritten, PluginRequest, ReceiptAlong } from '../domain/plugin-hooks.ts';

// Plugin authors import everything from this module (docs/plugins.md); the hooks the use cases
// call are declared beside them in domain/plugin-hooks.ts.
export {
  PluginSignal,
  type AlertChanges,
  type PluginPipeline,
  type PluginRequest,
  type ReceiptAlong,
} from '../domain/plugin-hooks.ts';

export interface PluginContext {
  config: Config;
  log: Log;
  deps: Base;
  request: PluginRequest;
}

export interface StatusChangeResult {
  status?: string;
  text?: string;
  changes?: AlertChanges;
}

export interface ActionResult {
  action?: string;
  text?: string;
  timeout?: number | null;
  changes?: AlertChanges;
}

/**
 * A plugin: any subset of hooks, run in PLUGINS order (docs/plugins.md).
 * Hooks signal with the errors below; any other exception is a plugin failure
 * (500 with PLUGINS_RAISE_ON_ERROR, else logged and skipped).
 */
export interface Plugin {
  name: string;
  /** May change the draft in place or return a replacement; may throw a PluginSignal or AppError. */
  preReceive?(alert: AlertDraft, ctx: PluginContext): Promise<AlertDraft | void> | AlertDraft | void;
  postReceive?(alert: AlertRecord, ctx: PluginContext): Promise<AlertChanges | void> | AlertChanges | void;
  /**
   * Built-in plugins only (forwarder, notifications): rows the receipt's own statement writes with
   * the alert, planned on the alert as it will be stored. Used instead of postReceive (followed by
   * `afterReceipt`) when every plugin with a postReceive hook has this one too.
   */
  receiptAlong?(alert: AlertRecord, ctx: PluginContext): Partial<ReceiptAlong> | void;
  /**
   * True when `receiptAlong` plans nothing for a plain duplicate (same severity, status kept): such
   * receipts may then be written without reading the alert first (server/domain/receive-direct.ts).
   */
  quietOnPlainDuplicates?: boolean;
  /**
   * What `receiptAlong` plans for a plain duplicate of alert `alertId` (same severity, status
   * kept), known without the stored alert: such receipts may then be written without reading the
   * alert first, with these rows in the same statement (server/domain/receive-direct.ts).
   */
  plainAlong?(alertId: string, ctx: PluginContext): Partial<ReceiptAlong> | void;
  afterReceipt?(alert: AlertRecord, written: AlongWritten, ctx: PluginContext): Promise<void> | void;
  statusChange?(
    alert: AlertRecord,
    status: string,
    text: string,
    ctx: PluginContext,
  ): Promise<StatusChangeResult | void> | StatusChangeResult | void;
  takeAction?(
    alert: AlertRecord,
    action: string,
    text: string,
    timeout: number | null,
    ctx: PluginContext,
  ): Promise<ActionResult | void> | ActionResult | void;
  postAction?(
    alert: AlertRecord,
    action: string,
    text: string,
    timeout: number | null,
    ctx: PluginContext,
  ): Promise<AlertChanges | void> | AlertChanges | void;
  takeNote?(
    alert: AlertRecord,
    text: string,
    ctx: PluginContext,
  ): Promise<{ text?: string } | void> | { text?: string } | void;
  /** Returning false vetoes the deletion. */
  delete?(alert: AlertRecord, ctx: PluginContext): Promise<boolean | void> | boolean | void;
}

/** A plugin module exports a factory: `export default function create(ctx) { return { name, ...hooks } }`. */
export type PluginFactory = (init: { config: Config; log: Log }) => Plugin | Promise<Plugin>;

/**
 * The status a suppressed (blacked-out) alert carries: 'blackout', or 'OOSRV' in the ISA 18.2
 * model. Derived from the setting so plugins need not build the alarm model.
 */
export function suppressedStatus(config: Pick<Config, 'ALARM_MODEL'>): string {
  return config.ALARM_MODEL === 'ISA_18_2' ? 'OOSRV' : 'blackout';
}
