-- Up Migration

-- Deliveries handed to a workflow and not yet accepted by their endpoint nor given up: one row per
-- (endpoint, event), written when the dispatcher starts the delivery, deleted by the attempt that
-- succeeds and when the endpoint is disabled or deleted. A workflow gives up `WEBHOOK_RETRY_FOR` after
-- it starts, so a row stops counting at `gives_up_at` without the workflow telling anyone. What an
-- organisation has waiting is counted from here (src/features/webhooks/eventBudget.ts), bounded by
-- its limit. No key to events: expired rows are purged with old events, and a purged event's
-- delivery has long given up.
CREATE TABLE webhook_deliveries_waiting (
  endpoint_id  text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id     text NOT NULL,
  org_id       text NOT NULL,
  livemode     boolean NOT NULL,
  gives_up_at  timestamptz NOT NULL,
  PRIMARY KEY (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_waiting_org_idx ON webhook_deliveries_waiting (org_id, livemode, gives_up_at);

-- Down Migration
DROP TABLE webhook_deliveries_waiting;
