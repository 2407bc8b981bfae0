-- Top-N reports grouped by event (the default group-by): an index-only scan read in event order
-- ranks the groups without reading the table or hashing, and the top groups' own entries give
-- their lists without reading the other alerts. The included columns are what both passes read
-- (and the customer restriction and lastReceiveTime windows of the reports page filter on), so
-- neither pass touches the heap while the visibility map is current (docs/benchmarks.md,
-- 2026-11-27).
CREATE INDEX alerts_event_top_idx ON alerts (event)
  INCLUDE (service, environment, resource, id, duplicate_count, customer, last_receive_time);
