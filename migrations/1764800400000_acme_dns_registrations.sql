-- Up Migration

-- ACME-DNS registrations (docs/certificates.md): a name `<subdomain>.<zone>` in ACME_DNS_ZONE whose
-- TXT values one credential (username, password) may set. Only an HMAC of the password is kept.
-- `txt_values` are the values served, newest first (at most two: the apex and wildcard challenges
-- of one name are answered at once). `zone` is the zone at registration, so a registration's name
-- stays what its owner pointed a CNAME at.
CREATE TABLE acme_dns_registrations (
  id             text PRIMARY KEY,
  org_id         text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  livemode       boolean NOT NULL,
  username       text NOT NULL UNIQUE,
  password_hash  bytea NOT NULL,
  subdomain      text NOT NULL UNIQUE,
  zone           text NOT NULL,
  allowfrom      text[] NOT NULL DEFAULT '{}',
  txt_values     text[] NOT NULL DEFAULT '{}',
  txt_updated_at timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX acme_dns_registrations_org_list_idx ON acme_dns_registrations (org_id, livemode, created_at DESC, id DESC);

-- Down Migration
DROP TABLE acme_dns_registrations;
