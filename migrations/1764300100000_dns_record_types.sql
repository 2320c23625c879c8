-- Up Migration

-- More record types a host serves (docs/api-guide.md, DNS): ALIAS, HTTPS, SVCB, TLSA, SSHFP, NAPTR,
-- PTR and DS. Their content is checked per type by the service (src/features/dns/records.ts).
ALTER TABLE dns_records DROP CONSTRAINT dns_records_type_check;
ALTER TABLE dns_records ADD CONSTRAINT dns_records_type_check
  CHECK (type IN ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA', 'ALIAS', 'HTTPS', 'SVCB', 'TLSA', 'SSHFP', 'NAPTR', 'PTR', 'DS'));

-- Down Migration
-- Fails while records of the newer types exist: deleting people's records is left to a person.
ALTER TABLE dns_records DROP CONSTRAINT dns_records_type_check;
ALTER TABLE dns_records ADD CONSTRAINT dns_records_type_check CHECK (type IN ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA'));
