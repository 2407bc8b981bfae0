-- 0057's blackouts_bump_version() read its transition table `changed` in the same condition as
-- the TRUNCATE test, so a TRUNCATE of blackouts (which has no transition table) failed with
-- 'relation "changed" does not exist' (tests/api/startup-truncated.test.ts). The table is now read
-- only for the statements that have it.
CREATE OR REPLACE FUNCTION blackouts_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'TRUNCATE' THEN
    IF NOT EXISTS (SELECT FROM changed) THEN
      RETURN NULL;
    END IF;
  END IF;
  INSERT INTO blackouts_version AS v (id, version) VALUES (1, 1)
  ON CONFLICT (id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END $$;
