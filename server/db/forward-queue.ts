import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';

export type ForwardKind = 'alert' | 'action' | 'delete';

/** One event for one destination, as enqueued. */
export interface ForwardEvent {
  destination: string;
  kind: ForwardKind;
  /** The alert's id here, which the remote shares: the path of action and delete requests. */
  alertId: string;
  body: Record<string, unknown> | null;
  /** The loop header value to send. */
  loop: string;
  requestId: string;
  /**
   * Above 0: insert the row already leased for this long by the enqueuing instance, so it can send
   * it at once, if no earlier event of the same alert waits for this destination.
   */
  leaseMs?: number;
}

export const QueuedRowSchema = z.object({
  id: z.number(),
  destination: z.string(),
  kind: z.enum(['alert', 'action', 'delete']),
  alertId: z.string(),
  body: z.record(z.string(), z.unknown()).nullable(),
  loop: z.string(),
  requestId: z.string(),
  attempts: z.number(),
  createTime: z.number(),
});
export type QueuedRow = z.infer<typeof QueuedRowSchema>;

/** A destination per row; made once (building a zod schema costs more than parsing with it). */
const DestinationRowSchema = z.object({ destination: z.string() });

const columns = sql.fragment`id, destination, kind, alert_id AS "alertId", body, loop,
  request_id AS "requestId", attempts, create_time AS "createTime"`;

/**
 * The last row queued for an alert and a destination, locked (FOR KEY SHARE) so that a row queued
 * behind it waits while a delivery removes it: then the removal's marking of the next head sees the
 * new row, or the new row sees nothing to queue behind and is a head itself (forward_settle,
 * migration 0036). Without the lock a row could be queued behind one being removed and be marked by
 * neither.
 */
export const lastQueued = (destination: FragmentSqlToken, alertId: FragmentSqlToken) => sql.fragment`
  SELECT 1 FROM forward_queue e WHERE e.destination = ${destination} AND e.alert_id = ${alertId}
  ORDER BY e.id DESC LIMIT 1 FOR KEY SHARE OF e`;

/**
 * Adds events in one statement, committed without waiting for the WAL flush: the alert they follow
 * was committed (and flushed) just before, and a second flush per receipt would cost intake a few
 * milliseconds. Only a crash of PostgreSQL itself within that moment can lose them.
 *
 * Events with `leaseMs` are inserted leased by `owner` when they head their alert's sequence for
 * their destination (no earlier row of that alert is queued for it, delivered or not yet); those
 * rows are returned, for the caller to deliver now. The worker never claims a leased row, so the
 * two cannot both send it, and an event queued behind an earlier one still waits its turn.
 */
export async function enqueue(
  db: CommonQueryMethods,
  events: readonly ForwardEvent[],
  owner: string | null = null,
): Promise<readonly QueuedRow[]> {
  if (events.length === 0) return [];
  const texts = (pick: (e: ForwardEvent) => string | null) => sql.array(events.map(pick), 'text');
  const leases = sql.array(
    events.map((e) => (owner ? Math.max(0, Math.round(e.leaseMs ?? 0)) : 0)),
    'int8',
  );
  // One statement, one round trip: set_config(…, true) lasts for the statement's own implicit
  // transaction, whose commit then skips the flush (a BEGIN/SET/INSERT/COMMIT took four trips).
  return db.any(sql.type(QueuedRowSchema)`
    WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true)),
    added AS (
      INSERT INTO forward_queue (destination, kind, alert_id, body, loop, request_id, head, owner, lease_until)
      SELECT d, k, a, b, l, r, x.head, CASE WHEN x.head AND m > 0 THEN ${owner} END,
        CASE WHEN x.head AND m > 0 THEN now() + m * interval '1 millisecond' END
      FROM async_commit, unnest(${texts((e) => e.destination)}, ${texts((e) => e.kind)},
        ${texts((e) => e.alertId)}, ${texts((e) => (e.body ? JSON.stringify(e.body) : null))}::jsonb[],
        ${texts((e) => e.loop)}, ${texts((e) => e.requestId)}, ${leases}) AS u(d, k, a, b, l, r, m),
      LATERAL (SELECT NOT EXISTS (${lastQueued(sql.fragment`u.d`, sql.fragment`u.a`)})) AS x(head)
      RETURNING ${columns}, owner IS NOT NULL AS leased)
    SELECT * FROM added WHERE leased`);
}

/**
 * Leases due rows of one destination for `owner`: up to `limit` alerts' oldest rows (so a remote
 * sees an alert's events in order), only rows nobody holds (or whose holder's lease ran out),
 * skipping rows another instance is leasing right now, and with each such head the rows queued
 * behind it for the same alert, up to `chain` in all, to be sent one after the other under the same
 * lease. A chain stops before the first row that is not due or is held: it never skips one.
 */
