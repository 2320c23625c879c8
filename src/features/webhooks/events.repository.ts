import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode } from '../../db/modeScope.js';
import { keyset, type PageCursor, type PageRequest } from '../../db/keyset.js';
import { domainNamingParts } from '../../auth/recordPatterns.js';
import type { SqlParams } from '../../db/sqlParams.js';
import type { ApiKeyGuards } from '../../auth/apiKeys.js';

export const EVENT_TYPES = [
  'operation.succeeded',
  'operation.failed',
  'operation.cancelled',
  'domain.expiring',
  'domain.renewed',
  'domain.auto_renew_failed',
  'domain.expired',
  'domain.deleted',
  'domain.moved_out',
  'domain.moved_in',
  'api_key.revoked',
  'webhook_endpoint.disabled',
  'dnssec.enabled',
  'dnssec.disabled',
  'dns_record.created',
  'dns_record.updated',
  'dns_record.deleted',
  'dns_zone.changed',
  'ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** What a caller's key lets it see of the events (src/features/webhooks/eventDomains.ts); undefined: everything. */
export type EventAudience = Pick<ApiKeyGuards, 'allowedDomains' | 'allowedRecords'> | undefined;

/**
 * The PostgreSQL channel told of new events; delivered only when the writing transaction commits. The
 * payload is `<org id> <event id>` (eventNotice), so a listener skips organisations it does not follow.
 */
export const EVENTS_CHANNEL = 'events_emitted';

export const eventNotice = {
  /** The payload built in SQL from a row of COLUMNS named `row` (insertEvent sends it). */
  sqlOf: (row: string) => `${row}."orgId" || ' ' || ${row}.id`,
  read: (payload: string): { orgId: string; id: string } | undefined => {
    const [orgId, id] = payload.split(' ');
    return orgId && id ? { orgId, id } : undefined;
  },
};

export interface EventRow {
  id: string;
  orgId: string;
  livemode: boolean;
  type: EventType;
  /** `{object}`: the resource as the API renders it; `previous`: as it was before (DNS record updates and deletes). */
  data: { object: unknown; previous?: unknown };
  /** The domain it is about (src/features/webhooks/eventDomains.ts); null when about none. */
  domain: string | null;
  createdAt: Date;
  dispatchedAt: Date | null;
}

const COLUMNS = `id, org_id AS "orgId", livemode, type, data, domain, created_at AS "createdAt", dispatched_at AS "dispatchedAt"`;
const events = new ModeScopedTable<EventRow>('events', COLUMNS);

/**
 * Writes an event in one statement; a second write with the same id (a retried activity) changes
 * nothing. The notification (`<org id> <event id>`, eventNotice) is sent by the same statement, for
 * the row it inserted only, and wakes the dispatcher (src/features/webhooks/activities.ts) once, and
 * only if, the transaction commits.
 */
export async function insertEvent(
  db: Queryable,
  mode: Mode,
  event: Pick<EventRow, 'id' | 'orgId' | 'type' | 'data' | 'domain'>,
): Promise<EventRow | undefined> {
  const { rows } = await db.query(
    `WITH inserted AS (
       INSERT INTO events (livemode, id, org_id, type, data, domain) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}
     )
     SELECT inserted.* FROM inserted, pg_notify($7, ${eventNotice.sqlOf('inserted')}) AS notified`,
    [mode.livemode, event.id, event.orgId, event.type, JSON.stringify(event.data), event.domain, EVENTS_CHANNEL],
  );
  return rows[0] as EventRow | undefined;
}

/**
 * The events a restricted key may read, as a condition: those about no domain, and those of a domain
 * its `allowed_domains` allow (exact names, or names ending in a `*.suffix`'s suffix) and its
 * `allowed_records` name (a pattern's name at or under the domain, or a `*` standing for labels that
 * end in it: patternsNameDomain, src/auth/recordPatterns.ts). TRUE for everyone else.
 */
function audienceCondition(p: SqlParams, audience: EventAudience): string {
  const domains = audience?.allowedDomains ?? [];
  const records = domainNamingParts(audience?.allowedRecords ?? []);
  if (domains.length === 0 && records.length === 0) return 'TRUE';
  const conditions: string[] = [];
  if (domains.length > 0) {
    const exact = domains.filter((pattern) => !pattern.startsWith('*.'));
    const suffixes = domains.filter((pattern) => pattern.startsWith('*.')).map((pattern) => pattern.slice(1));
    conditions.push(`(domain = ANY(${p.add(exact)}::text[]) OR EXISTS (SELECT 1 FROM unnest(${p.add(suffixes)}::text[]) s WHERE right(domain, length(s)) = s))`);
  }
  if (records.length > 0) {
    const suffixes = p.add(records.map((r) => r.suffix));
    const wildcards = p.add(records.map((r) => r.wildcard));
    conditions.push(
      `(domain <> '' AND EXISTS (SELECT 1 FROM unnest(${suffixes}::text[], ${wildcards}::boolean[]) AS r(suffix, wildcard) ` +
        `WHERE r.suffix = domain OR right(r.suffix, length(domain) + 1) = '.' || domain OR (r.wildcard AND right(domain, length(r.suffix) + 1) = '.' || r.suffix)))`,
    );
  }
  return `(domain IS NULL OR (${conditions.join(' AND ')}))`;
}

export async function findEvent(db: Queryable, mode: Mode, props: { orgId: string; id: string; audience: EventAudience }): Promise<EventRow | undefined> {
  const p = modeScopedParams();
  const where = `org_id = ${p.add(props.orgId)} AND id = ${p.add(props.id)} AND ${audienceCondition(p, props.audience)}`;
  return (await events.select(db, mode, where, p.values, 'LIMIT 1'))[0];
}

/** By id alone, for delivery (the system's own work). */
export async function findEventById(db: Queryable, mode: Mode, id: string): Promise<EventRow | undefined> {
  return events.findOne(db, mode, 'id = $2', [id]);
}

/** Newest first, by keyset on (created_at, id); `type` narrows to one event type, `audience` to what a key may read. */
export async function listEvents(
  db: Queryable,
  mode: Mode,
  props: { orgId: string; type: EventType | undefined; audience: EventAudience } & PageRequest,
): Promise<EventRow[]> {
  const p = modeScopedParams();
  const type = props.type === undefined ? 'TRUE' : `type = ${p.add(props.type)}`;
  const where = `org_id = ${p.add(props.orgId)} AND ${type} AND ${audienceCondition(p, props.audience)}`;
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return events.select(db, mode, `${where} AND ${page.condition}`, p.values, page.tail);
}

/**
 * Oldest first, after `after` (exclusive, by creation time then id), for a stream catching up:
 * `types` narrows to those event types (none: every type), `audience` to what its key may read.
 */
export async function eventsAfter(
  db: Queryable,
  mode: Mode,
  props: { orgId: string; after: PageCursor; types: readonly EventType[] | undefined; audience: EventAudience; limit: number },
): Promise<EventRow[]> {
  const p = modeScopedParams();
  const types = props.types ? `type = ANY(${p.add(props.types)})` : 'TRUE';
  const where = `org_id = ${p.add(props.orgId)} AND ${types} AND ${audienceCondition(p, props.audience)} AND (created_at, id) > (${p.add(props.after.createdAt)}::timestamptz, ${p.add(props.after.id)})`;
  return events.select(db, mode, where, p.values, `ORDER BY created_at, id LIMIT ${p.add(props.limit)}`);
}

/** Where a new stream starts: the database's clock, which stamps `created_at`. */
export async function eventsStartingNow(db: Queryable): Promise<PageCursor> {
  const { rows } = await db.query<{ now: Date }>('SELECT now() AS now');
  return { createdAt: rows[0]!.now, id: '' };
}

/**
 * Events by id in both modes, oldest first: what a process's event streams are told of (the ids
 * insertEvent notifies), each handed only to the streams of its organisation and mode.
 */
export async function eventsByIds(db: Queryable, ids: string[]): Promise<EventRow[]> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM events WHERE id = ANY($1) ORDER BY created_at, id`, [ids]);
  return rows as EventRow[];
}

/**
 * The oldest events not yet handed to delivery, in both modes, in the order they were written (`seq`
 * orders the events of one transaction), locked for this transaction; another
 * dispatcher skips them (SKIP LOCKED) rather than waiting. Not mode-scoped: the system sweeps its own
 * outbox, and every write that follows is scoped to the row's mode.
 * NO KEY UPDATE: delivery attempts inserting rows that reference a locked event are not made to wait.
 */
export async function lockUndispatchedEvents(db: Queryable, limit: number): Promise<EventRow[]> {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM events WHERE dispatched_at IS NULL ORDER BY created_at, seq LIMIT $1 FOR NO KEY UPDATE SKIP LOCKED`,
    [limit],
  );
  return rows as EventRow[];
}

/** The outbox's backlog: events not yet handed to delivery, and the age of the oldest (0 when none). */
export async function countUndispatchedEvents(db: Queryable): Promise<{ count: number; oldestAgeSeconds: number }> {
  const { rows } = await db.query<{ count: number; oldestAgeSeconds: number }>(
    `SELECT count(*)::int AS count, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS "oldestAgeSeconds"
     FROM events WHERE dispatched_at IS NULL`,
  );
  return rows[0]!;
}

export async function markEventsDispatched(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length > 0) await db.query('UPDATE events SET dispatched_at = now() WHERE id = ANY($1)', [ids]);
}

/** Events (and, by cascade, their delivery attempts) older than `days`: kept 30 days (docs/api-guide.md, Webhooks and events). */
export async function purgeEventsOlderThan(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM events WHERE created_at < now() - make_interval(days => $1)`, [days]);
  return rowCount ?? 0;
}
