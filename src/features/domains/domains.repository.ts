import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode, modeOf } from '../../db/modeScope.js';
import { keyset, type PageRequest } from '../../db/keyset.js';

export type DomainStatus = 'registering' | 'active' | 'transfer_pending' | 'expired' | 'failed' | 'deleted';

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
  /** WHOIS privacy as the registrar last confirmed it (off until it did; docs/api-guide.md, WHOIS privacy). */
  whoisPrivacy: boolean;
  registrantContactId: string;
  adminContactId: string | null;
  techContactId: string | null;
  version: number;
  /** Test mode: how many days the domain's test clock runs ahead of real time (docs/api-guide.md, Modes: live and test). */
  clockOffsetDays: number;
  createdAt: Date;
  updatedAt: Date;
}

const domains = new ModeScopedTable<Domain>(
  'domains',
  `id, org_id AS "orgId", livemode, name, status, years, expires_at AS "expiresAt", auto_renew AS "autoRenew", locked,
   nameservers, whois_privacy AS "whoisPrivacy", registrant_contact_id AS "registrantContactId", admin_contact_id AS "adminContactId",
   tech_contact_id AS "techContactId", version, clock_offset_days AS "clockOffsetDays", created_at AS "createdAt", updated_at AS "updatedAt"`,
);

/** A domain row a registration or a transfer makes, with the contacts it uses. */
export type NewDomain = Pick<Domain, 'id' | 'orgId' | 'name' | 'years' | 'autoRenew' | 'nameservers' | 'registrantContactId' | 'adminContactId' | 'techContactId'> & {
  status: 'registering' | 'transfer_pending';
};

