-- Up Migration

-- Which claim holds an in-flight key. A request renews, completes or releases its key only while the
-- key is still its own: after its lease ran out and a retry took the key over, a late renewal,
-- answer or release of the first request changes nothing. Rows written before this have none.
ALTER TABLE idempotency_keys ADD COLUMN lease_token text;

-- Down Migration
ALTER TABLE idempotency_keys DROP COLUMN lease_token;
