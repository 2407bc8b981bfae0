-- Each alert's own counts of the history entries the flapping and standing reports rank by
-- (issue #20 item 2; docs/benchmarks.md, 2026-11-28): `severity_entries`, its entries typed `new` or
-- `severity`; `flaps`, those `severity` entries that changed the severity of the `new`/`severity`
-- entry before them (server/db/top-n.ts). The reports used to join every alert's history (140,000
-- entries at 100,000 alerts: 190–370 ms); with the counts they read the alerts alone.
--
-- Kept exact by whoever writes history: the statements that add entries (a new alert, a receipt
-- or an action with entries) set the counts in the same statement as the alert itself, so adding
-- entries costs no second write of the alert. Anything that deletes or changes entries (the trim
-- to HISTORY_LIMIT, deleting alerts, a hand-made UPDATE) fires the triggers below, which count the
-- touched alerts' entries again. History inserted by hand (a seed, a restore without these columns)
-- is followed by `SELECT alert_history_recount(NULL)`.

-- Stored alerts read as one entry and no flap (a new column's default costs no rewrite), the counts
-- of an alert that never changed severity; the count below then rewrites only the others. Rows
-- inserted from now on default to none.
ALTER TABLE alerts
  ADD COLUMN severity_entries integer NOT NULL DEFAULT 1,
  ADD COLUMN flaps integer NOT NULL DEFAULT 0;
ALTER TABLE alerts ALTER COLUMN severity_entries SET DEFAULT 0;

-- One alert's counts, from its history as it is now (a table function, so that PostgreSQL inlines it
-- into the statement that reads it).
CREATE FUNCTION alert_history_counts(alert text) RETURNS TABLE (entries int, flaps int) LANGUAGE sql STABLE AS $$
  SELECT count(*)::int,
    (count(*) FILTER (WHERE f.type = 'severity' AND f.before IS NOT NULL AND f.severity IS DISTINCT FROM f.before))::int
  FROM (
    SELECT h.type, h.severity, lag(h.severity) OVER (ORDER BY h.seq) AS before
    FROM alert_history h WHERE h.alert_id = alert AND h.type IN ('new', 'severity')
  ) f
$$;

-- The counts of the given alerts (every alert for NULL), counted from their history as it is now;
-- rows already right are not written.
CREATE FUNCTION alert_history_recount(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- Two statements, so that each is planned for what it reads: one OR'ed condition would have
  -- made the plan for a few ids scan every alert.
  -- Every alert: one pass over the history, grouped, rather than one lookup per alert.
  IF ids IS NULL THEN
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

-- Deleted entries: only those typed new/severity change a count. A trim that deleted nothing, or
-- only other entries, does no more than look at its transition table.
CREATE FUNCTION alert_history_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched text[];
BEGIN
  SELECT array_agg(DISTINCT alert_id) INTO touched FROM history_old WHERE type IN ('new', 'severity');
  IF touched IS NOT NULL THEN
    PERFORM alert_history_recount(touched);
  END IF;
  RETURN NULL;
END $$;

-- Changed entries (the server never updates history; an operator's or a test's UPDATE might).
CREATE FUNCTION alert_history_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched text[];
BEGIN
  SELECT array_agg(DISTINCT alert_id) INTO touched FROM (
    SELECT alert_id FROM history_old UNION SELECT alert_id FROM history_new
  ) t;
  IF touched IS NOT NULL THEN
    PERFORM alert_history_recount(touched);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER alert_history_delete AFTER DELETE ON alert_history REFERENCING OLD TABLE AS history_old
  FOR EACH STATEMENT EXECUTE FUNCTION alert_history_deleted();
CREATE TRIGGER alert_history_update AFTER UPDATE ON alert_history
  REFERENCING OLD TABLE AS history_old NEW TABLE AS history_new
  FOR EACH STATEMENT EXECUTE FUNCTION alert_history_changed();

-- TRUNCATE fires no delete trigger: every alert is left without entries.
CREATE FUNCTION alert_history_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE alerts SET severity_entries = 0, flaps = 0 WHERE severity_entries <> 0 OR flaps <> 0;
  RETURN NULL;
END $$;
CREATE TRIGGER alert_history_truncate AFTER TRUNCATE ON alert_history
  FOR EACH STATEMENT EXECUTE FUNCTION alert_history_truncated();

-- The event index serves both passes of the reports grouped by event without reading the table:
-- it now carries the counts and createTime (standing's lifetime) too. Dropped before the count, so
-- that the rows it rewrites have one index fewer to update.
DROP INDEX alerts_event_top_idx;

SELECT alert_history_recount(NULL);

CREATE INDEX alerts_event_top_idx ON alerts (event)
  INCLUDE (service, environment, resource, id, duplicate_count, customer, last_receive_time, create_time,
    severity_entries, flaps);
