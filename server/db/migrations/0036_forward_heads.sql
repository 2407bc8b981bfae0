-- Each (destination, alert) sequence of the forward queue marks its oldest row (docs/benchmarks.md,
-- 2026-11-27): a claim reads only heads through a partial index, instead of walking every queued row
-- in id order and probing whether an earlier row of its alert waits (which cost in proportion to
-- the backlog on every claim). Rows queued behind another are marked when it goes.
ALTER TABLE forward_queue ADD COLUMN head boolean NOT NULL DEFAULT false;

UPDATE forward_queue f SET head = true
WHERE NOT EXISTS (
  SELECT 1 FROM forward_queue e WHERE e.destination = f.destination AND e.alert_id = f.alert_id AND e.id < f.id);

DROP INDEX forward_queue_destination_idx;
CREATE INDEX forward_queue_head_idx ON forward_queue (destination, id) WHERE head;

-- Removes settled rows (only those `holder` holds), then marks each of their alerts' oldest
-- remaining row as its head, and returns the destinations that got a new head. The marking is a
-- statement of its own, so it reads a snapshot taken after the removal: a receipt that queued a row
-- behind a removed one waited for the removal (it locks the last row it queues behind) and is seen
-- here; a receipt that came after the removal found nothing to queue behind and is a head itself.
CREATE FUNCTION forward_settle(ids bigint[], holder text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  dests text[];
  alerts text[];
BEGIN
  WITH gone AS (
    DELETE FROM forward_queue WHERE id = ANY(ids) AND owner = holder RETURNING destination, alert_id
  ), pairs AS (SELECT DISTINCT destination, alert_id FROM gone)
  SELECT array_agg(destination), array_agg(alert_id) INTO dests, alerts FROM pairs;
  IF dests IS NULL THEN
    RETURN;
  END IF;
  RETURN QUERY
    UPDATE forward_queue q SET head = true
    FROM unnest(dests, alerts) AS p(destination, alert_id)
    WHERE q.id = (SELECT min(w.id) FROM forward_queue w
                  WHERE w.destination = p.destination AND w.alert_id = p.alert_id)
      AND NOT q.head
    RETURNING q.destination;
END
$$;
