/**
 * Writes a batch of imported alerts with their history, in the caller's transaction. An alert
 * already here by id is left alone unless the source holds more of it — a later receipt or
 * change, a higher duplicate count, more history — as when the established server's forwarder
 * created it here with only its latest entry before the import reached it: then the source's copy
 * replaces ours, history and all (docs/switching.md). Run again on an unchanged source, every
 * alert compares equal and nothing is written. tests/api/import-alerta.test.ts ("the second run
 * changes nothing", "a forwarded alert gets its older history").
 */
import { sql, type CommonQueryMethods, type SerializableValue } from 'slonik';
import { z } from 'zod';
import {
  historyInsertColumns,
  historyInsertValues,
  historyRecordsetColumns,
  insertColumns,
  insertValues,
  recordsetColumns,
} from '../../db/alert-columns.ts';
import type { ImportedAlert } from './rows.ts';
import type { Outcome } from './write.ts';

const jsonb = (rows: readonly object[]) => sql.jsonb(rows as unknown as SerializableValue);

const Ids = z.object({ id: z.string() });
const Present = z.object({
  id: z.string(),
  lastReceiveTime: z.number(),
  updateTime: z.number(),
  duplicateCount: z.number(),
  entries: z.number(),
});
type Present = z.infer<typeof Present>;

/** Whether the source's copy holds more than ours: then it replaces ours. */
function sourceHoldsMore(source: ImportedAlert, here: Present): boolean {
  const a = source.alert;
  return (
    a.lastReceiveTime > here.lastReceiveTime ||
    a.updateTime > here.updateTime ||
    a.duplicateCount > here.duplicateCount ||
    source.history.length > here.entries
  );
}

async function insertHistory(db: CommonQueryMethods, alerts: readonly ImportedAlert[]): Promise<number> {
  const rows = alerts
    .flatMap((a) => a.history.map((h) => ({ ...h, alertId: a.alert.id })))
    .map((h, n) => ({ ...h, n }));
  if (!rows.length) return 0;
  // Inserted in the order given, so that `seq` keeps each alert's entries oldest first.
  await db.query(sql.unsafe`
    INSERT INTO alert_history (alert_id, ${historyInsertColumns})
    SELECT v."alertId", ${historyInsertValues}
    FROM jsonb_to_recordset(${jsonb(rows)}) AS v("alertId" text, n integer, ${historyRecordsetColumns})
    ORDER BY v.n`);
  return rows.length;
}

export async function writeAlerts(db: CommonQueryMethods, batch: readonly ImportedAlert[]): Promise<Outcome> {
  const inserted = await db.any(sql.type(Ids)`
    INSERT INTO alerts (${insertColumns})
    SELECT ${insertValues} FROM jsonb_to_recordset(${jsonb(batch.map((a) => a.alert))}) AS v(${recordsetColumns})
    ON CONFLICT DO NOTHING RETURNING id`);
  const done = new Set(inserted.map((r) => r.id));
  const missed = batch.filter((a) => !done.has(a.alert.id));
  const refused: Outcome['refused'] = [];
  const replace: ImportedAlert[] = [];
  let skipped = 0;
  if (missed.length) {
    const here = await db.any(sql.type(Present)`
      SELECT a.id, a.last_receive_time AS "lastReceiveTime", a.update_time AS "updateTime",
        a.duplicate_count AS "duplicateCount",
        (SELECT count(*) FROM alert_history h WHERE h.alert_id = a.id)::int AS entries
      FROM alerts a WHERE a.id = ANY(${sql.array(
        missed.map((a) => a.alert.id),
        'text',
      )})
      FOR UPDATE`);
    const byId = new Map(here.map((r) => [r.id, r]));
    for (const a of missed) {
      const present = byId.get(a.alert.id);
      if (!present) {
        refused.push({
          id: a.alert.id,
          reason:
            'an alert with the same environment, resource, event and customer exists here under another id',
        });
      } else if (sourceHoldsMore(a, present)) replace.push(a);
      else skipped++;
    }
  }
  if (replace.length) {
    const updated = await db.any(sql.type(Ids)`
      UPDATE alerts a SET (${insertColumns}) = (SELECT ${insertValues})
      FROM jsonb_to_recordset(${jsonb(replace.map((r) => r.alert))}) AS v(${recordsetColumns})
      WHERE a.id = v.id AND NOT EXISTS (
        SELECT 1 FROM alerts o WHERE o.id <> v.id AND o.environment = v.environment AND o.resource = v.resource
          AND o.event = v.event AND COALESCE(o.customer, '') = COALESCE(v.customer, ''))
      RETURNING a.id`);
    const ok = new Set(updated.map((r) => r.id));
    for (const a of replace) {
      if (!ok.has(a.alert.id)) {
        refused.push({
          id: a.alert.id,
          reason: 'its new environment, resource, event and customer belong to another alert here',
        });
      }
    }
    replace.splice(0, replace.length, ...replace.filter((a) => ok.has(a.alert.id)));
    await db.query(sql.unsafe`DELETE FROM alert_history WHERE alert_id = ANY(${sql.array([...ok], 'text')})`);
  }
  const written = [...batch.filter((a) => done.has(a.alert.id)), ...replace];
  const history = await insertHistory(db, written);
  if (written.length) {
    await db.query(
      sql.unsafe`SELECT alert_history_recount(${sql.array(
        written.map((a) => a.alert.id),
        'text',
      )})`,
    );
  }
  return { imported: done.size, replaced: replace.length, skipped, refused, history };
}
