-- Up Migration

-- Test-mode zones are served too, by a DNS server of their own (DNS_TEST_PROVIDER_URL), so each zone's
-- owner is kept per mode: a test name may equal a live one. Test names are held per organisation,
-- while the test server serves one zone per name: the zone belongs to one test domain, and the other
-- organisations' domains of that name are not served until it ends (src/features/dns/zones.ts).
ALTER TABLE dns_zones ADD COLUMN livemode boolean NOT NULL DEFAULT true;
ALTER TABLE dns_zones ALTER COLUMN livemode DROP DEFAULT;
ALTER TABLE dns_zones DROP CONSTRAINT dns_zones_pkey;
ALTER TABLE dns_zones ADD PRIMARY KEY (livemode, name);

-- Down Migration
DELETE FROM dns_zones WHERE NOT livemode;
ALTER TABLE dns_zones DROP CONSTRAINT dns_zones_pkey;
ALTER TABLE dns_zones ADD PRIMARY KEY (name);
ALTER TABLE dns_zones DROP COLUMN livemode;
