-- Up Migration

-- Events (README "Events and webhooks"): written in the same transaction as the change they describe,
-- so an event is never lost and never exists for a change that rolled back. The table is also the
-- outbox: `dispatched_at` is set once the event has been handed to delivery.
CREATE TABLE events (
  id             text PRIMARY KEY,
  org_id         text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  livemode       boolean NOT NULL,
  type           text NOT NULL,
  data           jsonb NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  dispatched_at  timestamptz
);
CREATE INDEX events_org_list_idx ON events (org_id, livemode, created_at DESC, id DESC);
CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL;

-- Down Migration
DROP TABLE events;
