-- Up Migration

-- Where an API key may be used from (CIDRs) and which domains it may act on (exact names or
-- `*.suffix`); empty lists mean no restriction. Stored canonical (src/auth/keyRestrictions.ts).
ALTER TABLE api_keys ADD COLUMN allowed_ips text[] NOT NULL DEFAULT '{}';
ALTER TABLE api_keys ADD COLUMN allowed_domains text[] NOT NULL DEFAULT '{}';

-- Down Migration
ALTER TABLE api_keys DROP COLUMN allowed_domains;
ALTER TABLE api_keys DROP COLUMN allowed_ips;
