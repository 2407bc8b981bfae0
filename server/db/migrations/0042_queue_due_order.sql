-- The notification claim (server/db/notifications.ts `claim`) takes a receiver's rows oldest due
-- first, `ORDER BY due_at, id`, up to a message's 200. With `id` in the index the order comes from
-- the index and the scan stops at the limit; on `(receiver_id, due_at)` alone PostgreSQL read every
-- row the receiver had queued and sorted them, about 5 ms a claim with 8,000 alerts waiting out a
-- group wait, growing with the backlog (docs/benchmarks.md, 2026-11-28 fifth session). The poll
-- (`dueReceivers`) reads the same index for each receiver's next due row.
DROP INDEX notification_queue_due_idx;
CREATE INDEX notification_queue_due_idx ON notification_queue (receiver_id, due_at, id);
