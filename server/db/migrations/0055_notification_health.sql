-- Notification health and delivery history (docs/notifications.md, "Health" and "Delivery history").
-- Both are written by the delivery worker of whichever instance made the attempt, so every instance
-- on the database tells the same story.

-- One row per receiver that was ever attempted: its state and the facts behind it, changed by one
-- statement per attempt (db/notification-deliveries.ts). `state_since` is when the state was
-- entered: while `failing`, the first failure after the last success.
CREATE TABLE notification_health (
  receiver_id     text PRIMARY KEY,
  state           text NOT NULL CHECK (state IN ('ok', 'failing')),
  state_since     timestamptz NOT NULL,
  last_success_at timestamptz,
  last_error_at   timestamptz,
  last_error      text,
  -- Failed attempts since the last success.
  failed_attempts integer NOT NULL DEFAULT 0
);

-- Every attempt's outcome per alert (and test messages), kept NOTIFY_DELIVERY_RETENTION seconds by
-- housekeeping. Receiver and rule names are copied: the history outlives renames and deletions.
CREATE TABLE notification_deliveries (
  id                bigserial PRIMARY KEY,
  time              timestamptz NOT NULL DEFAULT now(),
  receiver_id       text NOT NULL,
  receiver_name     text NOT NULL,
  receiver_type     text NOT NULL,
  -- The receiver's owner when it was sent: who may read the entry.
  customer          text,
  rule_id           text,
  rule_name         text,
  alert_id          text,
  resource          text,
  event             text,
  kind              text NOT NULL CHECK (kind IN ('alert', 'ack', 'resolve', 'reminder', 'escalation', 'test')),
  outcome           text NOT NULL CHECK (outcome IN ('sent', 'failed', 'rejected', 'expired', 'suppressed')),
  attempt           integer NOT NULL,
  error             text
);
-- Newest first is the primary key read backwards; these serve the filters and the retention.
CREATE INDEX notification_deliveries_time_idx ON notification_deliveries (time);
CREATE INDEX notification_deliveries_receiver_idx ON notification_deliveries (receiver_id, id);
CREATE INDEX notification_deliveries_alert_idx ON notification_deliveries (alert_id, id) WHERE alert_id IS NOT NULL;

-- A rule may mark its receivers as paging ones: the wall shows when a paging receiver fails.
ALTER TABLE notification_rules ADD COLUMN paging boolean NOT NULL DEFAULT false;
