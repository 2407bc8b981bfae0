-- Background bulk operations (PUT/DELETE /_bulk/alerts*): the selected ids are fixed when the task
-- is created, so any instance can report progress and resume a task whose runner went away.
CREATE TABLE bulk_tasks (
  id          text PRIMARY KEY,
  type        text NOT NULL,
  status      text NOT NULL DEFAULT 'pending',
  ids         text[] NOT NULL,
  body        jsonb NOT NULL,
  caller      jsonb NOT NULL,
  done        integer NOT NULL DEFAULT 0,
  changed     text[] NOT NULL DEFAULT '{}',
  errors      text[] NOT NULL DEFAULT '{}',
  owner       text,
  lease_until timestamptz,
  create_time timestamptz NOT NULL,
  update_time timestamptz NOT NULL
);

CREATE INDEX bulk_tasks_runnable_idx ON bulk_tasks (create_time) WHERE status IN ('pending', 'started');
