-- Up Migration

-- The DNS records an API key may change, as `<name>:<TYPE>` patterns (src/auth/recordPatterns.ts);
-- empty: no such restriction. Stored canonical.
ALTER TABLE api_keys ADD COLUMN allowed_records text[] NOT NULL DEFAULT '{}';

-- Down Migration
ALTER TABLE api_keys DROP COLUMN allowed_records;
