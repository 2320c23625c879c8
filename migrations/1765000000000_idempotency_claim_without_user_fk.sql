-- Up Migration

-- An Idempotency-Key is claimed by every keyed write before it runs (src/http/idempotencyKeys.ts), and
-- the foreign key to users made each claim check and share-lock the caller's user row: about 0.1 ms
-- of a claim that is the idempotency layer's own cost (docs/bench.md), and one more lock that the
-- concurrent writes of one user all take. The row's user is the authenticated caller, users are never
-- deleted, and rows expire within 24 hours: nothing is left for the key to guard.
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_user_id_fkey;

-- Down Migration
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) NOT VALID;
