import { sql, type CommonQueryMethods, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { MAX_ATTRIBUTES, MAX_LIST, SERVER_ATTRIBUTES } from '../../shared/alerts.ts';
import { AlertRowSchema, HistoryRowSchema } from '../domain/alert-fields.ts';
import type { AlertRecord, HistoryRecord } from '../domain/alert-types.ts';
import { columns, historyColumns, historyInsertColumns, historyJson, historyRow } from './alert-columns.ts';
import { texts, ts } from './rows.ts';

export const WrittenRowSchema = AlertRowSchema.extend({
  history: z.array(HistoryRowSchema.extend({ updateTime: z.number().transform((n) => Math.round(n)) })),
});
/** A written alert with its history as it was before the write (newest first); the caller adds its own entries. */
export type WrittenAlert = z.infer<typeof WrittenRowSchema>;

/** The written alert's existing history, read in the same statement (which cannot see its own inserts). */
export const priorHistory = (limit: number) => sql.fragment`
  (SELECT COALESCE(json_agg(${historyJson} ORDER BY h.seq DESC), '[]'::json)
   FROM (SELECT * FROM alert_history h WHERE h.alert_id = w.id ORDER BY h.seq DESC LIMIT ${limit}) h) AS history`;

/** Stored attributes with `changes` merged over them; a key whose new value is null is removed. */
export function mergeAttributes(changes: Record<string, unknown>) {
  const removed = Object.keys(changes).filter((k) => changes[k] === null);
  return sql.fragment`(a.attributes || ${sql.jsonb(ownAttributes(changes) as never)}) - ${texts(removed)}`;
}

/** The keys of `changes` that are set (not removed): what a receipt's attributes are on their own. */
export const ownAttributes = (changes: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== null));

type Fragment = ReturnType<typeof sql.fragment>;

// The stored limits of tags and attributes in SQL (docs/alerts.md, "Field limits"), decided exactly
// as tagsOverLimit and attributesOverLimit of shared/alerts.ts decide them in JavaScript: the
// receive path's prediction of the stored alert (domain/receive/fields.ts, predictedRecord) relies on it.
// Each test is a CASE whose first, cheap branches settle the usual case; guarded by
// tests/api/stored-limits.test.ts.

/** Characters of a text as JavaScript counts them: one beyond U+FFFF counts two (UTF-16 units). */
const utf16Length = (s: Fragment) =>
  sql.fragment`(char_length(${s}) + char_length(regexp_replace(${s}, '[^\\U00010000-\\U0010FFFF]', '', 'g')))`;

/**
 * Whether the tag list `x` is within MAX_LIST.tags. Its UTF-8 bytes are at least its UTF-16 units,
 * so the exact count is made only for a list over the limit in bytes.
 */
export const tagsWithin = (x: Fragment) => sql.fragment`CASE
    WHEN cardinality(${x}) > ${MAX_LIST.tags.items} THEN false
    WHEN octet_length(array_to_string(${x}, '')) <= ${MAX_LIST.tags.total} THEN true
    ELSE ${utf16Length(sql.fragment`array_to_string(${x}, '')`)} <= ${MAX_LIST.tags.total} END`;

/**
 * Bytes of jsonb text below which an object cannot have more than MAX_ATTRIBUTES.count keys: each
 * key but one (the empty key) takes at least 8 bytes (`, "k": 0`), so 257 keys take at least 2,055.
 */
const FEW_KEYS_BYTES = 8 * MAX_ATTRIBUTES.count;

/**
 * Whether the attributes `m` are within the stored limits (MAX_ATTRIBUTES.count keys besides the
 * server's own, and `storedBytes` of jsonb text, as attributesOverLimit measures them); the keys
 * are counted only for an object too large to be sure.
 */
export const attributesWithin = (m: Fragment) => sql.fragment`CASE
    WHEN octet_length((${m})::text) <= ${FEW_KEYS_BYTES} THEN true
    WHEN octet_length((${m})::text) > ${MAX_ATTRIBUTES.storedBytes} THEN false
    ELSE (SELECT count(*) FROM jsonb_object_keys(${m}) AS k WHERE k <> ALL(${texts(SERVER_ATTRIBUTES)}))
      <= ${MAX_ATTRIBUTES.count} END`;

