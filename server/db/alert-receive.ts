import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { AlertDraft, AlertRecord, HistoryRecord } from '../domain/alert-types.ts';
import type { LeasedForward, ReceiptAlong } from '../domain/plugin-hooks.ts';
import {
  AlertRowSchema,
  columns,
  historyWrites,
  mergeAttributes,
  priorHistory,
  texts,
  ts,
  WrittenRowSchema,
  type WrittenAlert,
} from './alerts.ts';
import { alongWrites, LeasedColumn, type AlongItem } from './receipt-along.ts';

/** What one receipt writes along with its alert (forward rows, notification triggers). */
export interface Along {
  along: ReceiptAlong;
  /** Put over the forwarded body: the receipt's own fields. */
  patch: Record<string, unknown>;
}

/** A written alert, with the forward rows its statement inserted leased (for inline delivery). */
export type ReceiptWritten = WrittenAlert & { leased?: LeasedForward[] };
const ReceiptRowSchema = WrittenRowSchema.extend(LeasedColumn);

// The receive path's statements (docs/architecture.md, "The receive path"): the read of the
// matching alerts, the insert of new ones, and the guarded updates of the stored ones.

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
/** Made once: building a zod schema per read cost more than parsing the rows with it. */
const WantedRowSchema = CandidateRowSchema.extend({ wanted: z.number() });

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
  const rows = await db.any(sql.type(WantedRowSchema)`
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

export interface NewAlert {
  alert: AlertRecord;
  /** Its first history entry. */
  entry: HistoryRecord;
  with?: Along | undefined;
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
): Promise<(ReceiptWritten | null)[]> {
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
  const along = alongWrites(items.flatMap((x) => (x.with ? [{ alertId: x.alert.id, ...x.with }] : [])));
  const written = await db.any(sql.type(ReceiptRowSchema)`
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
    )${along.ctes}
    SELECT w.*, '[]'::json AS history${along.leased} FROM w`);
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
  withs: readonly Along[] = [],
): Promise<ReceiptWritten | null> {
  const now = ts(u.now);
  const along = alongWrites(withs.map((x): AlongItem => ({ alertId: expected.id, ...x })));
  return db.maybeOne(sql.type(ReceiptRowSchema)`
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
    )${historyWrites(expected.id, history, historyLimit, 'w')}${along.ctes}
    SELECT w.*, ${priorHistory(historyLimit)}${along.leased} FROM w`);
}

export interface PlainDuplicate {
  expected: Pick<AlertRecord, 'id' | 'status' | 'severity' | 'event'>;
  update: ReceiveUpdate;
  with?: Along | undefined;
}

/**
 * Writes plain duplicates of several alerts (no status change, no history) in one statement, each
 * guarded like `updateReceived`; a guard that fails leaves null in its place.
 */
export async function updateDuplicates(
  db: CommonQueryMethods,
  items: readonly PlainDuplicate[],
  historyLimit: number,
): Promise<(ReceiptWritten | null)[]> {
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
  const along = alongWrites(items.flatMap((x) => (x.with ? [{ alertId: x.expected.id, ...x.with }] : [])));
  const written = await db.any(sql.type(ReceiptRowSchema)`
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
    )${along.ctes}
    SELECT w.*, ${priorHistory(historyLimit)}${along.leased} FROM w`);
  const byId = new Map(written.map((r) => [r.id, r]));
  return items.map(({ expected }) => byId.get(expected.id) ?? null);
}
