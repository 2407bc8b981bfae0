-- The receive path's batched read (server/db/alert-receive.ts `findForReceive`) takes its wanted
-- identities through `receive_wanted` instead of `unnest` of its parameters, and the batched update
-- of plain duplicates (`updateDuplicates`) its alert ids through `receive_ids` instead of `= ANY`
-- of a parameter. For both a custom plan knows the arrays' length and a generic plan assumes 10
-- elements, so for the small batches of a lightly loaded server the custom plan always looked
-- cheaper and PostgreSQL planned the statement afresh on every execution: for the read about 1 ms
-- of planning for 0.2 ms of work (docs/benchmarks.md, 2026-11-27 night). A PL/pgSQL function is
-- never inlined and is estimated at its declared ROWS in both kinds of plan, so after five
-- executions the cached generic plan is kept.
CREATE FUNCTION receive_wanted(environments text[], resources text[], customers text[], events text[])
RETURNS TABLE (environment text, resource text, customer text, event text, i bigint)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 1 AS $$
BEGIN
  RETURN QUERY SELECT * FROM unnest(environments, resources, customers, events) WITH ORDINALITY;
END
$$;

CREATE FUNCTION receive_ids(ids text[])
RETURNS TABLE (id text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 1 AS $$
BEGIN
  RETURN QUERY SELECT * FROM unnest(ids);
END
$$;
