-- Counts per (severity, status) under a status filter (the web console's default view is open +
-- ack) and per (environment, severity, status) (/environments) as index-only scans: the status
-- index also holds the severity and, beside the key, the environment. It replaces the
-- (status, last_receive_time) index, so ingest maintains no more indexes than before.
CREATE INDEX alerts_status_severity_time_idx ON alerts (status, severity, last_receive_time) INCLUDE (environment);
DROP INDEX alerts_status_time_idx;
