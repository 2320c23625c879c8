-- Up Migration

-- Domains live their whole life (README "Domain lifecycle"): an expired domain is deleted after its
-- grace period, and a deleted domain no longer holds its name.
ALTER TABLE domains DROP CONSTRAINT domains_status_check;
ALTER TABLE domains ADD CONSTRAINT domains_status_check
  CHECK (status IN ('registering', 'active', 'transfer_pending', 'expired', 'failed', 'deleted'));
DROP INDEX domains_name_live_idx;
CREATE UNIQUE INDEX domains_name_live_idx ON domains (livemode, name) WHERE status NOT IN ('failed', 'deleted');

-- A test-mode domain's test clock: its lifecycle runs this many days ahead of real time.
ALTER TABLE domains ADD COLUMN clock_offset_days integer NOT NULL DEFAULT 0 CHECK (clock_offset_days >= 0);

-- One renewal of a domain at a time: a manual renewal and an auto-renewal (or two requests with
-- different keys) can never both be charged for the same term.
CREATE UNIQUE INDEX operations_one_open_renewal_idx ON operations (domain_id)
  WHERE type = 'domain.renew' AND status IN ('pending', 'running');

-- Lifecycle notices (expiring, auto-renew failed, expired, deleted): one row per notice, keyed by what
-- it is about, so a notice is recorded (with its event) once and mailed once, whatever retries,
-- replays or test-clock advances happen. `mailed_at` is set once every recipient's mail was accepted.
CREATE TABLE domain_notices (
  id          text PRIMARY KEY,
  domain_id   text NOT NULL REFERENCES domains (id),
  livemode    boolean NOT NULL,
  kind        text NOT NULL,
  event_id    text NOT NULL,
  -- What the mail says (recipients, dates), fixed when the notice is recorded.
  facts       jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  mailed_at   timestamptz
);
CREATE INDEX domain_notices_domain_idx ON domain_notices (domain_id, created_at);

-- Down Migration
DROP TABLE domain_notices;
DROP INDEX operations_one_open_renewal_idx;
ALTER TABLE domains DROP COLUMN clock_offset_days;
DROP INDEX domains_name_live_idx;
CREATE UNIQUE INDEX domains_name_live_idx ON domains (livemode, name) WHERE status <> 'failed';
ALTER TABLE domains DROP CONSTRAINT domains_status_check;
ALTER TABLE domains ADD CONSTRAINT domains_status_check
  CHECK (status IN ('registering', 'active', 'transfer_pending', 'expired', 'failed'));
