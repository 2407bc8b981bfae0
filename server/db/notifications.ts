import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { NotifiedAlertSchema, type NotifiedAlert } from '../domain/alert-fields.ts';
import { NOTICE_KINDS } from '../../shared/notifications.ts';
import { notifiedSnapshot } from './alert-columns.ts';
import { BlackoutNoticeSchema } from './blackout-notices.ts';
import { planWith } from './planner.ts';
import { texts } from './rows.ts';

const json = (value: unknown) => sql.jsonb(value as never);

// Receivers and rules live in notification-config.ts; importers of this module see them here too.
export * from './notification-config.ts';

// The alert as notifications see it is declared with the alert's fields (domain/alert-fields.ts).
export { NotifiedAlertSchema, type NotifiedAlert };

// ---- triggers: state and queue in one statement --------------------------------------------

export interface Trigger {
  ruleId: string;
  alert: NotifiedAlert;
  /** The rule's receivers (names), remembered for repeats and resolves. */
  receivers: string[];
  /** Receiver ids to tell now, each with its group wait in ms. */
  targets: { receiverId: string; waitMs: number }[];
  repeatMs: number;
  /** Until the first escalation step, ms; 0: none. */
  escalateMs: number;
}

/**
 * A firing trigger for a (rule, alert) pair already in the state table: a new firing (after a
 * resolve) starts the escalation again; a firing one only takes the new severity and snapshot.
 * Shared by the fallback write below and the receipt's own statement (receipt-along.ts).
 */
export const FIRING_CONFLICT = sql.fragment`ON CONFLICT (rule_id, alert_id) DO UPDATE SET
  severity = EXCLUDED.severity, alert = EXCLUDED.alert, repeat_at = EXCLUDED.repeat_at,
  phase = 'firing', update_time = now(),
  step = CASE WHEN s.phase = 'firing' THEN s.step ELSE 0 END,
  escalate_at = CASE WHEN s.phase = 'firing' THEN s.escalate_at ELSE EXCLUDED.escalate_at END,
  receivers = CASE WHEN s.phase = 'firing' THEN s.receivers ELSE EXCLUDED.receivers END
  WHERE s.phase <> 'firing' OR s.severity <> EXCLUDED.severity
  RETURNING s.rule_id, s.alert_id`;

/**
 * Records that rules fire for alerts and queues their messages, in one statement committed without
 * waiting for the WAL flush (as the forward queue: only a crash of PostgreSQL in that moment could
 * lose them). A rule already firing for an alert at the same severity queues nothing, so a change
 * that rules do not care about cannot notify twice; a changed severity re-notifies and re-arms the
 * repeat, keeping the escalation where it is.
 */
