import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const ClaimedSchema = z.object({ claimed: z.boolean() });

export interface HawkNonce {
  keyId: string;
  nonce: string;
  /** The request's Hawk timestamp, in seconds. */
  ts: number;
  /** Milliseconds since the epoch after which the row may be deleted. */
  expireTime: number;
}

/**
 * Records a (key id, nonce, ts) triple; false when some instance already recorded it, i.e. the
 * request is a replay.
 */
export async function claimHawkNonce(db: CommonQueryMethods, n: HawkNonce): Promise<boolean> {
  const row = await db.maybeOne(sql.type(ClaimedSchema)`
    INSERT INTO hawk_nonces (key_id, nonce, ts, expire_time)
    VALUES (${n.keyId}, ${n.nonce}, ${n.ts}, ${sql.timestamp(new Date(n.expireTime))})
    ON CONFLICT DO NOTHING
    RETURNING true AS claimed`);
  return row !== null;
}

/** Deletes the nonces whose window has passed; returns how many went. */
export async function deleteExpiredHawkNonces(db: CommonQueryMethods, now: number): Promise<number> {
  const result = await db.query(
    sql.unsafe`DELETE FROM hawk_nonces WHERE expire_time < ${sql.timestamp(new Date(now))}`,
  );
  return result.rowCount;
}
