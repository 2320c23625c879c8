import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode } from '../../db/modeScope.js';
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

/** Entries with the name of what they are about: a key's name, a member's e-mail (both read when the page is). */
const auditEvents = new ModeScopedTable<AuditLogRow>(
  'audit_events',
  `id, action, actor_user_id AS "actorUserId", actor_key_id AS "actorKeyId", org_id AS "orgId",
   target_type AS "targetType", target_id AS "targetId", data, request_id AS "requestId", livemode, created_at AS "createdAt",
   COALESCE((SELECT k.name FROM api_keys k WHERE audit_events.target_type = 'api_key' AND k.id = audit_events.target_id),
            (SELECT u.email FROM users u WHERE audit_events.target_type = 'membership' AND u.id = audit_events.target_id)) AS "targetLabel"`,
);

/**
 * An organisation's entries of one mode, newest first, by keyset on (created_at, id): a test key
 * reads test-mode entries only (contract §3). Keys belong to users, not organisations, so their
 * entries carry no organisation: an organisation sees those of the keys that acted in it
 * (api_key_organizations), as it hears of their revocation.
 */
export async function listAuditLog(
  db: Queryable,
  mode: Mode,
  props: { orgId: string; action: AuditLogAction | undefined; actor: ActorFilter | undefined } & PageRequest,
): Promise<AuditLogRow[]> {
  const p = modeScopedParams();
  const org = p.add(props.orgId);
  const conditions = [
    `(org_id = ${org} OR (org_id IS NULL AND target_type = 'api_key'
       AND target_id IN (SELECT api_key_id FROM api_key_organizations WHERE org_id = ${org})))`,
    `action = ANY(${p.add(props.action === undefined ? [...AUDIT_LOG_ACTIONS] : [props.action])})`,
  ];
  const { actor } = props;
  if (actor?.type === 'user') conditions.push(`actor_key_id IS NULL AND actor_user_id = ${p.add(actor.id)}`);
  if (actor?.type === 'api_key') conditions.push(`actor_key_id = ${p.add(actor.id)}`);
  if (actor?.type === 'system') conditions.push('actor_key_id IS NULL AND actor_user_id IS NULL');
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return auditEvents.select(db, mode, `${conditions.join(' AND ')} AND ${page.condition}`, p.values, page.tail);
}

/** Entries older than `days` (kept one year: docs/api-guide.md, Audit log). */
export async function purgeAuditEventsOlderThan(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM audit_events WHERE created_at < now() - make_interval(days => $1)', [days]);
  return rowCount ?? 0;
}
