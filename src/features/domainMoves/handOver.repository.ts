import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, type Mode } from '../../db/modeScope.js';

/**
 * The writes of a move's acceptance to tables other features own, kept here so the hand-over reads
 * in one place. Each goes through a ModeScopedTable: a move never crosses modes.
 */
const domains = new ModeScopedTable<{ id: string }>('domains', 'id');
const dnsRecords = new ModeScopedTable<{ id: string }>('dns_records', 'id');
const dnssecZones = new ModeScopedTable<{ domainId: string }>('dnssec_zones', 'domain_id AS "domainId"');
const operations = new ModeScopedTable<{ id: string; type: string; status: string }>('operations', 'id, type, status');

/** An operation on the domain that has not finished (register, transfer, renew): a domain cannot move meanwhile. */
export function findOpenOperationOfDomain(db: Queryable, mode: Mode, domainId: string): Promise<{ id: string; type: string; status: string } | undefined> {
  return operations.findOne(db, mode, `domain_id = $2 AND status IN ('pending', 'running')`, [domainId]);
}

/** The domain row changes organisation (its id, and so its DNS zone's ownership in dns_zones, stays); its version is raised. */
export async function handDomainOver(
  db: Queryable,
  mode: Mode,
  props: { domainId: string; toOrgId: string; contacts: { registrant: string; admin: string | null; tech: string | null } },
): Promise<void> {
  await domains.update(
    db,
    mode,
    'id = $2',
    [props.domainId],
    { org_id: props.toOrgId, registrant_contact_id: props.contacts.registrant, admin_contact_id: props.contacts.admin, tech_contact_id: props.contacts.tech },
    { increment: ['version'], now: ['updated_at'] },
  );
}

/** The domain's DNS records follow it. */
export async function handRecordsOver(db: Queryable, mode: Mode, props: { domainId: string; toOrgId: string }): Promise<number> {
  return (await dnsRecords.update(db, mode, 'domain_id = $2', [props.domainId], { org_id: props.toOrgId })).length;
}

/** The zone's DNSSEC state follows it (keyed by the domain, which keeps its id; the row names its organisation). */
export async function handDnssecOver(db: Queryable, mode: Mode, props: { domainId: string; toOrgId: string }): Promise<number> {
  return (await dnssecZones.update(db, mode, 'domain_id = $2', [props.domainId], { org_id: props.toOrgId })).length;
}

/**
 * Notices recorded but not yet mailed go to the new organisation's owners and admins instead: the
 * facts fixed at record time name the organisation and its recipients (src/features/lifecycle/notices.ts).
 * Plain SQL, as ModeScopedTable sets values and cannot merge into a JSON column; `$1` is the mode all the same.
 */
export async function readdressUnmailedNotices(
  db: Queryable,
  mode: Mode,
  props: { domainId: string; toOrgId: string; recipients: { email: string; name: string | null }[] },
): Promise<void> {
  await db.query(
    `UPDATE domain_notices SET facts = facts || jsonb_build_object('orgId', $3::text, 'recipients', $4::jsonb)
     WHERE livemode = $1 AND domain_id = $2 AND mailed_at IS NULL`,
    [mode.livemode, props.domainId, props.toOrgId, JSON.stringify(props.recipients)],
  );
}
