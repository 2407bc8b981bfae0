-- Notifications (docs/notifications.md): receivers and routing rules managed through the API,
-- what each rule has told about each open alert, and the delivery queue (leased like forward_queue,
-- so it survives restarts and every instance on the database delivers from it, none twice at once).

CREATE TABLE notification_receivers (
  id            uuid PRIMARY KEY,
  name          text NOT NULL UNIQUE,
  type          text NOT NULL,
  enabled       boolean NOT NULL DEFAULT true,
  rate_limit    integer,
  send_resolved boolean NOT NULL DEFAULT true,
  -- Secrets (webhook URLs, keys, passwords) are kept here and masked whenever shown.
  settings      jsonb NOT NULL DEFAULT '{}',
  create_time   timestamptz NOT NULL DEFAULT now(),
  update_time   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE notification_rules (
  id              uuid PRIMARY KEY,
  name            text NOT NULL UNIQUE,
  priority        integer NOT NULL DEFAULT 0,
  enabled         boolean NOT NULL DEFAULT true,
  -- environment, severity, minSeverity, service, group, event, resource, tags, customer
  match           jsonb NOT NULL DEFAULT '{}',
  receivers       text[] NOT NULL DEFAULT '{}',
  continue        boolean NOT NULL DEFAULT false,
  group_wait      integer NOT NULL DEFAULT 30,
  repeat_interval integer NOT NULL DEFAULT 0,
  escalations     jsonb NOT NULL DEFAULT '[]',
  create_time     timestamptz NOT NULL DEFAULT now(),
  update_time     timestamptz NOT NULL DEFAULT now()
);

-- Bumped by every change to receivers or rules: instances compare it to reload their copy.
CREATE TABLE notification_config (
  id      integer PRIMARY KEY CHECK (id = 1),
  version bigint NOT NULL
);
INSERT INTO notification_config (id, version) VALUES (1, 0);

-- One row per rule and alert it notified about, until the alert is resolved: drives repeats
-- (repeat_at), escalation (step, escalate_at), acks and resolves from the database.
CREATE TABLE notification_state (
  rule_id     text NOT NULL,
  alert_id    text NOT NULL,
  phase       text NOT NULL CHECK (phase IN ('firing', 'acked')),
  severity    text NOT NULL,
  receivers   text[] NOT NULL,
  step        integer NOT NULL DEFAULT 0,
  alert       jsonb NOT NULL,
  repeat_at   timestamptz,
  escalate_at timestamptz,
  create_time timestamptz NOT NULL DEFAULT now(),
  update_time timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (rule_id, alert_id)
);
CREATE INDEX notification_state_alert_idx ON notification_state (alert_id);
CREATE INDEX notification_state_repeat_idx ON notification_state (repeat_at) WHERE repeat_at IS NOT NULL;
CREATE INDEX notification_state_escalate_idx ON notification_state (escalate_at) WHERE escalate_at IS NOT NULL;

-- One row per alert per receiver per change; rows of one rule and receiver due together go out
-- as one message (grouping). Test messages are sent at once and never queued.
CREATE TABLE notification_queue (
  id          bigserial PRIMARY KEY,
  receiver_id text NOT NULL,
  rule_id     text NOT NULL,
  alert_id    text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('trigger', 'repeat', 'escalate', 'ack', 'resolve')),
  -- A copy of the alert for acks and resolves (which may outlive it); null for triggers, which are
  -- told from the alert as it is when sent (and dropped if it is gone).
  alert       jsonb,
  due_at      timestamptz NOT NULL,
  attempts    integer NOT NULL DEFAULT 0,
  owner       text,
  lease_until timestamptz,
  last_error  text,
  create_time timestamptz NOT NULL DEFAULT now()
);
-- No index on alert_id: one fewer per queued row; the alert page's look-up scans a queue that is
-- short except in a storm.
CREATE INDEX notification_queue_due_idx ON notification_queue (receiver_id, due_at);

-- Requests sent per receiver in the last minutes: the per-receiver rate limit, shared by instances.
CREATE TABLE notification_sends (
  receiver_id text NOT NULL,
  sent_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_sends_idx ON notification_sends (receiver_id, sent_at);
