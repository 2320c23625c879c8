-- Up Migration

-- People, identified by their identity provider's `sub`; created on their first request.
CREATE TABLE users (
  id          text PRIMARY KEY,
  subject     text NOT NULL UNIQUE,
  email       text,
  name        text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_email_idx ON users (lower(email));

CREATE TABLE organizations (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  plan        text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro', 'enterprise')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  org_id      text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id     text NOT NULL REFERENCES users (id),
  role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

-- Only an HMAC of the secret is stored; `prefix` is what the owner sees to recognise a key.
CREATE TABLE api_keys (
  id                  text PRIMARY KEY,
  user_id             text NOT NULL REFERENCES users (id),
  name                text NOT NULL,
  scopes              text[] NOT NULL,
  mode                text NOT NULL CHECK (mode IN ('live', 'test')),
  prefix              text NOT NULL,
  secret_hash         bytea NOT NULL UNIQUE,
  status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked', 'deleted')),
  created_at          timestamptz NOT NULL DEFAULT now(),
  last_used_at        timestamptz,
  revoked_at          timestamptz,
  revoked_reason      text,
  revoked_source_url  text,
  deleted_at          timestamptz
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at DESC, id DESC);

CREATE TABLE audit_events (
  id             text PRIMARY KEY,
  action         text NOT NULL,
  actor_user_id  text,
  actor_key_id   text,
  org_id         text,
  target_type    text NOT NULL,
  target_id      text NOT NULL,
  data           jsonb NOT NULL DEFAULT '{}',
  request_id     text,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_target_idx ON audit_events (target_type, target_id, created_at);
CREATE INDEX audit_events_org_idx ON audit_events (org_id, created_at) WHERE org_id IS NOT NULL;

-- Down Migration
DROP TABLE audit_events;
DROP TABLE api_keys;
DROP TABLE memberships;
DROP TABLE organizations;
DROP TABLE users;
