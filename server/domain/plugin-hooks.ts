import type { AlertDraft, AlertRecord } from './alert-types.ts';

// What the use cases ask of the PLUGINS (deps.plugins), declared here so that the domain and
// deps.ts need nothing from server/plugins/, which implements it (plugins/pipeline.ts).

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

/** Changes a hook may ask for on a stored alert: tags replace, attributes merge (null deletes a key). */
export interface AlertChanges {
  severity?: string;
  tags?: string[];
  attributes?: Record<string, unknown>;
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

/**
 * A forward-queue row written by the receipt's own statement (docs/architecture.md, "The receive
 * path"): its body is the written alert as forwarded, with `patch` over it (the receipt's own
 * id, value, text, service, timeout and the time of forwarding).
 */
export interface ForwardAlong {
  destination: string;
  loop: string;
  requestId: string;
  /** Above 0 (and an owner): inserted already leased when it heads its alert's queue, for inline delivery. */
  leaseMs: number;
  owner: string | null;
}

/** A notification rule firing for the written alert (its snapshot is taken from the written row). */
export interface TriggerAlong {
  ruleId: string;
  receivers: string[];
  targets: { receiverId: string; waitMs: number }[];
  repeatMs: number;
  escalateMs: number;
}

/** What a receipt writes in its own statement besides the alert, decided in memory before the write. */
export interface ReceiptAlong {
  forwards: ForwardAlong[];
  triggers: TriggerAlong[];
  /** To wait for before the statement runs (an earlier forward row of the alert being removed). */
  ready?: Promise<void> | undefined;
}

/** A forward-queue row the receipt's statement inserted leased: the caller delivers it now. */
export interface LeasedForward {
  id: number;
  destination: string;
  kind: 'alert' | 'action' | 'delete';
  alertId: string;
  body: Record<string, unknown> | null;
  loop: string;
  requestId: string;
  attempts: number;
  createTime: number;
}

/** What the receipt's statement wrote along: the leased forward rows of this receipt. */
export interface AlongWritten {
  along: ReceiptAlong;
  leased: LeasedForward[];
}

/** The plugins in PLUGINS order, run hook by hook (server/plugins/pipeline.ts). */
export interface PluginPipeline {
  /**
   * What the receipt's own statement writes besides the alert (forward queue rows, notification
   * triggers), given the alert as it will be stored; undefined when the post-receive hooks must run
   * as before (a plugin with a post-receive hook that does not take part).
   */
  along?(alert: AlertRecord, request: PluginRequest): ReceiptAlong | undefined;
  /**
   * Whether `along` needs the stored alert to plan a plain duplicate (a plugin with neither
   * `quietOnPlainDuplicates` nor `plainAlong`).
   */
  readonly alongOnPlain: boolean;
  /** What `along` plans for a plain duplicate of alert `alertId` when `alongOnPlain` is false. */
  alongPlain?(alertId: string, request: PluginRequest): ReceiptAlong;
  /** May throw PluginSignal (202), AppError (403, 429, …). `suppressed`: the alert is in blackout; later hooks were skipped. */
  preReceive(alert: AlertDraft, request: PluginRequest): Promise<{ alert: AlertDraft; suppressed: boolean }>;
  /** With `written` (the receipt was planned by `along`): the hooks that follow up such a write instead. */
  postReceive(
    alert: AlertRecord,
    request: PluginRequest,
    written?: AlongWritten,
  ): Promise<AlertChanges | null>;
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

/** Merges hook changes into a record the way the established server persists them. */
export function mergeChanges(record: AlertRecord, changes: AlertChanges | null | undefined): AlertRecord {
  if (!changes) return record;
  const attributes = { ...record.attributes };
  for (const [k, v] of Object.entries(changes.attributes ?? {})) {
    if (v === null) delete attributes[k];
    else attributes[k] = v;
  }
  return {
    ...record,
    severity: changes.severity ?? record.severity,
    tags: changes.tags ?? record.tags,
    attributes,
  };
}

export const hasChanges = (c: AlertChanges | null | undefined): c is AlertChanges =>
  Boolean(c && (c.severity !== undefined || c.tags !== undefined || c.attributes !== undefined));
