-- Up Migration

-- Tokens the scheduled leak scan has already handled, so a re-scan does not process them again.
-- `token_hash` is the same keyed HMAC-SHA256 the api_keys table stores (hex), never the token:
-- only tokens whose checksum holds are recorded (look-alikes never reach the database).
CREATE TABLE leak_scan_seen (
  token_hash     text PRIMARY KEY,
  first_seen_at  timestamptz NOT NULL DEFAULT now(),
  source_url     text NOT NULL
);

-- Down Migration
DROP TABLE leak_scan_seen;
