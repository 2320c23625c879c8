-- Up Migration

-- Who made each ACME-DNS registration (docs/certificates.md): its updates stop once that person is no
-- longer a member of the organisation, as their own access did. Registrations made before this
-- column have none and keep working.
ALTER TABLE acme_dns_registrations ADD COLUMN created_by text REFERENCES users (id);

-- Down Migration
ALTER TABLE acme_dns_registrations DROP COLUMN created_by;
