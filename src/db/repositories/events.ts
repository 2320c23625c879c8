import type { Queryable } from '../pool.js';
import { ModeScopedTable, type Mode } from '../modeScope.js';

export const EVENT_TYPES = [
  'operation.succeeded',
  'operation.failed',
  'operation.cancelled',
  'domain.expiring',
  'domain.renewed',
  'domain.auto_renew_failed',
  'domain.expired',
  'domain.deleted',
  'api_key.revoked',
  'webhook_endpoint.disabled',
  'ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface EventRow {
  id: string;
  orgId: string;
  livemode: boolean;
  type: EventType;
  /** `{object}`: the resource as the API renders it. */
  data: { object: unknown };
  createdAt: Date;
  dispatchedAt: Date | null;
}

const events = new ModeScopedTable<EventRow>(
  'events',
  `id, org_id AS "orgId", livemode, type, data, created_at AS "createdAt", dispatched_at AS "dispatchedAt"`,
);

/** Writes an event; a second write with the same id (a retried activity) changes nothing. */
export async function insertEvent(
  db: Queryable,
  mode: Mode,
  event: Pick<EventRow, 'id' | 'orgId' | 'type' | 'data'>,
): Promise<EventRow | undefined> {
  return events.insertIfAbsent(db, mode, { id: event.id, org_id: event.orgId, type: event.type, data: JSON.stringify(event.data) });
}

export async function findEvent(db: Queryable, mode: Mode, orgId: string, id: string): Promise<EventRow | undefined> {
  return events.findOne(db, mode, 'org_id = $2 AND id = $3', [orgId, id]);
}
