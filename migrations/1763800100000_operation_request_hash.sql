-- Up Migration

-- The hash of the request that created an operation: a later request that derives the same workflow
-- id (same member, mode and Idempotency-Key) but asks for something else is refused, never answered
-- with this operation. Operations written before this column have none and match nothing new.
ALTER TABLE operations ADD COLUMN request_hash text;
-- The reconciler looks for operations left pending.
CREATE INDEX operations_pending_idx ON operations (created_at) WHERE status = 'pending';

-- Down Migration
DROP INDEX operations_pending_idx;
ALTER TABLE operations DROP COLUMN request_hash;
