import type { Queryable } from '../db/pool.js';
import { newId } from '../ids.js';
import type { Principal } from '../auth/principal.js';

export type AuditAction =
  | 'api_key.created'
  | 'api_key.deleted'
  | 'api_key.revoked'
  | 'api_key.leak_reported'
  | 'api_key.updated'
  | 'org.created'
  | 'org.member_added'
  | 'org.member_removed'
  | 'org.member_invited'
  | 'org.member_role_changed'
  | 'contact.created'
  | 'contact.updated'
  | 'contact.deleted'
  | 'billing.operator_credit'
  | 'billing.spend_limit_changed'
  | 'billing.stripe_top_up'
  | 'billing.top_up'
  | 'webhook_endpoint.created'
  | 'webhook_endpoint.updated'
  | 'webhook_endpoint.deleted'
  | 'webhook_endpoint.secret_rotated'
  | 'domain.auto_renew_changed'
  | 'domain.lock_changed'
  | 'domain.nameservers_changed'
  | 'domain.auth_code_read'
  | 'dns_record.created'
  | 'dns_record.updated'
  | 'dns_record.deleted'
  | 'dnssec.enabled'
  | 'dnssec.disabled'
  | 'operation.capture_conflict'
  | 'operation.abandoned'
  | 'contact.registrar_sync_failed'
  | 'domain.partially_registered'
  | 'domain.whois_privacy_changed'
  | 'domain.move_proposed'
  | 'domain.move_cancelled'
  | 'domain.moved_out'
  | 'domain.moved_in'
  | 'acme_dns.registered'
  | 'acme_dns.deleted'
  | 'acme_dns.updated'
  | 'registrar.drift';

export const AUDIT_TARGET_TYPES = [
  'api_key',
  'organization',
  'membership',
  'invitation',
  'contact',
  'dns_record',
  'operation',
  'domain',
  'webhook_endpoint',
  'domain_move',
  'acme_dns_registration',
] as const;

export interface AuditEvent {
  action: AuditAction;
  actorUserId: string | null;
  actorKeyId: string | null;
  orgId: string | null;
  targetType: (typeof AUDIT_TARGET_TYPES)[number];
  targetId: string;
  /** The mode the action happened in: a test key's actions are test-mode entries. */
  livemode: boolean;
  data?: Record<string, unknown>;
  requestId: string | null;
}

/** The actor fields of an event done by a caller (as opposed to the system, e.g. leak detection). */
export function actorOf(principal: Principal): Pick<AuditEvent, 'actorUserId' | 'actorKeyId'> {
  return { actorUserId: principal.user.id, actorKeyId: principal.keyId ?? null };
}

/** Who asked, in which request: what every audit event of a caller's action records besides the action. */
export interface CallerOfRequest {
  principal: Principal;
  requestId: string;
}

/**
 * Records what a caller did (the actor, request id and, unless said otherwise, the mode come from
 * `caller`; services pass their props). Pass `id` to make the write idempotent (insertAuditEvent).
 */
export function auditCallerAction(
  db: Queryable,
  caller: CallerOfRequest,
  event: Omit<AuditEvent, 'actorUserId' | 'actorKeyId' | 'requestId' | 'livemode'> & { livemode?: boolean; id?: string },
): Promise<string> {
  return insertAuditEvent(db, { livemode: caller.principal.livemode, ...event, ...actorOf(caller.principal), requestId: caller.requestId });
}

/**
 * Records many things a caller did in one request (a zone file's records) in one statement: each
 * field's values as one array, the actor and request once (a statement of ten parameters a row,
 * 500 rows at a time, was most of the audit's cost of a large import).
 */
export async function auditCallerActions(
  db: Queryable,
  caller: CallerOfRequest,
  events: (Omit<AuditEvent, 'actorUserId' | 'actorKeyId' | 'requestId' | 'livemode'> & { livemode?: boolean })[],
): Promise<void> {
  if (events.length === 0) return;
  const actor = actorOf(caller.principal);
  const column = <T>(of: (event: (typeof events)[number]) => T) => events.map(of);
  await db.query(
    `INSERT INTO audit_events (id, action, actor_user_id, actor_key_id, org_id, target_type, target_id, data, request_id, livemode)
     SELECT e.id, e.action, $1::text, $2::text, e.org_id, e.target_type, e.target_id, e.data::jsonb, $3::text, e.livemode
     FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::boolean[]) AS e(id, action, org_id, target_type, target_id, data, livemode)`,
    [
      actor.actorUserId,
      actor.actorKeyId,
      caller.requestId,
      column(() => newId('evt')),
      column((e) => e.action),
      column((e) => e.orgId),
      column((e) => e.targetType),
      column((e) => e.targetId),
      column((e) => JSON.stringify(e.data ?? {})),
      column((e) => e.livemode ?? caller.principal.livemode),
    ],
  );
}

/**
 * Records an event. Pass `id` (e.g. derived from a workflow id) to make the write idempotent: a
 * retried activity then finds its event already there instead of writing a second one.
 */
export async function insertAuditEvent(db: Queryable, event: AuditEvent & { id?: string }): Promise<string> {
  const id = event.id ?? newId('evt');
  await db.query(
    `INSERT INTO audit_events (id, action, actor_user_id, actor_key_id, org_id, target_type, target_id, data, request_id, livemode)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
    [
      id,
      event.action,
      event.actorUserId,
      event.actorKeyId,
      event.orgId,
      event.targetType,
      event.targetId,
      JSON.stringify(event.data ?? {}),
      event.requestId,
      event.livemode,
    ],
  );
  return id;
}

export async function listAuditEventsForTarget(
  db: Queryable,
  targetType: AuditEvent['targetType'],
  targetId: string,
): Promise<(AuditEvent & { id: string; createdAt: Date })[]> {
  const { rows } = await db.query<AuditEvent & { id: string; createdAt: Date }>(
    `SELECT id, action, actor_user_id AS "actorUserId", actor_key_id AS "actorKeyId", org_id AS "orgId",
       target_type AS "targetType", target_id AS "targetId", data, request_id AS "requestId", livemode, created_at AS "createdAt"
     FROM audit_events WHERE target_type = $1 AND target_id = $2 ORDER BY created_at, id`,
    [targetType, targetId],
  );
  return rows;
}
