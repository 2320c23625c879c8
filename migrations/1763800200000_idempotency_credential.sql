-- Up Migration

-- The credential (API key or session) that made the request: a stored answer is replayed only to it.
-- Rows written before this column existed get '' and so are replayed to no one (409 instead).
ALTER TABLE idempotency_keys ADD COLUMN credential text NOT NULL DEFAULT '';
ALTER TABLE idempotency_keys ALTER COLUMN credential DROP DEFAULT;

-- Down Migration
ALTER TABLE idempotency_keys DROP COLUMN credential;
