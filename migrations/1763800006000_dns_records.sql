-- Up Migration

-- DNS records of a domain, per mode. In live mode each change is applied to the DNS provider first
-- (whole RRsets: all records of one name and type) and committed here only once the provider took it.
CREATE TABLE dns_records (
  id          text PRIMARY KEY,
  domain_id   text NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  org_id      text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  livemode    boolean NOT NULL,
  type        text NOT NULL CHECK (type IN ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA')),
  -- Relative to the domain, lower case; '@' is the apex.
  name        text NOT NULL CHECK (name = '@' OR name ~ '^(\*|[a-z0-9_-]+)(\.[a-z0-9_-]+)*$'),
  -- Normalised per type: host names without the trailing dot, TXT unquoted, SRV "weight port target",
  -- CAA 'flags tag "value"'. Priority (MX, SRV) is kept apart.
  content     text NOT NULL,
  ttl         integer NOT NULL DEFAULT 3600 CHECK (ttl BETWEEN 60 AND 86400),
  priority    integer CHECK (priority BETWEEN 0 AND 65535),
  -- Raised by one on every change; the ETag. PATCH and DELETE with If-Match compare against it.
  version     integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  -- An RRset holds each record once (the provider refuses duplicates). The service checks this under
  -- its per-name lock before calling the provider; checked again at commit, so a batch may swap two
  -- records' contents.
  CONSTRAINT dns_records_unique UNIQUE NULLS NOT DISTINCT (domain_id, name, type, content, priority) DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX dns_records_domain_name_idx ON dns_records (domain_id, livemode, name, type);
CREATE INDEX dns_records_domain_created_idx ON dns_records (domain_id, livemode, created_at DESC, id DESC);

-- Down Migration
DROP TABLE dns_records;
