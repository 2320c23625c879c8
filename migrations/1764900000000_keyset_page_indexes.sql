-- Up Migration

-- Pages of a domain's records and of an organisation's domains in keyset order (src/db/keyset.ts), so a
-- page reads its own rows from the index instead of sorting every record of the zone or every domain
-- of the organisation: a zone of 50,000 records or an agency of 100,000 domains pages as fast as an
-- empty one (docs/bench.md, Scale). The expression is keyset's, immutable as UTC wall time.
CREATE INDEX IF NOT EXISTS dns_records_domain_page_idx
  ON dns_records (domain_id, livemode, date_trunc('milliseconds', created_at AT TIME ZONE 'UTC') DESC, id DESC);
DROP INDEX dns_records_domain_created_idx;
CREATE INDEX IF NOT EXISTS domains_org_page_idx
  ON domains (org_id, livemode, date_trunc('milliseconds', created_at AT TIME ZONE 'UTC') DESC, id DESC);
DROP INDEX domains_org_idx;

-- Down Migration
CREATE INDEX domains_org_idx ON domains (org_id, livemode, created_at);
DROP INDEX domains_org_page_idx;
CREATE INDEX dns_records_domain_created_idx ON dns_records (domain_id, livemode, created_at DESC, id DESC);
DROP INDEX dns_records_domain_page_idx;
