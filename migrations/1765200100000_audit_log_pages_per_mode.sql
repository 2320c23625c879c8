-- Up Migration

-- An organisation's audit log is read one mode at a time (a test key reads test-mode entries only) in
-- keyset order (src/db/keyset.ts): the index leads with the mode and orders as keyset does, so a
-- test key's page of an organisation with a year of live entries reads its own rows only.
CREATE INDEX IF NOT EXISTS audit_events_org_page_idx
  ON audit_events (org_id, livemode, date_trunc('milliseconds', created_at AT TIME ZONE 'UTC') DESC, id DESC)
  WHERE org_id IS NOT NULL;
DROP INDEX audit_events_org_list_idx;

-- Down Migration
CREATE INDEX audit_events_org_list_idx ON audit_events (org_id, created_at DESC, id DESC) WHERE org_id IS NOT NULL;
DROP INDEX audit_events_org_page_idx;
