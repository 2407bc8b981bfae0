import { sql, type CommonQueryMethods, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import type { AlertDraft, AlertRecord, HistoryRecord } from '../domain/alert-types.ts';
import { finiteTime } from './pool.ts';

export const AlertRowSchema = z.object({
  id: z.string(),
  resource: z.string(),
  event: z.string(),
  environment: z.string(),
  severity: z.string(),
  correlate: z.array(z.string()),
  status: z.string(),
  service: z.array(z.string()),
  group: z.string(),
  value: z.string().nullable(),
  text: z.string(),
  tags: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  origin: z.string(),
  type: z.string(),
  createTime: z.number(),
  timeout: z.number().nullable(),
  rawData: z.string().nullable(),
  customer: z.string().nullable(),
  duplicateCount: z.number(),
  repeat: z.boolean(),
  previousSeverity: z.string(),
  trendIndication: z.string(),
  receiveTime: z.number(),
  lastReceiveId: z.string(),
  lastReceiveTime: z.number(),
  updateTime: z.number(),
}) satisfies z.ZodType<AlertRecord>;

export const columns = sql.fragment`
  a.id, a.resource, a.event, a.environment, a.severity, a.correlate, a.status, a.service,
  a."group", a.value, a.text, a.tags, a.attributes, a.origin, a.type,
  a.create_time AS "createTime", a.timeout, a.raw_data AS "rawData", a.customer,
  a.duplicate_count AS "duplicateCount", a.repeat, a.previous_severity AS "previousSeverity",
  a.trend_indication AS "trendIndication", a.receive_time AS "receiveTime",
  a.last_receive_id AS "lastReceiveId", a.last_receive_time AS "lastReceiveTime",
  a.update_time AS "updateTime"`;

/**
 * Statuses of the two newest history entries (S and P of the state machine), newest first; entries
 * recording a notification's delivery (docs/notifications.md) change no status and do not count.
 */
const recentStatuses = sql.fragment`
  ARRAY(SELECT h.status FROM alert_history h WHERE h.alert_id = a.id AND h.type <> 'notification'
    ORDER BY h.seq DESC LIMIT 2) AS "recentStatuses"`;

const CandidateRowSchema = AlertRowSchema.extend({
  recentStatuses: z.array(z.string().nullable()),
  recentSeverityChanges: z.number(),
});
export type Candidate = z.infer<typeof CandidateRowSchema>;

export const HistoryRowSchema = z.object({
  id: z.string(),
  event: z.string(),
  severity: z.string().nullable(),
  status: z.string().nullable(),
  value: z.string().nullable(),
  text: z.string(),
  type: z.string(),
  updateTime: z.number(),
  user: z.string().nullable(),
  timeout: z.number().nullable(),
}) satisfies z.ZodType<HistoryRecord>;

const ts = (ms: number) => sql.timestamp(new Date(ms));

const WrittenRowSchema = AlertRowSchema.extend({
  history: z.array(HistoryRowSchema.extend({ updateTime: z.number().transform((n) => Math.round(n)) })),
});
/** A written alert with its history as it was before the write (newest first); the caller adds its own entries. */
export type WrittenAlert = z.infer<typeof WrittenRowSchema>;

/** The written alert's existing history, read in the same statement (which cannot see its own inserts). */
const priorHistory = (limit: number) => sql.fragment`
  (SELECT COALESCE(json_agg(json_build_object(
      'id', h.id, 'event', h.event, 'severity', h.severity, 'status', h.status, 'value', h.value, 'text', h.text,
      'type', h.type, 'updateTime', extract(epoch FROM ${finiteTime('h', 'update_time')}) * 1000, 'user', h."user", 'timeout', h.timeout)
    ORDER BY h.seq DESC), '[]'::json)
   FROM (SELECT * FROM alert_history h WHERE h.alert_id = w.id ORDER BY h.seq DESC LIMIT ${limit}) h) AS history`;
const texts = (values: readonly string[]) => sql.array(values, 'text');

/** Stored attributes with `changes` merged over them; a key whose new value is null is removed. */
function mergeAttributes(changes: Record<string, unknown>) {
  const removed = Object.keys(changes).filter((k) => changes[k] === null);
  const merged = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== null));
  return sql.fragment`(a.attributes || ${sql.jsonb(merged as never)}) - ${texts(removed)}`;
}

