-- Up Migration

CREATE TABLE domains (
  id                     text PRIMARY KEY,
  org_id                 text NOT NULL REFERENCES organizations (id),
  livemode               boolean NOT NULL,
  name                   text NOT NULL,
  status                 text NOT NULL CHECK (status IN ('registering', 'active', 'transfer_pending', 'expired', 'failed')),
  years                  integer NOT NULL CHECK (years BETWEEN 1 AND 10),
  expires_at             timestamptz,
  auto_renew             boolean NOT NULL DEFAULT false,
  locked                 boolean NOT NULL DEFAULT true,
  nameservers            text[] NOT NULL DEFAULT '{}',
  registrant_contact_id  text NOT NULL,
  admin_contact_id       text,
  tech_contact_id        text,
  registrar_reference    text,
  version                integer NOT NULL DEFAULT 1,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
-- A name is held by at most one organisation per mode, unless its registration failed.
CREATE UNIQUE INDEX domains_name_live_idx ON domains (livemode, name) WHERE status <> 'failed';
CREATE INDEX domains_org_idx ON domains (org_id, livemode, created_at);

-- What clients poll after a 202; activities keep it current.
CREATE TABLE operations (
  id            text PRIMARY KEY,
  org_id        text NOT NULL REFERENCES organizations (id),
  livemode      boolean NOT NULL,
  type          text NOT NULL CHECK (type IN ('domain.register', 'domain.transfer', 'domain.renew')),
  status        text NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'cancelled')),
  domain        text NOT NULL,
  domain_id     text REFERENCES domains (id),
  workflow_id   text NOT NULL UNIQUE,
  -- What the workflow is started with, so a retry after a crash can start it (idempotently) again.
  workflow_input jsonb NOT NULL,
  amount        bigint NOT NULL,
  result        jsonb,
  error         jsonb,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  completed_at  timestamptz
);
CREATE INDEX operations_org_idx ON operations (org_id, livemode, created_at);

-- Down Migration
DROP TABLE operations;
DROP TABLE domains;
