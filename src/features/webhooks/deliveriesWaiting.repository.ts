import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, type Mode } from '../../db/modeScope.js';

/**
 * Deliveries handed on and not yet accepted nor given up, one row per (endpoint, event)
 * (migrations/1765210100000_webhook_deliveries_waiting.sql): each endpoint's queue
 * (src/features/webhooks/deliveryQueue.repository.ts), and the deliveries of workflows started before
 * the queues; what bounds an organisation's backlog (src/features/webhooks/eventBudget.ts).
 */
const waiting = new ModeScopedTable<{ endpointId: string }>('webhook_deliveries_waiting', 'endpoint_id AS "endpointId"');

/** The endpoint accepted the event: that delivery waits no more. */
export async function deliveryNoLongerWaiting(db: Queryable, mode: Mode, props: { endpointId: string; eventId: string }): Promise<void> {
  await waiting.delete(db, mode, 'endpoint_id = $2 AND event_id = $3', [props.endpointId, props.eventId]);
}

/** A disabled endpoint's deliveries end at their next attempt without a send: they wait no more. */
export async function endpointDeliveriesNoLongerWaiting(db: Queryable, mode: Mode, endpointId: string): Promise<void> {
  await waiting.delete(db, mode, 'endpoint_id = $2', [endpointId]);
}

/** How many of the organisation's deliveries wait in this mode, counted up to `upTo` at most (all a budget needs to know). */
export async function countDeliveriesWaiting(db: Queryable, mode: Mode, props: { orgId: string; upTo: number }): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM webhook_deliveries_waiting WHERE livemode = $1 AND org_id = $2 AND (state = 'queued' OR gives_up_at > now()) LIMIT $3
     ) w`,
    [mode.livemode, props.orgId, props.upTo],
  );
  return rows[0]!.n;
}

/**
 * Rows of deliveries whose workflows have given up, in both modes (the events purge). A queued
 * delivery is its endpoint queue's to end (src/features/webhooks/drain.ts).
 */
export async function purgeDeliveriesGivenUp(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM webhook_deliveries_waiting WHERE state = 'workflow' AND gives_up_at < now()`);
  return rowCount ?? 0;
}
