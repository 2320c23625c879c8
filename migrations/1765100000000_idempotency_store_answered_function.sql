-- Up Migration

-- Stores a request's answer as its Idempotency-Key's record, in the transaction that made the effect
-- it answers for (src/http/idempotencyKeys.ts). A function, so that it can fail when the key is
-- another request's: sent in one round trip with that transaction's COMMIT, its failure skips the
-- COMMIT and the effect rolls back with it (docs/bench.md). The key is another request's when its
-- record exists and may not be taken over (expired, or the same request from the same credential
-- died in flight), and also while another transaction is storing it: each takes a
-- transaction-scoped advisory lock on the key first, without waiting, so the second learns of the
-- first at once instead of waiting on its uncommitted row. SQLSTATE IK001 says so.
--
-- Its one argument is the record as JSON (binary fields in base64): sent with the COMMIT, the call
-- cannot take parameters (a query of several statements takes none), and the caller writes it into
-- the statement as hexadecimal, which nothing in it can escape.
CREATE FUNCTION store_answered_idempotency_key(p jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  p_user_id text := p->>'user_id';
  p_livemode boolean := (p->>'livemode')::boolean;
  p_key text := p->>'key';
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtextextended(concat_ws('|', 'idempotency_keys', p_user_id, p_livemode, p_key), 0)) THEN
    RAISE EXCEPTION 'The Idempotency-Key is being stored by another request' USING ERRCODE = 'IK001';
  END IF;
  INSERT INTO idempotency_keys AS k (user_id, livemode, key, request_hash, method, path, state, locked_until, expires_at,
    credential, lease_token, response_status, response_headers, response_body)
  VALUES (p_user_id, p_livemode, p_key, decode(p->>'request_hash', 'base64'), p->>'method', p->>'path', 'completed', now(),
    now() + make_interval(hours => (p->>'ttl_hours')::integer), p->>'credential', p->>'lease_token',
    (p->>'status')::integer, p->'headers', decode(p->>'body', 'base64'))
  ON CONFLICT (user_id, livemode, key) DO UPDATE SET
    request_hash = EXCLUDED.request_hash, method = EXCLUDED.method, path = EXCLUDED.path, state = 'completed',
    locked_until = EXCLUDED.locked_until, response_status = EXCLUDED.response_status, response_headers = EXCLUDED.response_headers,
    response_body = EXCLUDED.response_body, created_at = now(), expires_at = EXCLUDED.expires_at, credential = EXCLUDED.credential,
    lease_token = EXCLUDED.lease_token
  WHERE k.expires_at <= now()
     OR (k.state = 'in_flight' AND k.locked_until <= now() AND k.request_hash = EXCLUDED.request_hash
         AND k.credential = EXCLUDED.credential);
  IF NOT FOUND THEN
    RAISE EXCEPTION 'The Idempotency-Key is another request''s' USING ERRCODE = 'IK001';
  END IF;
END
$$;

-- Down Migration
DROP FUNCTION store_answered_idempotency_key(jsonb);
