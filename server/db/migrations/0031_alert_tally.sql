-- Alert counts kept by the database as alerts change (issue #20; docs/benchmarks.md, 2026-11-27):
-- how many alerts there are per (customer, environment, service list, severity, status). List
-- counts, /alerts/count, /environments and /services read these few hundred rows instead of
-- scanning every alert, whenever their filters only name those columns (server/db/alert-tally.ts).
--
-- Writers never update a shared counter row (no hot rows, no lock waits, no deadlocks between
-- receipts or bulk operations): triggers on alerts append signed deltas to alert_tally_delta in
-- the writing transaction. Readers sum alert_tally and alert_tally_delta in one statement (one
-- snapshot, so the sum is exact). Compaction moves deltas into alert_tally in one statement; the
-- sum over both tables is the same before and after it, whoever runs it and however often.

CREATE TABLE alert_tally (
  customer    text,
  environment text NOT NULL,
  service     text[] NOT NULL,
  severity    text NOT NULL,
  status      text NOT NULL,
  n           bigint NOT NULL
);

-- Append-only between compactions; no index (writers only insert, compaction reads it whole).
CREATE TABLE alert_tally_delta (
  customer    text,
  environment text NOT NULL,
  service     text[] NOT NULL,
  severity    text NOT NULL,
  status      text NOT NULL,
  n           bigint NOT NULL
);

-- New alerts: one grouped delta row per key and statement (a receipt batch, a seed).
CREATE FUNCTION alert_tally_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_tally_delta (customer, environment, service, severity, status, n)
  SELECT customer, environment, service, severity, status, count(*) FROM tally_new
  GROUP BY customer, environment, service, severity, status;
  RETURN NULL;
END $$;

-- Deleted alerts (housekeeping deletes thousands per statement): likewise, negative.
CREATE FUNCTION alert_tally_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_tally_delta (customer, environment, service, severity, status, n)
  SELECT customer, environment, service, severity, status, -count(*) FROM tally_old
  GROUP BY customer, environment, service, severity, status;
  RETURN NULL;
END $$;

-- An update that moved an alert to another key: -1 for the old key, +1 for the new one. Row level
-- with a WHEN clause, so the many updates that change none of these columns (de-duplication, notes,
-- tags, attributes) fire nothing at all.
CREATE FUNCTION alert_tally_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_tally_delta (customer, environment, service, severity, status, n) VALUES
    (OLD.customer, OLD.environment, OLD.service, OLD.severity, OLD.status, -1),
    (NEW.customer, NEW.environment, NEW.service, NEW.severity, NEW.status, 1);
  RETURN NULL;
END $$;

-- TRUNCATE fires no row or statement delete triggers: empty both tables under the compaction lock
-- (server/db/alert-tally.ts), so no compaction moves old deltas in behind it.
CREATE FUNCTION alert_tally_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(72643511, hashtext(current_schema()));
  DELETE FROM alert_tally;
  DELETE FROM alert_tally_delta;
  RETURN NULL;
END $$;

CREATE TRIGGER alert_tally_insert AFTER INSERT ON alerts REFERENCING NEW TABLE AS tally_new
  FOR EACH STATEMENT EXECUTE FUNCTION alert_tally_inserted();
CREATE TRIGGER alert_tally_delete AFTER DELETE ON alerts REFERENCING OLD TABLE AS tally_old
  FOR EACH STATEMENT EXECUTE FUNCTION alert_tally_deleted();
CREATE TRIGGER alert_tally_update AFTER UPDATE OF customer, environment, service, severity, status ON alerts
  FOR EACH ROW
  WHEN (OLD.customer IS DISTINCT FROM NEW.customer OR OLD.environment IS DISTINCT FROM NEW.environment
    OR OLD.service IS DISTINCT FROM NEW.service OR OLD.severity IS DISTINCT FROM NEW.severity
    OR OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION alert_tally_moved();
CREATE TRIGGER alert_tally_truncate AFTER TRUNCATE ON alerts
  FOR EACH STATEMENT EXECUTE FUNCTION alert_tally_truncated();

-- The counts of the alerts already stored. Creating the triggers above took a lock that keeps
-- writers out until this migration commits, so this statement sees every alert there will be
-- until then.
INSERT INTO alert_tally (customer, environment, service, severity, status, n)
SELECT customer, environment, service, severity, status, count(*) FROM alerts
GROUP BY customer, environment, service, severity, status;
