-- Up Migration

-- Membership by consent: an owner or admin invites an e-mail address; the person signed in with that
-- (verified) address accepts. Nothing reveals whether the address has an account.
CREATE TABLE org_invitations (
  id           text PRIMARY KEY,
  org_id       text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email        text NOT NULL,
  role         text NOT NULL CHECK (role IN ('admin', 'member')),
  invited_by   text NOT NULL REFERENCES users (id),
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz,
  accepted_by  text REFERENCES users (id)
);
CREATE INDEX org_invitations_pending_email_idx ON org_invitations (lower(email)) WHERE accepted_at IS NULL;

-- The identity provider's `email_verified` claim, when it sends one (null: it does not).
ALTER TABLE users ADD COLUMN email_verified boolean;

-- Down Migration
ALTER TABLE users DROP COLUMN email_verified;
DROP TABLE org_invitations;
