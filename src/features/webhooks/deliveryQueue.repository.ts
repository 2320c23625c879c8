import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';

/**
 * Each endpoint's delivery queue: the `queued` rows of webhook_deliveries_waiting
 * (migrations/1765300000000_webhook_delivery_queue.sql), one per (endpoint, event), in the order the
 * dispatcher wrote them (`seq`). The endpoint's workflow (src/features/webhooks/endpointQueue.workflow.ts)
 * drains it oldest first; a row goes once the endpoint accepts its event, it gives up, or the endpoint
 * is disabled or deleted.
 */
export interface QueuedDelivery {
  eventId: string;
  /** Attempts made so far (0: none yet). */
  attempts: number;
  firstAttemptAt: Date | null;
  /** Null or past: due now. */
  nextAttemptAt: Date | null;
}

export interface NewQueuedDelivery {
  endpointId: string;
  eventId: string;
  orgId: string;
  livemode: boolean;
}

/**
 * Queues a dispatch batch's deliveries, in both modes (the system's own outbox sweep, like
 * lockUndispatchedEvents), in one statement and in the order given: that order is each endpoint's.
 * One queued already (an earlier dispatch that could not mark its event) keeps its place.
 * `givesUpAfterMs` bounds how long a row counts for the organisation's backlog before its first attempt.
 */
export async function queueDeliveries(db: Queryable, deliveries: NewQueuedDelivery[], givesUpAfterMs: number): Promise<void> {
  if (deliveries.length === 0) return;
  await db.query(
    `INSERT INTO webhook_deliveries_waiting (endpoint_id, event_id, org_id, livemode, gives_up_at, state, next_attempt_at)
     SELECT endpoint_id, event_id, org_id, livemode, now() + make_interval(secs => $5), 'queued', now()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[]) WITH ORDINALITY AS d (endpoint_id, event_id, org_id, livemode, n)
      ORDER BY n
     ON CONFLICT DO NOTHING`,
    [deliveries.map((d) => d.endpointId), deliveries.map((d) => d.eventId), deliveries.map((d) => d.orgId), deliveries.map((d) => d.livemode), givesUpAfterMs / 1000],
  );
}

/** The head of an endpoint's queue: its oldest `limit` deliveries, oldest first. */
export async function queueHead(db: Queryable, mode: Mode, props: { endpointId: string; limit: number }): Promise<QueuedDelivery[]> {
  const { rows } = await db.query<QueuedDelivery>(
    `SELECT event_id AS "eventId", attempts, first_attempt_at AS "firstAttemptAt", next_attempt_at AS "nextAttemptAt"
       FROM webhook_deliveries_waiting
      WHERE livemode = $1 AND endpoint_id = $2 AND state = 'queued'
      ORDER BY seq LIMIT $3`,
    [mode.livemode, props.endpointId, props.limit],
  );
  return rows;
}

