import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode } from '../../db/modeScope.js';
import { keyset, type PageRequest } from '../../db/keyset.js';

/** One delivery attempt of an event to an endpoint. */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  livemode: boolean;
  attempt: number;
  /** The receiver's HTTP status; null when no answer came (refused address, timeout, connection error). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  createdAt: Date;
}

const deliveries = new ModeScopedTable<WebhookDelivery>(
  'webhook_deliveries',
  `id, endpoint_id AS "endpointId", event_id AS "eventId", livemode, attempt, status_code AS "statusCode",
   duration_ms AS "durationMs", error, created_at AS "createdAt"`,
);

/**
 * Records an attempt, numbered after the attempts of the same (endpoint, event) so far. The id derives
 * from the workflow and its attempt counter: a retried activity finds its row instead of adding one.
 */
export async function insertDelivery(
  db: Queryable,
  mode: Mode,
  props: Pick<WebhookDelivery, 'id' | 'endpointId' | 'eventId' | 'statusCode' | 'durationMs' | 'error'>,
): Promise<WebhookDelivery | undefined> {
  const { rows } = await db.query(
    `INSERT INTO webhook_deliveries (livemode, id, endpoint_id, event_id, attempt, status_code, duration_ms, error)
     SELECT $1, $2, $3, $4, coalesce(max(attempt), 0) + 1, $5, $6, $7 FROM webhook_deliveries WHERE endpoint_id = $3 AND event_id = $4
     ON CONFLICT (id) DO NOTHING
     RETURNING id, endpoint_id AS "endpointId", event_id AS "eventId", livemode, attempt, status_code AS "statusCode",
       duration_ms AS "durationMs", error, created_at AS "createdAt"`,
    [mode.livemode, props.id, props.endpointId, props.eventId, props.statusCode, props.durationMs, props.error],
  );
  return rows[0] as WebhookDelivery | undefined;
}

export function listDeliveries(db: Queryable, mode: Mode, props: { endpointId: string } & PageRequest): Promise<WebhookDelivery[]> {
  const p = modeScopedParams();
  const where = `endpoint_id = ${p.add(props.endpointId)}`;
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return deliveries.select(db, mode, `${where} AND ${page.condition}`, p.values, page.tail);
}

export function findDelivery(db: Queryable, mode: Mode, props: { endpointId: string; id: string }): Promise<WebhookDelivery | undefined> {
  return deliveries.findOne(db, mode, 'endpoint_id = $2 AND id = $3', [props.endpointId, props.id]);
}