/**
 * For each submission, the stored alert it de-duplicates or correlates with: same environment,
 * resource and customer, and either the same event or the event in its correlate list (same
 * event first). One statement for any number of submissions.
 */
export async function findForReceive(
  db: CommonQueryMethods,
  drafts: readonly AlertDraft[],
  flapSince: number,
): Promise<(Candidate | null)[]> {
  const wanted = sql.join(
    drafts.map(
      (d, i) =>
        sql.fragment`(${i}::int, ${d.environment}::text, ${d.resource}::text, ${d.customer ?? ''}::text, ${d.event}::text)`,
    ),
    sql.fragment`, `,
  );
  const rows = await db.any(sql.type(CandidateRowSchema.extend({ wanted: z.number() }))`
    SELECT v.i AS wanted, ${columns}, ${recentStatuses},
      (SELECT count(*) FROM (SELECT 1 FROM alert_history h WHERE h.alert_id = a.id AND h.type IN ('new', 'severity')
         AND h.update_time > ${ts(flapSince)} ORDER BY h.seq DESC LIMIT 3) f)::int AS "recentSeverityChanges"
    FROM (VALUES ${wanted}) AS v(i, environment, resource, customer, event)
    JOIN LATERAL (
      SELECT * FROM alerts a
      WHERE a.environment = v.environment AND a.resource = v.resource AND COALESCE(a.customer, '') = v.customer
        AND (a.event = v.event OR v.event = ANY(a.correlate))
      ORDER BY (a.event = v.event) DESC, a.last_receive_time DESC
      LIMIT 1
    ) a ON true`);
  const byIndex = new Map(rows.map(({ wanted: i, ...row }) => [i, row]));
  return drafts.map((_, i) => byIndex.get(i) ?? null);
}

