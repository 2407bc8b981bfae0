import { sql, type CommonQueryMethods, type ValueExpression } from 'slonik';
import { z } from 'zod';
import { AlertRowSchema } from '../domain/alert-fields.ts';
import type { AlertDraft, AlertRecord, HistoryRecord } from '../domain/alert-types.ts';
import type { LeasedForward, ReceiptAlong } from '../domain/plugin-hooks.ts';
import {
  countedEntries,
  historyCounts,
  historyWrites,
  mergeAttributes,
  ownAttributes,
  priorHistory,
  receivedAttributes,
  receivedTags,
  WrittenRowSchema,
  type WrittenAlert,
} from './alerts.ts';
import { texts, ts } from './rows.ts';
import { columns, insertColumns, insertValues, recordsetColumns } from './alert-columns.ts';
import { alongWrites, LeasedColumn, type AlongItem } from './receipt-along.ts';

/** What one receipt writes along with its alert (forward rows, notification triggers). */
export interface Along {
  along: ReceiptAlong;
  /** Put over the forwarded body: the receipt's own fields. */
  patch: Record<string, unknown>;
}

/** A written alert, with the forward rows its statement inserted leased (for inline delivery). */
export type ReceiptWritten = WrittenAlert & { leased?: LeasedForward[] };
export const ReceiptRowSchema = WrittenRowSchema.extend(LeasedColumn);

/**
 * Epoch seconds for `to_timestamp` in SQL, as slonik's `sql.timestamp` sends them. The batched
 * statements take their rows as one jsonb array (`jsonb_to_recordset`) instead of a VALUES list of
 * n rows: their text is then the same for any n, so each connection prepares it once and PostgreSQL
 * soon reuses a generic plan, where every batch size used to be a statement of its own, planned
 * afresh on each of its first executions (tests/api/receive-plans.test.ts: one text for 1, 5, 20 rows).
 */
const seconds = (ms: number) => ms / 1000;

// The receive path's statements (docs/architecture.md, "The receive path"): the read of the
// matching alerts, the insert of new ones, and the guarded updates of the stored ones.

/**
 * Statuses of the two newest history entries (S and P of the state machine), newest first; entries
 * recording a notification's delivery (docs/notifications.md) change no status and do not count.
 */
export const recentStatuses = sql.fragment`
  ARRAY(SELECT h.status FROM alert_history h WHERE h.alert_id = a.id AND h.type <> 'notification'
    ORDER BY h.seq DESC LIMIT 2) AS "recentStatuses"`;

/** How many of the alert's newest three severity entries (new or severity) are newer than `flapSince`. */
export const recentSeverityChanges = (flapSince: number) => sql.fragment`
  (SELECT count(*) FROM (SELECT 1 FROM alert_history h WHERE h.alert_id = a.id AND h.type IN ('new', 'severity')
     AND h.update_time > ${ts(flapSince)} ORDER BY h.seq DESC LIMIT 3) f)::int AS "recentSeverityChanges"`;

/**
 * The stored alert a wanted identity `v` (a row of `receive_wanted`) is decided against: its own
 * event first, else one that correlates with it, the most recently received. findForReceive and
 * createOrFind (db/alert-create-or-find.ts) read it alike.
 */
export const candidateOfWanted = sql.fragment`JOIN LATERAL (
      SELECT * FROM alerts a
      WHERE a.environment = v.environment AND a.resource = v.resource AND COALESCE(a.customer, '') = v.customer
        AND (a.event = v.event OR v.event = ANY(a.correlate))
      ORDER BY (a.event = v.event) DESC, a.last_receive_time DESC
      LIMIT 1
    ) a ON true`;

export const CandidateRowSchema = AlertRowSchema.extend({
  recentStatuses: z.array(z.string().nullable()),
  recentSeverityChanges: z.number(),
});
export type Candidate = z.infer<typeof CandidateRowSchema>;
/** Made once: building a zod schema per read cost more than parsing the rows with it. */
const WantedRowSchema = CandidateRowSchema.extend({ wanted: z.number() });

