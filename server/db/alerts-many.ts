import { sql, type CommonQueryMethods, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { AlertRowSchema, HistoryRowSchema } from '../domain/alert-fields.ts';
import type { AlertRecord, HistoryRecord } from '../domain/alert-types.ts';
import {
  columns,
  historyColumns,
  historyInsertColumns,
  historyInsertValues,
  historyRecordsetColumns,
} from './alert-columns.ts';
import type { AlertPatch } from './alerts.ts';
import { ownAttributes } from './alerts.ts';
import { texts } from './rows.ts';

// The set-based writes of bulk status changes and actions (domain/bulk-change.ts): a chunk of
// alerts is locked, read with its history, and written back in one statement each, where the
// single-alert path (db/alerts.ts, applyPatch) takes a transaction per alert. The rows stay locked
// from the read to the write, so the patches decided in memory apply to the rows as they were read
// (tests/api/bulk-set-based.test.ts races single-alert changes against a task on two instances).

const scopeOf = (customers: readonly string[] | null) =>
  customers ? sql.fragment`AND a.customer = ANY(${texts(customers)})` : sql.fragment``;

/**
 * Locks and reads the alerts of `ids` the caller's customers may see. Rows are locked in id order,
 * as every bulk chunk locks them, so two tasks over the same alerts never deadlock each other.
 */
export function lockMany(
  tx: DatabaseTransactionConnection,
  ids: readonly string[],
  customers: readonly string[] | null,
): Promise<readonly AlertRecord[]> {
  return tx.any(sql.type(AlertRowSchema)`
    SELECT ${columns} FROM alerts a WHERE a.id = ANY(${texts(ids)}) ${scopeOf(customers)}
    ORDER BY a.id FOR UPDATE OF a`);
}

const OwnedEntrySchema = HistoryRowSchema.extend({ alertId: z.string() });

/** The newest `limit` history entries of each alert (newest first), in one statement. */
export async function historiesOf(
  db: CommonQueryMethods,
  ids: readonly string[],
  limit: number,
): Promise<Map<string, HistoryRecord[]>> {
  const rows = await db.any(sql.type(OwnedEntrySchema)`
    SELECT p.id AS "alertId", h.* FROM unnest(${texts(ids)}::text[]) WITH ORDINALITY AS p(id, n)
    CROSS JOIN LATERAL (
      SELECT ${historyColumns}, seq FROM alert_history WHERE alert_id = p.id ORDER BY seq DESC LIMIT ${limit}
    ) h
    ORDER BY p.n, h.seq DESC`);
  const byAlert = new Map<string, HistoryRecord[]>();
  // The parser drops `seq` (the order it was read in is kept).
  for (const { alertId, ...entry } of rows) {
    const list = byAlert.get(alertId);
    if (list) list.push(entry);
    else byAlert.set(alertId, [entry]);
  }
  return byAlert;
}

/** One alert's write: its patch (fields left undefined are kept) and its one history entry. */
export interface ManyWrite {
  id: string;
  patch: AlertPatch;
  entry: HistoryRecord;
}

/** A patch as a row of `jsonb_to_recordset` (null: the field is kept). */
const patchRow = ({ id, patch: p }: ManyWrite) => ({
  id,
  severity: p.severity ?? null,
  status: p.status ?? null,
  previousSeverity: p.previousSeverity ?? null,
  setTimeout: p.timeout !== undefined,
  timeout: p.timeout ?? null,
  tags: p.tags ?? null,
  attrSet: p.attributes === undefined ? null : ownAttributes(p.attributes),
  attrRemoved:
    p.attributes === undefined ? [] : Object.keys(p.attributes).filter((k) => p.attributes![k] === null),
  updateTime: p.updateTime ?? null,
});

/**
 * Writes each alert's patch and adds its history entry, keeping only the newest `historyLimit`
 * entries, in one statement: what applyPatch does for one alert, for many. Entries of these writes
 * are never typed `new` or `severity`, so the history counts (historyCounts) do not move; the
 * caller checks it. Attributes merge in SQL (a null value removes the key), as applyPatch's do.
 */
export function writeMany(
  tx: DatabaseTransactionConnection,
  writes: readonly ManyWrite[],
  historyLimit: number,
): Promise<readonly AlertRecord[]> {
  if (writes.length === 0) return Promise.resolve([]);
  const patches = JSON.stringify(writes.map(patchRow));
  const entries = JSON.stringify(writes.map((w) => ({ alertId: w.id, ...w.entry })));
  const keepExisting = Math.max(historyLimit - 1, 0);
  return tx.any(sql.type(AlertRowSchema)`
    WITH p AS (
      SELECT * FROM jsonb_to_recordset(${entriesParam(patches)}) AS p(id text, severity text, status text,
        "previousSeverity" text, "setTimeout" boolean, timeout integer, tags text[], "attrSet" jsonb,
        "attrRemoved" text[], "updateTime" float8)
    ),
    w AS (
      UPDATE alerts AS a SET
        severity = COALESCE(p.severity, a.severity),
        status = COALESCE(p.status, a.status),
        previous_severity = COALESCE(p."previousSeverity", a.previous_severity),
        timeout = CASE WHEN p."setTimeout" THEN p.timeout ELSE a.timeout END,
        tags = COALESCE(p.tags, a.tags),
        attributes = CASE WHEN p."attrSet" IS NULL THEN a.attributes
          ELSE (a.attributes || p."attrSet") - p."attrRemoved" END,
        update_time = COALESCE(to_timestamp(p."updateTime" / 1000.0), a.update_time)
      FROM p WHERE a.id = p.id
      RETURNING ${columns}
    ),
    added AS (
      INSERT INTO alert_history (alert_id, ${historyInsertColumns})
      SELECT v."alertId", ${historyInsertValues}
      FROM jsonb_to_recordset(${entriesParam(entries)}) AS v("alertId" text, ${historyRecordsetColumns})
      WHERE v."alertId" IN (SELECT id FROM w)
      RETURNING 1
    ),
    trimmed AS (
      DELETE FROM alert_history h USING (
        SELECT w.id, t.seq FROM w CROSS JOIN LATERAL (
          SELECT x.seq FROM alert_history x WHERE x.alert_id = w.id
          ORDER BY x.seq DESC OFFSET ${keepExisting} LIMIT 1) t
      ) d
      WHERE h.alert_id = d.id AND h.seq <= d.seq
      RETURNING 1
    )
    SELECT w.* FROM w ORDER BY w.id`);
}

/** A JSON text as a jsonb parameter (already serialized once, not again by sql.jsonb). */
const entriesParam = (json: string) => sql.fragment`${json}::jsonb`;
