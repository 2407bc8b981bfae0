-- Two removals of rows of one alert for one destination, running at once, could each leave the rows
-- behind unmarked: each marking (migration 0036) still saw the other's row, not yet removed, as the
-- oldest. An alert has two heads when receipts on two instances queue together, each before the
-- other commits; both are delivered inline and removed together, and the rows queued behind waited
-- for the safety net (db/forward-queue.ts `markHeads`). A removal now first takes a transaction lock
-- per (destination, alert) of its rows, in key order so that two removals cannot deadlock:
-- the second waits for the first to commit, and its marking then sees the first's removal.
-- Receipts do not take it (tests/api/forward-heads.test.ts, "two heads of one alert removed at once").
CREATE OR REPLACE FUNCTION forward_settle(ids bigint[], holder text) RETURNS SETOF text
LANGUAGE plpgsql
SET enable_seqscan = off
AS $$
DECLARE
  dests text[];
  alerts text[];
BEGIN
  -- 72643512: this lock's class (housekeeping's is 72643510, alert creation's 72643511). The
  -- sorted subquery is not flattened, so the locks are taken in key order. Taken before the
  -- removal, so a removal waiting for it holds no row another one could wait for. Reading `owner`
  -- (in no index) keeps the look-up a probe of the primary key: without it the generic plan read
  -- the whole (destination, alert_id, id) index (tests/api/function-plans-growth.test.ts).
  PERFORM pg_advisory_xact_lock(72643512, s.k)
  FROM (
    SELECT DISTINCT hashtext(json_build_array(current_schema(), f.destination, f.alert_id)::text) AS k
    FROM forward_queue f WHERE f.id = ANY(ids) AND f.owner = holder
    ORDER BY 1
  ) s;
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
