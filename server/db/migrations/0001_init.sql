-- Initial schema. Design notes and the reasoning behind each index: docs/architecture.md.

CREATE TABLE alerts (
  id                text PRIMARY KEY,
  environment       text NOT NULL DEFAULT '',
  resource          text NOT NULL,
  event             text NOT NULL,
  customer          text,
  severity          text NOT NULL,
  correlate         text[] NOT NULL DEFAULT '{}',
  status            text NOT NULL,
  service           text[] NOT NULL DEFAULT '{}',
  "group"           text NOT NULL DEFAULT 'Misc',
  value             text,
  text              text NOT NULL DEFAULT '',
  tags              text[] NOT NULL DEFAULT '{}',
  attributes        jsonb NOT NULL DEFAULT '{}',
  origin            text NOT NULL DEFAULT '',
  type              text NOT NULL DEFAULT '',
  create_time       timestamptz NOT NULL,
  timeout           integer CHECK (timeout >= 0),
  raw_data          text,
  duplicate_count   integer NOT NULL DEFAULT 0,
  repeat            boolean NOT NULL DEFAULT false,
  previous_severity text NOT NULL,
  trend_indication  text NOT NULL,
  receive_time      timestamptz NOT NULL,
  last_receive_id   text NOT NULL,
  last_receive_time timestamptz NOT NULL,
  update_time       timestamptz NOT NULL
);

-- De-duplication key: one alert per environment + resource + event + customer. Receiving an alert
-- is a single INSERT ... ON CONFLICT on exactly this expression.
CREATE UNIQUE INDEX alerts_identity_key ON alerts (environment, resource, event, (COALESCE(customer, '')));
-- Listing newest first (the default sort) and time-window filters.
CREATE INDEX alerts_last_receive_time_idx ON alerts (last_receive_time DESC);
-- Status filters (the console's default filter is open + ack) and housekeeping of closed/expired.
CREATE INDEX alerts_status_time_idx ON alerts (status, last_receive_time);
CREATE INDEX alerts_severity_idx ON alerts (severity);
CREATE INDEX alerts_customer_idx ON alerts (customer) WHERE customer IS NOT NULL;
-- Exact ids use the primary key; lastReceiveId and short (case-insensitive) prefixes the lower() ones.
CREATE INDEX alerts_id_prefix_idx ON alerts (lower(id) text_pattern_ops);
CREATE INDEX alerts_last_receive_id_prefix_idx ON alerts (lower(last_receive_id) text_pattern_ops);
-- Containment filters on arrays and attributes.
CREATE INDEX alerts_tags_idx ON alerts USING gin (tags);
CREATE INDEX alerts_service_idx ON alerts USING gin (service);
CREATE INDEX alerts_attributes_idx ON alerts USING gin (attributes jsonb_path_ops);

-- No foreign key to alerts: the check would cost a lookup per history row on the receive path;
-- deleting an alert deletes its history in the same statement.
-- History lives beside the alert, not inside it: duplicates that change nothing add no rows and
-- rewrite no large array. "Newest" is insertion order (seq), so an origin's skewed clock cannot
-- reorder the state machine's view of the alert.
CREATE TABLE alert_history (
  seq          bigserial PRIMARY KEY,
  alert_id     text NOT NULL,
  id           text NOT NULL,
  event        text NOT NULL,
  severity     text,
  status       text,
  value        text,
  text         text NOT NULL DEFAULT '',
  type         text NOT NULL,
  update_time  timestamptz NOT NULL,
  "user"       text,
  timeout      integer
);
CREATE INDEX alert_history_alert_idx ON alert_history (alert_id, seq DESC);

-- Notes survive the deletion of their alert (no foreign key), as in the established server.
CREATE TABLE notes (
  id          uuid PRIMARY KEY,
  text        text NOT NULL,
  "user"      text,
  attributes  jsonb NOT NULL DEFAULT '{}',
  type        text NOT NULL DEFAULT 'alert',
  create_time timestamptz NOT NULL,
  update_time timestamptz,
  alert       text,
  customer    text
);
CREATE INDEX notes_alert_idx ON notes (alert, create_time);

CREATE TABLE blackouts (
  id          uuid PRIMARY KEY,
  priority    integer NOT NULL,
  environment text NOT NULL,
  service     text[] NOT NULL DEFAULT '{}',
  resource    text,
  event       text,
  "group"     text,
  origin      text,
  tags        text[] NOT NULL DEFAULT '{}',
  customer    text,
  start_time  timestamptz NOT NULL,
  end_time    timestamptz NOT NULL,
  duration    integer,
  "user"      text,
  create_time timestamptz NOT NULL,
  text        text NOT NULL DEFAULT ''
);
-- The blackout check on every receipt looks only at blackouts in force now.
CREATE INDEX blackouts_window_idx ON blackouts (environment, end_time, start_time);

CREATE TABLE heartbeats (
  id           uuid PRIMARY KEY,
  origin       text NOT NULL,
  tags         text[] NOT NULL DEFAULT '{}',
  attributes   jsonb NOT NULL DEFAULT '{}',
  type         text NOT NULL DEFAULT 'Heartbeat',
  create_time  timestamptz NOT NULL,
  receive_time timestamptz NOT NULL,
  timeout      integer NOT NULL CHECK (timeout >= 0),
  customer     text
);
CREATE UNIQUE INDEX heartbeats_identity_key ON heartbeats (origin, (COALESCE(customer, '')));

CREATE TABLE keys (
  id             uuid PRIMARY KEY,
  key            text NOT NULL UNIQUE,
  "user"         text NOT NULL,
  scopes         text[] NOT NULL DEFAULT '{}',
  text           text NOT NULL DEFAULT '',
  expire_time    timestamptz NOT NULL,
  count          bigint NOT NULL DEFAULT 0,
  last_used_time timestamptz,
  customer       text
);

CREATE TABLE users (
  id             uuid PRIMARY KEY,
  name           text NOT NULL DEFAULT '',
  login          text NOT NULL UNIQUE,
  email          text UNIQUE,
  password       text NOT NULL DEFAULT '',
  status         text NOT NULL DEFAULT 'active',
  roles          text[] NOT NULL DEFAULT '{}',
  attributes     jsonb NOT NULL DEFAULT '{}',
  create_time    timestamptz NOT NULL,
  last_login     timestamptz,
  text           text NOT NULL DEFAULT '',
  update_time    timestamptz,
  email_verified boolean NOT NULL DEFAULT false,
  hash           text
);

CREATE TABLE groups (
  id          uuid PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  text        text NOT NULL DEFAULT '',
  update_time timestamptz
);

CREATE TABLE group_users (
  group_id uuid NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  user_id  uuid NOT NULL,
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_users_user_idx ON group_users (user_id);

CREATE TABLE perms (
  id     uuid PRIMARY KEY,
  match  text NOT NULL UNIQUE,
  scopes text[] NOT NULL DEFAULT '{}'
);

CREATE TABLE customers (
  id       uuid PRIMARY KEY,
  match    text NOT NULL,
  customer text NOT NULL
);

-- A row that outlives restarts, so start-up can prove the data directory is reused.
CREATE TABLE instance_info (
  key   text PRIMARY KEY,
  value text NOT NULL
);
