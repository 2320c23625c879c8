-- Up Migration

-- Outgoing zone transfers (docs/api-guide.md, Secondary DNS): the servers each transfer lets fetch
-- the zone (AXFR/IXFR) and sends NOTIFY to, and the name of its TSIG key. The key's secret is
-- shown once and kept only by the DNS host (PowerDNS's tsigkeys), never here.
CREATE TABLE dns_zone_transfers (
  id          text PRIMARY KEY,
  domain_id   text NOT NULL REFERENCES domains (id),
  org_id      text NOT NULL REFERENCES organizations (id),
  livemode    boolean NOT NULL,
  servers     text[] NOT NULL,
  tsig_name   text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dns_zone_transfers_domain_idx ON dns_zone_transfers (domain_id, created_at);

-- Down Migration
DROP TABLE dns_zone_transfers;
