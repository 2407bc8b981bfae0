import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { DELIVERY_KINDS, DELIVERY_OUTCOMES, type DeliveryOutcome } from '../../shared/notifications.ts';
import { texts, ts } from './rows.ts';

// Receiver health and the delivery history (migration 0055, docs/notifications.md "Health" and
// "Delivery history"), both written by the delivery worker of the instance that made the attempt.

/** One alert's part in an attempt (or a test message's, without an alert). */
export interface DeliveryEntry {
  alertId: string | null;
  /** The blackout a notice was about. */
  blackoutId?: string | null;
  resource: string | null;
  event: string | null;
  kind: (typeof DELIVERY_KINDS)[number];
  /** Which attempt at this alert's message it was (0: none was made). */
  attempt: number;
}

/** What one attempt at a receiver did: its entries, and what it says of the receiver's health. */
export interface AttemptRecord {
  receiver: { id: string; name: string; type: string; customer: string | null };
  rule: { id: string; name: string } | null;
  outcome: DeliveryOutcome;
  error: string | null;
  entries: readonly DeliveryEntry[];
  /** `success` or `failure` of a request; null when nothing was sent (suppressed). */
  health: 'success' | 'failure' | null;
}

/** A success turns the receiver ok; a failure turns it failing, from the first failure after a success. */
const HEALTH = {
  success: sql.fragment`
    INSERT INTO notification_health AS h (receiver_id, state, state_since, last_success_at, failed_attempts)
    SELECT p.receiver_id, 'ok', now(), now(), 0 FROM p
    ON CONFLICT (receiver_id) DO UPDATE SET state = 'ok', last_success_at = now(), failed_attempts = 0,
      state_since = CASE WHEN h.state = 'ok' THEN h.state_since ELSE now() END`,
  failure: sql.fragment`
    INSERT INTO notification_health AS h (receiver_id, state, state_since, last_error_at, last_error,
      failed_attempts)
    SELECT p.receiver_id, 'failing', now(), now(), p.error, 1 FROM p
    ON CONFLICT (receiver_id) DO UPDATE SET state = 'failing', last_error_at = now(),
      last_error = EXCLUDED.last_error, failed_attempts = h.failed_attempts + 1,
      state_since = CASE WHEN h.state = 'failing' THEN h.state_since ELSE now() END`,
};

/**
 * Writes an attempt's entries into the history and its verdict into the receiver's health, in one
 * statement committed without waiting for the WAL flush (an entry lost in a crash of PostgreSQL at
 * that moment costs less than a wait on every attempt). True when the receiver's state changed
 * (unknown or ok to failing, unknown or failing to ok): the state's time is this statement's.
 * Concurrent attempts of two instances update the row one after the other, each from the row as
 * the other left it (tests/api/notification-health.test.ts, "two instances").
 */
export async function recordAttempt(db: CommonQueryMethods, a: AttemptRecord): Promise<boolean> {
  const col = (pick: (e: DeliveryEntry) => string | null) => texts(a.entries.map(pick));
  const health = a.health
    ? sql.fragment`, health AS (${HEALTH[a.health]} RETURNING h.state_since = now() AS changed)`
    : sql.fragment``;
  return db.oneFirst(sql.type(z.object({ changed: z.boolean() }))`
    WITH p AS (
      SELECT ${a.receiver.id}::text AS receiver_id, ${a.error}::text AS error,
        set_config('synchronous_commit', 'off', true) AS async_commit
    ), logged AS (
      INSERT INTO notification_deliveries (receiver_id, receiver_name, receiver_type, customer, rule_id,
        rule_name, alert_id, blackout_id, resource, event, kind, outcome, attempt, error)
      SELECT p.receiver_id, ${a.receiver.name}, ${a.receiver.type}, ${a.receiver.customer},
        ${a.rule?.id ?? null}, ${a.rule?.name ?? null}, e.alert_id, e.blackout_id, e.resource, e.event,
        e.kind, ${a.outcome}, e.attempt, p.error
      FROM p, unnest(${col((e) => e.alertId)}, ${col((e) => e.blackoutId ?? null)}, ${col((e) => e.resource)},
        ${col((e) => e.event)}, ${col((e) => e.kind)}, ${sql.array(
          a.entries.map((e) => e.attempt),
          'int4',
        )}) AS e(alert_id, blackout_id, resource, event, kind, attempt)
    )${health}
    SELECT ${a.health ? sql.fragment`COALESCE((SELECT changed FROM health), false)` : sql.fragment`false`}
      AS changed`);
}