export async function fire(db: CommonQueryMethods, triggers: readonly Trigger[]): Promise<number> {
  if (!triggers.length) return 0;
  const docs = triggerDocs(triggers.map((t) => ({ alertId: t.alert.id, ...t })));
  // Each alert once (several rules may fire for it), as the last trigger has it.
  const byAlert = new Map(triggers.map((t) => [t.alert.id, t.alert]));
  const alerts = json([...byAlert.values()].map((a) => ({ alert_id: a.id, severity: a.severity, alert: a })));
  const queued = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
    WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true)),
    input AS (
      SELECT i.*, a.severity, a.alert
      FROM jsonb_to_recordset(${docs.triggers}::jsonb)
        AS i(alert_id text, rule_id text, receivers text[], repeat_ms int8, escalate_ms int8)
      JOIN jsonb_to_recordset(${alerts}) AS a(alert_id text, severity text, alert jsonb)
        ON a.alert_id = i.alert_id
    ),
    s AS (
      INSERT INTO notification_state AS s (rule_id, alert_id, phase, severity, receivers, alert, repeat_at,
        escalate_at)
      SELECT i.rule_id, i.alert_id, 'firing', i.severity, i.receivers, i.alert,
        CASE WHEN i.repeat_ms > 0 THEN now() + i.repeat_ms * interval '1 millisecond' END,
        CASE WHEN i.escalate_ms > 0 THEN now() + i.escalate_ms * interval '1 millisecond' END
      FROM async_commit, input i
      ${FIRING_CONFLICT}
    ),
    q AS (
      INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, alert, due_at)
      SELECT t.receiver_id, t.rule_id, t.alert_id, 'trigger', NULL, now() + t.wait_ms * interval '1 millisecond'
      FROM jsonb_to_recordset(${docs.targets}::jsonb) AS t(alert_id text, rule_id text, receiver_id text, wait_ms int8)
      JOIN s USING (rule_id, alert_id)
      RETURNING 1
    )
    SELECT count(*) AS n FROM q`);
  return queued;
}

/**
 * Trigger rows as two JSON documents for `jsonb_to_recordset`: the rules' states and the messages
 * to queue. One text parameter each: as arrays, pg escaped every element of every column (1.4 KB
 * allocated per notified alert; `ingest.ts --rules 20` measures routing's cost).
 */
export function triggerDocs(rows: readonly (Omit<Trigger, 'alert'> & { alertId: string })[]): {
  triggers: string;
  targets: string;
} {
  return {
    triggers: JSON.stringify(
      rows.map((r) => ({
        alert_id: r.alertId,
        rule_id: r.ruleId,
        receivers: r.receivers,
        repeat_ms: r.repeatMs,
        escalate_ms: r.escalateMs,
      })),
    ),
    targets: JSON.stringify(
      rows.flatMap((r) =>
        r.targets.map((t) => ({
          alert_id: r.alertId,
          rule_id: r.ruleId,
          receiver_id: t.receiverId,
          wait_ms: t.waitMs,
        })),
      ),
    ),
  };
}

// ---- the queue ------------------------------------------------------------------------------

export interface Enqueued {
  receiverId: string;
  ruleId: string;
  kind: 'trigger' | 'repeat' | 'escalate' | 'ack' | 'resolve';
  alert: NotifiedAlert;
  waitMs: number;
}

export async function enqueue(db: CommonQueryMethods, rows: readonly Enqueued[]): Promise<void> {
  if (!rows.length) return;
  const col = (pick: (r: Enqueued) => string) => texts(rows.map(pick));
  await db.query(sql.unsafe`
    INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, alert, due_at)
    SELECT r, u, a, k, j, now() + w * interval '1 millisecond'
    FROM unnest(${col((r) => r.receiverId)}, ${col((r) => r.ruleId)}, ${col((r) => r.alert.id)},
      ${col((r) => r.kind)}, ${col((r) => JSON.stringify(r.alert))}::jsonb[],
      ${sql.array(
        rows.map((r) => r.waitMs),
        'int8',
      )}) AS x(r, u, a, k, j, w)`);
}

const QueuedRowSchema = z.object({
  id: z.number(),
  receiverId: z.string(),
  ruleId: z.string(),
  alertId: z.string(),
  kind: z.enum(['trigger', 'repeat', 'escalate', 'ack', 'resolve', ...NOTICE_KINDS]),
  alert: NotifiedAlertSchema.nullable(),
  /** A blackout notice's content (kinds blackoutStart and blackoutEnd); null for an alert's row. */
  notice: BlackoutNoticeSchema.nullable(),
  attempts: z.number(),
  /** The alert as it is now; null once it is gone. */
  current: NotifiedAlertSchema.nullable(),
});
export type QueuedRow = z.infer<typeof QueuedRowSchema>;

const DueRowSchema = z.object({ receiverId: z.string(), dueAt: z.number() });

/**
 * For each of `receiverIds` with a row not leased, when its next such row comes due (one poll for
 * all of them). Each receiver's first row is read through the `(receiver_id, due_at)` index: a
 * grouped read of the whole queue cost 4.4 ms a poll with 19,000 rows waiting out a group wait,
 * growing with the backlog (tests/api/notification-poll-plan.test.ts).
 */
export function dueReceivers(db: CommonQueryMethods, receiverIds: readonly string[]) {
  if (receiverIds.length === 0) return Promise.resolve([]);
  return db.any(sql.type(DueRowSchema)`
    SELECT r.id AS "receiverId", d.due_at AS "dueAt"
    FROM unnest(${texts(receiverIds)}) AS r(id)
    CROSS JOIN LATERAL (
      SELECT q.due_at FROM notification_queue q
      WHERE q.receiver_id = r.id AND (q.lease_until IS NULL OR q.lease_until < now())
      ORDER BY q.due_at LIMIT 1
    ) d`);
}

/**
 * Leases the next message of a receiver: the rule of its oldest due row, and every row of that rule
 * for that receiver not waiting for a retry, up to `limit` — so alerts that arrive within the
 * rule's group wait of the first go out together. Called inside a transaction holding the
 * receiver's advisory lock, so two instances never split one group.
 *
 * Planned afresh on every call (`plan_cache_mode` for the transaction): the queue swings from empty
 * to a storm's backlog, and a generic plan made while it held a few rows read every row of the
 * receiver and sorted them, then scanned the whole queue for the chosen ids — 36 ms a claim at
 * 19,000 queued rows against 1.4 ms planned for them (tests/api/notification-claim-plan.test.ts).
 * The rows are taken oldest due first, the order of the `(receiver_id, due_at, id)` index, so the
 * scan stops at the limit; bitmap scans are off for the transaction, since a queue whose statistics
 * were taken while it was nearly empty made PostgreSQL prefer reading all of the receiver's rows
 * through a bitmap and sorting them (5 ms a claim with 8,000 rows waiting, against 1.3 ms).
 */
export async function claim(
  db: CommonQueryMethods,
  p: { receiverId: string; owner: string; limit: number; leaseMs: number },
) {
  await planWith(db, 'notificationClaim');
  return db.any(sql.type(QueuedRowSchema)`
    WITH first AS MATERIALIZED (
      SELECT h.rule_id FROM notification_queue h
      WHERE h.receiver_id = ${p.receiverId} AND h.due_at <= now()
        AND (h.lease_until IS NULL OR h.lease_until < now())
      ORDER BY h.due_at, h.id LIMIT 1
    )
    UPDATE notification_queue q SET owner = ${p.owner},
      lease_until = now() + ${p.leaseMs} * interval '1 millisecond'
    -- The chosen ids as an array: \`= ANY\` of it is an index probe per row, where \`IN (subquery)\`
    -- was planned as a hash join over a sequential scan of the whole queue
    -- (tests/api/notification-claim-plan.test.ts counts the rows a claim reads).
    WHERE q.id = ANY(ARRAY(
      SELECT f.id FROM notification_queue f
      WHERE f.receiver_id = ${p.receiverId}
        -- With nothing due this condition (no column of \`f\`) stops the scan before it starts:
        -- the rule's test alone read every row of the receiver waiting out its group wait, at the
        -- end of every drain.
        AND EXISTS (SELECT FROM first)
        AND f.rule_id = (SELECT rule_id FROM first)
        AND (f.lease_until IS NULL OR f.lease_until < now())
        AND (f.due_at <= now() OR f.attempts = 0)
      ORDER BY f.due_at, f.id LIMIT ${p.limit}
      FOR UPDATE SKIP LOCKED))
    RETURNING q.id, q.receiver_id AS "receiverId", q.rule_id AS "ruleId", q.alert_id AS "alertId", q.kind,
      q.alert, q.notice, q.attempts,
      -- The alert as messages tell it, read with the claim (one primary-key probe per row).
      (SELECT ${notifiedSnapshot} FROM alerts a WHERE a.id = q.alert_id) AS current`);
}

