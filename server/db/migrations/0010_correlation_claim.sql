-- Creating an alert races with creating another alert it should correlate with (issue #18):
-- NodeDown and NodeUp with correlate [NodeDown, NodeUp] for one resource, arriving together, both
-- find nothing and would both insert, as their events differ and the identity key cannot see the
-- correlation. The receive path's INSERT calls this function first. It takes a transaction-level
-- advisory lock per (schema, environment, resource, customer) of the alerts about to be created,
-- in one order so that two inserts never wait on each other, and then answers which of them still
-- find no alert they would de-duplicate or correlate with (same environment, resource and
-- customer; the same event, or the event in that alert's correlate list). Being VOLATILE, its
-- query runs on a fresh snapshot taken after the locks, so it sees an alert created by a receipt
-- that held the lock a moment ago. Unclaimed receipts are decided again by the caller, which also
-- keeps two alerts that would correlate with each other out of one call (a statement cannot see
-- its own rows).
CREATE FUNCTION alert_claim_new(environments text[], resources text[], customers text[], events text[])
RETURNS SETOF integer
LANGUAGE plpgsql VOLATILE
-- With one element the planner prefers a custom plan, re-planned at every call (three times the
-- cost of running it); the generic plan is the same index probe per element.
SET plan_cache_mode = force_generic_plan
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
    WHERE NOT EXISTS (
      SELECT 1 FROM alerts a
      WHERE a.environment = v.e AND a.resource = v.r AND COALESCE(a.customer, '') = v.c
        AND (a.event = v.ev OR v.ev = ANY(a.correlate)));
END
$$;