const HealthRowSchema = z.object({
  receiverId: z.string(),
  state: z.enum(['ok', 'failing']).nullable(),
  stateSince: z.number().nullable(),
  lastSuccessTime: z.number().nullable(),
  lastErrorTime: z.number().nullable(),
  lastError: z.string().nullable(),
  failedAttempts: z.number(),
  queued: z.number(),
  nextAttemptTime: z.number().nullable(),
});
export type HealthRow = z.infer<typeof HealthRowSchema>;

/**
 * Each receiver's health row (state null: never attempted) with what the queue holds for it: the
 * rows waiting and when the first is due, read through the queue's `(receiver_id, due_at)` index.
 */
export function healthOf(db: CommonQueryMethods, receiverIds: readonly string[]) {
  if (receiverIds.length === 0) return Promise.resolve([]);
  return db.any(sql.type(HealthRowSchema)`
    SELECT r.id AS "receiverId", h.state, h.state_since AS "stateSince",
      h.last_success_at AS "lastSuccessTime", h.last_error_at AS "lastErrorTime", h.last_error AS "lastError",
      COALESCE(h.failed_attempts, 0) AS "failedAttempts", q.queued, q.next AS "nextAttemptTime"
    FROM unnest(${texts(receiverIds)}) AS r(id)
    LEFT JOIN notification_health h ON h.receiver_id = r.id
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS queued, min(due_at) AS next FROM notification_queue WHERE receiver_id = r.id
    ) q`);
}

/** A receiver deleted: its health goes with it (its history stays until retention removes it). */
export async function forgetHealth(db: CommonQueryMethods, receiverId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM notification_health WHERE receiver_id = ${receiverId}`);
}

const DeliveryRowSchema = z.object({
  id: z.string(),
  time: z.number(),
  receiverId: z.string(),
  receiverName: z.string(),
  receiverType: z.string(),
  ruleId: z.string().nullable(),
  ruleName: z.string().nullable(),
  alertId: z.string().nullable(),
  blackoutId: z.string().nullable(),
  resource: z.string().nullable(),
  event: z.string().nullable(),
  kind: z.enum(DELIVERY_KINDS),
  outcome: z.enum(DELIVERY_OUTCOMES),
  attempt: z.number(),
  error: z.string().nullable(),
});
export type DeliveryRow = z.infer<typeof DeliveryRowSchema>;

/** Which entries to list: each filter given narrows; `customers` null sees every entry. */
export interface DeliveryFilter {
  /** The receiver's ids, or its name as stored with each entry. */
  receiver?: { ids: readonly string[]; name: string };
  rule?: { ids: readonly string[]; name: string };
  alertId?: string;
  outcome?: DeliveryOutcome;
  from?: number;
  to?: number;
  customers: readonly string[] | null;
}

function whereOf(f: DeliveryFilter) {
  const conds = [sql.fragment`true`];
  if (f.receiver)
    conds.push(
      sql.fragment`(receiver_id = ANY(${texts(f.receiver.ids)}) OR receiver_name = ${f.receiver.name})`,
    );
  if (f.rule) conds.push(sql.fragment`(rule_id = ANY(${texts(f.rule.ids)}) OR rule_name = ${f.rule.name})`);
  if (f.alertId !== undefined) conds.push(sql.fragment`alert_id = ${f.alertId}`);
  if (f.outcome !== undefined) conds.push(sql.fragment`outcome = ${f.outcome}`);
  if (f.from !== undefined) conds.push(sql.fragment`time >= ${ts(f.from)}`);
  // Times are shown to the millisecond and stored to the microsecond: `to` takes its whole millisecond.
  if (f.to !== undefined) conds.push(sql.fragment`time < ${ts(f.to + 1)}`);
  if (f.customers !== null) conds.push(sql.fragment`customer = ANY(${texts(f.customers)})`);
  return sql.join(conds, sql.fragment` AND `);
}

/**
 * One page of the history, newest first — in the order written, which is the order of the attempts
 * (each entry is written as its attempt ends) — and how many entries match in all. The order is the
 * row's bigint id, not the answer's text `id` ("10" sorts before "9"; the filters test of
 * tests/api/notification-deliveries.test.ts crosses from 9 to 10).
 */
export async function listDeliveries(
  db: CommonQueryMethods,
  f: DeliveryFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: readonly DeliveryRow[]; total: number }> {
  const where = whereOf(f);
  const total = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM notification_deliveries WHERE ${where}`);
  const rows = await db.any(sql.type(DeliveryRowSchema)`
    SELECT id::text, time, receiver_id AS "receiverId", receiver_name AS "receiverName",
      receiver_type AS "receiverType", rule_id AS "ruleId", rule_name AS "ruleName", alert_id AS "alertId",
      blackout_id AS "blackoutId", resource, event, kind, outcome, attempt, error
    FROM notification_deliveries d WHERE ${where}
    ORDER BY d.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`);
  return { rows, total };
}