/** Takes the receiver's claim lock for this transaction; false when another instance holds it. */
export function lockReceiver(db: CommonQueryMethods, receiverId: string): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ ok: z.boolean() }))`
    SELECT pg_try_advisory_xact_lock(hashtext('notify:' || ${receiverId})) AS ok`);
}

/** Requests sent to a receiver within the last minute, and when the oldest of them leaves the window. */
export function recentSends(db: CommonQueryMethods, receiverId: string) {
  return db.one(sql.type(z.object({ n: z.number(), freeAt: z.number().nullable() }))`
    SELECT count(*)::int AS n, min(sent_at) + interval '1 minute' AS "freeAt" FROM notification_sends
    WHERE receiver_id = ${receiverId} AND sent_at > now() - interval '1 minute'`);
}

/** Counts `n` requests against a receiver's rate limit (old entries are cleared on the way). */
export async function recordSends(db: CommonQueryMethods, receiverId: string, n: number): Promise<void> {
  await db.query(sql.unsafe`
    WITH old AS (DELETE FROM notification_sends WHERE sent_at < now() - interval '10 minutes')
    INSERT INTO notification_sends (receiver_id) SELECT ${receiverId} FROM generate_series(1, ${n})`);
}

export async function remove(db: CommonQueryMethods, ids: readonly number[], owner: string): Promise<void> {
  if (!ids.length) return;
  await db.query(sql.unsafe`
    DELETE FROM notification_queue WHERE id = ANY(${sql.array(ids, 'int8')}) AND owner = ${owner}`);
}

export async function retryLater(
  db: CommonQueryMethods,
  p: { ids: readonly number[]; owner: string; delayMs: number; error: string },
): Promise<void> {
  if (!p.ids.length) return;
  await db.query(sql.unsafe`
    UPDATE notification_queue SET attempts = attempts + 1, owner = NULL, lease_until = NULL,
      due_at = now() + ${p.delayMs} * interval '1 millisecond', last_error = ${p.error}
    WHERE id = ANY(${sql.array(p.ids, 'int8')}) AND owner = ${p.owner}`);
}

/**
 * Extends this owner's lease on rows still being sent (the worker's heartbeat); rows settled,
 * released or taken over meanwhile are left alone.
 */
