-- Up Migration

-- A live name is held at the registry, so one organisation at a time holds it. A test-mode name is a
-- synthetic registration inside one organisation's sandbox: held per organisation, so a test-mode
-- registration or transfer can never reveal that another organisation has that test name.
DROP INDEX domains_name_live_idx;
CREATE UNIQUE INDEX domains_name_live_idx ON domains (name) WHERE livemode AND status NOT IN ('failed', 'deleted');
CREATE UNIQUE INDEX domains_name_test_idx ON domains (org_id, name) WHERE NOT livemode AND status NOT IN ('failed', 'deleted');

-- Down Migration
-- Fails while two organisations hold the same test-mode name: delete one of them first.
DROP INDEX domains_name_test_idx;
DROP INDEX domains_name_live_idx;
CREATE UNIQUE INDEX domains_name_live_idx ON domains (livemode, name) WHERE status NOT IN ('failed', 'deleted');
