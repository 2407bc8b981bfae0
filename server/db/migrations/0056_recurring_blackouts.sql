-- Recurring blackouts (docs/blackouts.md, "Recurring blackouts"): an RFC 5545 rule (rrule) whose
-- local times are in an IANA zone (timezone); start_time and end_time bound the series and
-- duration is each occurrence's length. window_start/window_end hold the occurrence in force or
-- next, as known from window_from on (no occurrence covers [window_from, window_start)); both are
-- 9999-12-31T23:59:59.999Z once none is left. Whoever sees window_end pass stores the next one
-- (server/domain/blackout-windows.ts), so matching an alert stays a time comparison. A one-off
-- blackout has all five null.
ALTER TABLE blackouts
  ADD COLUMN rrule text,
  ADD COLUMN timezone text,
  ADD COLUMN window_from timestamptz,
  ADD COLUMN window_start timestamptz,
  ADD COLUMN window_end timestamptz,
  ADD CONSTRAINT blackouts_recurrence_check CHECK (
    (rrule IS NULL AND timezone IS NULL AND window_from IS NULL AND window_start IS NULL AND window_end IS NULL)
    OR (rrule IS NOT NULL AND timezone IS NOT NULL AND window_from IS NOT NULL AND window_start IS NOT NULL
        AND window_end IS NOT NULL));

-- The windows that have passed, found without reading the one-off blackouts.
CREATE INDEX blackouts_window_end_idx ON blackouts (window_end) WHERE rrule IS NOT NULL;
