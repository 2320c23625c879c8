import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode, modeOf } from '../../db/modeScope.js';
import { keyset, type PageRequest } from '../../db/keyset.js';
import type { SqlParams } from '../../db/sqlParams.js';
import type { Plan } from '../../auth/organizations.js';

/** An ACME-DNS registration (migration acme_dns_registrations): a name in the ACME-DNS zone and the credential that sets its TXT values. */
export interface AcmeDnsRegistration {
  id: string;
  orgId: string;
  livemode: boolean;
  username: string;
  /** HMAC-SHA256 of the password (KEY_HASH_SECRET); never presented. */
  passwordHash: Buffer;
  subdomain: string;
  zone: string;
  allowfrom: string[];
  /** The user who made it (their key or session); null for registrations made before it was kept. */
  createdBy: string | null;
  /** Newest first, at most two. */
  txtValues: string[];
  txtUpdatedAt: Date | null;
  createdAt: Date;
}

const COLUMNS = `id, org_id AS "orgId", livemode, username, password_hash AS "passwordHash", subdomain, zone, allowfrom,
  created_by AS "createdBy", txt_values AS "txtValues", txt_updated_at AS "txtUpdatedAt", created_at AS "createdAt"`;
const registrations = new ModeScopedTable<AcmeDnsRegistration>('acme_dns_registrations', COLUMNS);

/** A registration as an update finds it: with what its budget scales by and whether its maker may still act for the organisation. */
export interface AcmeDnsRegistrationOfUpdate extends AcmeDnsRegistration {
  orgPlan: Plan;
  /** False once `createdBy` is no longer a member of the organisation (true when it is null). */
  creatorIsMember: boolean;
}

const registrationsOfUpdates = new ModeScopedTable<AcmeDnsRegistrationOfUpdate>(
  'acme_dns_registrations',
  `${COLUMNS}, (SELECT o.plan FROM organizations o WHERE o.id = acme_dns_registrations.org_id) AS "orgPlan",
  (created_by IS NULL OR EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = acme_dns_registrations.org_id AND m.user_id = created_by)) AS "creatorIsMember"`,
);

/**
 * With `allowedIps` (a key's `allowed_ips`): only registrations whose `allowfrom` lies within them,
 * those such a key could have made (docs/api-guide.md, Certificates).
 */
function withinAddresses(p: SqlParams, allowedIps: readonly string[] | undefined): string {
  if (!allowedIps || allowedIps.length === 0) return 'TRUE';
  return `cardinality(allowfrom) > 0 AND NOT EXISTS (SELECT 1 FROM unnest(allowfrom) AS a WHERE NOT a::inet <<= ANY (${p.add(allowedIps)}::inet[]))`;
}

export function insertAcmeDnsRegistration(
  db: Queryable,
  mode: Mode,
  props: Pick<AcmeDnsRegistration, 'id' | 'orgId' | 'username' | 'passwordHash' | 'subdomain' | 'zone' | 'allowfrom'> & { createdBy?: string },
): Promise<AcmeDnsRegistration> {
  return registrations.insert(db, mode, {
    id: props.id,
    org_id: props.orgId,
    username: props.username,
    password_hash: props.passwordHash,
    subdomain: props.subdomain,
    zone: props.zone,
    allowfrom: props.allowfrom,
    created_by: props.createdBy ?? null,
  });
}

/**
 * The organisation's registrations in this mode, counted under a transaction lock that every
 * registration of the same organisation and mode takes first: call it in the transaction that inserts.
 */
export async function lockAndCountAcmeDnsRegistrations(db: Queryable, mode: Mode, orgId: string): Promise<number> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('acme_dns_registrations:' || $1::text))`, [`${orgId}:${mode.livemode ? 'live' : 'test'}`]);
  return registrations.count(db, mode, 'org_id = $2', [orgId]);
}

export function listAcmeDnsRegistrations(
  db: Queryable,
  mode: Mode,
  props: { orgId: string; allowedIps?: readonly string[] } & PageRequest,
): Promise<AcmeDnsRegistration[]> {
  const p = modeScopedParams();
  const where = `org_id = ${p.add(props.orgId)} AND ${withinAddresses(p, props.allowedIps)}`;
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return registrations.select(db, mode, `${where} AND ${page.condition}`, p.values, page.tail);
}

/** One of the organisation's registrations (within `allowedIps`, as listAcmeDnsRegistrations), locked for the rest of the transaction. */
export async function lockAcmeDnsRegistration(
  db: Queryable,
  mode: Mode,
  props: { orgId: string; id: string; allowedIps?: readonly string[] },
): Promise<AcmeDnsRegistration | undefined> {
  const p = modeScopedParams();
  const where = `org_id = ${p.add(props.orgId)} AND id = ${p.add(props.id)} AND ${withinAddresses(p, props.allowedIps)}`;
  const [row] = await registrations.select(db, mode, where, p.values, 'FOR UPDATE');
  return row;
}

/** By its credential's user name, in either mode (an update names no mode; user names are unique across both). */
export async function findAcmeDnsRegistrationByUsername(db: Queryable, username: string): Promise<AcmeDnsRegistrationOfUpdate | undefined> {
  const [live, test] = await Promise.all([true, false].map((livemode) => registrationsOfUpdates.findOne(db, modeOf(livemode), 'username = $2', [username])));
  return live ?? test;
}

/** By id, locked: the row an update changes. */
export async function lockAcmeDnsRegistrationById(db: Queryable, mode: Mode, id: string): Promise<AcmeDnsRegistration | undefined> {
  const [row] = await registrations.select(db, mode, 'id = $2', [id], 'FOR UPDATE');
  return row;
}

export async function setAcmeDnsTxtValues(db: Queryable, mode: Mode, props: { id: string; values: string[] }): Promise<void> {
  await registrations.update(db, mode, 'id = $2', [props.id], { txt_values: props.values }, { now: ['txt_updated_at'] });
}

export async function deleteAcmeDnsRegistration(db: Queryable, mode: Mode, id: string): Promise<void> {
  await registrations.delete(db, mode, 'id = $2', [id]);
}