/** Distinct and sorted, as stored tags are. */
const sortedTags = (x: Fragment) => sql.fragment`ARRAY(SELECT DISTINCT t FROM unnest(${x}) AS t ORDER BY t)`;

/**
 * The tags a receipt leaves on the alert: the stored ones and `incoming` together, or `incoming`
 * alone (the sender's current set) when together they would be over MAX_LIST.tags. Both lists'
 * sizes added up settle the usual case without building the union twice.
 */
export const receivedTags = (incoming: Fragment) => sql.fragment`CASE
    WHEN cardinality(a.tags) + cardinality(${incoming}) <= ${MAX_LIST.tags.items}
      AND octet_length(array_to_string(a.tags || ${incoming}, '')) <= ${MAX_LIST.tags.total}
    THEN ${sortedTags(sql.fragment`a.tags || ${incoming}`)}
    ELSE (SELECT CASE WHEN ${tagsWithin(sql.fragment`u.t`)} THEN u.t ELSE ${sortedTags(incoming)} END
      FROM (SELECT ${sortedTags(sql.fragment`a.tags || ${incoming}`)} AS t OFFSET 0) u) END`;

/**
 * The attributes a receipt leaves on the alert: `merged` (the stored ones with the receipt's over
 * them), or `own` (the receipt's alone) when `merged` would be over the stored limits.
 */
export const receivedAttributes = (merged: Fragment, own: Fragment) =>
  sql.fragment`CASE WHEN ${attributesWithin(merged)} THEN ${merged} ELSE ${own} END`;

/** Entries a flap is measured against: a `severity` entry flaps when it differs from the one before. */
const SEVERITY_SET = new Set(['new', 'severity']);

/**
 * How many of these entries the flapping and standing reports count: those typed `severity`, as the
 * established server counts them (migration 0054; tests/api/top-n-severity-entries.test.ts).
 */
export const countedEntries = (entries: readonly Pick<HistoryRecord, 'type'>[]) =>
  entries.filter((e) => e.type === 'severity').length;

/**
 * SET items (with a leading comma) that add new history entries to the alert's own counts
 * (migrations 0041 and 0054), for the UPDATE of the alert the entries are written with:
 * `severity_entries` by the entries typed severity, `flaps` by those whose severity differs from
 * the new/severity entry before them. For the first such entry that is the newest one stored, read
 * in the same statement's snapshot, before the entries are added. Entries the same statement trims
 * are counted again by migration 0041's trigger once it is done.
 */
export function historyCounts(entries: readonly HistoryRecord[]) {
  const set = entries.filter((e) => SEVERITY_SET.has(e.type));
  const first = set[0];
  if (!first) return sql.fragment``;
  let flaps = 0;
  for (let i = 1; i < set.length; i++)
    if (
      set[i]!.type === 'severity' &&
      set[i - 1]!.severity !== null &&
      set[i]!.severity !== set[i - 1]!.severity
    )
      flaps++;
  const firstFlap =
    first.type === 'severity'
      ? sql.fragment` + COALESCE((SELECT (h.severity IS NOT NULL AND h.severity IS DISTINCT FROM ${first.severity}::text)::int FROM alert_history h
          WHERE h.alert_id = a.id AND h.type IN ('new', 'severity') ORDER BY h.seq DESC LIMIT 1), 0)`
      : sql.fragment``;
  return sql.fragment`, severity_entries = a.severity_entries + ${countedEntries(entries)}::int,
    flaps = a.flaps + ${flaps}::int${firstFlap}`;
}

/** CTE parts that add history rows for the alert the main statement wrote, and keep only the newest `limit`. */
export function historyWrites(
  alertId: string,
  entries: readonly HistoryRecord[],
  limit: number,
  source: string,
) {
  if (entries.length === 0) return sql.fragment``;
  const rows = sql.join(entries.map(historyRow), sql.fragment`, `);
  const keepExisting = Math.max(limit - entries.length, 0);
  const trimmed = sql.fragment`,
    trimmed AS (
      DELETE FROM alert_history
      WHERE alert_id = ${alertId} AND EXISTS (SELECT 1 FROM ${sql.identifier([source])})
        AND seq <= (SELECT seq FROM alert_history WHERE alert_id = ${alertId} ORDER BY seq DESC OFFSET ${keepExisting} LIMIT 1)
      RETURNING 1
    )`;
  return sql.fragment`,
    added AS (
      INSERT INTO alert_history (alert_id, ${historyInsertColumns})
      SELECT w.id, v.* FROM ${sql.identifier([source])} w, (VALUES ${rows}) AS v(${historyInsertColumns})
      RETURNING 1
    )${trimmed}`;
}