export async function renewLease(
  db: CommonQueryMethods,
  p: { ids: readonly number[]; owner: string; leaseMs: number },
): Promise<void> {
  if (!p.ids.length) return;
  await db.query(sql.unsafe`
    UPDATE notification_queue SET lease_until = now() + ${p.leaseMs} * interval '1 millisecond'
    WHERE id = ANY(${sql.array(p.ids, 'int8')}) AND owner = ${p.owner}`);
}

export async function release(db: CommonQueryMethods, ids: readonly number[], owner: string): Promise<void> {
  if (!ids.length) return;
  await db.query(sql.unsafe`
    UPDATE notification_queue SET owner = NULL, lease_until = NULL
    WHERE id = ANY(${sql.array(ids, 'int8')}) AND owner = ${owner}`);
}

/** Per receiver: rows waiting, the oldest one's time and the last error seen. */
export function depths(db: CommonQueryMethods) {
  return db.any(sql.type(
    z.object({
      receiverId: z.string(),
      queued: z.number(),
      oldest: z.number().nullable(),
      lastError: z.string().nullable(),
    }),
  )`
    SELECT receiver_id AS "receiverId", count(*)::int AS queued, min(create_time) AS oldest,
      (array_agg(last_error ORDER BY id DESC) FILTER (WHERE last_error IS NOT NULL))[1] AS "lastError"
    FROM notification_queue GROUP BY receiver_id`);
}

/** What is waiting for one alert. */
export function queuedFor(db: CommonQueryMethods, alertId: string) {
  return db.any(sql.type(
    z.object({
      receiverId: z.string(),
      kind: z.string(),
      dueAt: z.number(),
      attempts: z.number(),
      lastError: z.string().nullable(),
    }),
  )`
    SELECT receiver_id AS "receiverId", kind, due_at AS "dueAt", attempts, last_error AS "lastError"
    FROM notification_queue WHERE alert_id = ${alertId} ORDER BY id`);
}

// ---- state: acks, resolves, repeats, escalations ------------------------------------------

const StateRowSchema = z.object({
  ruleId: z.string(),
  alertId: z.string(),
  phase: z.enum(['firing', 'acked']),
  severity: z.string(),
  receivers: z.array(z.string()),
  step: z.number(),
  /**
   * The alert as it was when deleted (migration 0044's trigger), or as the state was last written
   * by the scheduler or `fire`; null while the receipt's own statement is all that wrote it.
   */
  alert: NotifiedAlertSchema.nullable(),
  repeatAt: z.number().nullable(),
  escalateAt: z.number().nullable(),
  createTime: z.number(),
  now: z.number(),
  /** The alert as it is now; null once deleted. */
  current: NotifiedAlertSchema.nullable(),
});
export type StateRow = z.infer<typeof StateRowSchema>;

const stateColumns = sql.fragment`s.rule_id AS "ruleId", s.alert_id AS "alertId", s.phase, s.severity,
  s.receivers, s.step, s.alert, s.repeat_at AS "repeatAt", s.escalate_at AS "escalateAt",
  s.create_time AS "createTime", now() AS now,
  CASE WHEN a.id IS NULL THEN NULL ELSE ${notifiedSnapshot} END AS current`;

/** The states of some alerts, locked for this transaction (skipping those another instance holds). */
export function lockStatesOf(db: CommonQueryMethods, alertIds: readonly string[]) {
  return db.any(sql.type(StateRowSchema)`
    SELECT ${stateColumns} FROM notification_state s LEFT JOIN alerts a ON a.id = s.alert_id
    WHERE s.alert_id = ANY(${texts(alertIds)})
    FOR UPDATE OF s SKIP LOCKED`);
}

/**
 * States with something to do, locked: a repeat or escalation due, or an alert whose status changed
 * or that was deleted (marked `changed` by migration 0043's triggers), which matters when it
 * happened by a path without a hook (bulk changes, deletion by housekeeping, another tool). Handling
 * a state (`updateState`, `deleteState`) clears its mark.
 *
 * Each kind is found through its partial index, up to `limit`, and the states by their row
 * addresses, so a sweep that finds nothing reads nothing. Written as one condition, PostgreSQL
 * read every state (a sequential scan, or the primary key with a filter), and sequential scans are
 * off for the transaction so that statistics taken while the table was small cannot choose one for
 * a kind either (tests/api/notification-sweep.test.ts).
 */
