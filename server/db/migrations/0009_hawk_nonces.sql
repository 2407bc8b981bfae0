-- Hawk nonces seen within the timestamp skew window (docs/hawk.md), shared by every instance so a
-- signed request replayed against another instance is refused too. Rows past expire_time are
-- deleted opportunistically by the instances themselves.
CREATE TABLE hawk_nonces (
  key_id      text NOT NULL,
  nonce       text NOT NULL,
  ts          bigint NOT NULL,
  expire_time timestamptz NOT NULL,
  PRIMARY KEY (key_id, nonce, ts)
);
CREATE INDEX hawk_nonces_expire_time_idx ON hawk_nonces (expire_time);
