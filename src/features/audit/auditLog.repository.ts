import type { Queryable } from '../../db/pool.js';
import { SqlParams } from '../../db/sqlParams.js';
import { keyset, type PageRequest } from '../../db/keyset.js';
import type { AuditAction, AuditEvent } from '../../audit/auditEvents.js';

/**
 * The actions an organisation's audit log shows (and its `action` filter accepts): what its people
 * and keys did, and what was done to their keys and money. The service's own bookkeeping (abandoned
 * operations, capture conflicts, registrar drift, refused contact syncs) is for operators and stays out.
 */
export const AUDIT_LOG_ACTIONS = [
  'org.created',
  'org.member_invited',
  'org.member_added',
  'org.member_role_changed',
  'org.member_removed',
  'api_key.created',
  'api_key.updated',
  'api_key.deleted',
  'api_key.revoked',
  'api_key.leak_reported',
  'dns_record.created',
  'dns_record.updated',
  'dns_record.deleted',
  'domain.auto_renew_changed',
  'domain.lock_changed',
  'domain.nameservers_changed',
  'domain.auth_code_read',
  'domain.whois_privacy_changed',
  'domain.move_proposed',
  'domain.move_cancelled',
  'domain.moved_out',
  'domain.moved_in',
  'dnssec.enabled',
  'dnssec.disabled',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'billing.top_up',
  'billing.stripe_top_up',
  'billing.operator_credit',
  'billing.spend_limit_changed',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'acme_dns.registered',
  'acme_dns.updated',
  'acme_dns.deleted',
] as const satisfies readonly AuditAction[];

export type AuditLogAction = (typeof AUDIT_LOG_ACTIONS)[number];

/** Who an entry names as its actor: a user (a session), an API key, or the service and its operators. */
export type ActorFilter = { type: 'user' | 'api_key'; id: string } | { type: 'system' };

export interface AuditLogRow extends Omit<AuditEvent, 'action'> {
  id: string;
  action: AuditLogAction;
  createdAt: Date;
  /** The key's name, for entries about a key; the member's e-mail, for entries about a membership. */
  targetLabel: string | null;
}

/**
 * An organisation's entries, newest first, by keyset on (created_at, id). Keys belong to users, not
 * organisations, so their entries carry no organisation: an organisation sees those of the keys that
 * acted in it (api_key_organizations), as it hears of their revocation.
 */
export async function listAuditLog(
  db: Queryable,
  props: { orgId: string; action: AuditLogAction | undefined; actor: ActorFilter | undefined } & PageRequest,
): Promise<AuditLogRow[]> {
  const p = new SqlParams();
  const org = p.add(props.orgId);
  const conditions = [
    `(e.org_id = ${org} OR (e.org_id IS NULL AND e.target_type = 'api_key'
       AND e.target_id IN (SELECT api_key_id FROM api_key_organizations WHERE org_id = ${org})))`,
    `e.action = ANY(${p.add(props.action === undefined ? [...AUDIT_LOG_ACTIONS] : [props.action])})`,
  ];
  const { actor } = props;
  if (actor?.type === 'user') conditions.push(`e.actor_key_id IS NULL AND e.actor_user_id = ${p.add(actor.id)}`);
  if (actor?.type === 'api_key') conditions.push(`e.actor_key_id = ${p.add(actor.id)}`);
  if (actor?.type === 'system') conditions.push('e.actor_key_id IS NULL AND e.actor_user_id IS NULL');
  const page = keyset(p, { time: 'e.created_at', id: 'e.id' }, props);
  const { rows } = await db.query<AuditLogRow>(
    `SELECT e.id, e.action, e.actor_user_id AS "actorUserId", e.actor_key_id AS "actorKeyId", e.org_id AS "orgId",
            e.target_type AS "targetType", e.target_id AS "targetId", e.data, e.request_id AS "requestId", e.livemode,
            e.created_at AS "createdAt", COALESCE(k.name, u.email) AS "targetLabel"
       FROM audit_events e
       LEFT JOIN api_keys k ON e.target_type = 'api_key' AND k.id = e.target_id
       LEFT JOIN users u ON e.target_type = 'membership' AND u.id = e.target_id
      WHERE ${conditions.join(' AND ')} AND ${page.condition}
      ${page.tail}`,
    p.values,
  );
  return rows;
}

/** Entries older than `days` (kept one year: docs/api-guide.md, Audit log). */
export async function purgeAuditEventsOlderThan(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM audit_events WHERE created_at < now() - make_interval(days => $1)', [days]);
  return rowCount ?? 0;
}
