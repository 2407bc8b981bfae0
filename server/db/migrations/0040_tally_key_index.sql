-- An index on each tally's key (migrations 0031 and 0038), for compaction (server/db/alert-tally.ts):
-- it deletes the tally rows of the keys its deltas name, and without an index every fold sorted or
-- scanned the whole tally. At 100,000 alerts alert_event_tally holds about 34,000 keys, and a fold
-- of three deltas took 200 ms (a sort spilled to disk), every second on every instance while alerts
-- arrive; with the index it takes about 1 ms (docs/benchmarks.md, 2026-11-28). Not unique: two
-- overlapping compactions may each write a row for one key, which readers sum. `customer` is left
-- out: compaction matches it with IS NOT DISTINCT FROM, which an index cannot serve, and a key's
-- other columns leave a row or two to test it on.

CREATE INDEX alert_tally_key_idx ON alert_tally (environment, status, severity, service);
CREATE INDEX alert_event_tally_key_idx ON alert_event_tally (event, environment, status, severity, service);
