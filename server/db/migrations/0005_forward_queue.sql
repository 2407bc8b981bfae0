-- Outbound forwarding (docs/forwarding.md): one row per event per destination, kept until the
-- destination took it, refused it, or it ran out of attempts. Rows of one alert for one destination
-- are delivered in id order; any instance may lease rows (owner, lease_until), so the queue
-- survives restarts and is shared by every instance on the database. Credentials are never stored.
CREATE TABLE forward_queue (
  id           bigserial PRIMARY KEY,
  destination  text NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('alert', 'action', 'delete')),
  alert_id     text NOT NULL,
  body         jsonb,
  loop         text NOT NULL,
  request_id   text NOT NULL,
  attempts     integer NOT NULL DEFAULT 0,
  next_attempt timestamptz NOT NULL DEFAULT now(),
  owner        text,
  lease_until  timestamptz,
  last_error   text,
  create_time  timestamptz NOT NULL DEFAULT now()
);

-- The head of each (destination, alert) sequence, and each destination's oldest rows.
CREATE INDEX forward_queue_sequence_idx ON forward_queue (destination, alert_id, id);
CREATE INDEX forward_queue_destination_idx ON forward_queue (destination, id);
