import { sql, type CommonQueryMethods, type DatabasePoolConnection } from 'slonik';
import { z } from 'zod';
import { finiteTime } from './pool.ts';
import { ts } from './rows.ts';

/**
 * Housekeeping's advisory lock: a fixed class and the schema, so instances sharing a database and
 * schema run one at a time while other schemas of the same database do not wait on each other.
 */
const LOCK_CLASS = 72_643_510;
const lockKey = sql.fragment`${LOCK_CLASS}::int, hashtext(current_schema())`;

/** Takes the session-level run lock on this connection if free; true when taken. */
export function tryRunLock(conn: DatabasePoolConnection): Promise<boolean> {
  return conn.oneFirst(sql.type(z.object({ locked: z.boolean() }))`
    SELECT pg_try_advisory_lock(${lockKey}) AS locked`);
}

/** Releases the run lock taken on this connection. */
export async function releaseRunLock(conn: DatabasePoolConnection): Promise<void> {
  await conn.query(sql.type(z.object({ released: z.boolean() }))`
    SELECT pg_advisory_unlock(${lockKey}) AS released`);
}

const DeletedSchema = z.object({ id: z.string(), customer: z.string().nullable() });
export type Deleted = z.infer<typeof DeletedSchema>;

/**
 * Deletes up to `limit` alerts (and their history; notes are kept) last received before `before`
 * that are closed or expired (`kind` 'expired') or have the informational severity (`kind` 'info').
 * Rows another transaction holds are left for a later batch.
 */
export function deleteStale(
  db: CommonQueryMethods,
  kind: { expired: true } | { severity: string },
  before: number,
  limit: number,
): Promise<readonly Deleted[]> {
  const which =
    'expired' in kind
      ? sql.fragment`a.status IN ('closed', 'expired')`
      : sql.fragment`a.severity = ${kind.severity}`;
  return db.any(sql.type(DeletedSchema)`
    WITH d AS (
      DELETE FROM alerts WHERE id IN (
        SELECT a.id FROM alerts a
        WHERE ${which} AND a.last_receive_time < ${ts(before)}
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      RETURNING id, customer
    ),
    h AS (DELETE FROM alert_history WHERE alert_id IN (SELECT id FROM d))
    SELECT id, customer FROM d ORDER BY id`);
}

const IdSchema = z.object({ id: z.string() });

type Fragment = ReturnType<typeof sql.fragment>;

/** One keyset page of the ids of alerts `a` (joined to `from`) matching `where`: those after `after`. */
function idsAfter(db: CommonQueryMethods, from: Fragment, where: Fragment, after: string, limit: number) {
  return db.anyFirst(sql.type(IdSchema)`
    SELECT a.id FROM alerts a
    ${from}
    WHERE ${where}
      AND a.id > ${after}
    ORDER BY a.id
    LIMIT ${limit}`);
}

/** Whether `seconds` after the time column `since` of alerts `a` lies before `now`. */
const ranOut = (since: string, seconds: Fragment, now: number) =>
  sql.fragment`${finiteTime('a', since)} + ${seconds} * interval '1 second' < ${ts(now)}`;

/**
 * Ids of alerts whose own timeout ran out (lifecycle §9 step 3): status not `expired`, timeout
 * above 0, lastReceiveTime + timeout before `now`. Closed, acked and shelved alerts included.
 * Keyset-paged by id: pass the last id of the previous page.
 */
export async function findToExpire(
  db: CommonQueryMethods,
  now: number,
  after: string,
  limit: number,
): Promise<readonly string[]> {
  return idsAfter(
    db,
    sql.fragment``,
    sql.fragment`a.status <> 'expired' AND a.timeout > 0
      AND ${ranOut('last_receive_time', sql.fragment`a.timeout`, now)}`,
    after,
    limit,
  );
}

/**
 * Ids of alerts in `status` ('ack' or 'shelved') whose newest `entryType` ('ack' or 'shelve')
 * history entry with that status carries a timeout (null: `fallback`, the server setting) above 0 that ran out
 * since the alert's updateTime (alarm-model §7). Keyset-paged by id.
 */
export async function findTimedOut(
  db: CommonQueryMethods,
  status: string,
  entryType: string,
  fallback: number,
  now: number,
  after: string,
  limit: number,
): Promise<readonly string[]> {
  return idsAfter(
    db,
    sql.fragment`CROSS JOIN LATERAL (
      SELECT COALESCE(h.timeout, ${fallback}::int) AS timeout FROM alert_history h
      WHERE h.alert_id = a.id AND h.type = ${entryType} AND h.status = ${status}
      ORDER BY h.seq DESC LIMIT 1
    ) e`,
    sql.fragment`a.status = ${status} AND e.timeout > 0
      AND ${ranOut('update_time', sql.fragment`e.timeout`, now)}`,
    after,
    limit,
  );
}

/**
 * Deletes up to `limit` notification delivery history entries older than `before` (oldest first,
 * through the time index); how many went. Housekeeping repeats it until fewer go (NOTIFY_DELIVERY_RETENTION).
 */
export function purgeDeliveries(db: CommonQueryMethods, before: number, limit: number): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`
    WITH d AS (
      DELETE FROM notification_deliveries WHERE id = ANY(ARRAY(
        SELECT id FROM notification_deliveries WHERE time < ${ts(before)} ORDER BY time LIMIT ${limit}))
      RETURNING 1
    )
    SELECT count(*)::int AS n FROM d`);
}
