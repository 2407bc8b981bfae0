import type { Config } from '../config.ts';
import type { AlertDraft, AlertRecord } from '../domain/alert-types.ts';
import type { Log } from '../log.ts';
import type { AlertChanges, PluginRequest } from '../domain/plugin-hooks.ts';

// The public plugin interface: what third-party plugin authors import (docs/plugins.md describes
// exactly this). Built-in plugins have a few more hooks and their services (./internal.ts).
export { PluginSignal, type AlertChanges, type PluginRequest } from '../domain/plugin-hooks.ts';

/** What every hook gets as its last argument: settings, a logger and the request; no database or bus. */
export interface PluginContext {
  /** The settings (frozen); a plugin's own are in `config.extra`. */
  readonly config: Config;
  /** The server's logger with the plugin's name attached. */
  readonly log: Log;
  readonly request: PluginRequest;
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

/** What a plugin's factory is called with, once at start-up. */
export interface PluginInit {
  readonly config: Config;
  readonly log: Log;
}

/** A plugin module exports a factory: `export default function create({ config, log }) { return { name, ...hooks } }`. */
export type PluginFactory = (init: PluginInit) => Plugin | Promise<Plugin>;

/**
 * The status a suppressed (blacked-out) alert carries: 'blackout', or 'OOSRV' in the ISA 18.2
 * model. Derived from the setting so plugins need not build the alarm model.
 */
export function suppressedStatus(config: Pick<Config, 'ALARM_MODEL'>): string {
  return config.ALARM_MODEL === 'ISA_18_2' ? 'OOSRV' : 'blackout';
}
