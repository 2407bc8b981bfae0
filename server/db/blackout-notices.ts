import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { NOTICE_KINDS } from '../../shared/notifications.ts';
import { BlackoutRowSchema, columns, type BlackoutRow } from './blackouts.ts';
import { texts, ts } from './rows.ts';

// Blackout notices (migration 0057, docs/notifications.md "Blackout notices"): the edges of
// blackout windows that were announced, and the queue rows that announce them.

/** The blackout as a notice tells it. */
export const NoticeBlackoutSchema = BlackoutRowSchema.pick({
  id: true,
  environment: true,
  service: true,
  resource: true,
  event: true,
  group: true,
  tags: true,
  origin: true,
  customer: true,
  text: true,
  rrule: true,
  timezone: true,
});
export type NoticeBlackout = z.infer<typeof NoticeBlackoutSchema>;

/** What a queued notice tells (the queue's `notice` column): a window of a blackout began or ended. */
export const BlackoutNoticeSchema = z.object({
  kind: z.enum(NOTICE_KINDS),
  blackout: NoticeBlackoutSchema,
  /** The window (epoch ms): a one-off blackout's whole span, or one occurrence of a recurring one. */
  startTime: z.number(),
  endTime: z.number(),
  /** A recurring blackout's rule in words, e.g. "every weekday 18:00–08:00 Europe/Berlin". */
  description: z.string().nullable(),
});
export type BlackoutNotice = z.infer<typeof BlackoutNoticeSchema>;

const within = (column: string, from: number, to: number) =>
  sql.fragment`(${sql.identifier(['a', column])} > ${ts(from)} AND ${sql.identifier(['a', column])} <= ${ts(to)})`;

/**
 * Blackouts that may have a window start or end in (from, to]: a one-off one whose start or end
 * falls there; a recurring one whose stored window starts, ends or was replaced there (a window
 * that ended is replaced from its end: window_from). The caller works out the edges from the rule.
 */
export function noticeCandidates(
  db: CommonQueryMethods,
  from: number,
  to: number,
): Promise<readonly BlackoutRow[]> {
  return db.any(sql.type(BlackoutRowSchema)`
    SELECT ${columns} FROM blackouts a
    WHERE a.start_time <= ${ts(to)} AND a.end_time > ${ts(from)}
      AND CASE WHEN a.rrule IS NULL
        THEN ${within('start_time', from, to)} OR ${within('end_time', from, to)}
        ELSE ${within('window_start', from, to)} OR ${within('window_end', from, to)}
          OR ${within('window_from', from, to)} END`);
}

/** One edge of a window: which blackout, which window (its start), start or end. */
export interface Edge {
  blackoutId: string;
  occurrenceStart: number;
  edge: 'start' | 'end';
}

/**
 * Claims edges for this transaction's caller: the rows it inserts are the edges it announces; an
 * edge another instance claimed first (committed, or committing: the insert waits for it) is left
 * out, so each edge is announced once (tests/api/blackout-notices.test.ts, "two instances").
 */
export async function claimEdges(db: CommonQueryMethods, edges: readonly Edge[]): Promise<Edge[]> {
  if (!edges.length) return [];
  const rows = await db.any(sql.type(
    z.object({ blackoutId: z.string(), occurrenceStart: z.number(), edge: z.enum(['start', 'end']) }),
  )`
    INSERT INTO blackout_notices (blackout_id, occurrence_start, edge)
    SELECT * FROM unnest(${sql.array(
      edges.map((e) => e.blackoutId),
      'uuid',
    )}, ${sql.array(
      edges.map((e) => new Date(e.occurrenceStart).toISOString()),
      'timestamptz',
    )}, ${texts(edges.map((e) => e.edge))})
    ON CONFLICT DO NOTHING
    RETURNING blackout_id::text AS "blackoutId", occurrence_start AS "occurrenceStart", edge`);
  return [...rows];
}

/** A notice to queue for one receiver. */
export interface QueuedNotice {
  receiverId: string;
  ruleId: string;
  notice: BlackoutNotice;
}

/** Queues notices, due now; `alert_id` is `blackout:<id>` (no alert has such an id). */
export async function enqueueNotices(db: CommonQueryMethods, rows: readonly QueuedNotice[]): Promise<void> {
  if (!rows.length) return;
  const col = (pick: (r: QueuedNotice) => string) => texts(rows.map(pick));
  await db.query(sql.unsafe`
    INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, notice, due_at)
    SELECT r, u, a, k, n, now()
    FROM unnest(${col((r) => r.receiverId)}, ${col((r) => r.ruleId)},
      ${col((r) => `blackout:${r.notice.blackout.id}`)}, ${col((r) => r.notice.kind)},
      ${col((r) => JSON.stringify(r.notice))}::jsonb[]) AS x(r, u, a, k, n)`);
}

/** Forgets claims made before `before`: their edges are older than any instance still looks back. */
export async function forgetEdges(db: CommonQueryMethods, before: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM blackout_notices WHERE create_time < ${ts(before)}`);
}
