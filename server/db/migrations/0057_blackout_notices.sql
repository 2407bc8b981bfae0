-- Blackout notices and the blackouts' change counter (docs/blackouts.md, "Notices when a window
-- starts and ends", and "Matching on the receive path").

-- Bumped by every statement that changes blackouts (rows inserted, updated or deleted, or the table
-- emptied): each instance's copy of the blackouts is read again only when this has moved, so 1,000
-- blackouts cost a one-row read per second instead of reading them all (server/domain/blackouts.ts).
-- A statement that changes no row (a window refresh another instance made first) leaves it alone.
CREATE TABLE blackouts_version (
  id      integer PRIMARY KEY CHECK (id = 1),
  version bigint NOT NULL
);
INSERT INTO blackouts_version (id, version) VALUES (1, 0);

CREATE FUNCTION blackouts_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' OR EXISTS (SELECT FROM changed) THEN
    INSERT INTO blackouts_version AS v (id, version) VALUES (1, 1)
    ON CONFLICT (id) DO UPDATE SET version = v.version + 1;
  END IF;
  RETURN NULL;
END $$;

-- A trigger with transition tables takes one event, hence one per kind of change.
CREATE TRIGGER blackouts_version_insert AFTER INSERT ON blackouts
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION blackouts_bump_version();
CREATE TRIGGER blackouts_version_update AFTER UPDATE ON blackouts
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION blackouts_bump_version();
CREATE TRIGGER blackouts_version_delete AFTER DELETE ON blackouts
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION blackouts_bump_version();
CREATE TRIGGER blackouts_version_truncate AFTER TRUNCATE ON blackouts
  FOR EACH STATEMENT EXECUTE FUNCTION blackouts_bump_version();

-- One row per edge of a blackout window that was announced: the instance whose insert makes the row
-- queues the notices in the same transaction, so each start and end is told once however many
-- instances see it (server/notifications/notices.ts). `occurrence_start` names the window (a one-off
-- blackout's start_time, a recurring one's window start).
CREATE TABLE blackout_notices (
  blackout_id      uuid NOT NULL,
  occurrence_start timestamptz NOT NULL,
  edge             text NOT NULL CHECK (edge IN ('start', 'end')),
  create_time      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (blackout_id, occurrence_start, edge)
);
CREATE INDEX blackout_notices_time_idx ON blackout_notices (create_time);

-- A rule opts in to blackout notices.
ALTER TABLE notification_rules ADD COLUMN blackout_notices boolean NOT NULL DEFAULT false;

-- Notices travel the notification queue: `alert_id` is 'blackout:<id>' and `notice` holds what the
-- message tells (the blackout and its window), `alert` stays null.
ALTER TABLE notification_queue ADD COLUMN notice jsonb;
ALTER TABLE notification_queue DROP CONSTRAINT notification_queue_kind_check;
ALTER TABLE notification_queue ADD CONSTRAINT notification_queue_kind_check
  CHECK (kind IN ('trigger', 'repeat', 'escalate', 'ack', 'resolve', 'blackoutStart', 'blackoutEnd'));

-- The delivery history names the blackout a notice was about.
ALTER TABLE notification_deliveries ADD COLUMN blackout_id text;
ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_kind_check;
ALTER TABLE notification_deliveries ADD CONSTRAINT notification_deliveries_kind_check
  CHECK (kind IN ('alert', 'ack', 'resolve', 'reminder', 'escalation', 'test', 'blackoutStart', 'blackoutEnd'));
