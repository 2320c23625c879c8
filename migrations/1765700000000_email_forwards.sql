-- Up Migration

-- E-mail forwards (docs/api-guide.md, E-mail forwarding): mail for `local_part@domain` goes to
-- `recipients`. A `local_part` of `*` is the domain's catch-all. Postfix reads them through the two
-- views below as the read-only role `email_forward_reader` (docs/operations.md, E-mail forwarding).
CREATE TABLE email_forwards (
  id          text PRIMARY KEY,
  domain_id   text NOT NULL REFERENCES domains (id),
  livemode    boolean NOT NULL,
  local_part  text NOT NULL CHECK (local_part = lower(local_part)),
  recipients  text[] NOT NULL CHECK (cardinality(recipients) BETWEEN 1 AND 10),
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (domain_id, local_part)
);
CREATE INDEX email_forwards_list_idx ON email_forwards (domain_id, livemode, created_at DESC, id DESC);

-- Only an active domain's mail is forwarded.
CREATE VIEW email_forward_domains AS
  SELECT DISTINCT d.name AS domain, d.livemode
  FROM email_forwards f JOIN domains d ON d.id = f.domain_id
  WHERE d.status = 'active';

-- Postfix looks up `local@domain`, then `@domain`; several recipients are one comma-separated value.
CREATE VIEW email_forward_aliases AS
  SELECT CASE WHEN f.local_part = '*' THEN '@' || d.name ELSE f.local_part || '@' || d.name END AS address,
         array_to_string(f.recipients, ',') AS destinations,
         d.livemode
  FROM email_forwards f JOIN domains d ON d.id = f.domain_id
  WHERE d.status = 'active';

-- A role is the cluster's, not one database's: made once, granted in every database migrated.
DO $$
BEGIN
  CREATE ROLE email_forward_reader NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;
GRANT SELECT ON email_forward_domains, email_forward_aliases TO email_forward_reader;

-- Down Migration
REVOKE SELECT ON email_forward_domains, email_forward_aliases FROM email_forward_reader;
DROP VIEW email_forward_aliases;
DROP VIEW email_forward_domains;
DROP TABLE email_forwards;