/** Finds one alert by id, lastReceiveId, or a case-insensitive prefix of either (newest first). */
export async function findById(
  db: CommonQueryMethods,
  id: string,
  options: { forUpdate?: boolean; customers?: readonly string[] | null } = {},
): Promise<AlertRecord | null> {
  const customer = options.customers
    ? sql.fragment`AND a.customer = ANY(${texts(options.customers)})`
    : sql.fragment``;
  const lock = options.forUpdate ? sql.fragment`FOR UPDATE` : sql.fragment``;
  const exact = await db.maybeOne(sql.type(AlertRowSchema)`
    SELECT ${columns} FROM alerts a WHERE a.id = ${id} ${customer} ${lock}`);
  if (exact) return exact;
  const prefix = `${id.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return db.maybeOne(sql.type(AlertRowSchema)`
    SELECT ${columns} FROM alerts a
    WHERE (lower(a.id) LIKE ${prefix} OR lower(a.last_receive_id) LIKE ${prefix}) ${customer}
    ORDER BY (a.last_receive_id = ${id}) DESC, a.last_receive_time DESC
    LIMIT 1 ${lock}`);
}

/** History of one alert, newest first (insertion order). */
export function historyOf(
  db: CommonQueryMethods,
  alertId: string,
  limit = 1000,
): Promise<readonly HistoryRecord[]> {
  return db.any(sql.type(HistoryRowSchema)`
    SELECT ${historyColumns} FROM alert_history WHERE alert_id = ${alertId} ORDER BY seq DESC LIMIT ${limit}`);
}

/** Fields an operator operation may set on a stored alert. */
export interface AlertPatch {
  severity?: string;
  status?: string;
  previousSeverity?: string;
  timeout?: number | null;
  tags?: string[];
  /** Merged; a null value removes the key. */
  attributes?: Record<string, unknown>;
  updateTime?: number;
}

/** Writes a patch and optional history entries inside the caller's transaction. */
export function applyPatch(
  tx: DatabaseTransactionConnection,
  id: string,
  p: AlertPatch,
  history: readonly HistoryRecord[],
  historyLimit: number,
): Promise<WrittenAlert> {
  const sets = [sql.fragment`id = a.id`];
  if (p.severity !== undefined) sets.push(sql.fragment`severity = ${p.severity}`);
  if (p.status !== undefined) sets.push(sql.fragment`status = ${p.status}`);
  if (p.previousSeverity !== undefined) sets.push(sql.fragment`previous_severity = ${p.previousSeverity}`);
  if (p.timeout !== undefined) sets.push(sql.fragment`timeout = ${p.timeout}`);
  if (p.tags !== undefined) sets.push(sql.fragment`tags = ${texts(p.tags)}`);
  if (p.attributes !== undefined) sets.push(sql.fragment`attributes = ${mergeAttributes(p.attributes)}`);
  if (p.updateTime !== undefined) sets.push(sql.fragment`update_time = ${ts(p.updateTime)}`);
  return tx.one(sql.type(WrittenRowSchema)`
    WITH w AS (
      UPDATE alerts AS a SET ${sql.join(sets, sql.fragment`, `)}${historyCounts(history)} WHERE a.id = ${id} RETURNING ${columns}
    )${historyWrites(id, history, historyLimit, 'w')}
    SELECT w.*, ${priorHistory(historyLimit)} FROM w`);
}

/** Deletes an alert and its history; true if it existed. */
export async function deleteAlert(db: CommonQueryMethods, id: string): Promise<boolean> {
  // History has no foreign key (it would cost a check per history row on the receive path).
  const result = await db.query(sql.unsafe`
    WITH history AS (DELETE FROM alert_history WHERE alert_id = ${id})
    DELETE FROM alerts WHERE id = ${id}`);
  return result.rowCount > 0;
}

const scopeOf = (customers: readonly string[] | null) =>
  customers ? sql.fragment`AND a.customer = ANY(${texts(customers)})` : sql.fragment``;

/**
 * The alerts of `ids` the customers may see, locked in id order, as every bulk statement and
 * set-based chunk locks them (db/alerts-many.ts lockMany): two bulk operations over the same
 * alerts then wait for each other instead of deadlocking.
 */
const lockedInOrder = (ids: readonly string[], customers: readonly string[] | null) =>
  sql.fragment`SELECT a.id FROM alerts a WHERE a.id = ANY(${texts(ids)}) ${scopeOf(customers)} ORDER BY a.id FOR UPDATE`;

/** What a bulk change wrote, and the alerts it left untouched because they would be over a limit. */
export interface ManyWritten {
  rows: readonly AlertRecord[];
  refused: readonly string[];
}

/**
 * One statement changing many alerts (bulk tag, untag, attributes); returns the written rows. With
 * `within`, an alert whose new value it refuses is left as it is and listed in `refused`.
 */
async function updateMany(
  db: CommonQueryMethods,
  ids: readonly string[],
  set: Fragment,
  customers: readonly string[] | null,
  within?: Fragment,
): Promise<ManyWritten> {
  const rows = await db.any(sql.type(AlertRowSchema)`
    UPDATE alerts AS a SET ${set} FROM (${lockedInOrder(ids, customers)}) l WHERE a.id = l.id
      ${within ? sql.fragment`AND ${within}` : sql.fragment``}
    RETURNING ${columns}`);
  if (!within || rows.length === ids.length) return { rows, refused: [] };
  const written = new Set(rows.map((r) => r.id));
  const refused = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT a.id FROM alerts a
    WHERE a.id = ANY(${texts(ids.filter((id) => !written.has(id)))}) ${scopeOf(customers)} AND NOT ${within}`);
  return { rows, refused };
}

