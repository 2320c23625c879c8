import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, modeScopedParams, type Mode } from '../../db/modeScope.js';
import { keyset, type PageRequest } from '../../db/keyset.js';

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
  /** Newest first, at most two. */
  txtValues: string[];
  txtUpdatedAt: Date | null;
  createdAt: Date;
}

const COLUMNS = `id, org_id AS "orgId", livemode, username, password_hash AS "passwordHash", subdomain, zone, allowfrom,
  txt_values AS "txtValues", txt_updated_at AS "txtUpdatedAt", created_at AS "createdAt"`;
const registrations = new ModeScopedTable<AcmeDnsRegistration>('acme_dns_registrations', COLUMNS);

export function insertAcmeDnsRegistration(
  db: Queryable,
  mode: Mode,
  props: Pick<AcmeDnsRegistration, 'id' | 'orgId' | 'username' | 'passwordHash' | 'subdomain' | 'zone' | 'allowfrom'>,
): Promise<AcmeDnsRegistration> {
  return registrations.insert(db, mode, {
    id: props.id,
    org_id: props.orgId,
    username: props.username,
    password_hash: props.passwordHash,
    subdomain: props.subdomain,
    zone: props.zone,
    allowfrom: props.allowfrom,
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

export function listAcmeDnsRegistrations(db: Queryable, mode: Mode, props: { orgId: string } & PageRequest): Promise<AcmeDnsRegistration[]> {
  const p = modeScopedParams();
  const where = `org_id = ${p.add(props.orgId)}`;
  const page = keyset(p, { time: 'created_at', id: 'id' }, props);
  return registrations.select(db, mode, `${where} AND ${page.condition}`, p.values, page.tail);
}

/** One of the organisation's registrations, locked for the rest of the transaction. */
export async function lockAcmeDnsRegistration(db: Queryable, mode: Mode, props: { orgId: string; id: string }): Promise<AcmeDnsRegistration | undefined> {
  const [row] = await registrations.select(db, mode, 'org_id = $2 AND id = $3', [props.orgId, props.id], 'FOR UPDATE');
  return row;
}

/** By its credential's user name, in either mode (an update names no mode; user names are unique across both). */
export async function findAcmeDnsRegistrationByUsername(db: Queryable, username: string): Promise<AcmeDnsRegistration | undefined> {
  const [live, test] = await Promise.all([true, false].map((livemode) => registrations.findOne(db, { livemode }, 'username = $2', [username])));
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
