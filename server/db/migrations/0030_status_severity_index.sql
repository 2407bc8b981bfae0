-- Counts as index-only scans read in index order, grouped without hashing: per (status, severity)
-- (the web console's default view is open + ack; also both counts of the default list view in one
-- scan) and per (status, severity, environment) for /environments. It replaces the
-- (status, last_receive_time) index (status filters and housekeeping still lead with status), so
-- ingest maintains no more indexes than before (docs/benchmarks.md, 2026-11-25).
CREATE INDEX alerts_status_severity_env_idx ON alerts (status, severity, environment, last_receive_time);
DROP INDEX alerts_status_time_idx;
