import type { Queryable } from '../pool.js';
import { ModeScopedTable, modeScopedParams, type Mode } from '../modeScope.js';
import { keyset, type PageRequest } from '../keyset.js';

export type DomainStatus = 'registering' | 'active' | 'transfer_pending' | 'expired' | 'failed';

export interface Domain {
  id: string;
  orgId: string;
  livemode: boolean;
  name: string;
  status: DomainStatus;
  years: number;
  expiresAt: Date | null;
  autoRenew: boolean;
  locked: boolean;
  nameservers: string[];
  registrantContactId: string;
  adminContactId: string | null;
  techContactId: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

const domains = new ModeScopedTable<Domain>(
  'domains',
  `id, org_id AS "orgId", livemode, name, status, years, expires_at AS "expiresAt", auto_renew AS "autoRenew", locked,
   nameservers, registrant_contact_id AS "registrantContactId", admin_contact_id AS "adminContactId",
   tech_contact_id AS "techContactId", version, created_at AS "createdAt", updated_at AS "updatedAt"`,
);

export function insertDomain(
  db: Queryable,
  mode: Mode,
  domain: Pick<Domain, 'id' | 'orgId' | 'name' | 'years' | 'autoRenew' | 'nameservers' | 'registrantContactId' | 'adminContactId' | 'techContactId'> & {
    status: 'registering' | 'transfer_pending';
  },
): Promise<Domain> {
  return domains.insert(db, mode, {
    id: domain.id,
    org_id: domain.orgId,
    name: domain.name,
    status: domain.status,
    years: domain.years,
    auto_renew: domain.autoRenew,
    nameservers: domain.nameservers,
    registrant_contact_id: domain.registrantContactId,
    admin_contact_id: domain.adminContactId,
    tech_contact_id: domain.techContactId,
  });
}

/** The organisation's current domain of that name (a failed registration does not count). */
export function findDomainOfOrg(db: Queryable, mode: Mode, orgId: string, name: string): Promise<Domain | undefined> {
  return domains.findOne(db, mode, `org_id = $2 AND name = $3 AND status <> 'failed'`, [orgId, name]);
}

/** Newest first, by keyset on (created_at, id). */
export function listDomainsOfOrg(db: Queryable, mode: Mode, props: { orgId: string } & PageRequest): Promise<Domain[]> {
  const p = modeScopedParams();
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return domains.select(db, mode, `org_id = ${p.add(props.orgId)} AND ${page.condition}`, p.values, page.tail);
}

export async function updateDomain(
  db: Queryable,
  mode: Mode,
  id: string,
  changes: Partial<{ status: DomainStatus; expires_at: Date; registrar_reference: string }>,
): Promise<Domain | undefined> {
  const [updated] = await domains.update(db, mode, 'id = $2', [id], { ...changes, updated_at: new Date() });
  return updated;
}

/** Records which contacts a domain uses (CONTACT_IN_USE reads this). */
export async function linkDomainContacts(
  db: Queryable,
  mode: Mode,
  domainId: string,
  contacts: { registrant: string; admin: string | null; tech: string | null },
): Promise<void> {
  const roles = (['registrant', 'admin', 'tech'] as const).filter((role) => contacts[role] !== null);
  await db.query(
    `INSERT INTO domain_contacts (domain_id, contact_id, role, livemode)
     SELECT $1, c.contact_id, c.role, $2 FROM unnest($3::text[], $4::text[]) AS c(contact_id, role)
     ON CONFLICT (domain_id, role) DO NOTHING`,
    [domainId, mode.livemode, roles.map((role) => contacts[role]), roles],
  );
}

/**
 * Changes a domain's settings if it is still at `expectedVersion` (when given); bumps the version.
 * Undefined when the version did not match (or the domain is gone).
 */
export async function updateDomainSettings(
  db: Queryable,
  mode: Mode,
  props: { id: string; expectedVersion: number | undefined; changes: Partial<{ auto_renew: boolean; locked: boolean; nameservers: string[] }> },
): Promise<Domain | undefined> {
  const [updated] = await domains.update(
    db,
    mode,
    'id = $2 AND ($3::int IS NULL OR version = $3)',
    [props.id, props.expectedVersion ?? null],
    props.changes,
    { increment: ['version'], now: ['updated_at'] },
  );
  return updated;
}

/** Every live domain that is ours or on its way to being ours (not failed), for reconciliation. */
export function listLiveDomainsToReconcile(db: Queryable): Promise<Domain[]> {
  return domains.select(db, { livemode: true }, `status <> 'failed'`, [], 'ORDER BY name');
}
