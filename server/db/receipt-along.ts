import { sql } from 'slonik';
import { z } from 'zod';
import { ALERT_FIELDS, FORWARDED_FIELDS, type ForwardedField } from '../domain/alert-fields.ts';
import type { LeasedForward, ReceiptAlong } from '../domain/plugin-hooks.ts';
import { lastQueued, QueuedRowSchema } from './forward-queue.ts';
import { FIRING_CONFLICT, triggerDocs } from './notifications.ts';
import { texts } from './rows.ts';

// What a receipt writes in its own statement besides the alert (docs/architecture.md, "The receive
// path"): forward-queue rows and notification triggers, as CTEs reading the written rows of `w`.
// They commit with the alert, in the same round trip: nothing is held in memory after the answer.

/** One receipt's rows, for the written alert `alertId`. */
export interface AlongItem {
  alertId: string;
  along: ReceiptAlong;
  /** Put over the forwarded body built from the written row (the receipt's own fields). */
  patch: Record<string, unknown>;
}

const LeasedSchema = QueuedRowSchema satisfies z.ZodType<LeasedForward>;

/** The column the receipt statements add to their rows: this alert's forward rows inserted leased. */
export const LeasedColumn = { leased: z.array(LeasedSchema).optional() };

/** What forwarding sets itself in a forwarded alert; the other fields are copied from the row. */
const FORWARD_SET: Partial<Record<ForwardedField, ReturnType<typeof sql.fragment>>> = {
  id: sql.fragment`w."lastReceiveId"`,
  createTime: sql.fragment`NULL`,
  rawData: sql.fragment`NULL`,
};

/**
 * The body of a forwarded alert (forwarding/enqueue.ts `forwardedAlert`) from the written row `w`;
 * createTime is the receipt's own, put over it (`patch`).
 */
const forwardedBody = sql.fragment`jsonb_build_object(${sql.join(
  FORWARDED_FIELDS.map((k) => {
    const row = sql.identifier(['w', k]);
    const value =
      FORWARD_SET[k] ?? (ALERT_FIELDS[k].sqlType === 'text[]' ? sql.fragment`to_jsonb(${row})` : row);
    return sql.fragment`${sql.literalValue(k)}, ${value}`;
  }),
  sql.fragment`, `,
)})`;

function forwardCtes(items: readonly AlongItem[]) {
  const rows = items.flatMap((item) => item.along.forwards.map((f) => ({ item, f })));
  if (!rows.length) return null;
  const col = (pick: (r: (typeof rows)[number]) => string | null) => texts(rows.map(pick));
  // A row heads its alert's sequence for its destination when nothing of that alert is queued for
  // it before, nor earlier in this statement; only a head is inserted leased (for inline delivery).
  const ctes = sql.fragment`,
    fwd_in AS (
      SELECT * FROM unnest(${col((r) => r.item.alertId)}, ${col((r) => r.f.destination)}, ${col((r) => r.f.loop)},
        ${col((r) => r.f.requestId)}, ${sql.array(
          rows.map((r) => (r.f.owner ? Math.max(0, Math.round(r.f.leaseMs)) : 0)),
          'int8',
        )}, ${col((r) => r.f.owner)}, ${col((r) => JSON.stringify(r.item.patch))}::jsonb[])
        WITH ORDINALITY AS u(alert_id, d, l, r, m, o, p, n)
    ),
    fwd AS (
      INSERT INTO forward_queue (destination, kind, alert_id, body, loop, request_id, head, owner, lease_until)
      SELECT u.d, 'alert', w.id, ${forwardedBody} || u.p, u.l, u.r, x.head, CASE WHEN x.inline THEN u.o END,
        CASE WHEN x.inline THEN now() + u.m * interval '1 millisecond' END
      FROM fwd_in u JOIN w ON w.id = u.alert_id,
      LATERAL (SELECT NOT EXISTS (SELECT 1 FROM fwd_in e WHERE e.d = u.d AND e.alert_id = u.alert_id AND e.n < u.n)
        AND NOT EXISTS (${lastQueued(sql.fragment`u.d`, sql.fragment`u.alert_id`)})) AS y(head),
      LATERAL (SELECT y.head, y.head AND u.m > 0 AND u.o IS NOT NULL) AS x(head, inline)
      ORDER BY u.n
      RETURNING id, destination, kind, alert_id, body, loop, request_id, attempts, create_time, owner IS NOT NULL AS leased
    )`;
  const leased = sql.fragment`(SELECT COALESCE(json_agg(json_build_object('id', f.id, 'destination', f.destination,
      'kind', f.kind, 'alertId', f.alert_id, 'body', f.body, 'loop', f.loop, 'requestId', f.request_id,
      'attempts', f.attempts, 'createTime', (extract(epoch FROM f.create_time) * 1000)::bigint) ORDER BY f.id), '[]'::json)
    FROM fwd f WHERE f.alert_id = w.id AND f.leased) AS leased`;
  return { ctes, leased };
}

