-- Up Migration

-- A domain handed from one organisation to another (docs/api-guide.md, Moving a domain): proposed
-- by an owner or admin of the source, accepted by one of the target, or cancelled by either side.
-- Per mode, as the domain is. A pending move whose `expires_at` has passed is treated as expired
-- wherever it is read; its row is marked `expired` when the next move of the domain is proposed.
CREATE TABLE domain_moves (
  id                 text PRIMARY KEY,
  livemode           boolean NOT NULL,
  domain_id          text NOT NULL REFERENCES domains (id),
  domain_name        text NOT NULL,
  from_org_id        text NOT NULL REFERENCES organizations (id),
  to_org_id          text NOT NULL REFERENCES organizations (id),
  status             text NOT NULL CHECK (status IN ('pending', 'accepted', 'cancelled', 'expired')),
  proposed_by        text NOT NULL REFERENCES users (id),
  decided_by         text REFERENCES users (id),
  -- Which side cancelled: the source or the target organisation.
  cancelled_by_org_id text REFERENCES organizations (id),
  created_at         timestamptz NOT NULL DEFAULT now(),
  -- The target has 7 days to accept (docs/api-guide.md, Moving a domain).
  expires_at         timestamptz NOT NULL DEFAULT now() + interval '7 days',
  decided_at         timestamptz,
  CHECK (from_org_id <> to_org_id)
);
-- One pending move of a domain at a time.
CREATE UNIQUE INDEX domain_moves_one_pending_idx ON domain_moves (domain_id) WHERE status = 'pending';
CREATE INDEX domain_moves_from_idx ON domain_moves (from_org_id, livemode, created_at DESC, id DESC);
CREATE INDEX domain_moves_to_idx ON domain_moves (to_org_id, livemode, created_at DESC, id DESC);

-- Down Migration
DROP TABLE domain_moves;
