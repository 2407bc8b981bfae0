-- Counts as index-only scans read in index order, grouped without hashing: per (status, severity)
-- under a status filter (the web console's default view is open + ack), per (status, severity,
-- environment) for /environments and per (…, service) for /services. It replaces the
-- (status, last_receive_time) index (status filters and housekeeping still lead with status), so
-- ingest maintains no more indexes than before (docs/benchmarks.md, 2026-11-25).
CREATE INDEX alerts_status_severity_env_idx
  ON alerts (status, severity, environment, service, last_receive_time);
DROP INDEX alerts_status_time_idx;
