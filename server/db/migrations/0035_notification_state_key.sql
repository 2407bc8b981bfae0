-- A routed alert's state row kept one index entry fewer (docs/benchmarks.md, 2026-11-27): the key
-- leads with the alert, so it also serves every look-up by alert (acks, closes, the alert page) and
-- the separate alert_id index goes. Removing a rule deletes its rows by scanning the table, which
-- holds one row per open alert a rule told about.
ALTER TABLE notification_state DROP CONSTRAINT notification_state_pkey;
ALTER TABLE notification_state ADD PRIMARY KEY (alert_id, rule_id);
DROP INDEX notification_state_alert_idx;
