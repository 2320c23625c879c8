-- Up Migration

-- The audit log an organisation reads (GET /orgs/{org_oid}/audit-log, docs/api-guide.md "Audit log"):
-- each entry says which mode it happened in, and the list is read newest first per organisation.
ALTER TABLE audit_events ADD COLUMN livemode boolean;
-- Entries written before this named their mode in their data, if at all; else the mode of the key
-- they were about or made with; else live (organisations and members change only with live credentials).
UPDATE audit_events e SET livemode = COALESCE(
  CASE WHEN jsonb_typeof(e.data->'livemode') = 'boolean' THEN (e.data->>'livemode')::boolean END,
  CASE e.data->>'mode' WHEN 'live' THEN true WHEN 'test' THEN false END,
  (SELECT k.mode = 'live' FROM api_keys k WHERE e.target_type = 'api_key' AND k.id = e.target_id),
  (SELECT k.mode = 'live' FROM api_keys k WHERE k.id = e.actor_key_id),
  true
);
-- The default only covers processes of the previous release still writing during an upgrade; this
-- release's writers always name the mode (src/audit/auditEvents.ts).
ALTER TABLE audit_events ALTER COLUMN livemode SET DEFAULT true, ALTER COLUMN livemode SET NOT NULL;

CREATE INDEX audit_events_org_list_idx ON audit_events (org_id, created_at DESC, id DESC) WHERE org_id IS NOT NULL;
DROP INDEX audit_events_org_idx;
-- Entries are kept one year; the `audit-purge` schedule deletes older ones by this index.
CREATE INDEX audit_events_created_idx ON audit_events (created_at);

-- Down Migration
DROP INDEX audit_events_created_idx;
CREATE INDEX audit_events_org_idx ON audit_events (org_id, created_at) WHERE org_id IS NOT NULL;
DROP INDEX audit_events_org_list_idx;
ALTER TABLE audit_events DROP COLUMN livemode;
