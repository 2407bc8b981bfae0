-- The flapping and standing reports count an alert's history entries typed `severity`, as the
-- established server does (its top-N queries join `history` on `type = 'severity'`); a new
-- alert's first entry is typed `new` there and here, and is no longer counted. `severity_entries`
-- (migration 0041) counted `new` entries too: from now on it counts `severity` entries only, so an
-- alert received once and never changed is left out of the standing report, as there.
-- `flaps` keeps its meaning: `severity` entries that changed the severity of the `new`/`severity`
-- entry before them (the `new` entry is still what the first change is measured against).
-- tests/api/top-n-severity-entries.test.ts checks the reports; tests/api/migration-history-counts.test.ts
-- this migration on stored history.

CREATE OR REPLACE FUNCTION alert_history_counts(alert text) RETURNS TABLE (entries int, flaps int) LANGUAGE sql STABLE AS $$
  SELECT (count(*) FILTER (WHERE f.type = 'severity'))::int,
    (count(*) FILTER (WHERE f.type = 'severity' AND f.before IS NOT NULL AND f.severity IS DISTINCT FROM f.before))::int
  FROM (
    SELECT h.type, h.severity, lag(h.severity) OVER (ORDER BY h.seq) AS before
    FROM alert_history h WHERE h.alert_id = alert AND h.type IN ('new', 'severity')
  ) f
$$;

-- As in migration 0046, with `entries` counting `severity` entries only.
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
      SELECT f.alert_id, (count(*) FILTER (WHERE f.type = 'severity'))::int AS entries,
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

-- Stored alerts are counted again from their history: every alert with a `new` entry (each created
-- since the first entry was typed `new`) is rewritten. The event index carries the count, so it is
-- dropped first and built again after, as migration 0041 did.
DROP INDEX alerts_event_top_idx;

SELECT alert_history_recount(NULL);

CREATE INDEX alerts_event_top_idx ON alerts (event)
  INCLUDE (service, environment, resource, id, duplicate_count, customer, last_receive_time, create_time,
    severity_entries, flaps);
