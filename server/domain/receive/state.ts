import type { CreatedOrFound } from '../../db/alert-create-or-find.ts';
import type * as receiveDb from '../../db/alert-receive.ts';
import type { Base } from '../../deps.ts';
import type { AlertDraft, AlertRecord, HistoryRecord } from '../alert-types.ts';
import type { Caller } from '../caller.ts';
import type { KeyedBatcher } from '../keyed-batcher.ts';
import type { AlongWritten, PluginPipeline } from '../plugin-hooks.ts';

// The shapes a receipt takes through the module, and the one object holding an instance's receive
// state. createReceiver (index.ts) builds the state once; every step gets it as its first argument.

/** A submission past the pre-receive plugins, on its way to the database. */
export interface Receipt {
  /** batchKey(draft) (draft.ts): receipts with the same key are written in order. */
  key: string;
  draft: AlertDraft;
  caller: Caller;
  now: number;
  /** Suppressed (blacked out): no post-receive hooks, nothing written along (plan kind 'quiet'). */
  quiet: boolean;
}

/** A receipt written. */
export interface Written {
  record: AlertRecord;
  /** Newest first, including the entries this write added. */
  history: HistoryRecord[];
  /** What the statement wrote along for this receipt, when the plugins planned it (`along`). */
  along?: AlongWritten | undefined;
}

/** A receipt written, and whether it created the alert. */
export type Received = Written & { created: boolean };

/** What this instance last wrote for an identity: its alert, and the severity it was left with. */
export interface Hint {
  id: string;
  severity: string;
}

type Statement<T> = KeyedBatcher<T, receiveDb.ReceiptWritten | null>;

/**
 * One instance's receive state. Each KeyedBatcher combines work that arrives while the previous
 * batch of the same key runs (docs/architecture.md, "The receive path").
 */
export interface ReceiveState extends Base {
  plugins: PluginPipeline;
  /** Statuses in which an alert is not notified (`notify: false`). */
  quietStatuses: readonly string[];
  /** Receipts per batch key, written in order (batch.ts receiveBatch). */
  receipts: KeyedBatcher<Receipt, Received>;
  /** Matching reads of any identity, made together in one statement. */
  reads: KeyedBatcher<AlertDraft, receiveDb.Candidate | null>;
  /** New alerts of any identity, created together in one statement. */
  inserts: Statement<receiveDb.NewAlert>;
  /** Receipts most likely new (batch.ts), created, or their stored alert read, together in one statement. */
  creates: KeyedBatcher<receiveDb.NewAlert, CreatedOrFound>;
  /**
   * About what share of the receipts lately decided after a read (or createOrFind) were new: a
   * receipt of an identity not written here lately is created without the read while it is over a half.
   */
  newShare: number;
  /** Plain duplicates of any identity (after a read), written together in one statement. */
  updates: Statement<receiveDb.PlainDuplicate>;
  /** Plain duplicates written without a read (direct.ts), together in one statement. */
  byIdentity: Statement<receiveDb.DirectDuplicate>;
  /** Batch key → what its alert was last written with here (direct.ts); at most HINTS entries. */
  hints: Map<string, Hint>;
  /** Where forgetting the oldest hints has got to (direct.ts forgetOldest). */
  hintOrder: MapIterator<string> | undefined;
  /** (severity, incoming status) → the stored statuses the alarm model keeps for such a duplicate. */
  kept: Map<string, readonly string[]>;
}