/**
 * For each submission, the stored alert it de-duplicates or correlates with: same environment,
 * resource and customer, and either the same event or the event in its correlate list (same
 * event first). One statement for any number of submissions; the submissions come through
 * `receive_wanted` (migration 0039) so that PostgreSQL keeps a generic plan for it.
 */
export async function findForReceive(
  db: CommonQueryMethods,
  drafts: readonly AlertDraft[],
  flapSince: number,
): Promise<(Candidate | null)[]> {
  const col = (pick: (d: AlertDraft) => string) => texts(drafts.map(pick));
  const rows = await db.any(sql.type(WantedRowSchema)`
    SELECT v.i::int - 1 AS wanted, ${columns}, ${recentStatuses}, ${recentSeverityChanges(flapSince)}
    FROM receive_wanted(${col((d) => d.environment)}, ${col((d) => d.resource)}, ${col((d) => d.customer ?? '')},
      ${col((d) => d.event)}) AS v
    ${candidateOfWanted}`);
  const byIndex = new Map(rows.map(({ wanted: i, ...row }) => [i, row]));
  return drafts.map((_, i) => byIndex.get(i) ?? null);
}

export interface NewAlert {
  alert: AlertRecord;
  /** Its first history entry. */
  entry: HistoryRecord;
  with?: Along | undefined;
}

/**
 * Positions of the alerts that would de-duplicate or correlate with an earlier one of the same
 * list (same environment, resource and customer; same event, or the event in the earlier one's
 * correlate list): one statement cannot see its own rows, so these wait for the next round.
 */
