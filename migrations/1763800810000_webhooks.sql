-- Up Migration

-- Webhook endpoints (README "Events and webhooks"). The signing secrets are sealed (AES-256-GCM,
-- src/db/sealedJson.ts): the API shows a secret once and can never read it back. After a rotation
-- the previous secret keeps signing until `previous_secret_expires_at`.
CREATE TABLE webhook_endpoints (
  id                         text PRIMARY KEY,
  org_id                     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  livemode                   boolean NOT NULL,
  url                        text NOT NULL,
  events                     text[] NOT NULL,
  description                text,
  enabled                    boolean NOT NULL DEFAULT true,
  secrets                    jsonb NOT NULL,
  previous_secret_expires_at timestamptz,
  -- Set by the first failed delivery after a success; cleared by the next success. An endpoint whose
  -- failures go back further than the disable threshold is disabled.
  failing_since              timestamptz,
  disabled_reason            text,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_org_list_idx ON webhook_endpoints (org_id, livemode, created_at DESC, id DESC);

-- One row per delivery attempt. Kept as long as its event (30 days).
CREATE TABLE webhook_deliveries (
  id           text PRIMARY KEY,
  endpoint_id  text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id     text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  livemode     boolean NOT NULL,
  attempt      integer NOT NULL,
  status_code  integer,
  duration_ms  integer NOT NULL,
  error        text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, livemode, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
CREATE INDEX events_created_idx ON events (created_at);

-- Down Migration
DROP INDEX events_created_idx;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