export function insertDomain(db: Queryable, mode: Mode, domain: NewDomain): Promise<Domain> {
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

/** The parameters of newDomainCtes after the mode's, in its order (twelve). */
export function newDomainParams(domain: NewDomain): unknown[] {
  const links = { registrant: domain.registrantContactId, admin: domain.adminContactId, tech: domain.techContactId };
  const roles = (['registrant', 'admin', 'tech'] as const).filter((role) => links[role] !== null);
  return [
    domain.id, domain.orgId, domain.name, domain.status, domain.years, domain.autoRenew, domain.nameservers,
    domain.registrantContactId, domain.adminContactId, domain.techContactId, roles.map((role) => links[role]), roles,
  ];
}

/**
 * The CTEs `new_domain` (the row, stamped with the mode in `livemode`) and `new_domain_contacts` (the
 * contacts it uses), from newDomainParams at `$first` on. With `onlyIf`, a CTE's name, the rows are
 * written only when it returned one.
 */
export function newDomainCtes(livemode: string, first: number, onlyIf?: string): string {
  const $ = (i: number) => `$${first + i}`;
  return `new_domain AS (
       INSERT INTO domains (livemode, id, org_id, name, status, years, auto_renew, nameservers, registrant_contact_id, admin_contact_id, tech_contact_id)
       SELECT ${livemode}, ${$(0)}, ${$(1)}, ${$(2)}, ${$(3)}, ${$(4)}, ${$(5)}, ${$(6)}, ${$(7)}, ${$(8)}, ${$(9)}${onlyIf ? ` FROM ${onlyIf}` : ''}
       RETURNING id
     ), new_domain_contacts AS (
       INSERT INTO domain_contacts (domain_id, contact_id, role, livemode)
       SELECT new_domain.id, c.contact_id, c.role, ${livemode} FROM new_domain CROSS JOIN unnest(${$(10)}::text[], ${$(11)}::text[]) AS c(contact_id, role)
       ON CONFLICT (domain_id, role) DO NOTHING
     )`;
}

/**
 * insertDomain and linkDomainContacts in one statement (one round trip of a registration's 202,
 * docs/bench.md): the domain row, stamped with the caller's mode, and the contacts it uses.
 */
export async function insertDomainWithContacts(db: Queryable, mode: Mode, domain: NewDomain): Promise<void> {
  await db.query(`WITH ${newDomainCtes('$1', 2)} SELECT 1`, [mode.livemode, ...newDomainParams(domain)]);
}

/** The organisation's current domain of that name: the one holding it (failed and deleted ones do not). */
export function findDomainOfOrg(db: Queryable, mode: Mode, orgId: string, name: string): Promise<Domain | undefined> {
  return domains.findOne(db, mode, `org_id = $2 AND name = $3 AND status NOT IN ('failed', 'deleted')`, [orgId, name]);
}

/** The domain the organisation holds by that name, else the one it held last (now `deleted`), for reading. */
export async function findLatestDomainOfOrg(db: Queryable, mode: Mode, orgId: string, name: string): Promise<Domain | undefined> {
  const [latest] = await domains.select(db, mode, `org_id = $2 AND name = $3 AND status <> 'failed'`, [orgId, name], `ORDER BY status = 'deleted', created_at DESC LIMIT 1`);
  return latest;
}

/**
 * The organisation's domain that holds a fully qualified name: of `names` (the name and its parents),
 * the longest one it has (failed and deleted ones hold nothing).
 */
export async function findDomainOfOrgAmong(db: Queryable, mode: Mode, orgId: string, names: string[]): Promise<Domain | undefined> {
  const [found] = await domains.select(db, mode, `org_id = $2 AND name = ANY($3::text[]) AND status NOT IN ('failed', 'deleted')`, [orgId, names], 'ORDER BY length(name) DESC LIMIT 1');
  return found;
}

/** The domain holding that name in this mode, whichever organisation's it is (failed and deleted ones do not hold it). */
export function findDomainHoldingName(db: Queryable, mode: Mode, name: string): Promise<Domain | undefined> {
  return domains.findOne(db, mode, `name = $2 AND status NOT IN ('failed', 'deleted')`, [name]);
}

/** The earliest active domain of that name in this mode: the only one in live mode; in test mode, where several organisations may hold a name, the first of them. */
export async function findFirstActiveDomainNamed(db: Queryable, mode: Mode, name: string): Promise<Domain | undefined> {
  const [first] = await domains.select(db, mode, `name = $2 AND status = 'active'`, [name], 'ORDER BY created_at, id LIMIT 1');
  return first;
}

export function findDomainById(db: Queryable, mode: Mode, id: string): Promise<Domain | undefined> {
  return domains.findOne(db, mode, 'id = $2', [id]);
}

/** The domain, its row locked until the transaction ends: status changes and renewals of one domain take turns. */
export async function lockDomain(db: Queryable, mode: Mode, id: string): Promise<Domain | undefined> {
  const [locked] = await domains.select(db, mode, 'id = $2', [id], 'FOR UPDATE');
  return locked;
}

/** Newest first, by keyset on (created_at, id). */
export function listDomainsOfOrg(db: Queryable, mode: Mode, props: { orgId: string } & PageRequest): Promise<Domain[]> {
  const p = modeScopedParams();
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return domains.select(db, mode, `org_id = ${p.add(props.orgId)} AND ${page.condition}`, p.values, page.tail);
}

export interface DomainTermChanges {
  expires_at?: Date;
  registrar_reference?: string;
}

/**
 * Writes a status change that src/features/domains/domainStatus.ts has allowed (it is the only
 * caller): only while the domain is in one of `from`. Undefined when it was not.
 */
export async function writeDomainStatus(
  db: Queryable,
  mode: Mode,
  props: { id: string; from: readonly DomainStatus[]; to: DomainStatus; changes: DomainTermChanges },
): Promise<Domain | undefined> {
  const [updated] = await domains.update(db, mode, 'id = $2 AND status = ANY($3::text[])', [props.id, props.from], {
    ...props.changes,
    status: props.to,
    updated_at: new Date(),
  });
  return updated;
}

/** The term of a domain (expiry, registrar reference); its status changes only through domainStatus.ts. */
export async function updateDomain(db: Queryable, mode: Mode, id: string, changes: DomainTermChanges): Promise<Domain | undefined> {
  const [updated] = await domains.update(db, mode, 'id = $2', [id], { ...changes, updated_at: new Date() });
  return updated;
}

/** Moves a test-mode domain's test clock forward; the new offset. */
export async function advanceDomainClock(db: Queryable, mode: Mode, id: string, days: number): Promise<Domain | undefined> {
  const [updated] = await domains.update(db, mode, 'id = $2', [id], {}, { add: { clock_offset_days: days }, now: ['updated_at'] });
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
  props: {
    id: string;
    expectedVersion: number | undefined;
    changes: Partial<{ auto_renew: boolean; locked: boolean; nameservers: string[]; whois_privacy: boolean }>;
  },
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
  return domains.select(db, modeOf(true), `status NOT IN ('failed', 'deleted')`, [], 'ORDER BY name');
}

/** A deleted domain no longer uses its contacts, so they can be deleted (CONTACT_IN_USE reads these links). */
export async function unlinkDomainContacts(db: Queryable, mode: Mode, domainId: string): Promise<void> {
  await db.query(`DELETE FROM domain_contacts WHERE domain_id = $1 AND livemode = $2`, [domainId, mode.livemode]);
}

/**
 * One mode's domains that are ours (active, or expired in their grace period), a page at a time by
 * id. The cursor and the order are both the database's, so pages neither skip nor repeat whatever
 * its collation; merging two modes' pages in JavaScript's order once did both (mixed-case ids).
 */
export function listWatchedDomains(db: Queryable, mode: Mode, props: { afterId: string; limit: number }): Promise<Domain[]> {
  return domains.select(db, mode, `status IN ('active', 'expired') AND id > $2`, [props.afterId], `ORDER BY id LIMIT ${props.limit}`);
}
