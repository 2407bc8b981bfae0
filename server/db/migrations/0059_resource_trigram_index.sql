-- Substring terms on resource (`q=resource:host12`, `resource~` filters, the console's search)
-- tested every alert row by row: `strpos(lower(resource), lower(term)) > 0` over 100,000 alerts.
-- A trigram index on lower(resource) lets the query find the candidate rows first; the query keeps
-- the exact test on top (server/db/alert-query.ts `conditionSql`, case 'like'), so answers do not
-- change (tests/api/free-text-index.test.ts compares them with a computation of their own).
--
-- Only resource: it is the free-text field searched most, and short. A trigram index on `text`
-- would cost every receipt tens of index entries (every receipt writes a new row version, since
-- last_receive_time is indexed) for searches of words most alerts contain. `fastupdate = off`:
-- each row's entries go straight into the index instead of a pending list that a later receipt
-- (or query) pays to merge, so the write cost is the same on every receipt.
--
-- pg_trgm is a trusted extension (any database owner may create it). Where it is missing or the
-- role may not create it, the index is left out: the query's extra test is then a plain filter
-- and every answer is the same, only slower.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX alerts_resource_trgm_idx ON alerts USING gin (lower(resource) gin_trgm_ops)
      WITH (fastupdate = off);
  ELSE
    RAISE NOTICE 'pg_trgm is not available: resource substring searches scan';
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'pg_trgm could not be created (%): resource substring searches scan', SQLERRM;
END
$$;
