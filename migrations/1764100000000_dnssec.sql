-- Up Migration

-- Signing a zone and unsigning it are operations a client polls (docs/api-guide.md, DNSSEC): they
-- cost nothing (amount 0) and run as workflows like the paid ones.
ALTER TABLE operations DROP CONSTRAINT operations_type_check;
ALTER TABLE operations ADD CONSTRAINT operations_type_check
  CHECK (type IN ('domain.register', 'domain.transfer', 'domain.renew', 'dnssec.enable', 'dnssec.disable'));

-- Where each domain's DNSSEC stands; no row is `off`. `operation_id` is the operation now moving it
-- (signing, removing) or the last one that did. `ds_records` are the DS of the zone's key as the
-- API shows them, `dnskey` the key itself in presentation form.
CREATE TABLE dnssec_zones (
  domain_id     text PRIMARY KEY REFERENCES domains (id),
  org_id        text NOT NULL REFERENCES organizations (id),
  livemode      boolean NOT NULL,
  status        text NOT NULL CHECK (status IN ('off', 'signing', 'active', 'removing')),
  ds_records    jsonb NOT NULL DEFAULT '[]',
  dnskey        text,
  operation_id  text REFERENCES operations (id),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dnssec_zones_org_idx ON dnssec_zones (org_id, livemode);

-- Down Migration
DROP TABLE dnssec_zones;
DELETE FROM operations WHERE type IN ('dnssec.enable', 'dnssec.disable');
ALTER TABLE operations DROP CONSTRAINT operations_type_check;
ALTER TABLE operations ADD CONSTRAINT operations_type_check
  CHECK (type IN ('domain.register', 'domain.transfer', 'domain.renew'));
