-- Up Migration

-- The registration (domain row) each zone at the live DNS provider was made for. The provider knows
-- zones only by name, and a name outlives its registrations: a zone an earlier registration left
-- must not be adopted by the next one, nor may that earlier registration's late deletion remove the
-- next one's zone (src/services/dns/zones.ts). Test mode has no zones.
CREATE TABLE dns_zones (
  name        text PRIMARY KEY,
  domain_id   text NOT NULL REFERENCES domains (id),
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Zones made before this table belong to the live domains holding their names.
INSERT INTO dns_zones (name, domain_id)
SELECT name, id FROM domains WHERE livemode AND status IN ('active', 'expired');

-- Down Migration
DROP TABLE dns_zones;
