-- The notification sweep (server/db/notifications.ts `lockDueStates`) looks for the rule states whose
-- alert changed by a path without a hook (a bulk task, housekeeping's deletions, another tool
-- writing to the database). It used to find them by joining every state with its alert, every
-- NOTIFY_SWEEP_INTERVAL on every instance, even when nothing had changed: 16–32 ms at 12,000–25,000
-- states, growing with the alerts that are firing (docs/benchmarks.md, 2026-11-28 fifth session).
-- Now a change marks the states it concerns, and the sweep reads the marked ones (and the due
-- repeats and escalations) through partial indexes.
--
-- A status change or a deletion of an alert sets `changed` on its states, in the transaction that
-- makes the change. The scheduler clears it when it handles the state, holding the state's row
-- lock: a change committed meanwhile waits for that lock and marks the state again, so none is
-- lost. States already there are marked, so the first sweep looks at each once.
ALTER TABLE notification_state ADD COLUMN changed boolean NOT NULL DEFAULT false;
UPDATE notification_state SET changed = true;
CREATE INDEX notification_state_changed_idx ON notification_state (alert_id) WHERE changed;

CREATE FUNCTION notification_state_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Every state of the alert, already marked or not: skipping marked ones would not wait for a
  -- scheduler about to clear the mark having read the alert as it was.
  IF TG_OP = 'DELETE' THEN
    UPDATE notification_state SET changed = true WHERE alert_id = OLD.id;
  ELSE
    UPDATE notification_state SET changed = true WHERE alert_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;

-- Row triggers: the WHEN clause costs a plain duplicate (status unchanged) no function call.
CREATE TRIGGER alerts_status_marks AFTER UPDATE OF status ON alerts
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION notification_state_mark();
CREATE TRIGGER alerts_delete_marks AFTER DELETE ON alerts
  FOR EACH ROW EXECUTE FUNCTION notification_state_mark();
