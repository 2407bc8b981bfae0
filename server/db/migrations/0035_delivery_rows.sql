-- Fewer writes per notified or forwarded alert (docs/benchmarks.md, 2026-11-27).
--
-- A routed alert's state row keeps one index entry fewer: the key leads with the alert, so it also
-- serves every look-up by alert (acks, closes, the alert page) and the separate alert_id index
-- goes. Removing a rule deletes its rows by scanning the table, which holds one row per open alert
-- a rule told about.
ALTER TABLE notification_state DROP CONSTRAINT notification_state_pkey;
ALTER TABLE notification_state ADD PRIMARY KEY (alert_id, rule_id);
DROP INDEX notification_state_alert_idx;

-- Queue rows are leased (owner, lease_until: no index holds them) and then deleted. With room
-- left on each page the lease is a heap-only update, which writes no index entries; the tables
-- stay small (rows leave once delivered), so the space costs nothing that matters.
ALTER TABLE notification_queue SET (fillfactor = 60);
ALTER TABLE forward_queue SET (fillfactor = 60);
