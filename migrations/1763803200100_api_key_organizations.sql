-- Up Migration

-- The organisations an API key acted in (any request on an organisation's path that passed its
-- membership check): who hears of the key's revocation (src/services/apiKeys/revokeApiKey.ts).
-- Written by the membership check itself, once per key and organisation (src/auth/authorize.ts).
CREATE TABLE api_key_organizations (
  api_key_id      text NOT NULL REFERENCES api_keys (id),
  org_id          text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  first_acted_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (api_key_id, org_id)
);

-- Before this, what a key did in an organisation shows in the audit log and the ledger.
INSERT INTO api_key_organizations (api_key_id, org_id, first_acted_at)
SELECT api_key_id, org_id, min(at) FROM (
  SELECT e.actor_key_id AS api_key_id, e.org_id, e.created_at AS at FROM audit_events e
  WHERE e.actor_key_id IS NOT NULL AND e.org_id IS NOT NULL
  UNION ALL
  SELECT r.api_key_id, r.org_id, r.created_at FROM billing_reservations r WHERE r.api_key_id IS NOT NULL
) acted
WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = acted.api_key_id)
  AND EXISTS (SELECT 1 FROM organizations o WHERE o.id = acted.org_id)
GROUP BY api_key_id, org_id;

-- api_key.revoked events carry the key's id, prefix and name only, never its restrictions or limits.
UPDATE events SET data = jsonb_build_object('object', jsonb_build_object(
  'id', data->'object'->'id', 'prefix', data->'object'->'prefix', 'name', data->'object'->'name'))
WHERE type = 'api_key.revoked';

-- Down Migration
DROP TABLE api_key_organizations;