/** Adds tags to each alert, keeping its order and never doubling a tag; not past MAX_LIST.tags. */
export function tagMany(
  db: CommonQueryMethods,
  ids: readonly string[],
  tags: readonly string[],
  customers: readonly string[] | null,
) {
  const next = sql.fragment`a.tags || ARRAY(SELECT t FROM unnest(${texts([...new Set(tags)])}::text[]) WITH ORDINALITY AS x(t, n)
      WHERE NOT t = ANY(a.tags) ORDER BY n)`;
  return updateMany(db, ids, sql.fragment`tags = ${next}`, customers, tagsWithin(next));
}

/** Removes tags from each alert. */
export const untagMany = (
  db: CommonQueryMethods,
  ids: readonly string[],
  tags: readonly string[],
  customers: readonly string[] | null,
) =>
  updateMany(
    db,
    ids,
    sql.fragment`tags = ARRAY(SELECT t FROM unnest(a.tags) WITH ORDINALITY AS x(t, n)
      WHERE NOT t = ANY(${texts(tags)}::text[]) ORDER BY n)`,
    customers,
  );

/**
 * Merges attributes into each alert; a null value removes the key. A change that sets a key leaves
 * an alert it would take over the stored limits untouched (removing alone is always allowed).
 */
export function updateAttributesMany(
  db: CommonQueryMethods,
  ids: readonly string[],
  attributes: Record<string, unknown>,
  customers: readonly string[] | null,
) {
  const merged = mergeAttributes(attributes);
  const sets = Object.values(attributes).some((v) => v !== null);
  return updateMany(
    db,
    ids,
    sql.fragment`attributes = ${merged}`,
    customers,
    sets ? attributesWithin(merged) : undefined,
  );
}

/** Deletes alerts and their history (notes are kept, as for a single delete); returns what went. */
export function deleteMany(
  db: CommonQueryMethods,
  ids: readonly string[],
  customers: readonly string[] | null,
) {
  return db.any(sql.type(z.object({ id: z.string(), customer: z.string().nullable() }))`
    WITH d AS (DELETE FROM alerts a USING (${lockedInOrder(ids, customers)}) l WHERE a.id = l.id
        RETURNING a.id, a.customer),
      h AS (DELETE FROM alert_history WHERE alert_id IN (SELECT id FROM d))
    SELECT id, customer FROM d`);
}
