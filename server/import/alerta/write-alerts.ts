/**
 * Writes a batch of imported alerts with their history, in the caller's transaction. An alert
 * already here by id is left alone unless the source holds more of it — a later receipt or
 * change, a higher duplicate count, more history — as when the established server's forwarder
 * created it here with only its latest entry before the import reached it: then the source's copy
 * replaces ours, history and all (docs/switching.md). Run again on an unchanged source, every
 * alert compares equal and nothing is written. tests/api/import-alerta.test.ts ("the second run
 * changes nothing", "a forwarded alert gets its older history").
 */
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import {
  historyInsertColumns,
  insertColumns,
  insertValues,
  recordsetColumns,
} from '../../db/alert-columns.ts';
import { HISTORY_FIELD_LIST, type SqlType } from '../../domain/alert-fields.ts';
import type { ImportedAlert } from './rows.ts';
import { jsonb, type Outcome } from './write.ts';

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

/** How a history field travels as an array parameter (times as epoch ms). */
const ARRAY_TYPE: Partial<Record<SqlType, string>> = {
  text: 'text',
  integer: 'int4',
  boolean: 'bool',
  timestamptz: 'float8',
};

const HISTORY_VALUES = sql.join(
  HISTORY_FIELD_LIST.map((f) =>
    f.sqlType === 'timestamptz'
      ? sql.fragment`to_timestamp(${sql.identifier(['u', f.name])} / 1000.0)`
      : sql.identifier(['u', f.name]),
  ),
  sql.fragment`, `,
);
const HISTORY_NAMES = sql.join(
  HISTORY_FIELD_LIST.map((f) => sql.identifier([f.name])),
  sql.fragment`, `,
);

/**
 * Writes the entries of these alerts, each alert's oldest first, in that order (`seq` keeps it),
 * one array a column: parsing arrays costs PostgreSQL less than a jsonb recordset of the same rows.
 * The range of `seq` written, to take the rows back if their alert is not written after all.
 */
async function insertHistory(db: CommonQueryMethods, alerts: readonly ImportedAlert[]) {
  const entries = alerts.flatMap((a) => a.history);
  if (!entries.length) return null;
  const alertIds = alerts.flatMap((a) => a.history.map(() => a.alert.id));
  const columns = HISTORY_FIELD_LIST.map((f) =>
    sql.array(entries.map((e) => e[f.name]) as string[], ARRAY_TYPE[f.sqlType] as 'text'),
  );
  return db.one(sql.type(SeqRange)`
    WITH w AS (
      INSERT INTO alert_history (alert_id, ${historyInsertColumns})
      SELECT u.alert_id, ${HISTORY_VALUES}
      FROM unnest(${sql.array(alertIds, 'text')}, ${sql.join(columns, sql.fragment`, `)})
        WITH ORDINALITY AS u(alert_id, ${HISTORY_NAMES}, n)
      ORDER BY u.n
      RETURNING seq)
    SELECT min(seq) AS first, max(seq) AS last, count(*)::int AS n FROM w`);
}

const SeqRange = z.object({ first: z.number(), last: z.number(), n: z.number() });

/**
 * Inserts alerts whose history is already written, with their report counts from it
 * (`alert_history_counts`, the rule migration 0054 keeps), skipping any whose id or identity is
 * taken; the ids inserted.
 */
async function insertAlerts(db: CommonQueryMethods, alerts: readonly ImportedAlert[]): Promise<Set<string>> {
  if (!alerts.length) return new Set();
  const inserted = await db.any(sql.type(Ids)`
    INSERT INTO alerts (${insertColumns}, severity_entries, flaps)
    SELECT ${insertValues}, c.entries, c.flaps
    FROM jsonb_to_recordset(${jsonb(alerts.map((a) => a.alert))}) AS v(${recordsetColumns})
      CROSS JOIN LATERAL alert_history_counts(v.id) c
    ON CONFLICT DO NOTHING RETURNING id`);
  return new Set(inserted.map((r) => r.id));
}

const ids = (alerts: readonly ImportedAlert[]) =>
  sql.array(
    alerts.map((a) => a.alert.id),
    'text',
  );

/** Our alerts with these ids, locked, with what tells whether the source holds more of them. */
async function presentById(db: CommonQueryMethods, alerts: readonly ImportedAlert[]) {
  const here = await db.any(sql.type(Present)`
    SELECT a.id, a.last_receive_time AS "lastReceiveTime", a.update_time AS "updateTime",
      a.duplicate_count AS "duplicateCount",
      (SELECT count(*) FROM alert_history h WHERE h.alert_id = a.id)::int AS entries
    FROM alerts a WHERE a.id = ANY(${ids(alerts)})
    FOR UPDATE`);
  return new Map(here.map((r) => [r.id, r]));
}

const Other = z.object({
  sourceId: z.string(),
  id: z.string(),
  createTime: z.number(),
  duplicateCount: z.number(),
});
type Other = z.infer<typeof Other>;

/** Our alerts holding these alerts' identities (environment, resource, event, customer) under another id. */
async function presentByIdentity(db: CommonQueryMethods, alerts: readonly ImportedAlert[]) {
  const keys = alerts.map(({ alert: a }) => ({
    id: a.id,
    environment: a.environment,
    resource: a.resource,
    event: a.event,
    customer: a.customer,
  }));
  const here = await db.any(sql.type(Other)`
    SELECT v.id AS "sourceId", a.id, a.create_time AS "createTime", a.duplicate_count AS "duplicateCount"
    FROM jsonb_to_recordset(${jsonb(keys)}) AS v(id text, environment text, resource text, event text, customer text)
    JOIN alerts a ON a.environment = v.environment AND a.resource = v.resource AND a.event = v.event
      AND COALESCE(a.customer, '') = COALESCE(v.customer, '') AND a.id <> v.id
    FOR UPDATE OF a`);
  return new Map(here.map((r) => [r.sourceId, r]));
}