export function heldBack(items: readonly NewAlert[]): Set<number> {
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
 * A batch of new alerts as the CTEs `claimed` (the rows whose claim held), `w` (those alerts
 * inserted) and `added` (their first history entries): insertNew's statement, and createOrFind's
 * (db/alert-create-or-find.ts) before it reads the candidates of the others.
 */
export function newAlertsWritten(items: readonly NewAlert[]) {
  // Each row is the record as it is (camelCase keys, times in epoch ms), named so in the column
  // lists below; `ms / 1000.0` in SQL is the same double as `ms / 1000` in JavaScript.
  // severityEntries: the first entry if the flapping and standing reports count it (typed
  // `severity`; a new alert's `new` entry is not, migration 0054); a first entry has no entry before
  // it, so it is never a flap.
  const rows = items.map(({ alert, entry }, i) => ({
    ...alert,
    i: i + 1,
    severityEntries: countedEntries([entry]),
  }));
  const entries = items.map(({ alert, entry }) => ({ ...entry, alertId: alert.id }));
  const alerts = items.map((item) => item.alert);
  return sql.fragment`
    claimed AS (
      SELECT alert_claim_new(${texts(alerts.map((a) => a.environment))}, ${texts(alerts.map((a) => a.resource))},
        ${texts(alerts.map((a) => a.customer ?? ''))}, ${texts(alerts.map((a) => a.event))}) AS i
    ),
    w AS (
      INSERT INTO alerts AS a (${insertColumns}, severity_entries)
      SELECT ${insertValues}, v."severityEntries"
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(i integer, ${recordsetColumns},
        "severityEntries" integer)
      WHERE v.i IN (SELECT i FROM claimed)
      ON CONFLICT DO NOTHING
      RETURNING ${columns}
    ),
    added AS (
      INSERT INTO alert_history (alert_id, id, event, severity, status, value, text, type, update_time, "user", timeout)
      SELECT v."alertId", v.id, v.event, v.severity, v.status, v.value, v.text, v.type,
        to_timestamp(v."updateTime" / 1000.0), v."user", v.timeout
      FROM jsonb_to_recordset(${JSON.stringify(entries)}::jsonb) AS v("alertId" text, id text, event text,
        severity text, status text, value text, text text, type text, "updateTime" float8, "user" text, timeout integer)
      JOIN w ON w.id = v."alertId"
      RETURNING 1
    )`;
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
  const along = alongWrites(items.flatMap((x) => (x.with ? [{ alertId: x.alert.id, ...x.with }] : [])));
  const written = await db.any(sql.type(ReceiptRowSchema)`
    WITH ${newAlertsWritten(items)}${along.ctes}
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
  /** Added to the stored tags (union), or in their place when together they would be over the limits. */
  tags: string[];
  /**
   * Merged over the stored attributes, incoming keys win (null removes one); in their place when
   * merged they would be over the limits (docs/alerts.md, "Field limits").
   */
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
 * The guard of a receipt's update: the alert is still in the state the decision was made on. Its
 * columns are NOT NULL, so `IS NOT DISTINCT FROM` means `=` here, but it is never an index
 * condition: the row is always found by its primary key. Before a new table's first ANALYZE the
 * planner took `alerts_status_severity_env_idx` for `status = … AND severity = …` and scanned every
 * open alert of that severity for each row (28 ms for a batch of 20 duplicates at 16,000 alerts).
 * tests/api/receive-plans.test.ts and receive-plans-growth.test.ts fail with `=` here.
 */
const guard = (status: ValueExpression, severity: ValueExpression, event: ValueExpression) =>
  sql.fragment`a.status IS NOT DISTINCT FROM ${status} AND a.severity IS NOT DISTINCT FROM ${severity}
    AND a.event IS NOT DISTINCT FROM ${event}`;

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
        tags = ${receivedTags(sql.fragment`${texts(u.tags)}::text[]`)},
        attributes = ${receivedAttributes(mergeAttributes(u.attributes), sql.fragment`${sql.jsonb(ownAttributes(u.attributes) as never)}`)},
        ${
          u.duplicate
            ? sql.fragment`duplicate_count = a.duplicate_count + ${u.duplicate}, repeat = true,`
            : sql.fragment`duplicate_count = 0, repeat = false, create_time = ${ts(u.createTime)}, receive_time = ${now},
               previous_severity = ${u.previousSeverity}, trend_indication = ${u.trendIndication},`
        }
        last_receive_id = ${u.lastReceiveId}, last_receive_time = ${now}${historyCounts(history)}
        ${u.statusChanged ? sql.fragment`, update_time = ${now}` : sql.fragment``}
      WHERE a.id = ${expected.id} AND ${guard(expected.status, expected.severity, expected.event)}
      RETURNING ${columns}
    )${historyWrites(expected.id, history, historyLimit, 'w')}${along.ctes}
    SELECT w.*, ${priorHistory(historyLimit)}${along.leased} FROM w`);
}

/** A run of plain duplicates as a row of the batched updates' jsonb: null attributes are removed. */
function duplicateFields(u: DirectDuplicate['update']) {
  return {
    service: u.service,
    value: u.value,
    text: u.text,
    timeout: u.timeout,
    raw_data: u.rawData,
    tags: u.tags,
    attributes: Object.fromEntries(Object.entries(u.attributes).filter(([, v]) => v !== null)),
    removed: Object.keys(u.attributes).filter((k) => u.attributes[k] === null),
    dup: u.duplicate,
    last_receive_id: u.lastReceiveId,
    now: seconds(u.now),
  };
}

/** `duplicateFields`' columns in `jsonb_to_recordset`. */
const duplicateColumns = sql.fragment`service text[], value text, text text, timeout integer, raw_data text,
  tags text[], attributes jsonb, removed text[], dup integer, last_receive_id text, now float8`;

/**
 * What a plain duplicate sets, from `v` (duplicateFields): `attributes` merged before the removals,
 * `own` the receipts' own, in place of the stored ones when merged they would be over the limits.
 */
const duplicateSet = (
  attributes: ReturnType<typeof sql.fragment>,
  own: ReturnType<typeof sql.fragment>,
) => sql.fragment`
  service = v.service, value = v.value, text = v.text, timeout = v.timeout, raw_data = v.raw_data,
  tags = ${receivedTags(sql.fragment`v.tags`)},
  attributes = ${receivedAttributes(sql.fragment`(${attributes} - v.removed)`, own)},
  duplicate_count = a.duplicate_count + v.dup, repeat = true,
  last_receive_id = v.last_receive_id, last_receive_time = to_timestamp(v.now)`;

export interface PlainDuplicate {
  expected: Pick<AlertRecord, 'id' | 'status' | 'severity' | 'event'>;
  update: ReceiveUpdate;
  with?: Along | undefined;
}

/**
 * Writes plain duplicates of several alerts (no status change, no history) in one statement, each
 * guarded like `updateReceived`; a guard that fails leaves null in its place. The ids are given a
 * second time as an array for the primary key: the planner takes `jsonb_to_recordset` for 100 rows,
 * and on a small or never analysed table it then hashed a scan of every alert instead (the plans
 * are checked in tests/api/receive-plans.test.ts).
 */
export async function updateDuplicates(
  db: CommonQueryMethods,
  items: readonly PlainDuplicate[],
  historyLimit: number,
): Promise<(ReceiptWritten | null)[]> {
  const rows = items.map(({ expected: x, update: u }) => ({
    id: x.id,
    status: x.status,
    severity: x.severity,
    event: x.event,
    ...duplicateFields(u),
  }));
  const along = alongWrites(items.flatMap((x) => (x.with ? [{ alertId: x.expected.id, ...x.with }] : [])));
  const written = await db.any(sql.type(ReceiptRowSchema)`
    WITH w AS (
      UPDATE alerts AS a SET ${duplicateSet(sql.fragment`(a.attributes || v.attributes)`, sql.fragment`v.attributes`)}
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(id text, status text, severity text, event text,
        ${duplicateColumns})
      WHERE a.id IN (SELECT k.id FROM receive_ids(${texts(items.map((x) => x.expected.id))}) AS k) AND a.id = v.id AND ${guard(sql.fragment`v.status`, sql.fragment`v.severity`, sql.fragment`v.event`)}
      RETURNING ${columns}
    )${along.ctes}
    SELECT w.*, ${priorHistory(historyLimit)}${along.leased} FROM w`);
  const byId = new Map(written.map((r) => [r.id, r]));
  return items.map(({ expected }) => byId.get(expected.id) ?? null);
}

/** A run of plain duplicates of one identity, written without reading the alert first. */
export interface DirectDuplicate {
  /** The alert this instance last wrote for the identity: written only if it is still that one. */
  id: string;
  identity: Pick<AlertDraft, 'environment' | 'resource' | 'event'> & { customer: string | null };
  severity: string;
  /** Stored statuses for which the receipts are plain duplicates (the alarm model keeps them). */
  statuses: readonly string[];
  /** Statuses in which the alert is not notified (`notify: false`, lifecycle §7). */
  quiet: readonly string[];
  /** Whether the stored value must equal `update.value` (HISTORY_ON_VALUE_CHANGE). */
  sameValue: boolean;
  update: Pick<
    ReceiveUpdate,
    'service' | 'value' | 'text' | 'timeout' | 'rawData' | 'tags' | 'duplicate' | 'lastReceiveId' | 'now'
  > & {
    /** The receipts' attributes merged (`notify` left out: the statement sets it from the status). */
    attributes: Record<string, unknown>;
  };
  /** What the receipts of the run write along (their forward rows), in order. */
  withs?: readonly Along[];
}

const DirectRowSchema = WrittenRowSchema.extend({ wanted: z.number(), ...LeasedColumn });

/**
 * Plain duplicates written in one statement without the read before them: each identity's alert is
 * updated only if it exists with the same severity, in one of the statuses where the alarm model
 * keeps its status (and with the same value where a changed value is history), so the write is
 * exactly what the read-then-write path would have written; anything else leaves null in its place
 * and is decided the usual way. One statement per receipt instead of two (docs/architecture.md,
 * "The receive path").
 */
export async function updateByIdentity(
  db: CommonQueryMethods,
  items: readonly DirectDuplicate[],
  historyLimit: number,
): Promise<(ReceiptWritten | null)[]> {
  // In identity order, so that two statements updating some of the same alerts (a receipt with a
  // correlate list is ordered by a key without its event) lock them in the same order. An alert
  // is written once per statement: a second run for it (under another batch key) is left to the
  // usual path, since the rows written along are joined to the written alert by its id.
  const ids = new Set<string>();
  const order = items
    .flatMap((x, i) => (ids.has(x.id) ? [] : (ids.add(x.id), [{ x, i }])))
    .map(({ x, i }) => ({
      i,
      key: [x.identity.environment, x.identity.resource, x.identity.event, x.identity.customer ?? ''],
    }))
    .sort((x, y) => compareKeys(x.key, y.key));
  const sorted = order.map(({ i }) => items[i]!);
  const rows = sorted.map(({ id, severity, statuses, quiet, sameValue, update: u }, i) => ({
    i: i + 1,
    id,
    severity,
    statuses,
    quiet,
    same_value: sameValue,
    ...duplicateFields(u),
  }));
  const col = (pick: (d: DirectDuplicate['identity']) => string) =>
    texts(sorted.map((x) => pick(x.identity)));
  const along = alongWrites(sorted.flatMap((x) => (x.withs ?? []).map((w) => ({ alertId: x.id, ...w }))));
  // The event and the guard's tests are written so that no index can take them (IS NOT DISTINCT
  // FROM, array_position): the alert is found through the identity index's environment, resource
  // and customer only. With `a.event = k.event` a plan made while the table held a few alerts read
  // them through the event index, whose INCLUDE list holds the other columns, and kept doing so at
  // 10,000 alerts of one event (tests/api/receive-plans-growth.test.ts; see also `guard`).
  const written = await db.any(sql.type(DirectRowSchema)`
    WITH w AS (
      UPDATE alerts AS a SET ${duplicateSet(
        sql.fragment`(a.attributes || v.attributes || jsonb_build_object('notify', array_position(v.quiet, a.status) IS NULL))`,
        sql.fragment`(v.attributes || jsonb_build_object('notify', array_position(v.quiet, a.status) IS NULL))`,
      )}
      FROM receive_wanted(${col((d) => d.environment)}, ${col((d) => d.resource)}, ${col((d) => d.customer ?? '')},
          ${col((d) => d.event)}) AS k
        JOIN jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(i integer, id text, severity text, statuses text[],
          quiet text[], same_value boolean, ${duplicateColumns})
        ON v.i = k.i
      WHERE a.environment = k.environment AND a.resource = k.resource AND COALESCE(a.customer, '') = k.customer
        AND a.event IS NOT DISTINCT FROM k.event AND a.id IS NOT DISTINCT FROM v.id
        AND a.severity IS NOT DISTINCT FROM v.severity AND array_position(v.statuses, a.status) IS NOT NULL
        AND (NOT v.same_value OR a.value IS NOT DISTINCT FROM v.value)
      RETURNING k.i::int - 1 AS wanted, ${columns}
    )${along.ctes}
    SELECT w.*, ${priorHistory(historyLimit)}${along.leased} FROM w`);
  const byIndex = new Map(written.map(({ wanted: i, ...row }) => [order[i]!.i, row]));
  return items.map((_, i) => byIndex.get(i) ?? null);
}

const compareKeys = (x: readonly string[], y: readonly string[]) => {
  for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return x[k]! < y[k]! ? -1 : 1;
  return 0;
};