export async function lockDueStates(db: CommonQueryMethods, p: { limit: number }) {
  await planWith(db, 'notificationSweep');
  return db.any(sql.type(StateRowSchema)`
    SELECT ${stateColumns} FROM notification_state s LEFT JOIN alerts a ON a.id = s.alert_id
    WHERE s.ctid = ANY(ARRAY(
        (SELECT ctid FROM notification_state WHERE changed LIMIT ${p.limit})
        UNION ALL (SELECT ctid FROM notification_state WHERE repeat_at <= now() LIMIT ${p.limit})
        UNION ALL (SELECT ctid FROM notification_state WHERE escalate_at <= now() LIMIT ${p.limit})))
      AND (s.repeat_at <= now() OR s.escalate_at <= now() OR s.changed)
    LIMIT ${p.limit}
    FOR UPDATE OF s SKIP LOCKED`);
}

export async function updateState(
  db: CommonQueryMethods,
  s: {
    ruleId: string;
    alertId: string;
    phase: 'firing' | 'acked';
    receivers: readonly string[];
    step: number;
    alert: NotifiedAlert;
    repeatInMs: number | null;
    escalateInMs: number | null;
  },
): Promise<void> {
  const at = (ms: number | null) =>
    ms === null ? sql.fragment`NULL` : sql.fragment`now() + ${ms} * interval '1 millisecond'`;
  await db.query(sql.unsafe`
    UPDATE notification_state SET phase = ${s.phase}, receivers = ${texts(s.receivers)}, step = ${s.step},
      alert = ${json(s.alert)}, repeat_at = ${at(s.repeatInMs)}, escalate_at = ${at(s.escalateInMs)},
      changed = false, update_time = now()
    WHERE rule_id = ${s.ruleId} AND alert_id = ${s.alertId}`);
}

export async function deleteState(db: CommonQueryMethods, ruleId: string, alertId: string): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM notification_state WHERE rule_id = ${ruleId} AND alert_id = ${alertId}`);
}

// ---- history --------------------------------------------------------------------------------

/**
 * One history entry per alert (type `notification`), and the queue rows the delivery settled
 * removed, in one statement. The entry's status is null: a delivery changes no status, so "who set
 * the current status" and "the status before the ack" look past it (and the receive path's state
 * machine skips the type). History is kept to `limit` entries per alert (each alert's entries past
 * the newest `limit - 1` go, as on the receive path); alerts deleted meanwhile get nothing.
 *
 * Each alert is one index probe into its history and one into the alerts, whatever the tables'
 * statistics: the entries to trim are found per alert and deleted by their row addresses, and the
 * alerts are probed by a lateral `LIMIT 1`. Joined instead, PostgreSQL planned a scan of the whole
 * history for the trim and of all alerts for the insert, 17 ms a message of 200 alerts against
 * 7 ms. Bitmap scans are off for the statement: an alert's few entries were otherwise read from
 * the table and sorted, where the index gives them newest first (6 µs an alert).
 * tests/api/notification-delivery-plans.test.ts counts the rows read, before and after ANALYZE.
 */
export async function addHistory(
  db: CommonQueryMethods,
  entries: readonly { alertId: string; id: string; text: string }[],
  limit: number,
  settled?: { ids: readonly number[]; owner: string },
): Promise<void> {
  const removed = settled?.ids.length
    ? sql.fragment`, removed AS (
        DELETE FROM notification_queue WHERE id = ANY(${sql.array(settled.ids, 'int8')}) AND owner = ${settled.owner}
      )`
    : sql.fragment``;
  if (!entries.length) {
    if (settled?.ids.length) await remove(db, settled.ids, settled.owner);
    return;
  }
  await db.transaction(async (tx) => {
    await planWith(tx, 'notificationHistory');
    await tx.query(sql.unsafe`
    WITH e AS (
      SELECT * FROM unnest(${texts(entries.map((x) => x.alertId))}, ${texts(entries.map((x) => x.id))},
        ${texts(entries.map((x) => x.text))}) AS e(alert_id, id, text)
    ), trimmed AS (
      DELETE FROM alert_history h WHERE h.ctid = ANY(ARRAY(
        SELECT c.ctid FROM (SELECT DISTINCT alert_id FROM e) e CROSS JOIN LATERAL (
          SELECT ctid FROM alert_history WHERE alert_id = e.alert_id
          ORDER BY seq DESC OFFSET ${Math.max(limit - 1, 0)}) c))
    )${removed}
    INSERT INTO alert_history (alert_id, id, event, severity, status, value, text, type, update_time)
    SELECT a.id, e.id, a.event, a.severity, NULL, a.value, e.text, 'notification', now()
    FROM e CROSS JOIN LATERAL (SELECT * FROM alerts x WHERE x.id = e.alert_id LIMIT 1) a`);
  });
}
