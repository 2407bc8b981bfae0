-- Counts per severity over the default list view (lastReceiveTime <= now) as an index-only scan,
-- like the existing (status, last_receive_time) index does for counts per status.
DROP INDEX alerts_severity_idx;
CREATE INDEX alerts_severity_time_idx ON alerts (severity, last_receive_time);
