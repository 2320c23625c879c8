-- Up Migration

-- The waiting deliveries become the delivery queue (src/features/webhooks/deliveryQueue.repository.ts).
-- A row is still one delivery of one event to one endpoint, written by the dispatcher in the
-- transaction that marks its events dispatched, and deleted once its endpoint accepts it, gives up
-- on it, or is disabled or deleted. `state` says who sends it:
--   `workflow`: a deliverWebhookWorkflow run of its own, as every delivery was before this migration
--     (the rows already here); that run deletes it, and its row stops counting at `gives_up_at`.
--   `queued`: the endpoint's queue, drained oldest first (`seq`, the dispatcher's order) by one
--     workflow per endpoint (webhook-endpoint:<endpoint id>); `attempts`, `first_attempt_at` and
--     `next_attempt_at` are its Standard Webhooks retry schedule.
-- New columns without a volatile default: no table rewrite, existing rows become `workflow`.
ALTER TABLE webhook_deliveries_waiting
  ADD COLUMN state text NOT NULL DEFAULT 'workflow' CHECK (state IN ('workflow', 'queued')),
  ADD COLUMN attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN first_attempt_at timestamptz,
  ADD COLUMN next_attempt_at timestamptz;
CREATE SEQUENCE webhook_deliveries_waiting_seq AS bigint OWNED BY webhook_deliveries_waiting.endpoint_id;
ALTER TABLE webhook_deliveries_waiting ADD COLUMN seq bigint;
ALTER TABLE webhook_deliveries_waiting ALTER COLUMN seq SET DEFAULT nextval('webhook_deliveries_waiting_seq');
CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries_waiting (endpoint_id, seq) WHERE state = 'queued';

-- Whether an endpoint's workflow may be asleep with its queue empty: the drain sets `awake` false
-- when it finds nothing queued (then reads the queue once more), and the dispatcher sets it true in the
-- transaction that queues deliveries, signalling the workflow after its commit only when it was
-- false. The dispatcher's write locks the row, so the drain's cannot slip between its insert and its
-- commit: a wake is never lost, and a busy queue is not signalled per delivery.
CREATE TABLE webhook_endpoint_queues (
  endpoint_id  text PRIMARY KEY REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  awake        boolean NOT NULL DEFAULT true,
  woken_at     timestamptz NOT NULL DEFAULT now()
);

-- Events written by one transaction share `created_at`: `seq` keeps the order they were written in,
-- so the outbox hands them on in that order (contract 10.2). Rows from before have none.
CREATE SEQUENCE events_seq AS bigint OWNED BY events.id;
ALTER TABLE events ADD COLUMN seq bigint;
ALTER TABLE events ALTER COLUMN seq SET DEFAULT nextval('events_seq');
DROP INDEX events_undispatched_idx;
CREATE INDEX events_undispatched_idx ON events (created_at, seq) WHERE dispatched_at IS NULL;

-- Down Migration
DROP TABLE webhook_endpoint_queues;
DROP INDEX events_undispatched_idx;
CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL;
ALTER TABLE events DROP COLUMN seq;
DROP SEQUENCE IF EXISTS events_seq;
DROP INDEX webhook_deliveries_queue_idx;
DELETE FROM webhook_deliveries_waiting WHERE state = 'queued';
ALTER TABLE webhook_deliveries_waiting DROP COLUMN seq, DROP COLUMN state, DROP COLUMN attempts, DROP COLUMN first_attempt_at, DROP COLUMN next_attempt_at;
DROP SEQUENCE IF EXISTS webhook_deliveries_waiting_seq;
