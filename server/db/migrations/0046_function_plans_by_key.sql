-- A plpgsql function keeps one plan per statement and connection; from the sixth call on it is a
-- generic plan made with the statistics of that moment, kept until an ANALYZE or DDL invalidates
-- it. Planned on tables of a few rows that had been analysed, the key look-ups below were
-- sequential scans, and stayed so as the tables grew (a new deployment's first storm, a forward
-- queue filling while its destination is down, or autovacuum off): measured at 20,000 rows, one
-- status change read every notification state, one forward delivery's settle of 3 rows read the
-- queue eight times (160,000 rows), one history trim's recount every alert twice and every entry
-- (docs/benchmarks.md, 2026-11-29; migration 0045 did the same for `alert_claim_new`).
--
-- Each statement of these functions finds its rows by key, so they run with sequential scans off:
-- their plans are index probes whatever the statistics were (tests/api/function-plans-growth.test.ts).
-- The setting holds for the call only.
ALTER FUNCTION notification_state_mark() SET enable_seqscan = off;
-- `forward_settle` (migration 0036) also finds the rows to mark as heads through an array of ids:
-- joined to the queue by a condition on a subquery, the marking was planned as a walk over the whole
-- queue (through its primary key, with sequential scans off) testing each row.
CREATE OR REPLACE FUNCTION forward_settle(ids bigint[], holder text) RETURNS SETOF text
LANGUAGE plpgsql
SET enable_seqscan = off
AS $$
DECLARE
  dests text[];
  alerts text[];
BEGIN
  WITH gone AS (
    DELETE FROM forward_queue WHERE id = ANY(ids) AND owner = holder RETURNING destination, alert_id
  ), pairs AS (SELECT DISTINCT destination, alert_id FROM gone)
  SELECT array_agg(destination), array_agg(alert_id) INTO dests, alerts FROM pairs;
  IF dests IS NULL THEN
    RETURN;
  END IF;
  RETURN QUERY
    UPDATE forward_queue q SET head = true
    WHERE q.id = ANY(ARRAY(
        SELECT (SELECT min(w.id) FROM forward_queue w WHERE w.destination = p.destination AND w.alert_id = p.alert_id)
        FROM unnest(dests, alerts) AS p(destination, alert_id)))
      AND NOT q.head
    RETURNING q.destination;
END
$$;
-- `alert_history_recount` as in migration 0041, but for its `NULL` branch (every alert: one pass over
-- the history, for seeds and the migration), which reads whole tables and turns sequential scans back
-- on: a `SET LOCAL` of a setting the function sets itself lasts until the function returns.
CREATE OR REPLACE FUNCTION alert_history_recount(ids text[]) RETURNS void
LANGUAGE plpgsql
SET enable_seqscan = off
AS $$
BEGIN
  -- Two statements, so that each is planned for what it reads: one OR'ed condition would have
  -- made the plan for a few ids scan every alert.
  -- Every alert: one pass over the history, grouped, rather than one lookup per alert.
  IF ids IS NULL THEN
    SET LOCAL enable_seqscan = on;
    UPDATE alerts a SET severity_entries = c.entries, flaps = c.flaps
    FROM (
      SELECT f.alert_id, count(*)::int AS entries,
        (count(*) FILTER (WHERE f.type = 'severity' AND f.before IS NOT NULL
          AND f.severity IS DISTINCT FROM f.before))::int AS flaps
      FROM (
        SELECT h.alert_id, h.type, h.severity, lag(h.severity) OVER (PARTITION BY h.alert_id ORDER BY h.seq) AS before
        FROM alert_history h WHERE h.type IN ('new', 'severity')
      ) f
      GROUP BY f.alert_id
    ) c
    WHERE a.id = c.alert_id AND (a.severity_entries, a.flaps) IS DISTINCT FROM (c.entries, c.flaps);
    UPDATE alerts a SET severity_entries = 0, flaps = 0
    WHERE (a.severity_entries <> 0 OR a.flaps <> 0)
      AND NOT EXISTS (SELECT 1 FROM alert_history h WHERE h.alert_id = a.id AND h.type IN ('new', 'severity'));
  ELSE
    UPDATE alerts a SET severity_entries = c.entries, flaps = c.flaps
    FROM (SELECT x.id FROM alerts x WHERE x.id = ANY(ids)) d CROSS JOIN LATERAL alert_history_counts(d.id) c
    WHERE a.id = d.id AND (a.severity_entries, a.flaps) IS DISTINCT FROM (c.entries, c.flaps);
  END IF;
END $$;
