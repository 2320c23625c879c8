-- Up Migration

-- One row per (user, mode, Idempotency-Key): the request it was first used with and, once done,
-- the answer to replay. Bodies are stored encrypted (AES-256-GCM); rows expire after 24 hours.
CREATE TABLE idempotency_keys (
  user_id           text NOT NULL REFERENCES users (id),
  livemode          boolean NOT NULL,
  key               text NOT NULL,
  request_hash      bytea NOT NULL,
  method            text NOT NULL,
  path              text NOT NULL,
  state             text NOT NULL CHECK (state IN ('in_flight', 'completed')),
  -- While in flight: after this time a crashed request's key may be taken over by a retry.
  locked_until      timestamptz NOT NULL,
  response_status   integer,
  response_headers  jsonb,
  response_body     bytea,
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL,
  PRIMARY KEY (user_id, livemode, key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);

-- Down Migration
DROP TABLE idempotency_keys;
