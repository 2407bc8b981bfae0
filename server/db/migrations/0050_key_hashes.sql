-- API keys are stored as the SHA-256 of their value, never the value itself: a database dump or
-- backup must not hand out working keys (issue #37 item 5). Keys are long random tokens, so one
-- unsalted digest is enough and costs about a microsecond on every key look-up; the server hashes
-- the presented value (server/db/keys.ts `hashKey`, UTF-8 bytes, as `convert_to` below) and finds
-- the row by `key_hash`. `key_hint` keeps the first few characters (at most 6, and at most a
-- quarter of the value) so that lists can show which key is which.
--
-- The `key` column stays, always NULL (the CHECK holds it so): a writer that still inserts a plain
-- value (an operator's script, a test, an older instance during an upgrade) has it hashed on the
-- way in by the trigger below, so no plain key is ever stored. The server itself writes the hash
-- and the hint and never sends the value to the database.
-- Tests: tests/api/keys.test.ts ("no plain key is stored"), tests/api/migration-key-hashes.test.ts.

ALTER TABLE keys
  ADD COLUMN key_hash bytea,
  ADD COLUMN key_hint text NOT NULL DEFAULT '',
  DROP CONSTRAINT keys_key_key,
  ALTER COLUMN key DROP NOT NULL;

UPDATE keys
SET key_hash = sha256(convert_to(key, 'UTF8')),
    key_hint = left(key, least(6, length(key) / 4)),
    key = NULL;

ALTER TABLE keys
  ALTER COLUMN key_hash SET NOT NULL,
  ADD CONSTRAINT keys_key_hash_key UNIQUE (key_hash),
  ADD CONSTRAINT keys_no_plain_key CHECK (key IS NULL);

CREATE FUNCTION keys_hash_plain_value() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF NEW.key IS NOT NULL THEN
    NEW.key_hash := sha256(convert_to(NEW.key, 'UTF8'));
    NEW.key_hint := left(NEW.key, least(6, length(NEW.key) / 4));
    NEW.key := NULL;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER keys_hash_plain_value
BEFORE INSERT OR UPDATE OF key ON keys
FOR EACH ROW EXECUTE FUNCTION keys_hash_plain_value();

-- A key's owner is matched to a user by login or (case-insensitively) email on every key
-- authentication, to refuse keys of users who are not active; Basic and login look users up the
-- same way. Without this index the email half of that match read the whole users table.
CREATE INDEX users_lower_email_idx ON users (lower(email));