/** One attempt as the delivery log keeps it (webhook_deliveries). */
export interface AttemptRecord {
  id: string;
  eventId: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * Attempts logged in one statement, each numbered after the attempts of its (endpoint, event) so far;
 * an id logged already (a retried activity) is not logged again.
 */
export async function logAttempts(db: Queryable, mode: Mode, endpointId: string, attempts: AttemptRecord[]): Promise<void> {
  if (attempts.length === 0) return;
  await db.query(
    `INSERT INTO webhook_deliveries (livemode, id, endpoint_id, event_id, attempt, status_code, duration_ms, error)
     SELECT $1, a.id, $2, a.event_id,
            (SELECT coalesce(max(attempt), 0) + 1 FROM webhook_deliveries d WHERE d.endpoint_id = $2 AND d.event_id = a.event_id),
            a.status_code, a.duration_ms, a.error
       FROM unnest($3::text[], $4::text[], $5::int[], $6::int[], $7::text[]) AS a (id, event_id, status_code, duration_ms, error)
     ON CONFLICT (id) DO NOTHING`,
    [
      mode.livemode,
      endpointId,
      attempts.map((a) => a.id),
      attempts.map((a) => a.eventId),
      attempts.map((a) => a.statusCode),
      attempts.map((a) => a.durationMs),
      attempts.map((a) => a.error),
    ],
  );
}

/** Accepted deliveries: their attempts logged (as logAttempts) and their rows out of the queue, in one statement. */
export async function recordAccepted(db: Queryable, mode: Mode, endpointId: string, attempts: AttemptRecord[]): Promise<void> {
  if (attempts.length === 0) return;
  await db.query(
    `WITH logged AS (
       INSERT INTO webhook_deliveries (livemode, id, endpoint_id, event_id, attempt, status_code, duration_ms, error)
       SELECT $1, a.id, $2, a.event_id,
              (SELECT coalesce(max(attempt), 0) + 1 FROM webhook_deliveries d WHERE d.endpoint_id = $2 AND d.event_id = a.event_id),
              a.status_code, a.duration_ms, NULL
         FROM unnest($3::text[], $4::text[], $5::int[], $6::int[]) AS a (id, event_id, status_code, duration_ms)
       ON CONFLICT (id) DO NOTHING
     )
     DELETE FROM webhook_deliveries_waiting WHERE livemode = $1 AND endpoint_id = $2 AND event_id = ANY($4) AND state = 'queued'`,
    [mode.livemode, endpointId, attempts.map((a) => a.id), attempts.map((a) => a.eventId), attempts.map((a) => a.statusCode), attempts.map((a) => a.durationMs)],
  );
}

/** Deliveries that are over (accepted, given up, or their event purged): out of the queue. */
export async function dequeueDeliveries(db: Queryable, mode: Mode, props: { endpointId: string; eventIds: string[] }): Promise<void> {
  if (props.eventIds.length === 0) return;
  await db.query(`DELETE FROM webhook_deliveries_waiting WHERE livemode = $1 AND endpoint_id = $2 AND event_id = ANY($3) AND state = 'queued'`, [
    mode.livemode,
    props.endpointId,
    props.eventIds,
  ]);
}

/**
 * A failed attempt's place in the schedule: attempts counted, the next one `retryInMs` from now. The
 * first attempt also starts the row's retry window: it counts for the backlog until it gives up.
 */
export async function rescheduleDelivery(
  db: Queryable,
  mode: Mode,
  props: { endpointId: string; eventId: string; retryInMs: number; retryForMs: number },
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries_waiting
        SET attempts = attempts + 1,
            first_attempt_at = coalesce(first_attempt_at, now()),
            gives_up_at = coalesce(first_attempt_at, now()) + make_interval(secs => $5),
            next_attempt_at = now() + make_interval(secs => $4)
      WHERE livemode = $1 AND endpoint_id = $2 AND event_id = $3 AND state = 'queued'`,
    [mode.livemode, props.endpointId, props.eventId, props.retryInMs / 1000, props.retryForMs / 1000],
  );
}

/**
 * Endpoints whose queue's oldest delivery has been due for longer than `overdueMs`, in both modes: their
 * workflow was not woken (a wake lost between the dispatcher's commit and its signal) or has ended.
 * Woken again by the dispatcher's sweep; waking a busy one only costs a signal and a drain.
 */
export async function endpointsOverdue(db: Queryable, props: { overdueMs: number; limit: number }): Promise<{ endpointId: string; livemode: boolean }[]> {
  const { rows } = await db.query<{ endpointId: string; livemode: boolean }>(
    `SELECT "endpointId", livemode FROM (
       SELECT DISTINCT ON (endpoint_id) endpoint_id AS "endpointId", livemode, next_attempt_at
         FROM webhook_deliveries_waiting WHERE state = 'queued' ORDER BY endpoint_id, seq
     ) heads
     WHERE next_attempt_at < now() - make_interval(secs => $1) LIMIT $2`,
    [props.overdueMs / 1000, props.limit],
  );
  return rows;
}

/**
 * The endpoints of a dispatch whose workflow must be woken: marked awake here, in the dispatch's
 * transaction (which locks their rows until it commits), and returned when they were not awake
 * before (or had never been queued to). Signal them after the commit.
 */
export async function markQueuesAwake(db: Queryable, endpointIds: string[]): Promise<string[]> {
  if (endpointIds.length === 0) return [];
  const { rows } = await db.query<{ endpointId: string; woken: boolean }>(
    `INSERT INTO webhook_endpoint_queues AS q (endpoint_id) SELECT DISTINCT unnest($1::text[]) ORDER BY 1
     ON CONFLICT (endpoint_id) DO UPDATE SET awake = true, woken_at = CASE WHEN q.awake THEN q.woken_at ELSE now() END
     RETURNING endpoint_id AS "endpointId", woken_at = now() AS woken`,
    [endpointIds],
  );
  return rows.filter((row) => row.woken).map((row) => row.endpointId);
}

/** The drain found the queue empty: the next dispatch to it wakes the workflow (markQueuesAwake). */
export async function markQueueAsleep(db: Queryable, endpointId: string): Promise<void> {
  await db.query('UPDATE webhook_endpoint_queues SET awake = false WHERE endpoint_id = $1', [endpointId]);
}