/** CTE parts that add history rows for the alert the main statement wrote, and keep only the newest `limit`. */
function historyWrites(alertId: string, entries: readonly HistoryRecord[], limit: number, source: string) {
  if (entries.length === 0) return sql.fragment``;
  const rows = sql.join(
    entries.map(
      (
        e,
      ) => sql.fragment`(${e.id}::text, ${e.event}::text, ${e.severity}::text, ${e.status}::text, ${e.value}::text,
        ${e.text}::text, ${e.type}::text, ${ts(e.updateTime)}::timestamptz, ${e.user}::text, ${e.timeout}::integer)`,
    ),
    sql.fragment`, `,
  );
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
      INSERT INTO alert_history (alert_id, id, event, severity, status, value, text, type, update_time, "user", timeout)
      SELECT w.id, v.* FROM ${sql.identifier([source])} w,
        (VALUES ${rows}) AS v(id, event, severity, status, value, text, type, update_time, "user", timeout)
      RETURNING 1
    )${trimmed}`;
}

export interface NewAlert {
  alert: AlertRecord;
  /** Its first history entry. */
  entry: HistoryRecord;
}

/** The columns a new alert is inserted with, in the order of insertNew's rows. */
const insertColumns = sql.fragment`id, resource, event, environment, severity, correlate, status, service, "group",
  value, text, tags, attributes, origin, type, create_time, timeout, raw_data, customer, duplicate_count, repeat,
  previous_severity, trend_indication, receive_time, last_receive_id, last_receive_time, update_time`;

/**
 * Positions of the alerts that would de-duplicate or correlate with an earlier one of the same
 * list (same environment, resource and customer; same event, or the event in the earlier one's
 * correlate list): one statement cannot see its own rows, so these wait for the next round.
 */
function heldBack(items: readonly NewAlert[]): Set<number> {
  const held = new Set<number>();
  const earlier = new Map<string, AlertRecord[]>();
  items.forEach(({ alert: a }, i) => {
    const key = JSON.stringify([a.environment, a.resource, a.customer ?? '']);
    const before = earlier.get(key) ?? [];
    if (before.some((b) => b.event === a.event || b.correlate.includes(a.event))) held.add(i);
    before.push(a);
    earlier.set(key, before);
  });
  return held;
}

/**
 * Creates several new alerts, each with its first history entry, in one statement. An alert whose
 * identity (or id) a concurrent receipt took first is skipped, and so is one that would now
 * de-duplicate or correlate with an alert created since it was read: `alert_claim_new`
 * (migration 0010) locks each (environment, resource, customer) and checks again on a fresh
 * snapshot. A skipped alert's place in the answer is null: its receipt is decided again.
 */
export async function insertNew(
  db: CommonQueryMethods,
  all: readonly NewAlert[],
): Promise<(WrittenAlert | null)[]> {
  const held = heldBack(all);
  const items = all.filter((_, i) => !held.has(i));
  const rows = sql.join(
    items.map(
      (
        { alert: a },
        i,
      ) => sql.fragment`(${i + 1}::integer, ${a.id}::text, ${a.resource}::text, ${a.event}::text,
        ${a.environment}::text, ${a.severity}::text, ${texts(a.correlate)}, ${a.status}::text, ${texts(a.service)},
        ${a.group}::text, ${a.value}::text, ${a.text}::text, ${texts(a.tags)}, ${sql.jsonb(a.attributes as never)},
        ${a.origin}::text, ${a.type}::text, ${ts(a.createTime)}::timestamptz, ${a.timeout}::integer,
        ${a.rawData}::text, ${a.customer}::text, ${a.duplicateCount}::integer, ${a.repeat}::boolean,
        ${a.previousSeverity}::text, ${a.trendIndication}::text, ${ts(a.receiveTime)}::timestamptz,
        ${a.lastReceiveId}::text, ${ts(a.lastReceiveTime)}::timestamptz, ${ts(a.updateTime)}::timestamptz)`,
    ),
    sql.fragment`, `,
  );
  const entries = sql.join(
    items.map(
      ({
        alert,
        entry: e,
      }) => sql.fragment`(${alert.id}::text, ${e.id}::text, ${e.event}::text, ${e.severity}::text,
        ${e.status}::text, ${e.value}::text, ${e.text}::text, ${e.type}::text, ${ts(e.updateTime)}::timestamptz,
        ${e.user}::text, ${e.timeout}::integer)`,
    ),
    sql.fragment`, `,
  );
  const alerts = items.map((item) => item.alert);
  const written = await db.any(sql.type(WrittenRowSchema)`
    WITH claimed AS (
      SELECT alert_claim_new(${texts(alerts.map((a) => a.environment))}, ${texts(alerts.map((a) => a.resource))},
        ${texts(alerts.map((a) => a.customer ?? ''))}, ${texts(alerts.map((a) => a.event))}) AS i
    ),
    w AS (
      INSERT INTO alerts AS a (${insertColumns})
      SELECT ${insertColumns} FROM (VALUES ${rows}) AS v(i, ${insertColumns})
      WHERE v.i IN (SELECT i FROM claimed)
      ON CONFLICT DO NOTHING
      RETURNING ${columns}
    ),
    added AS (
      INSERT INTO alert_history (alert_id, id, event, severity, status, value, text, type, update_time, "user", timeout)
      SELECT v.* FROM (VALUES ${entries})
        AS v(alert_id, id, event, severity, status, value, text, type, update_time, "user", timeout)
      JOIN w ON w.id = v.alert_id
      RETURNING 1
    )
    SELECT w.*, '[]'::json AS history FROM w`);
  const byId = new Map(written.map((r) => [r.id, r]));
  return all.map(({ alert }, i) => (held.has(i) ? null : (byId.get(alert.id) ?? null)));
}

/** What a receipt (duplicate or correlate) writes onto the stored alert. */
export interface ReceiveUpdate {
  event: string;
  severity: string;
  status: string;
  service: string[];
  value: string | null;
  text: string;
  timeout: number;
  rawData: string | null;
  /** Added to the stored tags (union). */
  tags: string[];
  /** Merged over the stored attributes, incoming keys win. */
  attributes: Record<string, unknown>;
  /** Duplicates folded into this write (keep createTime and receiveTime, add to duplicateCount); 0 for a correlate (replace and reset). */
  duplicate: number;
  createTime: number;
  previousSeverity: string;
  trendIndication: string;
  lastReceiveId: string;
  now: number;
  /** updateTime moves only when the status changed. */
  statusChanged: boolean;
}

/**
 * Applies a receipt to the stored alert, but only if it is still in the state the decision was
 * made on (status, severity and event unchanged); returns null otherwise so the caller decides again.
 */
export function updateReceived(
  db: CommonQueryMethods,
  expected: Pick<AlertRecord, 'id' | 'status' | 'severity' | 'event'>,
  u: ReceiveUpdate,
  history: readonly HistoryRecord[],
  historyLimit: number,
): Promise<WrittenAlert | null> {
  const now = ts(u.now);
  return db.maybeOne(sql.type(WrittenRowSchema)`
    WITH w AS (
      UPDATE alerts AS a SET
        event = ${u.event}, severity = ${u.severity}, status = ${u.status}, service = ${texts(u.service)},
        value = ${u.value}, text = ${u.text}, timeout = ${u.timeout}, raw_data = ${u.rawData},
        tags = ARRAY(SELECT DISTINCT t FROM unnest(a.tags || ${texts(u.tags)}) AS t ORDER BY t),
        attributes = ${mergeAttributes(u.attributes)},
        ${
          u.duplicate
            ? sql.fragment`duplicate_count = a.duplicate_count + ${u.duplicate}, repeat = true,`
            : sql.fragment`duplicate_count = 0, repeat = false, create_time = ${ts(u.createTime)}, receive_time = ${now},
               previous_severity = ${u.previousSeverity}, trend_indication = ${u.trendIndication},`
        }
        last_receive_id = ${u.lastReceiveId}, last_receive_time = ${now}
        ${u.statusChanged ? sql.fragment`, update_time = ${now}` : sql.fragment``}
      WHERE a.id = ${expected.id} AND a.status = ${expected.status} AND a.severity = ${expected.severity}
        AND a.event = ${expected.event}
      RETURNING ${columns}
    )${historyWrites(expected.id, history, historyLimit, 'w')}
    SELECT w.*, ${priorHistory(historyLimit)} FROM w`);
}

export interface PlainDuplicate {
  expected: Pick<AlertRecord, 'id' | 'status' | 'severity' | 'event'>;
  update: ReceiveUpdate;
}

/**
 * Writes plain duplicates of several alerts (no status change, no history) in one statement, each
 * guarded like `updateReceived`; a guard that fails leaves null in its place.
 */
export async function updateDuplicates(
  db: CommonQueryMethods,
  items: readonly PlainDuplicate[],
  historyLimit: number,
): Promise<(WrittenAlert | null)[]> {
  const rows = sql.join(
    items.map(({ expected: x, update: u }) => {
      const removed = Object.keys(u.attributes).filter((k) => u.attributes[k] === null);
      const merged = Object.fromEntries(Object.entries(u.attributes).filter(([, v]) => v !== null));
      return sql.fragment`(${x.id}::text, ${x.status}::text, ${x.severity}::text, ${x.event}::text,
        ${texts(u.service)}::text[], ${u.value}::text, ${u.text}::text, ${u.timeout}::integer, ${u.rawData}::text,
        ${texts(u.tags)}::text[], ${sql.jsonb(merged as never)}::jsonb, ${texts(removed)}::text[],
        ${u.duplicate}::integer, ${u.lastReceiveId}::text, ${ts(u.now)}::timestamptz)`;
    }),
    sql.fragment`, `,
  );
  const written = await db.any(sql.type(WrittenRowSchema)`
    WITH w AS (
      UPDATE alerts AS a SET
        service = v.service, value = v.value, text = v.text, timeout = v.timeout, raw_data = v.raw_data,
        tags = ARRAY(SELECT DISTINCT t FROM unnest(a.tags || v.tags) AS t ORDER BY t),
        attributes = (a.attributes || v.attributes) - v.removed,
        duplicate_count = a.duplicate_count + v.dup, repeat = true,
        last_receive_id = v.last_receive_id, last_receive_time = v.now
      FROM (VALUES ${rows}) AS v(id, status, severity, event, service, value, text, timeout, raw_data, tags,
        attributes, removed, dup, last_receive_id, now)
      WHERE a.id = v.id AND a.status = v.status AND a.severity = v.severity AND a.event = v.event
      RETURNING ${columns}
    )
    SELECT w.*, ${priorHistory(historyLimit)} FROM w`);
  const byId = new Map(written.map((r) => [r.id, r]));
  return items.map(({ expected }) => byId.get(expected.id) ?? null);
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
    SELECT id, event, severity, status, value, text, type, update_time AS "updateTime", "user", timeout
    FROM alert_history WHERE alert_id = ${alertId} ORDER BY seq DESC LIMIT ${limit}`);
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
      UPDATE alerts AS a SET ${sql.join(sets, sql.fragment`, `)} WHERE a.id = ${id} RETURNING ${columns}
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

