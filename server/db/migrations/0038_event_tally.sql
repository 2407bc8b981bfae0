-- Alert counts per event as well (issue #20 item 2; docs/benchmarks.md, 2026-11-27): the same key
-- as alert_tally (migration 0031) plus `event`, kept by the same triggers in the same way (signed
-- deltas appended by writers, folded by compaction). Top-N reports grouped by event — the default
-- grouping — count their groups from these rows instead of reading one index entry per alert,
-- whenever their filters only name tally key columns (server/db/top-n.ts). Groupings by the other
-- key columns use alert_tally itself.

CREATE TABLE alert_event_tally (
  customer    text,
  environment text NOT NULL,
  service     text[] NOT NULL,
  severity    text NOT NULL,
  status      text NOT NULL,
  event       text NOT NULL,
  n           bigint NOT NULL
);

CREATE TABLE alert_event_tally_delta (
  customer    text,
  environment text NOT NULL,
  service     text[] NOT NULL,
  severity    text NOT NULL,
  status      text NOT NULL,
  event       text NOT NULL,
  n           bigint NOT NULL
);

-- The update trigger also fires when only the event changes (correlation renames an alert's event).
-- Dropped and created first: that locks writers out of alerts until this migration commits, so
-- the counts filled in below are those of every alert there will be until then.
DROP TRIGGER alert_tally_update ON alerts;
CREATE TRIGGER alert_tally_update AFTER UPDATE OF customer, environment, service, severity, status, event ON alerts
  FOR EACH ROW
  WHEN (OLD.customer IS DISTINCT FROM NEW.customer OR OLD.environment IS DISTINCT FROM NEW.environment
    OR OLD.service IS DISTINCT FROM NEW.service OR OLD.severity IS DISTINCT FROM NEW.severity
    OR OLD.status IS DISTINCT FROM NEW.status OR OLD.event IS DISTINCT FROM NEW.event)
  EXECUTE FUNCTION alert_tally_moved();

CREATE OR REPLACE FUNCTION alert_tally_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_tally_delta (customer, environment, service, severity, status, n)
  SELECT customer, environment, service, severity, status, count(*) FROM tally_new
  GROUP BY customer, environment, service, severity, status;
  INSERT INTO alert_event_tally_delta (customer, environment, service, severity, status, event, n)
  SELECT customer, environment, service, severity, status, event, count(*) FROM tally_new
  GROUP BY customer, environment, service, severity, status, event;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION alert_tally_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_tally_delta (customer, environment, service, severity, status, n)
  SELECT customer, environment, service, severity, status, -count(*) FROM tally_old
  GROUP BY customer, environment, service, severity, status;
  INSERT INTO alert_event_tally_delta (customer, environment, service, severity, status, event, n)
  SELECT customer, environment, service, severity, status, event, -count(*) FROM tally_old
  GROUP BY customer, environment, service, severity, status, event;
  RETURN NULL;
END $$;

-- alert_tally moves only when one of its own columns changed (not for an event alone).
CREATE OR REPLACE FUNCTION alert_tally_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.customer IS DISTINCT FROM NEW.customer OR OLD.environment IS DISTINCT FROM NEW.environment
    OR OLD.service IS DISTINCT FROM NEW.service OR OLD.severity IS DISTINCT FROM NEW.severity
    OR OLD.status IS DISTINCT FROM NEW.status THEN
    INSERT INTO alert_tally_delta (customer, environment, service, severity, status, n) VALUES
      (OLD.customer, OLD.environment, OLD.service, OLD.severity, OLD.status, -1),
      (NEW.customer, NEW.environment, NEW.service, NEW.severity, NEW.status, 1);
  END IF;
  INSERT INTO alert_event_tally_delta (customer, environment, service, severity, status, event, n) VALUES
    (OLD.customer, OLD.environment, OLD.service, OLD.severity, OLD.status, OLD.event, -1),
    (NEW.customer, NEW.environment, NEW.service, NEW.severity, NEW.status, NEW.event, 1);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION alert_tally_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(72643511, hashtext(current_schema()));
  DELETE FROM alert_tally;
  DELETE FROM alert_tally_delta;
  DELETE FROM alert_event_tally;
  DELETE FROM alert_event_tally_delta;
  RETURN NULL;
END $$;

INSERT INTO alert_event_tally (customer, environment, service, severity, status, event, n)
SELECT customer, environment, service, severity, status, event, count(*) FROM alerts
GROUP BY customer, environment, service, severity, status, event;