function triggerCtes(items: readonly AlongItem[]) {
  const rows = items.flatMap((item) => item.along.triggers.map((t) => ({ item, t })));
  if (!rows.length) return null;
  const { triggers, targets } = triggerDocs(rows.map(({ item, t }) => ({ alertId: item.alertId, ...t })));
  // As db/notifications.ts `fire`: a rule already firing for the alert at the same severity queues
  // nothing; a changed severity re-notifies and re-arms the repeat, keeping the escalation.
  return sql.fragment`,
    trg_in AS (
      SELECT * FROM jsonb_to_recordset(${triggers}::jsonb)
        AS i(alert_id text, rule_id text, receivers text[], repeat_ms int8, escalate_ms int8)
    ),
    trg_state AS (
      INSERT INTO notification_state AS s (rule_id, alert_id, phase, severity, receivers, alert, repeat_at,
        escalate_at)
      SELECT i.rule_id, w.id, 'firing', w.severity, i.receivers, NULL,
        CASE WHEN i.repeat_ms > 0 THEN now() + i.repeat_ms * interval '1 millisecond' END,
        CASE WHEN i.escalate_ms > 0 THEN now() + i.escalate_ms * interval '1 millisecond' END
      FROM trg_in i JOIN w ON w.id = i.alert_id
      ${FIRING_CONFLICT}
    ),
    trg_queue AS (
      INSERT INTO notification_queue (receiver_id, rule_id, alert_id, kind, alert, due_at)
      SELECT t.receiver_id, t.rule_id, t.alert_id, 'trigger', NULL, now() + t.wait_ms * interval '1 millisecond'
      FROM jsonb_to_recordset(${targets}::jsonb) AS t(alert_id text, rule_id text, receiver_id text, wait_ms int8)
      JOIN trg_state USING (rule_id, alert_id)
      RETURNING 1
    )`;
}

/**
 * CTEs to append after `w` (the written alerts, `columns` of db/alerts.ts), and a column for the
 * final SELECT over `w` giving each alert's forward rows inserted leased. Empty when there is nothing
 * to write along, so the statement is then exactly the plain receipt.
 */
export function alongWrites(items: readonly AlongItem[]) {
  const forwards = forwardCtes(items);
  const triggers = triggerCtes(items);
  return {
    ctes: sql.fragment`${forwards?.ctes ?? sql.fragment``}${triggers ?? sql.fragment``}`,
    leased: forwards ? sql.fragment`, ${forwards.leased}` : sql.fragment``,
  };
}

/** Receipts' own leased rows (by request id) among those written for their alert. */
export function leasedOf(along: ReceiptAlong | undefined, rows: readonly LeasedForward[] | undefined) {
  if (!along || !rows?.length) return [];
  const mine = new Set(along.forwards.map((f) => f.requestId));
  return rows.filter((r) => mine.has(r.requestId));
}
