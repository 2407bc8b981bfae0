import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';
import type { AlertDraft, AlertRecord } from '../domain/alert-types.ts';
import type { Log } from '../log.ts';

/** Who asked, and from where: what plugins may know of the request behind a hook. */
export interface PluginRequest {
  /** Socket peer address. */
  ip: string;
  /** Request header by (case-insensitive) name, '' when absent. */
  header(name: string): string;
  /** Login of the caller, or null (anonymous / auth off). */
  user: string | null;
  /** Absolute API base for hrefs (BASE_URL or the request's own). */
  baseUrl: string;
}

export interface PluginContext {
  config: Config;
  log: Log;
  deps: Deps;
  request: PluginRequest;
}

/** Changes a hook may ask for on a stored alert: tags replace, attributes merge (null deletes a key). */
export interface AlertChanges {
  severity?: string;
  tags?: string[];
  attributes?: Record<string, unknown>;
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
 * A plugin: any subset of hooks, run in PLUGINS order (../shared/reference/plugins-webhooks-forwarding.md).
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

/**
 * Ends processing with a non-error reply: 202 for heartbeat conversion, blackout suppression and
 * forwarding loops. Nothing is stored.
 */
export class PluginSignal extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  constructor(status: number, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.body = { status: 'ok', message, ...extra };
  }
}

/** A plugin module exports a factory: `export default function create(ctx) { return { name, ...hooks } }`. */
export type PluginFactory = (init: { config: Config; log: Log }) => Plugin | Promise<Plugin>;

/** The plugins in PLUGINS order, run hook by hook (server/plugins/pipeline.ts). */
export interface PluginPipeline {
  /** May throw PluginSignal (202), AppError (403, 429, …). `suppressed`: the alert is in blackout; later hooks were skipped. */
  preReceive(alert: AlertDraft, request: PluginRequest): Promise<{ alert: AlertDraft; suppressed: boolean }>;
  postReceive(alert: AlertRecord, request: PluginRequest): Promise<AlertChanges | null>;
  statusChange(
    alert: AlertRecord,
    status: string,
    text: string,
    request: PluginRequest,
  ): Promise<{ status: string; text: string; changes?: AlertChanges }>;
  takeAction(
    alert: AlertRecord,
    action: string,
    text: string,
    timeout: number | null,
    request: PluginRequest,
  ): Promise<{ action: string; text: string; timeout: number | null; changes?: AlertChanges }>;
  postAction(
    alert: AlertRecord,
    action: string,
    text: string,
    timeout: number | null,
    request: PluginRequest,
  ): Promise<AlertChanges | null>;
  takeNote(alert: AlertRecord, text: string, request: PluginRequest): Promise<{ text: string }>;
  /** False when a hook vetoed the deletion. */
  delete(alert: AlertRecord, request: PluginRequest): Promise<boolean>;
}

/**
 * The status a suppressed (blacked-out) alert carries: 'blackout', or 'OOSRV' in the ISA 18.2
 * model. Derived from the setting so plugins need not build the alarm model.
 */
export function suppressedStatus(config: Pick<Config, 'ALARM_MODEL'>): string {
  return config.ALARM_MODEL === 'ISA_18_2' ? 'OOSRV' : 'blackout';
}