/**
 * Replaces our copies of alerts the source holds more of: rows updated in place (same id), history
 * written anew by the caller. The ids replaced; one whose new identity is another alert's is not.
 */
async function replaceSameId(db: CommonQueryMethods, alerts: readonly ImportedAlert[]): Promise<Set<string>> {
  if (!alerts.length) return new Set();
  const updated = await db.any(sql.type(Ids)`
    UPDATE alerts a SET (${insertColumns}) = (SELECT ${insertValues})
    FROM jsonb_to_recordset(${jsonb(alerts.map((r) => r.alert))}) AS v(${recordsetColumns})
    WHERE a.id = v.id AND NOT EXISTS (
      SELECT 1 FROM alerts o WHERE o.id <> v.id AND o.environment = v.environment AND o.resource = v.resource
        AND o.event = v.event AND COALESCE(o.customer, '') = COALESCE(v.customer, ''))
    RETURNING a.id`);
  const ok = new Set(updated.map((r) => r.id));
  await db.query(sql.unsafe`DELETE FROM alert_history WHERE alert_id = ANY(${sql.array([...ok], 'text')})`);
  return ok;
}

/** Removes our alerts (and their history) that the source's copies, under their own ids, replace. */
async function removeTakenOver(db: CommonQueryMethods, ours: readonly string[]): Promise<void> {
  if (!ours.length) return;
  await db.query(sql.unsafe`DELETE FROM alert_history WHERE alert_id = ANY(${sql.array([...ours], 'text')})`);
  await db.query(sql.unsafe`DELETE FROM alerts WHERE id = ANY(${sql.array([...ours], 'text')})`);
}

const TAKEN = 'an alert with the same environment, resource, event and customer exists here under another id';

/**
 * A batch of alerts: new ones inserted; ones here by id replaced where the source holds more; and
 * ones here under another id — the established forwarder names a receipt by its own id, so a
 * duplicate forwarded before the import creates the alert here under that id — replaced by the
 * source's copy under the source's id when ours began no earlier and has seen no more receipts.
 * History is written before its alert, so that the alert is inserted with its report counts.
 */
/** Alerts written with their history: the ids inserted, the rest taken meanwhile, entries written. */
async function insertWithHistory(db: CommonQueryMethods, alerts: readonly ImportedAlert[]) {
  const written = await insertHistory(db, alerts);
  const inserted = await insertAlerts(db, alerts);
  const lost = alerts.filter((a) => !inserted.has(a.alert.id));
  if (lost.length && written) {
    // Their id or identity is taken (by a receipt of the running server, or an alert here under
    // another id): the entries just written for them go; the other alert's stay.
    await db.query(sql.unsafe`
      DELETE FROM alert_history
      WHERE alert_id = ANY(${ids(lost)}) AND seq BETWEEN ${written.first} AND ${written.last}`);
  }
  const entries = (written?.n ?? 0) - lost.reduce((n, a) => n + a.history.length, 0);
  return { inserted, lost, entries };
}

export async function writeAlerts(db: CommonQueryMethods, batch: readonly ImportedAlert[]): Promise<Outcome> {
  const refused: Outcome['refused'] = [];
  const sameId: ImportedAlert[] = [];
  const fresh: ImportedAlert[] = [];
  let skipped = 0;
  const byId = await presentById(db, batch);
  for (const a of batch) {
    const present = byId.get(a.alert.id);
    if (!present) fresh.push(a);
    else if (sourceHoldsMore(a, present)) sameId.push(a);
    else skipped++;
  }
  // Most alerts are new: their identities are looked up only when the insert finds one taken.
  const first = await insertWithHistory(db, fresh);
  const byIdentity = first.lost.length ? await presentByIdentity(db, first.lost) : new Map<string, Other>();
  const takeOver: ImportedAlert[] = [];
  const oursTaken: string[] = [];
  for (const a of first.lost) {
    const other = byIdentity.get(a.alert.id);
    if (other && other.createTime >= a.alert.createTime && other.duplicateCount <= a.alert.duplicateCount) {
      takeOver.push(a);
      oursTaken.push(other.id);
    } else refused.push({ id: a.alert.id, reason: TAKEN });
  }
  await removeTakenOver(db, oursTaken);
  const second = await insertWithHistory(db, takeOver);
  for (const a of second.lost) refused.push({ id: a.alert.id, reason: TAKEN });
  const replaced = await replaceSameId(db, sameId);
  for (const a of sameId) {
    if (!replaced.has(a.alert.id)) {
      refused.push({
        id: a.alert.id,
        reason: 'its new environment, resource, event and customer belong to another alert here',
      });
    }
  }
  const replacedAlerts = sameId.filter((a) => replaced.has(a.alert.id));
  const rewritten = await insertHistory(db, replacedAlerts);
  if (replacedAlerts.length) await db.query(sql.unsafe`SELECT alert_history_recount(${ids(replacedAlerts)})`);
  return {
    imported: first.inserted.size,
    replaced: replaced.size + second.inserted.size,
    skipped,
    refused,
    history: first.entries + second.entries + (rewritten?.n ?? 0),
  };
}