/** One statement changing many alerts (bulk tag, untag, attributes); returns the written rows. */
function updateMany(
  db: CommonQueryMethods,
  ids: readonly string[],
  set: ReturnType<typeof sql.fragment>,
  customers: readonly string[] | null,
) {
  return db.any(sql.type(AlertRowSchema)`
    UPDATE alerts AS a SET ${set} WHERE a.id = ANY(${texts(ids)}) ${scopeOf(customers)} RETURNING ${columns}`);
}

/** Adds tags to each alert, keeping its order and never doubling a tag. */
export const tagMany = (
  db: CommonQueryMethods,
  ids: readonly string[],
  tags: readonly string[],
  customers: readonly string[] | null,
) =>
  updateMany(
    db,
    ids,
    sql.fragment`tags = a.tags || ARRAY(SELECT t FROM unnest(${texts([...new Set(tags)])}::text[]) WITH ORDINALITY AS x(t, n)
      WHERE NOT t = ANY(a.tags) ORDER BY n)`,
    customers,
  );

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

/** Merges attributes into each alert; a null value removes the key. */
export const updateAttributesMany = (
  db: CommonQueryMethods,
  ids: readonly string[],
  attributes: Record<string, unknown>,
  customers: readonly string[] | null,
) => updateMany(db, ids, sql.fragment`attributes = ${mergeAttributes(attributes)}`, customers);

/** Deletes alerts and their history (notes are kept, as for a single delete); returns what went. */
export function deleteMany(
  db: CommonQueryMethods,
  ids: readonly string[],
  customers: readonly string[] | null,
) {
  return db.any(sql.type(z.object({ id: z.string(), customer: z.string().nullable() }))`
    WITH d AS (DELETE FROM alerts a WHERE a.id = ANY(${texts(ids)}) ${scopeOf(customers)} RETURNING a.id, a.customer),
      h AS (DELETE FROM alert_history WHERE alert_id IN (SELECT id FROM d))
    SELECT id, customer FROM d`);
}