export function claim(
  db: CommonQueryMethods,
  p: { destination: string; owner: string; limit: number; chain: number; leaseMs: number },
) {
  return db.any(sql.type(QueuedRowSchema)`
    UPDATE forward_queue q SET owner = ${p.owner},
      lease_until = now() + ${p.leaseMs} * interval '1 millisecond'
    -- The chosen ids as an array: \`= ANY\` of it is an index probe per row, where \`IN (subquery)\`
    -- was planned as a hash join over a sequential scan of the whole queue (3.5 ms a claim at
    -- 12,000 queued rows against 1.4 ms; \`ingest.ts --forward live\` measures forwarding).
    WHERE q.id = ANY(ARRAY(
      SELECT c.id FROM (
        SELECT f.id, f.alert_id FROM forward_queue f
        WHERE f.destination = ${p.destination} AND f.head AND f.next_attempt <= now()
          AND (f.lease_until IS NULL OR f.lease_until < now())
        ORDER BY f.id LIMIT ${p.limit}
        FOR UPDATE SKIP LOCKED) h
      CROSS JOIN LATERAL (
        SELECT s.id FROM (
          SELECT e.id, bool_and(e.id = h.id OR (e.next_attempt <= now()
            AND (e.lease_until IS NULL OR e.lease_until < now()))) OVER (ORDER BY e.id) AS ok
          FROM (SELECT id, next_attempt, lease_until FROM forward_queue
            WHERE destination = ${p.destination} AND alert_id = h.alert_id AND id >= h.id
            ORDER BY id LIMIT ${p.chain}) e) s
        WHERE s.ok) c))
    RETURNING ${columns}`);
}

/**
 * Removes rows that were delivered or given up on (only those `owner` holds) and marks the rows
 * queued behind them as heads (forward_settle, migration 0036), in one round trip; names the
 * destinations that got a new head, whose loops should look for work now. Two removals of one
 * alert's rows for one destination take turns (migration 0053): each marking alone could still see
 * the other's row as the oldest, and mark nothing (tests/api/forward-heads.test.ts).
 */
export async function settle(
  db: CommonQueryMethods,
  ids: readonly number[],
  owner: string,
): Promise<readonly string[]> {
  if (ids.length === 0) return [];
  const rows = await db.any(sql.type(DestinationRowSchema)`
    SELECT DISTINCT destination FROM forward_settle(${sql.array(ids, 'int8')}, ${owner}) AS destination`);
  return rows.map((r) => r.destination);
}

/**
 * Marks as a head every row with nothing queued before it that is not marked yet (rows queued by an
 * instance of an earlier version, or by one that stopped between removing a row and marking the
 * next); names the destinations concerned. A safety net, run now and then: it reads every unmarked row.
 *
 * One look-up per (destination, alert) with unmarked rows, for its first row: asking of every
 * unmarked row whether a row is queued before it walked, for each, over the index entries of the
 * alert's delivered rows not yet cleaned away — 1 s for the 9,700 rows queued behind one alert's
 * head during `ingest.ts --forward live` (a), where one look-up per alert takes as long as one row's.
 */
export async function markHeads(db: CommonQueryMethods): Promise<readonly string[]> {
  const rows = await db.any(sql.type(DestinationRowSchema)`
    WITH marked AS (
      UPDATE forward_queue f SET head = true
      WHERE f.id = ANY(ARRAY(
        SELECT (SELECT e.id FROM forward_queue e WHERE e.destination = p.destination AND e.alert_id = p.alert_id
          ORDER BY e.id LIMIT 1)
        FROM (SELECT DISTINCT destination, alert_id FROM forward_queue WHERE NOT head) p))
        AND NOT f.head
      RETURNING destination)
    SELECT DISTINCT destination FROM marked`);
  return rows.map((r) => r.destination);
}

/** Counts a failed attempt and sets when the row may be tried again; releases the lease. */
export async function retryLater(
  db: CommonQueryMethods,
  p: { id: number; owner: string; delayMs: number; error: string },
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE forward_queue SET attempts = attempts + 1, owner = NULL, lease_until = NULL,
      next_attempt = now() + ${p.delayMs} * interval '1 millisecond', last_error = ${p.error}
    WHERE id = ${p.id} AND owner = ${p.owner}`);
}

/**
 * Extends this owner's lease on rows still being sent (the delivery queue's heartbeat); rows
 * settled, released or taken over meanwhile are left alone.
 */
export async function renewLease(
  db: CommonQueryMethods,
  p: { ids: readonly number[]; owner: string; leaseMs: number },
): Promise<void> {
  if (p.ids.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE forward_queue SET lease_until = now() + ${p.leaseMs} * interval '1 millisecond'
    WHERE id = ANY(${sql.array(p.ids, 'int8')}) AND owner = ${p.owner}`);
}

/** Gives rows back untouched (this instance is stopping): the next claim takes them at once. */
export async function release(db: CommonQueryMethods, ids: readonly number[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE forward_queue SET owner = NULL, lease_until = NULL
    WHERE id = ANY(${sql.array(ids, 'int8')}) AND owner = ${owner}`);
}

/** Deletes the rows of destinations no longer configured; returns how many went, per destination. */
export function removeOthers(db: CommonQueryMethods, keep: readonly string[]) {
  return db.any(sql.type(z.object({ destination: z.string(), n: z.number() }))`
    WITH gone AS (
      DELETE FROM forward_queue WHERE destination <> ALL(${sql.array(keep, 'text')}) RETURNING destination)
    SELECT destination, count(*) AS n FROM gone GROUP BY destination`);
}

const DepthSchema = z.object({
  destination: z.string(),
  queued: z.number(),
  oldest: z.number().nullable(),
  lastError: z.string().nullable(),
});
export type QueueDepth = z.infer<typeof DepthSchema>;

/** Per destination: rows waiting, the oldest one's enqueue time, and the oldest row's last error. */
export function depths(db: CommonQueryMethods) {
  return db.any(sql.type(DepthSchema)`
    SELECT destination, count(*) AS queued, min(create_time) AS oldest,
      (array_agg(last_error ORDER BY id) FILTER (WHERE last_error IS NOT NULL))[1] AS "lastError"
    FROM forward_queue GROUP BY destination`);
}
