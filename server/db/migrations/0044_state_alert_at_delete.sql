-- A rule state's copy of its alert (`notification_state.alert`) is what a resolve, ack or repeat is
-- told from once the alert is gone; while the alert exists the scheduler reads the alert itself
-- (server/db/notifications.ts `stateColumns`). The receipt used to build the copy for every
-- notified alert, in its own statement: about 20–30 µs per alert, and most of the state row's 700
-- bytes (docs/benchmarks.md, 2026-11-28 sixth session). Now the receipt leaves it null and the
-- deletion of the alert writes it, from the row being deleted: the alert as it was last, in the
-- transaction that deletes it. States written before keep the copy they have until then.
--
-- A TRUNCATE of alerts fires no row trigger: its states are left without a copy, and the scheduler
-- drops such a state without a message (there is nothing left to tell it from).
ALTER TABLE notification_state ALTER COLUMN alert DROP NOT NULL;

-- The same object as db/notifications.ts `snapshotSql` (NotifiedAlertSchema), its times brought into
-- the years 0001–9999 so that no stored time can make the deletion itself fail.
CREATE OR REPLACE FUNCTION notification_state_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Every state of the alert, already marked or not: skipping marked ones would not wait for a
  -- scheduler about to clear the mark having read the alert as it was.
  IF TG_OP = 'DELETE' THEN
    UPDATE notification_state SET changed = true, alert = jsonb_build_object('id', OLD.id,
      'resource', OLD.resource, 'event', OLD.event, 'environment', OLD.environment,
      'severity', OLD.severity, 'status', OLD.status, 'service', to_jsonb(OLD.service), 'group', OLD."group",
      'value', OLD.value, 'text', OLD.text, 'tags', to_jsonb(OLD.tags), 'attributes', OLD.attributes,
      'origin', OLD.origin, 'type', OLD.type, 'customer', OLD.customer, 'duplicateCount', OLD.duplicate_count,
      'createTime', (extract(epoch FROM LEAST(GREATEST(OLD.create_time, '0001-01-01 00:00:00+00'::timestamptz),
        '9999-12-31 23:59:59.999+00'::timestamptz)) * 1000)::bigint,
      'lastReceiveTime', (extract(epoch FROM LEAST(GREATEST(OLD.last_receive_time, '0001-01-01 00:00:00+00'::timestamptz),
        '9999-12-31 23:59:59.999+00'::timestamptz)) * 1000)::bigint)
    WHERE alert_id = OLD.id;
  ELSE
    UPDATE notification_state SET changed = true WHERE alert_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;
