-- `alert_claim_new` (migration 0010) keeps one generic plan per connection, made at its first call
-- (`force_generic_plan`). A connection that first called it while `alerts` held a few rows planned
-- its NOT EXISTS as a hash anti join over a sequential scan of every alert, and kept that plan as
-- the table grew until an ANALYZE invalidated it: during `ingest.ts` (every request a new alert,
-- autovacuum off) 440 calls read 7.5 million alert rows, 3–17 ms each against about 0.3 ms for the
-- index probe that other connections of the same pool had planned (docs/benchmarks.md, 2026-11-29).
-- Which connections had which plan depended on when each first ran it.
--
-- Now each identity is one lateral probe with `LIMIT 1`, which can only be a nested loop, and the
-- function runs with sequential scans off, so the probe is an index scan of `alerts_identity_key`
-- (environment, resource, …) whatever the table's size or statistics when the plan was made. The
-- answer is the same: the positions of the identities that find no alert they would de-duplicate or
-- correlate with (same environment, resource and customer; the same event, or the event in that
-- alert's correlate list).
CREATE OR REPLACE FUNCTION alert_claim_new(environments text[], resources text[], customers text[], events text[])
RETURNS SETOF integer
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
BEGIN
  -- 72643511: this lock's class (housekeeping's is 72643510). The sorted subquery is not
  -- flattened, so the locks are taken in key order.
  PERFORM pg_advisory_xact_lock(72643511, s.k)
  FROM (
    SELECT DISTINCT hashtext(json_build_array(current_schema(), v.e, v.r, v.c)::text) AS k
    FROM unnest(environments, resources, customers) AS v(e, r, c)
    ORDER BY 1
  ) s;
  RETURN QUERY
    SELECT v.i::integer
    FROM unnest(environments, resources, customers, events) WITH ORDINALITY AS v(e, r, c, ev, i)
      LEFT JOIN LATERAL (
        SELECT true AS found FROM alerts a
        WHERE a.environment = v.e AND a.resource = v.r AND COALESCE(a.customer, '') = v.c
          AND (a.event = v.ev OR v.ev = ANY(a.correlate))
        LIMIT 1
      ) x ON true
    WHERE x.found IS NULL;
END
$$;
